// Live updates: one websocket per signed-in page (htmx's ws extension), see app/web/live.py.
// Every write of the user — another tab, another device, the assistant — arrives as
// {"domains": [...], "origin": ...} and is re-fired on <body> as `domain:<name>`, the events the
// page's widgets already listen for. The page that made a change refreshed itself already: the
// server skips this page's own writes (its tab id rides on every htmx request), and a write of a
// turn whose panel is open here ("turn:<id>") is left to the panel's tool events.
(function () {
  "use strict";

  var script = document.currentScript;
  var url = script.getAttribute("data-live-url");
  var allDomains = (script.getAttribute("data-domains") || "").split(" ").filter(Boolean);
  var tab = Math.random().toString(36).slice(2) + Date.now().toString(36);
  var SIGNED_OUT = 4401;
  var connections = 0;

  function fire(domains) {
    domains.forEach(function (domain) {
      if (allDomains.indexOf(domain) >= 0) htmx.trigger(document.body, "domain:" + domain);
    });
  }

  function watchedHere(origin) {
    if (!origin || origin.indexOf("turn:") !== 0) return false;
    var turn = origin.slice(5);
    return Array.prototype.some.call(document.querySelectorAll("[sse-connect]"), function (element) {
      return element.getAttribute("sse-connect").indexOf("/" + turn + "/") >= 0;
    });
  }

  document.addEventListener("htmx:configRequest", function (event) {
    event.detail.headers["X-Beyou-Tab"] = tab;
  });

  document.addEventListener("htmx:wsBeforeMessage", function (event) {
    event.preventDefault(); // a message is not HTML to swap
    var message;
    try {
      message = JSON.parse(event.detail.message);
    } catch (error) {
      return;
    }
    if (message.domains && !watchedHere(message.origin)) fire(message.domains);
  });

  // Back from a lost connection: whatever changed meanwhile was missed, so every widget refreshes.
  document.addEventListener("htmx:wsOpen", function () {
    connections += 1;
    document.body.setAttribute("data-live", "open");
    if (connections > 1) fire(allDomains);
  });

  // The ws extension reconnects with backoff by itself after a dropped connection. A socket
  // closed because its sign-in ended is not retried: the reload lands on the sign-in form.
  document.addEventListener("htmx:wsClose", function (event) {
    document.body.setAttribute("data-live", "closed");
    if (event.detail.event && event.detail.event.code === SIGNED_OUT) window.location.reload();
  });

  document.addEventListener("DOMContentLoaded", function () {
    var socket = document.createElement("div");
    socket.hidden = true;
    socket.setAttribute("hx-ext", "ws");
    socket.setAttribute("ws-connect", url + "?tab=" + encodeURIComponent(tab));
    document.body.appendChild(socket);
    htmx.process(socket);
  });
})();
