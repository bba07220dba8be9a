// Forms: a field that applies only with another field's value (Tapaono's free-mode options) is shown only then.
(function () {
  "use strict";
  var dependants = Array.prototype.slice.call(document.querySelectorAll("[data-applies-field]"));
  function update() {
    dependants.forEach(function (node) {
      var other = document.getElementById(node.dataset.appliesField);
      node.hidden = !!other && other.value !== node.dataset.appliesValue;
    });
  }
  dependants.forEach(function (node) {
    var other = document.getElementById(node.dataset.appliesField);
    if (other) other.addEventListener("change", update);
  });
  update();
})();
