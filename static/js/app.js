// The app's one hand-written script: what htmx's attributes cannot say on their own.
(function () {
  "use strict";

  // Every htmx request carries the CSRF token from <meta name="csrf-token">.
  document.addEventListener("htmx:configRequest", function (event) {
    var meta = document.querySelector('meta[name="csrf-token"]');
    if (meta) event.detail.headers["X-CSRFToken"] = meta.content;
  });

  // Sign-up fills the time zone from the browser; the server falls back to UTC.
  document.addEventListener("DOMContentLoaded", function () {
    var zone;
    try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone; } catch (e) { zone = ""; }
    document.querySelectorAll("input[data-browser-timezone]").forEach(function (input) {
      if (!input.value && zone) input.value = zone;
    });
  });

  // The shared dialog: opens when a fragment lands in #dialog-body, closes on request.
  function dialog() { return document.getElementById("dialog"); }
  document.addEventListener("htmx:afterSwap", function (event) {
    var box = dialog();
    if (box && event.detail.target && event.detail.target.id === "dialog-body" && !box.open) {
      box.showModal();
      var first = box.querySelector("[autofocus], input, select, textarea, button");
      if (first) first.focus();
    }
  });
  document.addEventListener("dialog:close", function () {
    var box = dialog();
    if (box && box.open) box.close();
  });
  document.addEventListener("click", function (event) {
    if (event.target.closest("[data-close-dialog]")) {
      var box = dialog();
      if (box && box.open) box.close();
    }
  });

  // Error fragments are meant to be seen: let htmx swap 4xx/5xx answers into their target.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var status = event.detail.xhr.status;
    if (status >= 400 && status !== 401) {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
    }
  });
})();
