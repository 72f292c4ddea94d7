// The tutor on a study page: Ctrl+Enter (or Cmd+Enter) sends the question, and the conversation
// scrolls to its latest answer when it refreshes. Without this script the form still posts.
(function () {
  "use strict";

  if (window.tutorReady) return; // the section may be swapped in again: bind once
  window.tutorReady = true;

  document.addEventListener("keydown", function (event) {
    if (event.target.id !== "tutor-question" || event.key !== "Enter" || !(event.ctrlKey || event.metaKey)) return;
    event.preventDefault();
    event.target.form.requestSubmit();
  });

  document.addEventListener("htmx:afterSettle", function (event) {
    if (!event.detail.target || event.detail.target.id !== "tutor-conversation") return;
    var latest = document.getElementById("tutor-latest");
    if (latest) latest.scrollIntoView({ block: "nearest" });
  });
})();
