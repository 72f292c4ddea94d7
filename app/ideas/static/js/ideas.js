// The Ideas board's moves: drag a note onto another cell, or press Alt+arrow on a focused note.
// Both post to the note's move route, the same one the menu's Move buttons post to without
// JavaScript; the board then refreshes itself on `domain:ideas` and the note keeps the focus.
(function () {
  "use strict";

  var DIRECTIONS = { ArrowLeft: "left", ArrowRight: "right", ArrowUp: "up", ArrowDown: "down" };
  var refocus = null; // the id of the note to focus once the board is repainted

  function move(note, values) {
    htmx.ajax("POST", note.getAttribute("data-move-url"), { source: note, values: values, swap: "none" });
  }

  document.addEventListener("keydown", function (event) {
    var note = event.target.closest && event.target.closest("[data-note-id]");
    if (!note || event.target !== note || !event.altKey || !DIRECTIONS[event.key]) return;
    event.preventDefault();
    move(note, { direction: DIRECTIONS[event.key] });
  });

  // Any action started on a note (its menu, a key, a drop) brings the keyboard back to it.
  document.addEventListener("htmx:beforeRequest", function (event) {
    var note = event.detail.elt.closest && event.detail.elt.closest("[data-note-id]");
    if (note) refocus = note.getAttribute("data-note-id");
  });

  document.addEventListener("htmx:afterSettle", function (event) {
    if (!refocus || !event.detail.target || event.detail.target.id !== "idea-board") return;
    var note = document.getElementById("note-" + refocus);
    refocus = null;
    if (note) note.focus();
  });

  // A note typed in place: the new empty form keeps the keyboard in its text box.
  document.addEventListener("htmx:afterSwap", function (event) {
    var form = event.detail.elt;
    if (form && form.id === "idea-new") {
      var text = document.getElementById("new-note-text");
      if (text) text.focus();
    }
  });

  // The board's redraw brings the new-note form's free places again: a place already chosen stays
  // chosen while it is still free.
  var chosenPlace = "";
  document.addEventListener("htmx:oobBeforeSwap", function (event) {
    if (event.detail.target && event.detail.target.id === "new-note-place") chosenPlace = event.detail.target.value;
  });
  document.addEventListener("htmx:oobAfterSwap", function () {
    var places = document.getElementById("new-note-place");
    if (!places || !chosenPlace) return;
    var option = places.querySelector('option[value="' + chosenPlace + '"]');
    if (option) option.selected = true;
    chosenPlace = "";
  });

  var dragged = null;
  document.addEventListener("dragstart", function (event) {
    var note = event.target.closest && event.target.closest("[data-note-id]");
    if (!note) return;
    dragged = note;
    note.classList.add("is-dragging");
    event.dataTransfer.effectAllowed = "move";
    event.dataTransfer.setData("text/plain", note.getAttribute("data-note-id"));
  });
  document.addEventListener("dragend", function () {
    if (dragged) dragged.classList.remove("is-dragging");
    dragged = null;
    document.querySelectorAll(".idea-cell.is-drop-target").forEach(function (cell) {
      cell.classList.remove("is-drop-target");
    });
  });
  document.addEventListener("dragover", function (event) {
    var cell = dragged && event.target.closest && event.target.closest(".idea-cell");
    if (!cell) return;
    event.preventDefault(); // this cell accepts the drop
    event.dataTransfer.dropEffect = "move";
    document.querySelectorAll(".idea-cell.is-drop-target").forEach(function (other) {
      if (other !== cell) other.classList.remove("is-drop-target");
    });
    cell.classList.add("is-drop-target");
  });
  document.addEventListener("drop", function (event) {
    var cell = dragged && event.target.closest && event.target.closest(".idea-cell");
    if (!cell) return;
    event.preventDefault();
    if (!cell.contains(dragged)) move(dragged, { cell: cell.getAttribute("data-cell") });
  });
})();
