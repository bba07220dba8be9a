// pbem's service worker: shows the "your turn" pushes (pbem.notify.push) and opens the game on a click.
self.addEventListener("push", function (event) {
  var data = {};
  try { data = event.data ? event.data.json() : {}; } catch (e) { data = { title: "pbem", body: event.data.text() }; }
  event.waitUntil(self.registration.showNotification(data.title || "pbem: your turn", {
    body: data.body || "", tag: data.tag || "pbem", data: { url: data.url || "/" }
  }));
});
self.addEventListener("notificationclick", function (event) {
  event.notification.close();
  var url = new URL(event.notification.data.url, self.location.origin).href;
  event.waitUntil(clients.matchAll({ type: "window" }).then(function (open) {
    for (var i = 0; i < open.length; i++) {
      if (open[i].url === url && "focus" in open[i]) return open[i].focus();
    }
    return clients.openWindow(url);
  }));
});
