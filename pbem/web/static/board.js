// A board picture that cannot be loaded (no renderer for the game, or no picture for that move)
// is taken off the page, leaving the board in words below it. (A script file, not an onerror
// attribute: the Content-Security-Policy runs no inline script.)
(function () {
  var img = document.getElementById("board-img");
  if (!img) return;
  function drop() { if (img.parentNode) img.parentNode.removeChild(img); }
  if (img.complete && img.naturalWidth === 0) drop();
  else img.addEventListener("error", drop);
})();
