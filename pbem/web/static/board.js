// The board picture of a page (loaded on every page; game.js does the playing, this file the picture itself).
//
// - A board picture that cannot be loaded (no renderer for the game, or no picture for that move)
//   is taken off the page, leaving the board in words below it. (A script file, not an onerror
//   attribute: the Content-Security-Policy runs no inline script.)
// - Places big enough to tap (issue 36, item 4; WCAG 2.2, 2.5.8): the picture's places (#board-map
//   .region, its own geometry, drawn as an SVG over it) shrink with the picture. At the scale the
//   picture is shown at, a place whose shape is under TAP_PX CSS pixels is "far": its tap area grows to
//   a TAP_PX circle (a transparent .pad) and a tap on it zooms the picture, centred on it, to the scale
//   at which the smallest place is TAP_PX (the "Zoom to tap" button the toolbar gets, which game.js's
//   zoom handles like its other [data-zoom] buttons); there every place is its own shape and a tap
//   chooses it. Neighbouring far places may share a tap area: they all only zoom. Keys (Enter on a
//   focused place) choose at every scale: a key press has no size.
(function () {
  "use strict";
  var TAP_PX = 24;      // the least target size in CSS pixels (WCAG 2.2, 2.5.8)
  var ROOM = 1.04;      // a little more than TAP_PX, so rounding of the layout never leaves 23.9 px
  var ZOOM_STEP = 20;   // the tap zoom is rounded up to a twentieth of the picture's own size

  function $(id) { return document.getElementById(id); }

  function dropBrokenPicture() {
    var img = $("board-img");
    if (!img || img.dataset.watched) return;
    img.dataset.watched = "1";
    function drop() { if (img.parentNode) img.parentNode.removeChild(img); }
    if (img.complete && img.naturalWidth === 0) drop();
    else img.addEventListener("error", drop);
  }

  // The page's words in the reader's language (game.js reads the same block).
  function say(key, fallback) {
    var node = $("ui-text");
    try { return (node && JSON.parse(node.textContent)[key]) || fallback; } catch (e) { return fallback; }
  }

  function places(map) { return Array.prototype.slice.call(map.querySelectorAll(".region")); }

  function shapeOf(region) { return region.querySelector("circle:not(.pad), rect, polygon"); }

  // CSS pixels per picture pixel, as the picture is shown now (0 while it is not laid out).
  function scaleOf(map) {
    var box = map.viewBox && map.viewBox.baseVal;
    return box && box.width ? map.getBoundingClientRect().width / box.width : 0;
  }

  function boxOf(region) {
    try { return shapeOf(region).getBBox(); } catch (e) { return null; }
  }

  // The zoom (a share of the picture's own size, as the [data-zoom] buttons give it) at which the smallest place
  // is TAP_PX CSS pixels.
  function tapZoom(map) {
    var least = Infinity;
    places(map).forEach(function (region) {
      var box = boxOf(region);
      if (box) least = Math.min(least, box.width, box.height);
    });
    return least > 0 && least < Infinity ? Math.ceil(TAP_PX * ROOM / least * ZOOM_STEP) / ZOOM_STEP : 0;
  }

  // A far place's tap area: a TAP_PX circle around its shape's centre (none for a place big enough).
  function pad(region, box, radius) {
    var circle = region.querySelector(".pad");
    if (!radius) { if (circle) circle.remove(); return; }
    if (!circle) {
      circle = document.createElementNS("http://www.w3.org/2000/svg", "circle");
      circle.setAttribute("class", "pad");
      region.insertBefore(circle, region.firstChild);
    }
    circle.setAttribute("cx", String(box.x + box.width / 2));
    circle.setAttribute("cy", String(box.y + box.height / 2));
    circle.setAttribute("r", String(radius));
  }

  // "Zoom to tap" in the board's toolbar, made once per page part; its zoom follows the places shown.
  function zoomButton(map, zoom, needed) {
    var tools = document.querySelector(".board-tools");
    if (!tools) return null;
    var button = $("zoom-tap");
    if (!button) {
      button = document.createElement("button");
      button.type = "button";
      button.className = "button small";
      button.id = "zoom-tap";
      button.textContent = say("tap_zoom", "Zoom to tap");
      button.title = say("tap_zoom_help", "Zoom in until every place you can play is big enough to tap");
      var zooms = tools.querySelectorAll("[data-zoom]");
      var after = zooms.length ? zooms[zooms.length - 1] : null;
      if (after) after.insertAdjacentElement("afterend", button); else tools.appendChild(button);
      var canvas = $("board-canvas");
      var shown = canvas ? canvas.getBoundingClientRect().width / parseFloat(canvas.dataset.width || "0") : 0;
      button.setAttribute("aria-pressed", String(!!canvas && canvas.classList.contains("zoomed") &&
                                                 Math.abs(shown - zoom) < 0.01));
    }
    button.dataset.zoom = String(zoom);
    button.hidden = !needed && button.getAttribute("aria-pressed") !== "true";
    return button;
  }

  // Sort the places into those a tap chooses and those a tap zooms to, for the scale the picture is shown at.
  function classify() {
    var map = $("board-map");
    if (!map) return;
    var scale = scaleOf(map);
    if (!scale) return;
    var far = 0;
    places(map).forEach(function (region) {
      var box = boxOf(region);
      var small = !!box && Math.min(box.width, box.height) * scale < TAP_PX;
      region.classList.toggle("far", small);
      pad(region, box, small ? TAP_PX * ROOM / 2 / scale : 0);
      if (small) far += 1;
    });
    map.dataset.scale = scale.toFixed(3);
    map.dataset.far = String(far);
    zoomButton(map, tapZoom(map), far > 0);
  }

  // A tap on a far place: zoom (through the toolbar's button, so game.js keeps the zoom), then centre the place.
  function zoomTo(region) {
    var map = $("board-map");
    classify();
    var button = map ? zoomButton(map, tapZoom(map), true) : null;
    if (!button) return;
    button.click();
    classify();
    region.scrollIntoView({ block: "center", inline: "center" });
    region.focus({ preventScroll: true });
    var announce = $("announce");
    if (announce) announce.textContent = say("tap_zoomed", "The board is zoomed in: tap the place again to choose it.");
  }

  // Before game.js sees the click (capture on the document): a far place zooms instead of being chosen.
  document.addEventListener("click", function (event) {
    var region = event.target.closest ? event.target.closest("#board-map .region.far") : null;
    if (!region) return;
    event.preventDefault();
    event.stopPropagation();
    zoomTo(region);
  }, true);

  // The picture's part of a game page is swapped in place (game.js): watch the new canvas's size.
  var watched = null;
  var sizes = window.ResizeObserver ? new ResizeObserver(classify) : null;
  function watch() {
    dropBrokenPicture();
    var canvas = $("board-canvas");
    if (canvas !== watched && sizes) {
      if (watched) sizes.unobserve(watched);
      if (canvas) sizes.observe(canvas);
      watched = canvas;
    }
    classify();
  }
  var game = $("game");
  if (game && window.MutationObserver) new MutationObserver(watch).observe(game, { childList: true });
  if (!sizes) window.addEventListener("resize", classify);
  watch();
})();
