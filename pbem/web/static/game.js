// The game page: play by clicking the board, follow the game as it moves, zoom the picture.
//
// - A click on a place of the board (the picture's regions, drawn as an SVG over it) keeps the
//   legal moves that name every place clicked so far; the chooser offers just those. A move
//   button does the same for one move. Discovery's `place` shows the board after the move
//   (/preview.png: the engine stops before any draw or roll, and the chooser says that the rest
//   comes with the move) and turns the tile with "Rotate" before it is placed.
// - A chosen move is a step of the turn being built (issue 36 item 1): the server plays the steps
//   with the engine's preview (/turn: it never crosses a draw or a roll) and answers the page's
//   part as it would be, with an Undo for each step and Confirm; no step can follow one that
//   reached chance or ended the turn. Confirm sends the steps as one submission (POST /turn),
//   refused as a whole when the game moved since the page's version.
// - A refusal is shown beside the control that sent it (the typed field, Confirm, the turn where
//   a clicked move went), announced (role=alert, aria-describedby), the typed text kept, and the
//   board is the position it speaks of (a stale page is brought up to date first).
// - The page is brought up to date in place, so a turn of several steps keeps the scroll and the
//   zoom. The script's words are the page's (#ui-text, in the reader's language).
// - Every few seconds the page asks /live for the position's ETag (304 while nothing changed);
//   when it changed, the page's parts are fetched and swapped, the tab title says "(your turn)".
// Without JavaScript the buttons and the typed field post the form and the page reloads.
(function () {
  "use strict";
  var root = document.getElementById("game");
  if (!root) return;
  var gameId = root.dataset.game;
  var pollMs = parseInt(root.dataset.pollMs, 10) || 1500;
  var etag = root.dataset.etag;
  var zoom = "fit";
  var busy = false;
  var pick = { targets: [], candidates: null, index: 0 };
  var turn = { steps: [] };  // the steps of the turn built so far, in notation
  var turnUrl = root.dataset.pageUrl + "/turn";

  function $(id) { return document.getElementById(id); }
  // The page's words in the reader's language (a JSON block the page carries), with their values put in.
  var words = (function () {
    var node = document.getElementById("ui-text");
    try { return node ? JSON.parse(node.textContent) : {}; } catch (e) { return {}; }
  })();
  function say(key, fallback, values) {
    var text = words[key] || fallback;
    Object.keys(values || {}).forEach(function (name) { text = text.split("%(" + name + ")s").join(String(values[name])); });
    return text;
  }
  function data(id) {
    var node = $(id);
    return node ? JSON.parse(node.textContent) : [];
  }
  function moves() { return data("moves-data"); }
  function targets() { return data("targets-data"); }
  function previewWords() {
    var groups = root.querySelector(".groups");
    return groups && groups.dataset.preview ? groups.dataset.preview.split(" ") : [];
  }
  function announce(text) { var a = $("announce"); if (a) a.textContent = text; }

  // A refusal beside the control that sent it: after the typed field ("typed"), in the turn's box where
  // Confirm and the clicked moves go ("turn"), else at the top; null clears it.
  function showError(text, where) {
    var old = $("move-error");
    if (old) old.remove();
    var typed = $("move-text");
    if (typed) { typed.removeAttribute("aria-invalid"); typed.removeAttribute("aria-describedby"); }
    if (!text) return;
    var p = document.createElement("p");
    p.className = "error field-error";
    p.setAttribute("role", "alert");
    p.id = "move-error";
    p.textContent = text + " " + say("nothing_changed", "Nothing was changed.");
    var field = typed ? typed.closest(".typed") : null;
    var box = $("turn-error");
    if (where === "typed" && field) {
      field.insertAdjacentElement("afterend", p);
      typed.setAttribute("aria-invalid", "true");
      typed.setAttribute("aria-describedby", "move-error");
    } else if (box) {
      $("turn").hidden = false;
      box.appendChild(p);
    } else {
      $("move-error-box").appendChild(p);
    }
    var seen = p.getBoundingClientRect();
    if (seen.top < 0 || seen.bottom > window.innerHeight) p.scrollIntoView({ block: "center" });
  }

  // --- choosing a move on the board ----------------------------------------------------------
  function regions() { return Array.prototype.slice.call(root.querySelectorAll("#board-map .region")); }

  function movesOf(region) {
    return region.dataset.moves ? region.dataset.moves.split(" ").map(Number) : [];
  }

  function clearPick() {
    pick = { targets: [], candidates: null, index: 0 };
    regions().forEach(function (r) { r.classList.remove("picked", "narrows"); });
    var chooser = $("chooser");
    if (chooser) chooser.hidden = true;
    showPicture(null);
  }

  function clickRegion(region) {
    var named = movesOf(region);
    var target = region.dataset.target;
    var at = pick.targets.indexOf(target);
    if (at >= 0) {  // a second click on a place takes it back
      var rest = pick.targets.filter(function (t) { return t !== target; });
      clearPick();
      rest.forEach(function (t) { var r = regionByTarget(t); if (r) clickRegion(r); });
      return;
    }
    var kept = pick.candidates ? pick.candidates.filter(function (i) { return named.indexOf(i) >= 0; }) : named;
    if (!kept.length) {  // nothing joins the places clicked so far and this one: start again from here
      clearPick();
      kept = named;
    }
    pick.targets.push(target);
    pick.candidates = kept;
    pick.index = 0;
    markRegions();
    openChooser(pick.targets.join(" + "));
  }

  function regionByTarget(target) {
    return regions().filter(function (r) { return r.dataset.target === target; })[0];
  }

  // Picked places are marked; the places that would narrow the choice further are outlined.
  function markRegions() {
    var all = targets();
    var further = {};
    (pick.candidates || []).forEach(function (i) {
      (all[i] || []).forEach(function (t) { if (pick.targets.indexOf(t) < 0) further[t] = true; });
    });
    regions().forEach(function (r) {
      r.classList.toggle("picked", pick.targets.indexOf(r.dataset.target) >= 0);
      r.classList.toggle("narrows", !!further[r.dataset.target]);
    });
  }

  function chooseButton(index) {
    pick = { targets: targets()[index] || [], candidates: [index], index: 0 };
    markRegions();
    openChooser(null);
  }

  function previewable(text) {
    return previewWords().indexOf(text.split(" ")[0].toLowerCase()) >= 0;
  }

  function openChooser(where) {
    var chooser = $("chooser");
    var list = moves();
    var box = $("chooser-moves");
    if (!chooser || !box) return;
    var cands = pick.candidates || [];
    box.textContent = "";
    var more = regions().length ? "_or_click" : "";
    var title = cands.length === 1 ? say("play_this", "Play this move?") :
      where ? say("pick_at" + more, "%(count)s moves at %(place)s: pick one" + (more ? ", or click another place" : ""),
                  { count: cands.length, place: where }) :
        say("pick" + more, "%(count)s moves: pick one" + (more ? ", or click another place" : ""), { count: cands.length });
    $("chooser-title").textContent = title;
    if (cands.length > 1 && cands.every(function (i) { return previewable(list[i]); })) {
      // Rotations of one tile on one square: see each on the board, then place it.
      showPicture(list[cands[pick.index]]);
      addButton(box, say("rotate", "Rotate") + " \u21bb", "rotate", function () {
        pick.index = (pick.index + 1) % cands.length;
        showPicture(list[cands[pick.index]]);
        $("chooser-title").textContent = list[cands[pick.index]];
      }, "secondary");
      addButton(box, say("place_it", "Place it"), "place", function () { addStep(list[cands[pick.index]], "turn"); });
      $("chooser-title").textContent = list[cands[pick.index]];
    } else {
      if (cands.length === 1 && previewable(list[cands[0]])) showPicture(list[cands[0]]);
      cands.slice(0, 60).forEach(function (i) {
        addButton(box, list[i], null, function () { addStep(list[i], "turn"); });
      });
      if (cands.length > 60) {
        var more = document.createElement("p");
        more.textContent = say("more", "... and %(count)s more: click another place to narrow them down.",
                               { count: cands.length - 60 });
        box.appendChild(more);
      }
    }
    chooser.hidden = false;
    var first = box.querySelector("button");
    if (first) first.focus({ preventScroll: true });
  }

  function addButton(box, text, id, action, style) {
    var b = document.createElement("button");
    b.type = "button";
    b.className = "button chooser-move" + (style ? " " + style : "");
    if (id) b.id = "chooser-" + id;
    b.textContent = text;
    b.addEventListener("click", action);
    box.appendChild(b);
  }

  // The board after a previewable move (Discovery's placed tile), or the position itself.
  // A preview ends before anything is drawn or rolled: the note under the chooser's title says so.
  function showPicture(move) {
    var img = $("board-img");
    var map = $("board-map");
    var note = $("chooser-preview-note");
    if (note) note.hidden = !move;
    if (!img) return;
    if (!img.dataset.src) img.dataset.src = img.getAttribute("src");
    if (move) {  // the turn built so far and this move on it
      img.src = root.dataset.previewUrl + "?" + turn.steps.concat([move]).map(function (step) {
        return "move=" + encodeURIComponent(step);
      }).join("&");
      img.alt = say("board_if", "The board if you play %(move)s", { move: move });
      img.classList.add("preview");
      if (map) map.classList.add("dim");
    } else if (img.classList.contains("preview")) {
      img.src = img.dataset.src;
      img.alt = say("board", "The board");
      img.classList.remove("preview");
      if (map) map.classList.remove("dim");
    }
  }

  // --- building the turn, undoing a step, confirming it -------------------------------------
  function version() { var v = $("expected_version"); return v ? v.value : ""; }

  function answerOf(response) {
    return response.json().catch(function () {
      return { ok: false, message: say("not_taken", "The server did not take the move (%(status)s).",
                                       { status: response.status }) };
    });
  }

  function notSent() { return say("not_sent", "The move could not be sent (no connection?)."); }
  function started() { busy = true; root.classList.add("sending"); }
  function ended() { busy = false; root.classList.remove("sending"); }

  // A step more (a move chosen on the board, its button or the typed field): the turn is built again by the server.
  function addStep(text, where) {
    if (busy || !$("move-form")) return;
    build(turn.steps.concat([text]), where);
  }

  // The page's part as the steps leave it (GET /turn). A refused step changes nothing on the page (the typed text
  // stays); a stale page is brought up to date first, so the board is the position the refusal speaks of.
  function build(steps, where) {
    var typed = $("move-text");
    var kept = typed ? typed.value : "";
    started();
    var query = "?version=" + encodeURIComponent(version()) + steps.map(function (step) {
      return "&step=" + encodeURIComponent(step);
    }).join("");
    return fetch(turnUrl + query, { credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then(answerOf)
      .then(function (answer) {
        if (answer.ok) return showTurn(answer);
        ended();
        if (!answer.stale) { showError(answer.message, where); return; }
        return refresh(null).then(function () {
          var field = $("move-text");
          if (field && where === "typed") field.value = kept;
          showError(answer.message, where);
        });
      })
      .catch(function () { ended(); showError(notSent(), where); });
  }

  function showTurn(answer) {
    var doc = new DOMParser().parseFromString("<div id='live'>" + answer.html + "</div>", "text/html");
    var img = doc.getElementById("board-img");
    if (img && answer.picture) {
      img.setAttribute("src", answer.picture);
      img.setAttribute("alt", say("board_if", "The board if you play %(move)s", { move: answer.steps.join(", ") }));
      img.classList.add("preview");
    }
    return preloaded(doc).then(function () {
      $("live").replaceWith(document.importNode(doc.getElementById("live"), true));
      turn.steps = answer.steps;
      pick = { targets: [], candidates: null, index: 0 };
      ended();
      setup();
      var confirm = $("turn-confirm");
      if (confirm) confirm.focus({ preventScroll: true });
      announce(answer.steps.join(", "));
    });
  }

  // The steps sent as one submission (POST /turn); whatever the answer, the page shows the game as it is now.
  function confirmTurn() {
    var form = $("move-form");
    if (!form || busy || !turn.steps.length) return;
    started();
    var body = new FormData(form);
    body.delete("move");
    body.delete("text");
    turn.steps.forEach(function (step) { body.append("step", step); });
    fetch(turnUrl, { method: "POST", body: body, headers: { "Accept": "application/json" },
                     credentials: "same-origin" })
      .then(answerOf)
      .then(function (answer) {
        ended();
        announce(answer.message || "");
        return refresh(answer.ok ? answer.message : null).then(function () {
          if (!answer.ok) showError(answer.message, "turn");
        });
      })
      .catch(function () { ended(); showError(notSent(), "turn"); });
  }

  // The new board picture is loaded before the parts are swapped, so the board never blinks or jumps.
  function preloaded(doc) {
    var img = doc.getElementById("board-img");
    if (!img) return Promise.resolve();
    return new Promise(function (resolve) {
      var next = new Image();
      var timer = setTimeout(resolve, 3000);
      next.onload = next.onerror = function () { clearTimeout(timer); resolve(); };
      next.src = img.getAttribute("src");
    });
  }

  function refresh(message) {
    var doc;
    return fetch(root.dataset.pageUrl, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (response) { return response.text(); })
      .then(function (html) {
        doc = new DOMParser().parseFromString(html, "text/html");
        return preloaded(doc);
      })
      .then(function () {
        var fresh = doc.getElementById("game");
        if (!fresh) return;
        var wasMine = !!$("move-form");  // the move form is there exactly when the title says "(your turn)"
        ["live", "page-forms"].forEach(function (id) {
          var mine = $(id), theirs = doc.getElementById(id);
          if (mine && theirs) mine.replaceWith(document.importNode(theirs, true));
        });
        var flashes = $("flashes");
        if (flashes) {
          flashes.textContent = "";
          if (message) {
            var p = document.createElement("p");
            p.className = "flash";
            p.setAttribute("role", "status");
            p.textContent = message;
            flashes.appendChild(p);
          }
        }
        etag = fresh.dataset.etag;
        root.dataset.etag = etag;
        document.title = doc.title;
        pick = { targets: [], candidates: null, index: 0 };
        turn.steps = [];
        setup();
        var mine = !!$("move-form");
        if (mine && !wasMine) announce(say("your_turn", "It is your turn."));
      });
  }

  // --- following the game -----------------------------------------------------------------------
  function poll() {
    fetch(root.dataset.liveUrl, { credentials: "same-origin", cache: "no-store", headers: { "If-None-Match": '"' + etag + '"' } })
      .then(function (response) {
        if (response.status === 200) return response.json();
        return null;
      })
      .then(function (answer) {
        // A turn being built stays until it is confirmed or undone (a stale one is refused then, as a whole).
        if (answer && answer.etag !== etag && !busy && !pick.candidates && !turn.steps.length) return refresh(null);
      })
      .catch(function () { /* offline for a moment: ask again later */ })
      .then(function () { setTimeout(poll, pollMs); });
  }

  function countdowns() {
    Array.prototype.forEach.call(root.querySelectorAll("time.countdown"), function (node) {
      var left = (new Date(node.dataset.deadline) - new Date()) / 60000;
      var out = node.parentNode.querySelector(".left");
      if (!out) return;
      if (left <= 0) { out.textContent = say("passed", "(passed)"); return; }
      var d = Math.floor(left / 1440), h = Math.floor((left % 1440) / 60), m = Math.floor(left % 60);
      var parts = (d ? [say("days", "%(count)s d", { count: d })] : [])
        .concat(d || h ? [say("hours", "%(count)s h", { count: h })] : [])
        .concat([say("minutes", "%(count)s min", { count: m })]);
      out.textContent = say("left", "(in %(time)s)", { time: parts.join(" ") });
    });
  }

  // --- zoom ------------------------------------------------------------------------------------
  // Fit: as wide as the frame and as tall as most of the screen allow, never above the picture's own size;
  // the width is set before the picture loads, so its place is kept (the picture keeps its proportions).
  function applyZoom() {
    var canvas = $("board-canvas");
    var frame = $("board-frame");
    if (!canvas || !frame) return;
    var w = parseInt(canvas.dataset.width, 10), h = parseInt(canvas.dataset.height, 10);
    var fit = Math.min(w, frame.clientWidth, Math.max(240, window.innerHeight * 0.86) * w / h);
    canvas.classList.toggle("zoomed", zoom !== "fit");
    canvas.classList.add("sized");
    canvas.style.width = (zoom === "fit" ? fit : w * parseFloat(zoom)) + "px";
    Array.prototype.forEach.call(root.querySelectorAll("[data-zoom]"), function (b) {
      b.setAttribute("aria-pressed", String(b.dataset.zoom === zoom));
    });
    // A board larger than its frame scrolls: the keyboard must reach it too, even with no place to play in it.
    if (frame.scrollHeight > frame.clientHeight || frame.scrollWidth > frame.clientWidth) frame.tabIndex = 0;
    else frame.removeAttribute("tabindex");
  }

  // --- wiring (event delegation: the parts are swapped, the listeners stay) --------------------
  root.addEventListener("click", function (event) {
    var region = event.target.closest ? event.target.closest("#board-map .region") : null;
    if (region) { event.preventDefault(); clickRegion(region); return; }
    var button = event.target.closest ? event.target.closest(".move-button") : null;
    if (button) { event.preventDefault(); chooseButton(parseInt(button.dataset.index, 10)); return; }
    if (event.target.id === "chooser-cancel") { clearPick(); return; }
    var undo = event.target.closest ? event.target.closest(".turn-undo") : null;
    if (undo) { if (!busy) build(turn.steps.slice(0, parseInt(undo.dataset.undo, 10)), "turn"); return; }
    if (event.target.id === "turn-confirm") { confirmTurn(); return; }
    var z = event.target.closest ? event.target.closest("[data-zoom]") : null;
    if (z) { zoom = z.dataset.zoom; applyZoom(); }
  });
  root.addEventListener("keydown", function (event) {
    var region = event.target.closest ? event.target.closest("#board-map .region") : null;
    if (region && (event.key === "Enter" || event.key === " ")) { event.preventDefault(); clickRegion(region); }
    if (event.key === "Escape" && pick.candidates) { clearPick(); }
    if (event.key === "Enter" && event.target.id === "move-text") {  // in the typed field, its suggestions open or not
      event.preventDefault();
      if (event.target.value.trim()) addStep(event.target.value.trim(), "typed");
    }
  });
  root.addEventListener("submit", function (event) {
    if (event.target.id !== "move-form") return;
    event.preventDefault();  // the typed move (Enter in the field or the Play button)
    var typed = $("move-text");
    if (typed && typed.value.trim()) addStep(typed.value.trim(), "typed");
  });

  function setup() {
    applyZoom();
    countdowns();
  }
  setup();
  window.addEventListener("resize", applyZoom);
  setInterval(countdowns, 30000);
  setTimeout(poll, pollMs);
})();
