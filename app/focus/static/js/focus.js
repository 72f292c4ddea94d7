// Focus mode's page: the work/break timer, and reordering steps by drag or Alt+arrows.
// The timer reports a cycle only when it runs to its end, with an id made here, so a retry
// (a failed request, a reload while one is pending) records nothing twice. A running timer lives
// on when the page is reloaded or left: its state is kept per entry and restored on return.
(function () {
  "use strict";

  var PENDING_KEY = "beyou.focus.pendingCycles";
  var TICK_MS = 250;

  function csrfToken() {
    var meta = document.querySelector('meta[name="csrf-token"]');
    return meta ? meta.content : "";
  }

  function newCycleId() {
    if (window.crypto && window.crypto.randomUUID) return window.crypto.randomUUID();
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    var hex = Array.prototype.map.call(bytes, function (b) { return (b + 0x100).toString(16).slice(1); }).join("");
    return hex.slice(0, 8) + "-" + hex.slice(8, 12) + "-" + hex.slice(12, 16) + "-" + hex.slice(16, 20) + "-" + hex.slice(20);
  }

  function clock(ms) {
    var seconds = Math.max(0, Math.ceil(ms / 1000));
    var minutes = Math.floor(seconds / 60);
    var rest = seconds % 60;
    return (minutes < 10 ? "0" : "") + minutes + ":" + (rest < 10 ? "0" : "") + rest;
  }

  // Cycles not yet acknowledged by the server, kept across reloads ------------------------------

  function pending() {
    try { return JSON.parse(window.localStorage.getItem(PENDING_KEY) || "[]"); } catch (e) { return []; }
  }

  function keepPending(list) {
    try { window.localStorage.setItem(PENDING_KEY, JSON.stringify(list)); } catch (e) { /* private mode: memory only */ }
  }

  function forget(cycleId) {
    keepPending(pending().filter(function (cycle) { return cycle.cycle_id !== cycleId; }));
  }

  // The other tabs of an entry learn its new count here: the tab whose timer saw a phase end
  // first reports it, and the others only follow its timer.
  var counts = window.BroadcastChannel ? new window.BroadcastChannel("beyou.focus.cycles") : null;

  function send(cycle, attempt, onCounted) {
    var body = new FormData();
    body.append("cycle_id", cycle.cycle_id);
    body.append("kind", cycle.kind);
    body.append("minutes", String(cycle.minutes));
    fetch(cycle.url, { method: "POST", body: body, credentials: "same-origin", headers: { "X-CSRFToken": csrfToken() } })
      .then(function (response) {
        if (response.ok) return response.json();
        if (response.status >= 400 && response.status < 500) { forget(cycle.cycle_id); return null; }
        throw new Error("status " + response.status);
      })
      .then(function (answer) {
        if (!answer) return;
        forget(cycle.cycle_id);
        if (onCounted) onCounted(answer.cycles);
        if (counts) counts.postMessage({ url: cycle.url, cycles: answer.cycles });
        if (window.htmx) window.htmx.trigger(document.body, "domain:focus");
      })
      .catch(function () {
        if (attempt < 5) window.setTimeout(function () { send(cycle, attempt + 1, onCounted); }, 2000 * Math.pow(2, attempt));
      });
  }

  function record(cycle, onCounted) {
    var list = pending();
    if (!list.some(function (kept) { return kept.cycle_id === cycle.cycle_id; })) list.push(cycle);
    keepPending(list);
    send(cycle, 0, onCounted);
  }

  // The running timer, kept per entry across reloads and shared by the entry's tabs ------------------
  // One record per entry: the phase, the wall-clock moment it ends (a countdown would stop while
  // the page is closed) or the time left when paused, the cycle's id and the id the break after a
  // focus will take, and the day. Every tab that sees a phase end names the cycle the same.

  var STATE_PREFIX = "beyou.focus.timer.";

  function readState(key) {
    try { return JSON.parse(window.localStorage.getItem(key) || "null"); } catch (e) { return null; }
  }

  function writeState(key, state) {
    try {
      if (state) window.localStorage.setItem(key, JSON.stringify(state));
      else window.localStorage.removeItem(key);
    } catch (e) { /* private mode: this page only */ }
  }

  function dropOtherDays(today) {
    var keys = [];
    try {
      for (var i = 0; i < window.localStorage.length; i++) keys.push(window.localStorage.key(i));
    } catch (e) { return; }
    keys.forEach(function (key) {
      if (key && key.indexOf(STATE_PREFIX) === 0) {
        var state = readState(key);
        if (!state || state.day !== today) writeState(key, null);
      }
    });
  }

  // The timer --------------------------------------------------------------------------------------

  function Timer(root) {
    this.root = root;
    this.minutes = { WORK: Number(root.dataset.workMinutes), BREAK: Number(root.dataset.breakMinutes) };
    this.entryId = root.dataset.entryId;
    this.day = root.dataset.day;
    this.key = STATE_PREFIX + this.entryId;
    this.clockEl = root.querySelector("[data-timer-clock]");
    this.phaseEl = root.querySelector("[data-timer-phase]");
    this.saidEl = root.querySelector("[data-timer-said]");
    this.toggleEl = root.querySelector("[data-timer-toggle]");
    this.countEl = root.querySelector("[data-timer-count]");
    this.ticking = null;
    this.idle();
    var timer = this;
    this.toggleEl.addEventListener("click", function () { timer.running() ? timer.pause() : timer.start(); });
    root.querySelector("[data-timer-reset]").addEventListener("click", function () { timer.reset(); });
    // Another tab of this entry started, paused, reset or moved on: this one follows, quietly.
    window.addEventListener("storage", function (event) {
      if (event.key === timer.key) timer.restore(false);
    });
    dropOtherDays(this.day);
    this.restore(true);
  }

  Timer.prototype.length = function () { return this.minutes[this.phase] * 60 * 1000; };
  Timer.prototype.running = function () { return this.endsAt !== null; };

  Timer.prototype.idle = function () {
    this.phase = "WORK";
    this.endsAt = null;
    this.left = this.length();
    this.cycleId = null;
    this.breakCycleId = null;
  };

  Timer.prototype.say = function (key) {
    // The live region speaks on changes of state only, never every second.
    this.saidEl.textContent = this.root.dataset[key] || "";
  };

  Timer.prototype.save = function () {
    var untouched = this.phase === "WORK" && !this.running() && this.left === this.length();
    writeState(this.key, untouched ? null : {
      entry_id: this.entryId, day: this.day, phase: this.phase, ends_at: this.endsAt, left: this.left,
      cycle_id: this.cycleId, break_cycle_id: this.breakCycleId
    });
  };

  // The kept state of this entry and today, if any, becomes this timer's; a phase that ended
  // meanwhile is recorded and the timer moves on as it would have. `aloud`: say "resumed" once.
  Timer.prototype.restore = function (aloud) {
    var state = readState(this.key);
    var usable = state && state.entry_id === this.entryId && state.day === this.day &&
      (state.phase === "WORK" || state.phase === "BREAK") && typeof state.left === "number";
    this.halt();
    this.idle();
    if (!usable) {
      if (state) writeState(this.key, null);
      this.paint();
      return;
    }
    this.phase = state.phase;
    this.endsAt = typeof state.ends_at === "number" ? state.ends_at : null;
    this.left = state.left;
    this.cycleId = state.cycle_id || null;
    this.breakCycleId = state.break_cycle_id || null;
    this.tick();
    if (this.running()) {
      this.run();
      if (aloud) this.say("saidResumed");
    }
  };

  Timer.prototype.run = function () {
    var timer = this;
    if (!this.ticking) this.ticking = window.setInterval(function () { timer.tick(); }, TICK_MS);
  };

  Timer.prototype.halt = function () {
    window.clearInterval(this.ticking);
    this.ticking = null;
  };

  Timer.prototype.start = function () {
    var fresh = this.left === this.length();
    if (!this.cycleId) this.cycleId = newCycleId();
    if (this.phase === "WORK" && !this.breakCycleId) this.breakCycleId = newCycleId();
    this.endsAt = Date.now() + this.left;
    this.run();
    this.say(fresh ? (this.phase === "WORK" ? "saidStarted" : "saidBreak") : "saidResumed");
    this.save();
    this.paint();
  };

  Timer.prototype.pause = function () {
    this.tick();
    if (!this.running()) return;
    this.halt();
    this.endsAt = null;
    this.say("saidPaused");
    this.save();
    this.paint();
  };

  Timer.prototype.reset = function () {
    this.halt();
    this.idle();
    this.say("saidReset");
    this.save();
    this.paint();
  };

  Timer.prototype.tick = function () {
    while (this.running() && this.endsAt <= Date.now()) this.complete();
    if (this.running()) this.left = this.endsAt - Date.now();
    this.paint();
  };

  // A phase ran to its end: report it, and the break follows from the moment the focus ended
  // (even when no page was open to see it); after a break the timer waits for the next focus.
  Timer.prototype.complete = function () {
    var timer = this;
    record(
      { url: this.root.dataset.recordUrl, cycle_id: this.cycleId, kind: this.phase, minutes: this.minutes[this.phase] },
      function (count) { timer.count(count); }
    );
    if (this.phase === "WORK") {
      var focusEnded = this.endsAt;
      this.phase = "BREAK";
      this.cycleId = this.breakCycleId || newCycleId();
      this.breakCycleId = null;
      this.left = this.length();
      this.endsAt = focusEnded + this.left;
      this.say("saidBreak");
    } else {
      this.halt();
      this.idle();
      this.say("saidDone");
    }
    this.save();
  };

  Timer.prototype.count = function (count) {
    var one = this.root.querySelector("template[data-count-one]");
    var many = this.root.querySelector("template[data-count-many]");
    if (!this.countEl || !one || !many) return;
    this.countEl.textContent = count === 1 ? one.innerHTML.trim() : many.innerHTML.trim().replace("{n}", String(count));
  };

  Timer.prototype.paint = function () {
    this.clockEl.textContent = clock(this.left);
    this.phaseEl.textContent = this.root.dataset[this.phase === "WORK" ? "labelWork" : "labelBreak"];
    this.root.classList.toggle("is-break", this.phase === "BREAK");
    this.root.classList.toggle("is-running", this.running());
    var label = this.running() ? "labelPause" : this.left === this.length() ? "labelStart" : "labelResume";
    this.toggleEl.querySelector("span").textContent = this.root.dataset[label];
    this.toggleEl.querySelector("use").setAttribute("href", this.toggleEl.querySelector("use").getAttribute("href").replace(/#.*$/, this.running() ? "#pause" : "#play"));
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
    var waiting = pending();  // read first: a phase the timer finds ended is sent by the timer itself
    if (root && !root.timer) root.timer = new Timer(root);
    if (root && counts) {
      counts.addEventListener("message", function (event) {
        if (event.data.url === root.dataset.recordUrl) root.timer.count(event.data.cycles);
      });
    }
    waiting.forEach(function (cycle) {
      var here = root && root.timer && cycle.url === root.dataset.recordUrl;
      send(cycle, 0, here ? function (count) { root.timer.count(count); } : null);
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
