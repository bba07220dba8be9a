// The settings page's Web Push opt-in: subscribe this browser to "your turn" pushes, or leave.
(function () {
  "use strict";
  var box = document.getElementById("push-settings");
  if (!box) return;
  var state = document.getElementById("push-state");
  var on = document.getElementById("push-on");
  var off = document.getElementById("push-off");

  var words = (function () {  // the page's words in the reader's language
    var node = document.getElementById("ui-text");
    try { return node ? JSON.parse(node.textContent) : {}; } catch (e) { return {}; }
  })();
  function word(key, fallback) { return words[key] || fallback; }
  function say(text) { state.textContent = text; }
  function show(subscribed) {
    on.hidden = subscribed;
    off.hidden = !subscribed;
    say(subscribed ? word("on", "This browser gets a notification when it is your turn.") :
      word("off", "This browser gets no notifications."));
  }
  function post(url, body) {
    return fetch(url, { method: "POST", credentials: "same-origin", body: JSON.stringify(body),
      headers: { "Content-Type": "application/json", "X-CSRFToken": box.dataset.csrf } })
      .then(function (r) { return r.json(); });
  }
  function keyBytes(text) {
    var padded = (text + "===".slice((text.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
    var raw = atob(padded), out = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
    return out;
  }

  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) {
    say(word("cannot", "This browser cannot get push notifications; mail still works."));
    return;
  }
  var ready = navigator.serviceWorker.register(box.dataset.workerUrl);
  ready.then(function (reg) { return reg.pushManager.getSubscription(); })
    .then(function (sub) { show(!!sub); })
    .catch(function () { say(word("unavailable", "Push notifications are not available here.")); });

  on.addEventListener("click", function () {
    Notification.requestPermission().then(function (permission) {
      if (permission !== "granted") {
        say(word("blocked", "Notifications are blocked for this site in the browser's settings."));
        return;
      }
      return Promise.all([ready, fetch(box.dataset.keyUrl).then(function (r) { return r.json(); })])
        .then(function (both) {
          return both[0].pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(both[1].key) });
        })
        .then(function (sub) { return post(box.dataset.subscribeUrl, sub.toJSON()); })
        .then(function (answer) { if (answer.ok) show(true); else say(answer.message); });
    }).catch(function (error) {
      say(word("failed", "Could not turn notifications on: %(reason)s").split("%(reason)s").join(error.message));
    });
  });
  off.addEventListener("click", function () {
    ready.then(function (reg) { return reg.pushManager.getSubscription(); })
      .then(function (sub) {
        if (!sub) return show(false);
        var endpoint = sub.endpoint;
        return sub.unsubscribe().then(function () { return post(box.dataset.unsubscribeUrl, { endpoint: endpoint }); })
          .then(function () { show(false); });
      });
  });
})();
