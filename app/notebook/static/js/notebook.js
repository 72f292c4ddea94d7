// A study page's blocks move with Alt+Up and Alt+Down on a focused block, posting to the block's
// move route (the same one its buttons post to without JavaScript); the blocks then refresh on
// `domain:notebook` and the moved block keeps the focus.
(function () {
  "use strict";

  var DIRECTIONS = { ArrowUp: "up", ArrowDown: "down" };
  var refocus = null;

  document.addEventListener("keydown", function (event) {
    var block = event.target.closest && event.target.closest("[data-block-id]");
    if (!block || event.target !== block || !event.altKey || !DIRECTIONS[event.key]) return;
    event.preventDefault();
    htmx.ajax("POST", block.getAttribute("data-move-url"),
              { source: block, values: { direction: DIRECTIONS[event.key] }, swap: "none" });
  });

  document.addEventListener("htmx:beforeRequest", function (event) {
    var block = event.detail.elt.closest && event.detail.elt.closest("[data-block-id]");
    if (block) refocus = block.getAttribute("data-block-id");
  });

  document.addEventListener("htmx:afterSettle", function (event) {
    if (!refocus || !event.detail.target || event.detail.target.id !== "page-blocks") return;
    var block = document.getElementById("block-" + refocus);
    refocus = null;
    if (block) block.focus();
  });
})();
