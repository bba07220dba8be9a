// The game page's table talk (pbem.web.play.talk): the panel is fetched into #talk, asked again every few
// seconds (an ETag: 304 while nothing changed), and its forms are sent with fetch, so that a refusal
// stands beside the form that sent it and the typed text stays. Without JavaScript #talk is a link to the
// panel's own page, whose forms post and reload.
(function () {
  "use strict";
  var box = document.getElementById("talk");
  if (!box || !window.fetch) return;
  var url = box.dataset.talkUrl;
  var pollMs = parseInt(box.dataset.pollMs, 10) || 5000;
  var etag = null;

  function typing() {
    var active = document.activeElement;
    return active && box.contains(active) && active.tagName === "TEXTAREA" && active.value;
  }
  function load(force) {
    if (!force && (document.hidden || typing())) return Promise.resolve();
    var headers = { "Accept": "text/html" };
    if (etag && !force) headers["If-None-Match"] = etag;
    return fetch(url, { headers: headers, credentials: "same-origin" }).then(function (response) {
      if (response.status === 304 || !response.ok) return;
      etag = response.headers.get("ETag");
      return response.text().then(function (html) { box.innerHTML = html; });
    }).catch(function () {});
  }
  function refusal(form, text) {
    var target = document.getElementById(form.dataset.errorBox) || form;
    target.textContent = "";
    var p = document.createElement("p");
    p.className = "error";
    p.setAttribute("role", "alert");
    p.textContent = text;
    target.appendChild(p);
  }
  box.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.matches(".talk-form, .talk-report, form.inline")) return;
    event.preventDefault();
    fetch(form.action, { method: "POST", body: new FormData(form), credentials: "same-origin",
                         headers: { "Accept": "application/json" } })
      .then(function (response) { return response.json().then(function (body) { return body; }); })
      .then(function (body) {
        if (body && body.ok) return load(true);
        refusal(form, (body && body.message) || "?");
      })
      .catch(function () { refusal(form, "The message could not be sent; try again."); });
  });
  load(true);
  setInterval(function () { load(false); }, pollMs);
})();
