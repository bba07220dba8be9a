// The replay viewer: arrow keys, Home/End and the slider step through the moves.
(function () {
  var nav = document.getElementById("replay-nav");
  if (!nav) return;
  var seq = parseInt(nav.dataset.seq, 10), last = parseInt(nav.dataset.last, 10);
  function go(n) {
    n = Math.max(0, Math.min(last, n));
    if (n !== seq) { window.location.search = "?seq=" + n; }
  }
  document.addEventListener("keydown", function (event) {
    if (event.target.tagName === "INPUT" && event.target.type !== "range") return;
    if (event.key === "ArrowLeft") { event.preventDefault(); go(seq - 1); }
    else if (event.key === "ArrowRight") { event.preventDefault(); go(seq + 1); }
    else if (event.key === "Home") { event.preventDefault(); go(0); }
    else if (event.key === "End") { event.preventDefault(); go(last); }
  });
  var slider = document.getElementById("slider");
  slider.addEventListener("change", function () { go(parseInt(slider.value, 10)); });
})();
