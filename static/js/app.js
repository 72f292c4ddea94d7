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
    var body = event.detail.target;
    if (box && body && body.id === "dialog-body" && !box.open && body.textContent.trim()) {
      box.showModal();
      var first = box.querySelector("[autofocus], input, select, textarea, button");
      if (first) first.focus();
      // An icon grid scrolls by itself: bring the chosen icon into its view.
      box.querySelectorAll("[data-icon-grid]").forEach(function (grid) {
        var chosen = grid.querySelector("input:checked");
        if (chosen) grid.scrollTop = chosen.parentNode.offsetTop - grid.clientHeight / 2;
      });
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

  // The phone's "More" sheet closes on Escape and on any click outside it (the assistant's launcher included).
  function openMenus() { return document.querySelectorAll("details[data-more-menu][open]"); }
  document.addEventListener("click", function (event) {
    openMenus().forEach(function (menu) {
      if (!menu.contains(event.target)) menu.open = false;
    });
  });
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") return;
    openMenus().forEach(function (menu) {
      menu.open = false;
      menu.querySelector("summary").focus();
    });
  });

  // One toast per kind at a time: a newer one replaces an older one of its kind (success, error…),
  // so quick actions say one thing each instead of stacking a column of notices. It holds for
  // both ways a toast arrives, the "toast" event below and a fragment's out-of-band swap.
  function keepNewestOfEachKind(region) {
    var seen = {};
    Array.prototype.slice.call(region.querySelectorAll(":scope > .toast")).reverse().forEach(function (toast) {
      var kind = (toast.className.match(/\btoast-(success|error|info|warning)\b/) || [])[1] || "";
      if (seen[kind]) toast.remove();
      seen[kind] = true;
    });
  }
  document.addEventListener("htmx:oobAfterSwap", function (event) {
    var region = event.detail.target;
    if (region && region.id === "toasts") keepNewestOfEachKind(region);
  });

  // A write's confirmation: the server names it in an HX-Trigger "toast" event ({message, kind}, and
  // a `link` {href, label} to what it made elsewhere); it joins the #toasts live region, so screen
  // readers hear it, and leaves by itself.
  document.body.addEventListener("toast", function (event) {
    var region = document.getElementById("toasts");
    var detail = event.detail || {};
    if (!region || !detail.message) return;
    var toast = document.createElement("div");
    toast.className = "toast toast-" + (detail.kind || "success");
    toast.setAttribute("role", detail.kind === "error" ? "alert" : "status");
    toast.setAttribute("data-testid", "toast");
    var title = document.createElement("strong");
    title.textContent = detail.message;
    toast.appendChild(title);
    if (detail.link) {
      var link = document.createElement("a");
      link.href = detail.link.href;
      link.textContent = detail.link.label;
      toast.appendChild(link);
      toast.classList.add("toast-lasting"); // a link needs time to be reached: it stays put, and longer
    }
    region.appendChild(toast);
    keepNewestOfEachKind(region);
    window.setTimeout(function () { toast.remove(); }, detail.link ? 12000 : detail.kind === "error" ? 8000 : 5000);
  });

  // Crossing a level is celebrated on any page: the shell's #celebration region shows the card
  // from its <template>, unless the response already brought its own celebration.
  document.body.addEventListener("level:up", function (event) {
    var region = document.getElementById("celebration");
    var card = document.getElementById("level-up-card");
    if (!region || !card || region.querySelector("dialog[open]")) return;
    var copy = card.content.cloneNode(true);
    copy.querySelectorAll("[data-level]").forEach(function (slot) { slot.textContent = event.detail.value; });
    region.replaceChildren(copy);
    var button = region.querySelector("button");
    if (button) button.focus();
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

// The assistant's panel -------------------------------------------------------------------
(function () {
  "use strict";

  function panel() { return document.getElementById("agent-panel"); }

  function setOpen(open) {
    var box = panel();
    if (!box) return;
    box.hidden = !open;
    document.querySelectorAll("[data-agent-open]").forEach(function (button) {
      button.setAttribute("aria-expanded", open ? "true" : "false");
    });
    if (open) focusComposer();
  }

  // Opening the panel puts the keyboard in the text box; on the first open the box arrives with
  // the panel's body, and a chat opened from the history brings a new one.
  function focusComposer() {
    var input = document.getElementById("composer-input");
    if (input && !input.disabled) input.focus();
  }
  document.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail.target;
    var box = panel();
    if (box && !box.hidden && target && (target.id === "agent-panel-body" || target.id === "agent-chat")) {
      focusComposer();
    }
  });
  // Sending (and a refused turn handing the text back) swaps in a new text box: the keyboard
  // stays in it, unless the user has moved on to something else.
  document.addEventListener("htmx:oobAfterSwap", function (event) {
    var replaced = event.detail.target;
    var box = panel();
    var lost = !document.activeElement || document.activeElement === document.body;
    if (replaced && replaced.id === "composer-input" && box && !box.hidden && lost) focusComposer();
  });

  document.addEventListener("click", function (event) {
    if (event.target.closest("[data-agent-open]")) setOpen(panel() ? panel().hidden : false);
    if (event.target.closest("[data-agent-close]")) setOpen(false);
    var toggle = event.target.closest("[data-toggle-history]");
    if (toggle) {
      var history = document.getElementById("agent-history");
      if (history) {
        history.hidden = !history.hidden;
        if (!history.hidden) htmx.trigger(document.body, "agent:history");
      }
    }
    if (event.target.closest("[data-close-history]")) {
      var drawer = document.getElementById("agent-history");
      if (drawer) drawer.hidden = true;
    }
  });

  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && panel() && !panel().hidden) setOpen(false);
    // Enter sends, Shift+Enter starts a new line.
    var input = event.target.closest && event.target.closest("[data-composer]");
    if (input && event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      if (input.value.trim()) input.form.requestSubmit();
    }
  });

  // Each message carries the page it was sent from (and, on the Focus screen, the entry open there).
  document.addEventListener("htmx:configRequest", function (event) {
    if (!event.detail.elt.closest || !event.detail.elt.closest("[data-composer-form]")) return;
    event.detail.parameters.page = (window.location.pathname + window.location.search).slice(0, 200);
    var focus = document.querySelector("[data-focus-entry-id]");
    if (focus) event.detail.parameters.focus_entry = focus.getAttribute("data-focus-entry-id");
  });

  // A tool that changed something tells the page, so open widgets listening for the domain refresh.
  document.addEventListener("htmx:sseMessage", function (event) {
    if (!event.detail || event.detail.type !== "tool") return;
    var match = /data-domains="([^"]*)"/.exec(event.detail.data || "");
    if (!match || !match[1]) return;
    match[1].split(" ").forEach(function (domain) {
      if (domain) htmx.trigger(document.body, "domain:" + domain);
    });
  });

  // `done` and `failed` end a turn: close its EventSource before the server closes the stream,
  // so the browser does not report (or retry) a connection that ended on purpose.
  document.addEventListener("htmx:sseBeforeMessage", function (event) {
    var message = event.detail;
    if (message && (message.type === "done" || message.type === "failed") && message.target) {
      message.target.close();
    }
  });

  // Keep the newest message in view while an answer streams in.
  document.addEventListener("htmx:afterSwap", function () {
    var list = document.getElementById("chat-messages");
    if (list) list.scrollTop = list.scrollHeight;
  });
  document.addEventListener("htmx:sseMessage", function () {
    var list = document.getElementById("chat-messages");
    if (list) list.scrollTop = list.scrollHeight;
  });
})();
