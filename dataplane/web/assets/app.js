// SPDX-License-Identifier: Apache-2.0
// zeitgeber's status page: each view polls its JSON endpoints (the same
// replies as zgctl --json) every poll_interval_ms and redraws itself. No
// library, no external asset: the server's Content-Security-Policy allows
// only this origin.
"use strict";

const state = { session: null, timer: null, range: "hour", gen: 0 };

// el("td", {class: "num"}, "12") builds an element.
function el(tag, attrs, ...children) {
  const svg = ["svg", "polyline", "line", "circle", "text", "g", "path"]
    .includes(tag);
  const e = svg ? document.createElementNS("http://www.w3.org/2000/svg", tag)
                : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

async function api(path) {
  const r = await fetch("/api/" + path, { credentials: "same-origin" });
  let body = null;
  try { body = await r.json(); } catch (e) { body = null; }
  if (!body || body.ok !== true) {
    const msg = body && body.error ? body.error.code + ": " + body.error.message
                                   : "HTTP " + r.status;
    const err = new Error(path + ": " + msg);
    err.code = body && body.error ? body.error.code : String(r.status);
    throw err;
  }
  return body.data;
}

// The view's data, or null when the endpoint says "unavailable".
async function apiOrNull(path) {
  try { return await api(path); } catch (e) {
    if (e.code === "unavailable" || e.code === "unknown_command") return null;
    throw e;
  }
}

function fmt(v, unit) {
  if (v === null || v === undefined) return "—";
  if (typeof v === "number") {
    const s = Math.abs(v) >= 1e6 || (v !== 0 && Math.abs(v) < 1e-3)
      ? v.toExponential(3) : (Number.isInteger(v) ? String(v) : v.toFixed(3));
    return unit ? s + " " + unit : s;
  }
  if (typeof v === "boolean") return v ? "yes" : "no";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

function stateClass(s) {
  const v = String(s || "").toUpperCase();
  if (["LOCKED", "SERVING", "UP", "SELECTED", "OK", "TRUE"].includes(v))
    return "state-ok";
  if (["HOLDOVER", "DEGRADED", "DRAINING", "WARNING", "STARTING"].includes(v))
    return "state-warn";
  return v ? "state-bad" : "";
}

function card(k, v, cls) {
  return el("div", { class: "card" }, el("div", { class: "k" }, k),
            el("div", { class: "v " + (cls || "") }, v));
}

// A table of objects: one column per scalar field (nested objects as JSON).
function table(rows, columns) {
  if (!rows || rows.length === 0) return el("p", {}, "none");
  const cols = columns || [...new Set(rows.flatMap(r => Object.keys(r)))];
  return el("table", {},
    el("thead", {}, el("tr", {}, cols.map(c => el("th", {}, c)))),
    el("tbody", {}, rows.map(r => el("tr", {}, cols.map(c => {
      const v = r[c];
      return el("td", { class: typeof v === "number" ? "num" : "" }, fmt(v));
    })))));
}

// An object as key/value rows; arrays of objects become their own tables.
function kv(obj) {
  const rows = [];
  const subtables = [];
  for (const [k, v] of Object.entries(obj || {})) {
    if (Array.isArray(v) && v.length && typeof v[0] === "object") {
      subtables.push(el("h2", {}, k), table(v));
    } else if (v && typeof v === "object" && !Array.isArray(v)) {
      for (const [k2, v2] of Object.entries(v))
        rows.push(el("tr", {}, el("th", {}, k + "." + k2), el("td", {}, fmt(v2))));
    } else {
      rows.push(el("tr", {}, el("th", {}, k), el("td", {}, fmt(v))));
    }
  }
  return [el("table", {}, el("tbody", {}, rows)), ...subtables];
}

// An SVG line plot of column `col` of history points [t, off, freq, err].
function plot(title, points, col, unit) {
  const W = 460, H = 180, L = 60, R = 10, T = 20, B = 24;
  const pts = points.filter(p => p[col] !== null && isFinite(p[col]));
  const svg = el("svg", { class: "plot", width: W, height: H,
                          "data-points": pts.length, "data-series": title });
  svg.append(el("text", { x: L, y: 13 }, title + (unit ? " (" + unit + ")" : "")));
  svg.append(el("line", { class: "axis", x1: L, y1: H - B, x2: W - R, y2: H - B }));
  svg.append(el("line", { class: "axis", x1: L, y1: T, x2: L, y2: H - B }));
  if (pts.length === 0) {
    svg.append(el("text", { x: L + 10, y: H / 2 }, "no data yet"));
    return svg;
  }
  const t0 = pts[0][0], t1 = Math.max(pts[pts.length - 1][0], t0 + 1);
  let lo = Math.min(...pts.map(p => p[col])), hi = Math.max(...pts.map(p => p[col]));
  if (hi - lo < 1e-9) { lo -= 1; hi += 1; }
  const x = t => L + (t - t0) / (t1 - t0) * (W - L - R);
  const y = v => H - B - (v - lo) / (hi - lo) * (H - T - B);
  svg.append(el("polyline", { class: "line",
    points: pts.map(p => x(p[0]).toFixed(1) + "," + y(p[col]).toFixed(1)).join(" ") }));
  svg.append(el("text", { x: 2, y: T + 8 }, fmt(hi)));
  svg.append(el("text", { x: 2, y: H - B }, fmt(lo)));
  const d = t => new Date(t * 1000).toISOString().slice(5, 19).replace("T", " ");
  svg.append(el("text", { x: L, y: H - 6 }, d(t0)));
  svg.append(el("text", { x: W - R - 90, y: H - 6 }, d(t1)));
  return svg;
}

const COLORS = { gps: "#2457c5", beidou: "#c5243a", galileo: "#1b7f3b",
                 glonass: "#8a4fc4", qzss: "#b26a00", sbas: "#5c667a" };

// Satellites by azimuth and elevation: the zenith in the middle.
function skyPlot(sats) {
  const S = 260, C = S / 2, Rr = C - 16;
  const svg = el("svg", { class: "sky", width: S, height: S,
                          "data-satellites": sats.length });
  for (const e of [0, 30, 60])
    svg.append(el("circle", { class: "ring", cx: C, cy: C, r: Rr * (90 - e) / 90 }));
  svg.append(el("text", { x: C - 3, y: 11 }, "N"));
  svg.append(el("text", { x: S - 11, y: C + 3 }, "E"));
  for (const s of sats) {
    if (s.azimuth_deg === null || s.elevation_deg === null) continue;
    const r = Rr * (90 - s.elevation_deg) / 90;
    const a = s.azimuth_deg * Math.PI / 180;
    const cx = C + r * Math.sin(a), cy = C - r * Math.cos(a);
    const color = COLORS[s.system] || "#5c667a";
    svg.append(el("circle", { cx: cx.toFixed(1), cy: cy.toFixed(1), r: 6,
      fill: s.used ? color : "#fff", stroke: color, "stroke-width": 2 }));
    svg.append(el("text", { x: (cx + 8).toFixed(1), y: (cy + 3).toFixed(1) },
                  s.system.slice(0, 1).toUpperCase() + (s.svid ?? s.prn)));
  }
  return svg;
}

const VIEWS = {
  async clock(root) {
    const [t, h] = await Promise.all([api("tracking"),
                                      api("history?range=" + state.range)]);
    const ho = t.holdover || {};
    root.append(el("div", { class: "cards" },
      card("state", t.state, stateClass(t.state)),
      card("selected source", fmt(t.selected_source)),
      card("offset", fmt(t.offset_ns, "ns")),
      card("frequency", fmt(t.frequency_ppb, "ppb")),
      card("error bound", fmt(t.error_bound_now_ns ?? t.error_bound_ns, "ns")),
      card("error growth", fmt(t.error_growth_ns_per_s, "ns/s")),
      card("clock class / stratum", fmt(t.clock_class) + " / " + fmt(t.stratum)),
      card("leap", fmt(t.leap)),
      card("holdover left in spec", fmt(ho.in_spec_left_s, "s"))));
    const ranges = el("div", { class: "ranges" }, ["hour", "day", "week"].map(r =>
      el("button", { class: r === state.range ? "active" : "", "data-range": r,
                     onclick: () => { state.range = r; refresh(); } }, "last " + r)));
    root.append(el("h2", {}, "History"), ranges, el("div", { class: "plots" },
      plot("offset", h.points, 1, "ns"), plot("frequency", h.points, 2, "ppb"),
      plot("error bound", h.points, 3, "ns")));
    root.append(el("h2", {}, "Tracking"), ...kv(t));
  },

  async sources(root) {
    const [s, st] = await Promise.all([api("sources"), api("sourcestats")]);
    const rows = s.sources.map(x => { const c = { ...x }; delete c.gnss; return c; });
    root.append(el("h2", {}, "Sources"), table(rows));
    root.append(el("h2", {}, "Sample statistics"),
                table(st.sources.map(x => { const c = { ...x }; delete c.gnss; return c; })));
  },

  async gnss(root) {
    const s = await api("sources");
    const gps = s.sources.filter(x => x.gnss);
    if (gps.length === 0) { root.append(el("p", {}, "no gpsd source")); return; }
    for (const src of gps) {
      const g = src.gnss;
      const sats = g.satellites || [];
      root.append(el("h2", {}, src.name),
        el("div", { class: "cards" },
          card("fix", fmt(g.fix), g.fix === "3d" ? "state-ok" : "state-warn"),
          card("position", g.position ? fmt(g.position.lat_deg) + ", " +
               fmt(g.position.lon_deg) + "  " + fmt(g.position.alt_m, "m") : "—"),
          card("satellites used / seen", g.satellites_used + " / " + g.satellites_seen),
          card("above 37 dB-Hz", fmt(g.satellites_strong)),
          card("signal", el("span", { class: g.signal_low ? "low" : "good",
                                      id: "signal-state" },
                            g.signal_low ? "signal low" : "signal good"))));
      const by = {};
      for (const sat of sats) (by[sat.system] = by[sat.system] || []).push(sat);
      const per = el("div", {});
      for (const sys of ["gps", "beidou", "galileo", "glonass",
                         ...Object.keys(by).filter(k => !["gps", "beidou", "galileo", "glonass"].includes(k))]) {
        const list = by[sys] || [];
        const c = (g.constellations || {})[sys] || { seen: 0, used: 0 };
        per.append(el("h2", {}, sys + " — " + c.used + " used of " + c.seen + " in view"));
        if (list.length) {
          per.append(el("table", { class: "sats", "data-system": sys },
            el("thead", {}, el("tr", {}, ["PRN", "SV", "C/N0 (dB-Hz)", "used",
                                          "elevation", "azimuth"].map(h => el("th", {}, h)))),
            el("tbody", {}, list.map(sat => el("tr", {},
              el("td", { class: "num" }, sat.prn), el("td", { class: "num" }, fmt(sat.svid)),
              el("td", { class: "num cn0" }, fmt(sat.ss_dbhz)), el("td", {}, fmt(sat.used)),
              el("td", { class: "num" }, fmt(sat.elevation_deg)),
              el("td", { class: "num" }, fmt(sat.azimuth_deg)))))));
        }
      }
      root.append(el("div", { class: "plots" }, skyPlot(sats), per));
    }
  },

  async traffic(root) {
    const [ss, w, p, ptp, subs] = await Promise.all([
      api("serverstats"), apiOrNull("workers"), apiOrNull("ports"),
      apiOrNull("ptp"), apiOrNull("ptp_subscribers")]);
    root.append(el("h2", {}, "Requests, replies and drops"), ...kv(ss));
    if (w) root.append(el("h2", {}, "Workers"), ...kv(w));
    if (p) root.append(el("h2", {}, "Ports"), ...kv(p));
    if (ptp) {
      const { ports, ...clock } = ptp;
      root.append(el("h2", {}, "PTP"), ...kv(clock));
      if (ports) {
        const t = table(ports.map(p => ({
          port: p.port, interface: p.interface, identity: p.port_identity,
          state: p.port_state, decision: p.decision,
          foreign_masters: p.foreign_masters,
          subscribers: p.unicast.subscribers,
          sent: Object.values(p.messages_sent).reduce((a, b) => a + b, 0),
        })));
        t.id = "ptp-ports";
        root.append(el("h2", {}, "PTP ports"), t);
      }
    }
    if (subs) root.append(el("h2", {}, "PTP subscribers"), ...kv(subs));
  },

  async clients(root) {
    const q = state.clientQuery || "";
    const form = el("form", { class: "filters", id: "client-search" },
      el("label", {}, "address", el("input", { name: "address", value: q,
                                               placeholder: "192.0.2.7" })),
      el("button", { type: "submit" }, "search"));
    form.addEventListener("submit", ev => {
      ev.preventDefault();
      state.clientQuery = form.elements.address.value.trim();
      refresh();
    });
    const data = await apiOrNull("clients?" + (q ? "address=" + encodeURIComponent(q)
                                                  : "top=50"));
    root.append(form);
    if (!data) { root.append(el("p", {}, "per-client records are off (--ntp_client_log)")); return; }
    root.append(...kv(data));
  },

  async audit(root) {
    const f = state.auditFilter || { kind: "", since: "1h" };
    const form = el("form", { class: "filters", id: "audit-filter" },
      el("label", {}, "kind", el("input", { name: "kind", value: f.kind,
                                            placeholder: "source_down,selection_switch" })),
      el("label", {}, "since", el("input", { name: "since", value: f.since,
                                             placeholder: "1h or 2026-01-01T00:00:00Z" })),
      el("button", { type: "submit" }, "filter"),
      state.session && state.session.audit_download
        ? el("a", { href: "/audit.jsonl", download: "zeitgeber-audit.jsonl",
                    id: "audit-download" }, "download the whole log (JSON Lines)")
        : null);
    form.addEventListener("submit", ev => {
      ev.preventDefault();
      state.auditFilter = { kind: form.elements.kind.value.trim(),
                            since: form.elements.since.value.trim() };
      refresh();
    });
    const args = new URLSearchParams({ limit: "200" });
    for (const k of f.kind.split(",").map(x => x.trim()).filter(x => x))
      args.append("kind", k);
    const since = sinceUtcNs(f.since);
    if (since === null) throw new Error("since: give 10m, 2h, 1d or a date");
    if (since) args.set("since_utc_ns", since);
    const data = await apiOrNull("audit?" + args.toString());
    root.append(form);
    if (!data) { root.append(el("p", {}, "zeitgeberd runs without --audit_log")); return; }
    const recs = (data.records || []).slice().reverse();
    root.append(el("p", {}, recs.length + " records, newest first"),
      table(recs.map(r => ({ seq: r.seq, utc: r.utc, event: r.event,
                             source: r.source, old: r.old, new: r.new,
                             values: r.values }))));
  },

  async alarms(root) {
    const all = !!state.alarmsAll;
    const data = await apiOrNull("alarms" + (all ? "?all=true" : ""));
    const toggle = el("label", { class: "toggle" },
      el("input", { type: "checkbox", id: "alarms-all", checked: all,
                    onchange: ev => { state.alarmsAll = ev.target.checked; refresh(); } }),
      " show cleared alarms too");
    root.append(toggle);
    if (!data) { root.append(el("p", {}, "no alarm table yet")); return; }
    root.append(el("div", { class: "cards" },
      card("alarms raised", fmt(data.active), data.active ? "state-bad" : "state-ok"),
      card("last event", fmt(data.last_seq))));
    const sev = s => "sev-" + String(s || "").toLowerCase();
    const rows = data.alarms || [];
    root.append(el("h2", {}, all ? "Alarms" : "Alarms raised"));
    if (rows.length === 0) {
      root.append(el("p", { id: "no-alarms" }, all ? "no alarms" : "no alarm is raised"));
    } else {
      root.append(el("table", { id: "alarm-table" },
        el("thead", {}, el("tr", {}, ["severity", "alarm", "instance", "state",
          "since (UTC)", "raises", "message"].map(h => el("th", {}, h)))),
        el("tbody", {}, rows.map(a => el("tr", { class: a.active ? "raised" : "cleared" },
          el("td", {}, el("span", { class: "sev " + sev(a.severity) }, a.severity)),
          el("td", {}, a.name), el("td", {}, a.instance || "—"),
          el("td", {}, a.active ? "raised" : "cleared"),
          el("td", {}, a.since_utc || "—"), el("td", { class: "num" }, a.raises),
          el("td", {}, a.message))))));
    }
    const events = (data.events || []).slice().reverse();
    root.append(el("h2", {}, "Latest alarm events, newest first"));
    root.append(events.length === 0 ? el("p", {}, "none") :
      el("table", { id: "alarm-events" },
        el("thead", {}, el("tr", {}, ["seq", "UTC", "alarm", "instance", "event",
          "severity", "message"].map(h => el("th", {}, h)))),
        el("tbody", {}, events.map(e => el("tr", {},
          el("td", { class: "num" }, e.seq), el("td", {}, e.utc), el("td", {}, e.name),
          el("td", {}, e.instance || "—"),
          el("td", { class: e.state === "raised" ? "state-bad" : "state-ok" }, e.state),
          el("td", {}, el("span", { class: "sev " + sev(e.severity) }, e.severity)),
          el("td", {}, e.message))))));
  },
};

// "10m", "2h", "1d" (ago) or a date -> nanoseconds since 1970 as a decimal
// string ("" for none, null if unreadable). Milliseconds, then six zeros:
// nanoseconds overflow a double's exact integers.
function sinceUtcNs(text) {
  if (!text) return "";
  const m = text.match(/^(\d+)\s*([smhd])$/);
  let ms;
  if (m) {
    const unit = { s: 1e3, m: 60e3, h: 3600e3, d: 86400e3 }[m[2]];
    ms = Date.now() - Number(m[1]) * unit;
  } else {
    ms = Date.parse(text);
    if (isNaN(ms)) return null;
  }
  return String(Math.max(0, Math.floor(ms))) + "000000";
}

// The changes this user may make (session.changes): drain, undrain, reload.
function serviceControls() {
  const changes = (state.session || {}).changes || [];
  if (!changes.length) return null;
  const out = el("span", { id: "change-result" });
  return el("div", { class: "filters" }, changes.map(c =>
    el("button", { "data-change": c, onclick: async () => {
      out.textContent = c + "…";
      const r = await fetch("/api/" + c, { method: "POST", body: "{}",
        headers: { "Content-Type": "application/json", "X-Zeitgeber-Change": "1" } });
      const body = await r.json().catch(() => null);
      out.textContent = c + ": " + (body && body.ok ? "done"
        : (body && body.error ? body.error.message : "HTTP " + r.status));
    } }, c)), out);
}

function currentView() {
  const v = location.hash.replace(/^#/, "");
  return VIEWS[v] ? v : "clock";
}

async function refresh() {
  clearTimeout(state.timer);
  const gen = ++state.gen;
  const name = currentView();
  for (const a of document.querySelectorAll("#nav a"))
    a.classList.toggle("active", a.getAttribute("href") === "#" + name);
  const fresh = el("main", { id: "view", "data-view": name });
  const banner = document.getElementById("banner");
  try {
    await VIEWS[name](fresh);
    if (gen !== state.gen) return;
    // Keep what the user is typing: forms are only replaced when not focused.
    const old = document.getElementById("view");
    if (!(old.contains(document.activeElement) &&
          document.activeElement.tagName === "INPUT")) {
      old.replaceWith(fresh);
    }
    banner.hidden = true;
    document.getElementById("updated").textContent =
      "updated " + new Date().toISOString();
  } catch (e) {
    if (gen !== state.gen) return;
    banner.hidden = false;
    banner.textContent = e.message;
  }
  state.timer = setTimeout(refresh, (state.session || {}).poll_interval_ms || 2000);
}

async function start() {
  try {
    state.session = await api("session");
    document.getElementById("session").textContent =
      (state.session.user ? "signed in as " + state.session.user : "read-only") +
      (state.session.https ? " · HTTPS" : "");
    const controls = serviceControls();
    if (controls) document.getElementById("service").append(controls);
  } catch (e) {
    const banner = document.getElementById("banner");
    banner.hidden = false;
    banner.textContent = e.message;
  }
  window.addEventListener("hashchange", refresh);
  refresh();
}

start();
