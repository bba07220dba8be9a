// The replay viewer: steps through the moves without reloading the page.
// Keys: left/right arrow (previous/next), Home/End, space (play/pause); the slider; autoplay with a
// speed; the address keeps the move shown (#move=N), so a link opens the game at that move.
// A title without pictures (no board to swap) goes through the page's links instead.
(function () {
  "use strict";
  var root = document.getElementById("replay");
  if (!root) return;
  var steps = JSON.parse(document.getElementById("steps-data").textContent);
  var last = parseInt(root.dataset.last, 10);
  var seq = parseInt(root.dataset.seq, 10);
  var pictures = root.dataset.pictures === "yes";
  var img = document.getElementById("board-img");
  var slider = document.getElementById("slider");
  var playButton = document.getElementById("autoplay");
  var speed = document.getElementById("speed");
  var timer = null;
  var cache = {};
  var words = (function () {  // the page's words in the reader's language
    var node = document.getElementById("ui-text");
    try { return node ? JSON.parse(node.textContent) : {}; } catch (e) { return {}; }
  })();
  function say(key, fallback) { return words[key] || fallback; }

  // The picture's words are in the page's language: its address says which (`?lang=de`, none in English).
  function url(n) { return root.dataset.boardUrl + n + ".png" + (root.dataset.boardQuery || ""); }
  function preload(n) {
    if (n < 0 || n > last || cache[n]) return;
    cache[n] = new Image();
    cache[n].src = url(n);
  }

  function show(n, fromHash) {
    n = Math.max(0, Math.min(last, n));
    if (!pictures) {
      if (n !== seq) window.location.href = root.dataset.pageUrl + "?seq=" + n;
      return;
    }
    seq = n;
    img.src = url(n);
    img.alt = say("board_after", "The board after move %(number)s").split("%(number)s").join(String(n));
    slider.value = String(n);
    document.getElementById("seq").textContent = String(n);
    var what = document.getElementById("what");
    what.textContent = "";
    var step = steps[n] || {};
    if (n === 0 || !step.notation) {
      var start = document.createElement("span");
      start.id = "notation";
      start.textContent = say("start", "the start");
      what.appendChild(start);
    } else {
      var notation = document.createElement("span");
      notation.className = "notation";
      notation.id = "notation";
      notation.textContent = step.notation;
      var mover = document.createElement("span");
      mover.className = "pc-text pc-" + (step.colour || "none");
      mover.id = "mover";
      mover.textContent = step.player || "";
      what.appendChild(notation);
      what.appendChild(document.createTextNode(" " + say("by", "by") + " "));
      what.appendChild(mover);
    }
    var talk = document.getElementById("step-talk");
    if (talk) {  // the table's talk written at this move: text only, never markup
      talk.textContent = "";
      (step.talk || []).forEach(function (m) {
        var li = document.createElement("li");
        var who = document.createElement("strong");
        who.textContent = m.author;
        li.appendChild(who);
        var to = m.to ? " " + say("private_to", "(private, to %(names)s)").split("%(names)s").join(m.to.join(", ")) : "";
        li.appendChild(document.createTextNode(to + ": " + m.text));
        talk.appendChild(li);
      });
    }
    document.getElementById("permalink").href = "#move=" + n;
    document.getElementById("first").href = root.dataset.pageUrl + "?seq=0";
    document.getElementById("prev").href = root.dataset.pageUrl + "?seq=" + Math.max(0, n - 1);
    document.getElementById("next").href = root.dataset.pageUrl + "?seq=" + Math.min(last, n + 1);
    if (!fromHash) history.replaceState(null, "", "#move=" + n);
    preload(n + 1);
    preload(n - 1);
  }

  function stop() {
    if (timer) clearTimeout(timer);
    timer = null;
    playButton.setAttribute("aria-pressed", "false");
    playButton.textContent = say("play", "Play");
  }
  function tick() {
    if (seq >= last) { stop(); return; }
    show(seq + 1);
    timer = setTimeout(tick, parseInt(speed.value, 10));
  }
  function toggle() {
    if (timer) { stop(); return; }
    if (seq >= last) show(0);
    playButton.setAttribute("aria-pressed", "true");
    playButton.textContent = say("pause", "Pause");
    timer = setTimeout(tick, parseInt(speed.value, 10));
  }

  function fromHash() {
    var found = /move=(\d+)/.exec(window.location.hash);
    if (found) show(parseInt(found[1], 10), true);
  }

  function step(delta) { return function (event) { event.preventDefault(); stop(); show(seq + delta); }; }
  document.getElementById("prev").addEventListener("click", step(-1));
  document.getElementById("next").addEventListener("click", step(1));
  document.getElementById("first").addEventListener("click", function (e) { e.preventDefault(); stop(); show(0); });
  document.getElementById("last").addEventListener("click", function (e) { e.preventDefault(); stop(); show(last); });
  playButton.addEventListener("click", toggle);
  slider.addEventListener("input", function () { stop(); show(parseInt(slider.value, 10)); });
  slider.addEventListener("change", function () { stop(); show(parseInt(slider.value, 10)); });
  document.getElementById("slider-form").addEventListener("submit", function (e) { e.preventDefault(); });
  document.addEventListener("keydown", function (event) {
    var t = event.target;
    if (t.tagName === "SELECT" || (t.tagName === "INPUT" && t.type !== "range") || t.tagName === "TEXTAREA") return;
    if (event.key === "ArrowLeft") { event.preventDefault(); stop(); show(seq - 1); }
    else if (event.key === "ArrowRight") { event.preventDefault(); stop(); show(seq + 1); }
    else if (event.key === "Home") { event.preventDefault(); stop(); show(0); }
    else if (event.key === "End") { event.preventDefault(); stop(); show(last); }
    else if (event.key === " " && t.tagName !== "BUTTON" && t.tagName !== "A") { event.preventDefault(); toggle(); }
  });
  // Zoom: the picture at its own size (or twice it) in a frame that scrolls, or fitted to the screen.
  Array.prototype.forEach.call(document.querySelectorAll("[data-zoom]"), function (button) {
    button.addEventListener("click", function () {
      var canvas = document.getElementById("board-canvas");
      var zoom = button.dataset.zoom;
      canvas.classList.toggle("zoomed", zoom !== "fit");
      canvas.style.width = zoom === "fit" ? "" : (img.naturalWidth * parseFloat(zoom)) + "px";
      Array.prototype.forEach.call(document.querySelectorAll("[data-zoom]"), function (b) {
        b.setAttribute("aria-pressed", String(b === button));
      });
    });
  });
  window.addEventListener("hashchange", fromHash);
  fromHash();
  preload(seq + 1);
})();
