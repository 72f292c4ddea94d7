// Focus mode's page: the timer's countdown, and reordering steps by drag or Alt+arrows.
// The timer lives on the server: every device and tab shows what it says (#focus-timer-live,
// fetched again on every change anywhere) and only counts down locally from the time left. When
// the countdown reaches the end, the page asks the server, which records the phase and moves on.
(function () {
  "use strict";

  var TICK_MS = 250;
  var ASK_EVERY_MS = 1000;  // at the end, at most one question a second until the server agrees

  function clock(ms) {
    var seconds = Math.max(0, Math.ceil(ms / 1000));
    var minutes = Math.floor(seconds / 60);
    var rest = seconds % 60;
    return (minutes < 10 ? "0" : "") + minutes + ":" + (rest < 10 ? "0" : "") + rest;
  }

  // The timer ----------------------------------------------------------------------------------

  function Timer(root) {
    this.root = root;
    this.live = root.querySelector("#focus-timer-live");
    this.saidEl = root.querySelector("[data-timer-said]");
    this.ticking = null;
    this.seen = null;
    this.askedAt = 0;
    var timer = this;
    this.live.addEventListener("htmx:beforeSwap", function (event) {
      if (event.detail.target === timer.live && timer.isOlder(event.detail.serverResponse)) {
        event.detail.shouldSwap = false;
      }
    });
    this.live.addEventListener("htmx:afterSwap", function (event) {
      if (event.target === timer.live) timer.read();
    });
    this.read();
  }

  // Answers about the timer can arrive in another order than the changes they answer (a refresh
  // sent before a pause, answered after it): one older than what the page shows is not swapped in,
  // or the countdown would start again from a state the timer has left.
  Timer.prototype.isOlder = function (html) {
    var now = this.live.querySelector("[data-timer-now]");
    var incoming = /data-revision="(\d+)"/.exec(html || "");
    return Boolean(now && incoming) && Number(incoming[1]) < Number(now.dataset.revision);
  };

  Timer.prototype.say = function (key) {
    // The live region speaks on changes of state only, never every second.
    this.saidEl.textContent = this.root.dataset[key] || "";
  };

  // What the server says now becomes this page's clock; a change from what it said before is
  // spoken. A page opened on a running timer says it goes on; a paused one says nothing.
  Timer.prototype.read = function () {
    var now = this.live.querySelector("[data-timer-now]");
    if (!now) return;
    var before = this.seen;
    var state = now.dataset.state;
    var phase = now.dataset.phase;
    var endedLocally = before && before.state === "RUNNING" && this.endsAt - Date.now() <= ASK_EVERY_MS;
    this.clockEl = now.querySelector("[data-timer-clock]");
    this.endsAt = state === "RUNNING" ? Date.now() + Number(now.dataset.remainingMs) : null;
    this.seen = { state: state, phase: phase };
    if (!before) {
      if (state === "RUNNING") this.say("saidResumed");
    } else if (before.phase === "WORK" && phase === "BREAK") {
      this.say("saidBreak");
    } else if (before.state !== state) {
      if (state === "PAUSED") this.say("saidPaused");
      else if (state === "RUNNING") this.say(before.state === "PAUSED" ? "saidResumed" : "saidStarted");
      else this.say(before.phase === "BREAK" && endedLocally ? "saidDone" : "saidReset");
    }
    window.clearInterval(this.ticking);
    this.ticking = null;
    if (this.endsAt !== null) {
      var timer = this;
      this.ticking = window.setInterval(function () { timer.tick(); }, TICK_MS);
      this.tick();
    }
  };

  Timer.prototype.tick = function () {
    var left = this.endsAt - Date.now();
    this.clockEl.textContent = clock(left);
    if (left <= 0 && Date.now() - this.askedAt >= ASK_EVERY_MS) {
      this.askedAt = Date.now();
      window.htmx.trigger(this.live, "timer:ended");
    }
  };

  // Reordering steps -------------------------------------------------------------------------------

  function submitOrder() {
    var form = document.querySelector("[data-reorder-form]");
    if (form) form.requestSubmit();
  }

  function stepOf(node) { return node && node.closest ? node.closest("[data-step]") : null; }

  var dragged = null;

  document.addEventListener("dragstart", function (event) {
    dragged = stepOf(event.target);
    if (!dragged) return;
    event.dataTransfer.effectAllowed = "move";
    event.dataTransfer.setData("text/plain", dragged.id);
    dragged.classList.add("is-dragging");
  });

  document.addEventListener("dragover", function (event) {
    var over = stepOf(event.target);
    if (!dragged || !over || over === dragged || over.parentNode !== dragged.parentNode) return;
    event.preventDefault();
    var box = over.getBoundingClientRect();
    var after = event.clientY > box.top + box.height / 2;
    over.parentNode.insertBefore(dragged, after ? over.nextSibling : over);
  });

  document.addEventListener("drop", function (event) {
    if (dragged) event.preventDefault();
  });

  document.addEventListener("dragend", function () {
    if (!dragged) return;
    dragged.classList.remove("is-dragging");
    dragged = null;
    submitOrder();
  });

  // Alt+↑ / Alt+↓ on a step presses its move button.
  document.addEventListener("keydown", function (event) {
    if (!event.altKey || (event.key !== "ArrowUp" && event.key !== "ArrowDown")) return;
    var step = stepOf(event.target);
    if (!step) return;
    var button = step.querySelector('[data-move="' + (event.key === "ArrowUp" ? "up" : "down") + '"]');
    if (button && !button.disabled) {
      event.preventDefault();
      button.click();
    }
  });

  // An answer to a change already brings the list; the refresh its own "domain:focus" would start
  // (meant for changes made elsewhere: the assistant, another tab) is skipped once.
  var answered = false;
  document.addEventListener("htmx:beforeOnLoad", function (event) {
    var target = event.detail.target;
    if (!target || target.id !== "focus-step-list" || event.detail.requestConfig.verb === "get") return;
    answered = (event.detail.xhr.getResponseHeader("HX-Trigger") || "").indexOf("domain:focus") !== -1;
  });
  document.addEventListener("htmx:beforeRequest", function (event) {
    if (answered && event.detail.elt.id === "focus-step-list" && event.detail.requestConfig.verb === "get") {
      answered = false;
      event.preventDefault();
    }
  });

  // After the list is repainted, the keyboard goes back where it was (or where the answer says).
  var focusedId = null;
  document.addEventListener("htmx:beforeSwap", function (event) {
    if (event.detail.target && event.detail.target.id === "focus-step-list") {
      focusedId = document.activeElement && document.activeElement.id;
    }
  });
  document.addEventListener("htmx:afterSettle", function () {
    var list = document.getElementById("focus-steps");
    if (!list) return;
    var marker = list.querySelector("[data-focus-after]");
    var wanted = marker ? marker.getAttribute("data-focus-after") : focusedId;
    if (marker) marker.remove();
    // Settling comes a moment after the swap: a key pressed elsewhere meanwhile keeps its place.
    var active = document.activeElement;
    if (active && active !== document.body && (!active.id || active.id !== focusedId)) wanted = null;
    var target = wanted && document.getElementById(wanted);
    if (target && target.disabled) {
      var row = stepOf(target);
      target = row && row.querySelector("[data-move]:not([disabled])");
    }
    if (target && document.activeElement !== target) target.focus();
    focusedId = null;
    answered = false;
  });

  // Start ------------------------------------------------------------------------------------------

  function start() {
    var root = document.querySelector("[data-focus-timer]");
    if (root && !root.timer) root.timer = new Timer(root);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
