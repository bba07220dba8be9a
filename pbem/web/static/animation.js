// The animated replay: asks the server where it stands and downloads it once the worker has drawn it.
// No web request draws an animation: until it is drawn, the status address answers "preparing" with the
// seconds to wait, and this script asks again after them; the reader sees the server's sentence (in
// their language). On the replay page it starts when the link is clicked; on the page that says the
// animation is being prepared (data-start="now"), at once. An answer it cannot read leaves the link
// to work as a plain link.
(function () {
  "use strict";
  var link = document.getElementById("animation-link");
  var status = document.getElementById("animation-status");
  if (!link || !status || !link.dataset.statusUrl || !window.fetch) return;
  var MAX_WAIT_S = 60;
  var asking = false;
  var broken = false;

  function ask() {
    asking = true;
    fetch(link.dataset.statusUrl, {headers: {"Accept": "application/json"}, credentials: "same-origin",
                                   cache: "no-store"})
      .then(function (response) { return response.json(); })
      .then(function (answer) {
        if (answer.message) status.textContent = answer.message;
        if (answer.status === "preparing") {
          var wait = Math.min(MAX_WAIT_S, Math.max(1, answer.retry_after || 5));
          setTimeout(ask, wait * 1000);
          return;
        }
        asking = false;
        if (answer.status === "ready") window.location.href = link.href;  // an attachment: the page stays
      })
      .catch(function () { asking = false; broken = true; });
  }

  link.addEventListener("click", function (event) {
    if (broken) return;
    event.preventDefault();
    if (!asking) ask();
  });
  if (link.dataset.start === "now") ask();
})();
