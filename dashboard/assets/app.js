// slowpeer dashboard: live updates. The page is complete without this
// script; with it, the sections are replaced as the service sends them
// (server-sent events from /ui/events), and the page keeps going across a
// restart of the service.
"use strict";

(function () {
  const status = document.getElementById("status");
  if (!status || !window.EventSource) {
    return;
  }
  // The HTML last received for each live element, by id: an element is
  // replaced only when its HTML changed, so focus and scrolling stay put.
  const last = new Map();
  let source = null;
  let lostTimer = 0;

  function say(text) {
    if (status.textContent !== text) {
      status.textContent = text;
    }
  }

  function apply(html) {
    const t = document.createElement("template");
    t.innerHTML = html;
    for (const fresh of t.content.querySelectorAll("[data-live][id]")) {
      const cur = document.getElementById(fresh.id);
      if (!cur || last.get(fresh.id) === fresh.innerHTML) {
        continue;
      }
      last.set(fresh.id, fresh.innerHTML);
      cur.replaceChildren(...fresh.childNodes);
    }
  }

  function connect() {
    source = new EventSource("events");
    source.addEventListener("sections", function (e) {
      clearTimeout(lostTimer);
      lostTimer = 0;
      apply(e.data);
      say("Live: updates arrive by themselves.");
    });
    source.addEventListener("error", function () {
      // A stream cut short reconnects at once; say so only if the
      // service stays away.
      if (!lostTimer) {
        lostTimer = setTimeout(function () {
          say("Connection to the service lost; reconnecting. What you see may be old.");
        }, 3000);
      }
      if (source.readyState === EventSource.CLOSED) {
        // An answer that is not a stream (a proxy's error page, a
        // restart half done) closes EventSource for good: start again.
        setTimeout(connect, 2000);
      }
    });
  }

  say("Connecting for live updates.");
  connect();
})();
