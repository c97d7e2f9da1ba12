// schedbot console: the calendar's layout, drag and current-time line,
// and the live previews. Everything else is plain HTML forms. Text from
// the server is set with textContent only, never as HTML.
"use strict";
(function () {
  const meta = (n) => (document.querySelector('meta[name="' + n + '"]') || {}).content || "";
  const csrf = meta("csrf-token");
  const viewerTZ = meta("viewer-tz");
  const params = new URLSearchParams(location.search);

  // The viewer's own zone, once: remembered in a cookie the server reads.
  if (csrf && !document.cookie.split("; ").some((c) => c.startsWith("schedbot_tz=")) && !params.has("tz")) {
    let tz = "";
    try { tz = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { /* old browser: keep the default */ }
    document.cookie = "schedbot_tz=" + encodeURIComponent(tz || viewerTZ) + "; path=/console; max-age=31536000; samesite=lax";
    if (tz && tz !== viewerTZ) { location.reload(); return; }
  }

  function post(url, body, json) {
    const headers = { "X-CSRF-Token": csrf };
    if (json) headers["Content-Type"] = "application/json";
    return fetch(url, { method: "POST", headers: headers, body: json ? JSON.stringify(body) : body, credentials: "same-origin" });
  }

  const cal = document.getElementById("calendar");
  if (cal && cal.dataset.view !== "month") layoutGrid(cal);
  if (cal && !params.has("view") && window.matchMedia("(max-width: 700px)").matches && cal.dataset.view === "week") {
    params.set("view", "day");
    location.search = params.toString();
  }

  function hourPx(col) {
    const slot = col.querySelector(".slot");
    return slot ? slot.getBoundingClientRect().height : 48;
  }

  function layoutGrid(grid) {
    grid.querySelectorAll(".slots").forEach(function (slots) {
      const h = hourPx(slots);
      let lastTop = -100, stack = 0;
      slots.querySelectorAll(".ev").forEach(function (ev) {
        let top = (Number(ev.dataset.min) / 60) * h;
        if (top - lastTop < 18) { stack++; } else { stack = 0; lastTop = top; }
        ev.style.top = (top + stack * 18) + "px";
        ev.style.height = "16px";
        if (ev.dataset.once) makeDraggable(ev);
      });
      slots.classList.add("placed");
      const now = slots.querySelector(".now");
      if (now) {
        const place = () => { now.style.top = (Number(now.dataset.min) / 60) * h + "px"; };
        place();
        setInterval(function () { now.dataset.min = Number(now.dataset.min) + 1; place(); }, 60000);
      }
    });
  }

  // Drag a one-time job to another slot (an hour): it moves there, keeping
  // its minutes. Pointer events, so mouse, pen and touch all work; the job
  // page's "Move to" does the same by keyboard.
  function makeDraggable(ev) {
    let start = null, moved = false, target = null;
    ev.addEventListener("pointerdown", function (e) {
      if (e.button !== 0) return;
      start = { x: e.clientX, y: e.clientY };
      moved = false;
      ev.setPointerCapture(e.pointerId);
      e.preventDefault();
    });
    ev.addEventListener("pointermove", function (e) {
      if (!start) return;
      const dx = e.clientX - start.x, dy = e.clientY - start.y;
      if (!moved && Math.abs(dx) + Math.abs(dy) < 5) return;
      moved = true;
      ev.classList.add("dragging");
      ev.style.transform = "translate(" + dx + "px," + dy + "px)";
      ev.style.pointerEvents = "none";
      const under = document.elementFromPoint(e.clientX, e.clientY);
      ev.style.pointerEvents = "";
      const slot = slotAt(under, e.clientY);
      if (target && target !== slot) target.classList.remove("drop");
      target = slot;
      if (slot) slot.classList.add("drop");
    });
    ev.addEventListener("pointerup", function () {
      const wasMoved = moved, slot = target;
      start = null; moved = false; target = null;
      if (!wasMoved) { location.href = ev.getAttribute("href"); return; }
      ev.classList.remove("dragging");
      ev.style.transform = "";
      if (!slot) return;
      slot.classList.remove("drop");
      // The slot is an hour; the job keeps its minutes past the hour.
      const at = slot.dataset.at.slice(0, 14) + String(Number(ev.dataset.min) % 60).padStart(2, "0");
      const body = new URLSearchParams({ at: at, csrf: csrf });
      post("/console/schedules/" + encodeURIComponent(ev.dataset.job) + "/move", body).then(function (res) {
        if (res.ok) { location.reload(); return; }
        return res.text().then(function (t) { status("Could not move it: " + t); });
      });
    });
    ev.addEventListener("click", function (e) { e.preventDefault(); });
  }

  // slotAt is the hour slot of the column under the pointer at height y,
  // whatever lies on top of it there (another entry, the time line).
  function slotAt(under, y) {
    const col = under && under.closest(".slots");
    if (!col) return null;
    return [...col.querySelectorAll(".slot")].find(function (s) {
      const r = s.getBoundingClientRect();
      return y >= r.top && y < r.bottom;
    }) || null;
  }

  function status(text) {
    let el = document.getElementById("status");
    if (!el) {
      el = document.createElement("p");
      el.id = "status";
      el.className = "problem";
      el.setAttribute("role", "alert");
      document.querySelector("main").prepend(el);
    }
    el.textContent = text;
  }

  // Live previews: what schedbot understood, or the question it would ask.
  const fmt = (iso, tz) => {
    try {
      return new Intl.DateTimeFormat(undefined, { timeZone: tz, weekday: "short", day: "numeric", month: "short",
        year: "numeric", hour: "2-digit", minute: "2-digit", timeZoneName: "short" }).format(new Date(iso));
    } catch (e) { return iso; }
  };
  function show(box, res) {
    box.replaceChildren();
    const p = (text, cls) => { const el = document.createElement("p"); el.textContent = text; if (cls) el.className = cls; box.append(el); return el; };
    const d = res.decision || {};
    if (res.invalid) {
      const errs = (res.invalid.errors || []).map((f) => f.field + ": " + f.rule).join("; ");
      p("I can't create that: " + (errs || res.invalid.detail), "question");
    } else if (d.function === "schedule.create") {
      p("I'll schedule: " + (res.description || "") + ".", "understood");
      const args = d.args || {};
      const ta = args.targetAction || {};
      const text = (ta.functionArgs || {}).text || ta.workflowId || "";
      const where = (args.targetRef || {}).channelId;
      if (text) p("It posts “" + text + "”" + (where ? " in " + where : "") + ".");
      if ((res.nextRuns || []).length) {
        p("Next runs (" + viewerTZ + "):");
        const ol = document.createElement("ol");
        res.nextRuns.slice(0, 5).forEach(function (t) { const li = document.createElement("li"); li.textContent = fmt(t, viewerTZ); ol.append(li); });
        box.append(ol);
      }
    } else if (d.function) {
      p("That asks for " + d.function + ", not a new schedule.", "question");
    } else if (d.clarify) {
      p("I'd ask: " + d.clarify, "question");
    } else if (d.unsupported) {
      p("I can't: " + d.unsupported, "question");
    } else if (d.reply) {
      p(d.reply);
    }
  }
  function debounce(fn, ms) { let t; return function () { clearTimeout(t); t = setTimeout(fn, ms); }; }
  function live(box, ask) {
    let seq = 0;
    return debounce(function () {
      const mine = ++seq;
      ask().then(function (res) {
        if (mine !== seq || !res) return;
        if (!res.ok) { return res.text().then(function (t) { box.textContent = "Preview failed: " + t; }); }
        return res.json().then(function (j) { if (mine === seq) show(box, j); });
      }).catch(function () { box.textContent = "Preview failed: the server did not answer."; });
    }, 250);
  }
  const text = document.querySelector('textarea[data-preview="parse"]');
  if (text) {
    const box = document.getElementById("text-preview");
    const run = live(box, function () {
      if (!text.value.trim()) { box.replaceChildren(); return Promise.resolve(null); }
      return post("/console/api/parse", { text: text.value, tz: viewerTZ }, true);
    });
    text.addEventListener("input", run);
    if (text.value.trim()) run();
  }
  const form = document.querySelector('form[data-preview="form"]');
  if (form) {
    const box = document.getElementById("form-preview");
    const run = live(box, function () { return post("/console/preview", new URLSearchParams(new FormData(form))); });
    form.addEventListener("input", run);
    form.addEventListener("change", run);
  }
})();
