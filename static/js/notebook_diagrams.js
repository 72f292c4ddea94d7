// Mermaid diagrams, wherever they appear: a notebook page's diagram blocks and a diagram the
// assistant shows in its answer. Each `[data-mermaid]` holds its source in `[data-mermaid-source]`;
// the vendored Mermaid build is loaded the first time a diagram is on screen. The drawing goes in
// as an image (the page's Content-Security-Policy allows no inline styles, and Mermaid's SVG
// carries its own); source Mermaid cannot draw shows Mermaid's reason beside it, never a blank.
(function () {
  "use strict";

  var script = document.currentScript;
  var loading = null;
  var counter = 0;

  function mermaidReady() {
    if (window.mermaid) return Promise.resolve(window.mermaid);
    if (!loading) {
      loading = new Promise(function (resolve, reject) {
        var tag = document.createElement("script");
        tag.src = script.getAttribute("data-mermaid-src");
        tag.onload = function () {
          window.mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme: "neutral",
                                      flowchart: { htmlLabels: false }, suppressErrorRendering: true });
          resolve(window.mermaid);
        };
        tag.onerror = reject;
        document.head.appendChild(tag);
      });
    }
    return loading;
  }

  function showError(box, reason) {
    var error = box.querySelector("[data-mermaid-error]");
    var drawing = box.querySelector("[data-mermaid-drawing]");
    var details = box.querySelector("[data-mermaid-details]");
    if (drawing) drawing.hidden = true;
    if (details) details.open = true;
    if (error) {
      error.textContent = error.getAttribute("data-message").replace("{reason}", reason);
      error.hidden = false;
    }
    box.setAttribute("data-mermaid-state", "error");
  }

  function draw(box) {
    var source = box.querySelector("[data-mermaid-source]").textContent;
    box.setAttribute("data-mermaid-state", "drawing");
    return mermaidReady()
      .then(function (mermaid) {
        return mermaid.parse(source).then(function () {
          counter += 1;
          return mermaid.render("mermaid-drawing-" + counter, source);
        });
      })
      .then(function (result) {
        var drawing = box.querySelector("[data-mermaid-drawing]");
        var image = document.createElement("img");
        image.alt = drawing.getAttribute("aria-label") || "";
        image.style.maxWidth = "100%"; // through the CSSOM: the policy refuses inline style attributes
        image.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(result.svg);
        drawing.replaceChildren(image);
        drawing.removeAttribute("role");
        drawing.hidden = false;
        var details = box.querySelector("[data-mermaid-details]");
        if (details) details.open = false;
        var error = box.querySelector("[data-mermaid-error]");
        if (error) error.hidden = true;
        box.setAttribute("data-mermaid-state", "drawn");
      })
      .catch(function (problem) {
        var reason = (problem && (problem.message || problem.str)) || String(problem);
        showError(box, reason.split("\n").slice(0, 4).join(" "));
      });
  }

  // One diagram at a time: Mermaid keeps global state while it draws.
  var queue = Promise.resolve();
  function drawAll(root) {
    (root || document).querySelectorAll("[data-mermaid]:not([data-mermaid-state])").forEach(function (box) {
      box.setAttribute("data-mermaid-state", "waiting");
      queue = queue.then(function () { return draw(box); });
    });
  }

  document.addEventListener("DOMContentLoaded", function () { drawAll(document); });
  document.addEventListener("htmx:load", function (event) { drawAll(event.detail.elt.parentNode || document); });
  new MutationObserver(function (changes) {
    changes.forEach(function (change) {
      change.addedNodes.forEach(function (node) {
        if (node.nodeType !== 1) return;
        if (node.matches("[data-mermaid]") || node.querySelector("[data-mermaid]")) drawAll(node.parentNode || document);
      });
    });
  }).observe(document.documentElement, { childList: true, subtree: true });
})();
