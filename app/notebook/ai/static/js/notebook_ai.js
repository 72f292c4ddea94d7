// The tutor on a study page: Ctrl+Enter (or Cmd+Enter) sends the question; while the answer is
// being written the question already shows in the conversation (gone again if it is refused);
// and the conversation scrolls to its latest answer when it refreshes. Without this script the
// form still posts and the page reloads at the answer.
(function () {
  "use strict";

  if (window.tutorReady) return; // the section may be swapped in again: bind once
  window.tutorReady = true;

  function asking() {
    return document.getElementById("tutor-asking");
  }

  document.addEventListener("keydown", function (event) {
    if (event.target.id !== "tutor-question" || event.key !== "Enter" || !(event.ctrlKey || event.metaKey)) return;
    event.preventDefault();
    event.target.form.requestSubmit();
  });

  document.addEventListener("htmx:beforeRequest", function (event) {
    if (event.detail.elt.id !== "tutor-ask") return;
    var conversation = document.getElementById("tutor-conversation");
    var question = document.getElementById("tutor-question").value.trim();
    if (!conversation || !question || asking()) return;
    var bubble = document.createElement("p");
    bubble.id = "tutor-asking";
    bubble.className = "tutor-question tutor-asking";
    bubble.setAttribute("data-testid", "tutor-asking");
    bubble.textContent = question;
    conversation.appendChild(bubble);
    bubble.scrollIntoView({ block: "nearest" });
  });

  // Before the swap: the form is replaced, so its later events no longer reach the document.
  document.addEventListener("htmx:beforeSwap", function (event) {
    if (event.detail.elt.id === "tutor-ask" && event.detail.xhr.status >= 400 && asking()) asking().remove();
  });
  document.addEventListener("htmx:sendError", function (event) {
    if (event.detail.elt.id === "tutor-ask" && asking()) asking().remove();
  });

  document.addEventListener("htmx:afterSettle", function (event) {
    if (!event.detail.target || event.detail.target.id !== "tutor-conversation") return;
    var latest = document.getElementById("tutor-latest");
    if (latest) latest.scrollIntoView({ block: "nearest" });
  });
})();
