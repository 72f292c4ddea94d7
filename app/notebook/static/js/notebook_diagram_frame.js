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

  window.addEventListener("message", function (event) {
    var asked = event.data;
    if (event.source !== window.parent || event.origin !== origin || !asked || asked.kind !== "mermaid-draw") return;
    queue = queue.then(function () {
      return window.mermaid.parse(asked.source)
        .then(function () { return window.mermaid.render("drawing-" + asked.id, asked.source); })
        .then(function (result) {
          window.parent.postMessage({ kind: "mermaid-drawn", id: asked.id, svg: result.svg }, origin);
        })
        .catch(function (problem) {
          var reason = (problem && (problem.message || problem.str)) || String(problem);
          window.parent.postMessage({ kind: "mermaid-drawn", id: asked.id, error: reason }, origin);
        });
    });
  });
  window.parent.postMessage({ kind: "mermaid-ready" }, origin);
})();
