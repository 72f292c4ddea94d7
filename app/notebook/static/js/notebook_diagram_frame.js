// Inside the drawing frame (app/notebook/templates/notebook/diagram_frame.html): draws the Mermaid source the
// page posts, and posts back the SVG or Mermaid's reason for refusing it. The frame is sandboxed
// (an opaque origin: `window.origin` is "null"), so it listens to its parent alone, and only when
// the parent is the app's own page: the origin of the frame's URL.
(function () {
  "use strict";

  var origin = window.location.origin;
  window.mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme: "neutral",
                              htmlLabels: false, flowchart: { htmlLabels: false }, suppressErrorRendering: true });
  var queue = Promise.resolve();

  // Mermaid sizes its SVG to 100% of whatever holds it, so a small diagram shown as an image would
  // stretch to the page's width (a three-node flowchart a thousand pixels tall). Its viewBox is the
  // size it was laid out at: the page shows it at that size, never wider than the column.
  function drawnSize(svg) {
    var root = new DOMParser().parseFromString(svg, "image/svg+xml").documentElement;
    var box = (root.getAttribute("viewBox") || "").trim().split(/[\s,]+/).map(Number);
    if (box.length !== 4 || !(box[2] > 0) || !(box[3] > 0)) return { width: null, height: null };
    return { width: Math.ceil(box[2]), height: Math.ceil(box[3]) };
  }

  window.addEventListener("message", function (event) {
    var asked = event.data;
    if (event.source !== window.parent || event.origin !== origin || !asked || asked.kind !== "mermaid-draw") return;
    queue = queue.then(function () {
      return window.mermaid.parse(asked.source)
        .then(function () { return window.mermaid.render("drawing-" + asked.id, asked.source); })
        .then(function (result) {
          var size = drawnSize(result.svg);
          window.parent.postMessage({ kind: "mermaid-drawn", id: asked.id, svg: result.svg,
                                      width: size.width, height: size.height }, origin);
        })
        .catch(function (problem) {
          var reason = (problem && (problem.message || problem.str)) || String(problem);
          window.parent.postMessage({ kind: "mermaid-drawn", id: asked.id, error: reason }, origin);
        });
    });
  });
  window.parent.postMessage({ kind: "mermaid-ready" }, origin);
})();
