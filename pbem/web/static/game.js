// The game page: clicking a position on the board picture (an image map whose areas the
// renderer placed) picks the legal move that names it; the form sends once.
(function () {
  var img = document.getElementById("board-img");
  var areas = Array.prototype.slice.call(document.querySelectorAll("map[name=board-map] area"));
  var select = document.getElementById("move-select");
  var text = document.getElementById("move-text");
  var hint = document.getElementById("map-hint");

  // The picture is shown scaled to the screen; the map's pixel coordinates must follow it.
  function scaleMap() {
    if (!img || !img.naturalWidth) return;
    var k = img.clientWidth / img.naturalWidth;
    areas.forEach(function (area) {
      area.coords = area.dataset.coords.split(",").map(function (c) { return Math.round(c * k); }).join(",");
    });
  }
  if (img && areas.length) {
    if (img.complete) scaleMap(); else img.addEventListener("load", scaleMap);
    window.addEventListener("resize", scaleMap);
  }
  areas.forEach(function (area) {
    area.addEventListener("click", function (event) {
      event.preventDefault();
      var moves = JSON.parse(area.dataset.moves || "[]");
      if (!moves.length || !select) return;
      select.value = moves[0];
      if (text) text.value = "";
      if (hint) {
        hint.hidden = false;
        hint.textContent = moves.length === 1 ? "Chosen: " + moves[0]
          : moves.length + " moves at " + area.title + ": " + moves.join(" | ") + " (first one chosen)";
      }
      select.focus();
    });
  });

  var form = document.getElementById("move-form");
  if (form) {
    form.addEventListener("submit", function () {
      // The idempotency key makes a second post harmless; this only spares the round trip.
      var button = document.getElementById("play");
      setTimeout(function () { button.disabled = true; }, 0);
    });
  }
})();
