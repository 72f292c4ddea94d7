// Mermaid diagrams, wherever they appear: a notebook page's diagram blocks and a diagram the
// assistant shows in its answer. Each `[data-mermaid]` holds its source in `[data-mermaid-source]`.
// Mermaid needs inline styles, which the pages' Content-Security-Policy refuses, so it runs in a
// hidden frame with a policy of its own (notebook.diagram_frame), loaded the first time a diagram is
// on screen; the SVG it sends back goes in as an image. The frame is sandboxed with scripts only:
// its origin is opaque, so whatever a hostile diagram (the model's, say) makes Mermaid build in
// there reaches neither this page, nor its cookies, nor the app. Its messages come from origin
// "null", and are taken from that frame's window alone. Source Mermaid cannot draw shows
// Mermaid's reason beside it, never a blank.
(function () {
  "use strict";

  var script = document.currentScript;
  var frameReady = null;
  var waiting = {};
  var counter = 0;

  function frame() {
    if (!frameReady) {
      frameReady = new Promise(function (resolve) {
        var box = document.createElement("iframe");
        box.setAttribute("sandbox", "allow-scripts");
        box.src = script.getAttribute("data-mermaid-frame");
        box.title = "Mermaid";
        box.tabIndex = -1;
        box.setAttribute("aria-hidden", "true");
        // Laid out (Mermaid measures text) but off screen; set through the CSSOM, which the policy allows.
        box.style.position = "absolute";
        box.style.left = "-10000px";
        box.style.top = "0";
        box.style.width = "1200px";
        box.style.height = "900px";
        box.style.border = "0";
        window.addEventListener("message", function (event) {
          if (event.source !== box.contentWindow || event.origin !== "null") return;
          var answer = event.data || {};
          if (answer.kind === "mermaid-ready") resolve(box.contentWindow);
          if (answer.kind === "mermaid-drawn" && waiting[answer.id]) {
            waiting[answer.id](answer);
            delete waiting[answer.id];
          }
        });
        document.body.appendChild(box);
      });
    }
    return frameReady;
  }

  function drawn(source) {
    return frame().then(function (drawer) {
      counter += 1;
      var id = counter;
      return new Promise(function (resolve) {
        waiting[id] = resolve;
        // An opaque origin matches no target origin but "*"; the window is the frame's own.
        drawer.postMessage({ kind: "mermaid-draw", id: id, source: source }, "*");
      });
    });
  }

  function show(box, answer) {
    var drawing = box.querySelector("[data-mermaid-drawing]");
    var error = box.querySelector("[data-mermaid-error]");
    var details = box.querySelector("[data-mermaid-details]");
    if (answer.error) {
      var reason = answer.error.split("\n").slice(0, 4).join(" ");
      drawing.hidden = true;
      details.open = true;
      error.textContent = error.getAttribute("data-message").replace("{reason}", reason);
      error.hidden = false;
      box.setAttribute("data-mermaid-state", "error");
      return;
    }
    var image = document.createElement("img");
    image.alt = drawing.getAttribute("aria-label") || "";
    image.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(answer.svg);
    if (answer.width && answer.height) {
      // Its own size, never wider than the column nor taller than most of a screen; a capped
      // picture keeps its proportions inside its box.
      image.width = answer.width;
      image.height = answer.height;
    }
    image.style.maxWidth = "100%";
    image.style.height = "auto";
    image.style.maxHeight = "min(75vh, 40rem)";
    image.style.objectFit = "contain";
    drawing.replaceChildren(image);
    drawing.removeAttribute("role");
    drawing.hidden = false;
    details.open = false;
    error.hidden = true;
    box.setAttribute("data-mermaid-state", "drawn");
  }

  function drawAll(root) {
    (root || document).querySelectorAll("[data-mermaid]:not([data-mermaid-state])").forEach(function (box) {
      box.setAttribute("data-mermaid-state", "drawing");
      drawn(box.querySelector("[data-mermaid-source]").textContent).then(function (answer) { show(box, answer); });
    });
  }

  document.addEventListener("DOMContentLoaded", function () { drawAll(document); });
  // Fragments swapped in by htmx and the assistant's answers streamed into the panel.
  new MutationObserver(function (changes) {
    changes.forEach(function (change) {
      change.addedNodes.forEach(function (node) {
        if (node.nodeType === 1 && (node.matches("[data-mermaid]") || node.querySelector("[data-mermaid]"))) {
          drawAll(node.parentNode || document);
        }
      });
    });
  }).observe(document.documentElement, { childList: true, subtree: true });
})();
