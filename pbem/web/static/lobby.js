// The lobby follows the games by itself (issue 36 item 8), as the game page does: it asks /lobby/live with the
// stamp it was drawn from (an ETag; 304 while nothing changed) every data-poll-ms, and when the stamp changed it
// fetches the page again and puts its lists in place. It waits while a field of the lobby has the focus (a colour
// being chosen to join), so nothing is taken from under the hand. Without script the lobby is a plain page.
(function () {
  "use strict";
  var root = document.getElementById("lobby");
  if (!root || !window.fetch || !window.DOMParser) return;
  var pollMs = parseInt(root.dataset.pollMs, 10) || 3000;
  var etag = root.dataset.etag;
  var script = document.getElementById("lobby-script");
  var updatedWords = (script && script.dataset.updated) || "The list of games was updated.";

  function busy() {
    var active = document.activeElement;
    return !!(active && root.contains(active) && /^(SELECT|INPUT|TEXTAREA)$/.test(active.tagName));
  }

  function refresh() {
    return fetch(window.location.href, { credentials: "same-origin", cache: "no-store" })
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (html) {
        if (!html) return;
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = doc.getElementById("lobby");
        if (!fresh) return;
        root.innerHTML = fresh.innerHTML;
        etag = fresh.dataset.etag;
        root.dataset.etag = etag;
        document.title = doc.title;
        var announce = document.getElementById("lobby-announce");
        if (announce) announce.textContent = updatedWords;
      });
  }

  function poll() {
    fetch(root.dataset.liveUrl, { credentials: "same-origin", cache: "no-store", headers: { "If-None-Match": '"' + etag + '"' } })
      .then(function (response) { return response.status === 200 ? response.json() : null; })
      .then(function (answer) {
        if (answer && answer.etag !== etag && !busy()) return refresh();
      })
      .catch(function () { /* offline for a moment: ask again later */ })
      .then(function () { setTimeout(poll, pollMs); });
  }

  setTimeout(poll, pollMs);
})();
