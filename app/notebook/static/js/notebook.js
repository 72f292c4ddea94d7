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

// The section bar of a study page: the link of the section being read carries aria-current, and
// a link followed moves the focus to its section, so the keyboard and a screen reader go on from there.
(function () {
  "use strict";

  var bar = document.querySelector("[data-page-sections]");
  if (!bar) return;
  var links = Array.prototype.slice.call(bar.querySelectorAll("a[href^='#']"));

  function section(link) { return document.getElementById(link.getAttribute("href").slice(1)); }

  var chosen = null; // the link followed, current until the reader scrolls on: a short last section
                      // never reaches the top of the screen

  function markCurrent() {
    // Otherwise the last section whose top has reached the top of the screen is the one being read.
    var current = links[0];
    if (chosen && Math.abs(window.scrollY - chosen.at) < 2) {
      current = chosen.link;
    } else {
      chosen = null;
      links.forEach(function (link) {
        var target = section(link);
        if (target && target.getBoundingClientRect().top <= 96) current = link;
      });
    }
    links.forEach(function (link) {
      if (link === current) link.setAttribute("aria-current", "true");
      else link.removeAttribute("aria-current");
    });
  }

  bar.addEventListener("click", function (event) {
    var link = event.target.closest("a[href^='#']");
    var target = link && section(link);
    if (!target) return;
    if (!target.hasAttribute("tabindex")) target.setAttribute("tabindex", "-1");
    // After the jump, so the browser's own scrolling to the anchor is what the reader sees.
    window.setTimeout(function () {
      target.focus({ preventScroll: true });
      chosen = { link: link, at: window.scrollY };
      markCurrent();
    }, 0);
  });
  var pending = false;
  window.addEventListener("scroll", function () {
    if (pending) return;
    pending = true;
    window.requestAnimationFrame(function () { pending = false; markCurrent(); });
  }, { passive: true });
  markCurrent();
})();
