// The studio of a study page (app/notebook/ai/templates/notebook/ai/_studio*.html): a citation chip opens the
// passage it points to under its output, marks it and moves the keyboard there; without this
// script the chip is still a link to that passage.
(function () {
  "use strict";

  document.addEventListener("click", function (event) {
    var chip = event.target.closest && event.target.closest("a.studio-cite");
    if (!chip) return;
    var passage = document.getElementById(chip.getAttribute("href").slice(1));
    if (!passage) return;
    event.preventDefault();
    var shown = passage.closest(".studio-passages");
    if (shown) shown.querySelectorAll("li.is-shown").forEach(function (item) { item.classList.remove("is-shown"); });
    var details = passage.querySelector("details");
    if (details) details.open = true;
    passage.classList.add("is-shown");
    var summary = passage.querySelector("summary");
    if (summary) {
      summary.focus();
      summary.scrollIntoView({ block: "nearest", behavior: "smooth" });
    }
  });
})();
