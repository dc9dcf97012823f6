// SPDX-License-Identifier: Apache-2.0
// Drives headless Chromium over the DevTools protocol (Node's built-in
// WebSocket: node --experimental-websocket) through every view of a running
// zeitgeberd's status page, saves a PNG of each, and checks what a person
// would look at:
//   - every view renders and the browser console has no error;
//   - the clock plots have points;
//   - the GNSS view lists BeiDou satellites with their C/N0;
//   - the audit view offers the download.
// Prints one JSON summary line; exits 1 with the reason on a failed check.
//
//   node --experimental-websocket status_page_browser.mjs \
//     --chromium=/usr/bin/chromium --url=http://127.0.0.1:9124/ \
//     --out=/tmp/shots [--views=clock,gnss]
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const args = Object.fromEntries(process.argv.slice(2).map(a => {
  const m = a.match(/^--([^=]+)=(.*)$/);
  return m ? [m[1], m[2]] : [a, ""];
}));
const VIEWS = (args.views || "clock,sources,gnss,traffic,clients,audit,alarms").split(",");
const chromiumPath = args.chromium || "/usr/bin/chromium";
const base = args.url;
const out = args.out;
mkdirSync(out, { recursive: true });

const profile = mkdtempSync(join(tmpdir(), "zg-chromium-"));
const chrome = spawn(chromiumPath, [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
  "--no-first-run", "--disable-background-networking",
  "--disable-component-update", "--disable-sync",
  "--user-data-dir=" + profile, "--remote-debugging-port=0",
  "--window-size=1280,1000", "about:blank"], { stdio: ["ignore", "ignore", "pipe"] });

let failed = null;
function fail(msg) { failed = failed || msg; }
const deadline = setTimeout(() => { fail("timed out"); finish(); }, 90_000);

const wsUrl = await new Promise((resolve, reject) => {
  let err = "";
  chrome.stderr.on("data", d => {
    err += d;
    const m = err.match(/DevTools listening on (ws:\/\/\S+)/);
    if (m) resolve(m[1]);
  });
  chrome.on("exit", c => reject(new Error("chromium exited " + c + ": " + err)));
});

const ws = new WebSocket(wsUrl);
await new Promise((r, j) => { ws.onopen = r; ws.onerror = j; });
let nextId = 1;
const pending = new Map();
const consoleErrors = [];
ws.onmessage = ev => {
  const m = JSON.parse(ev.data);
  if (m.id && pending.has(m.id)) {
    const { resolve, reject } = pending.get(m.id);
    pending.delete(m.id);
    m.error ? reject(new Error(JSON.stringify(m.error))) : resolve(m.result);
    return;
  }
  if (m.method === "Runtime.consoleAPICalled" && ["error", "assert"].includes(m.params.type)) {
    consoleErrors.push(m.params.args.map(a => a.value ?? a.description).join(" "));
  } else if (m.method === "Runtime.exceptionThrown") {
    consoleErrors.push("exception: " + (m.params.exceptionDetails.exception?.description ||
                                        m.params.exceptionDetails.text));
  } else if (m.method === "Log.entryAdded" && m.params.entry.level === "error") {
    consoleErrors.push(m.params.entry.text + " " + (m.params.entry.url || ""));
  }
};
function send(method, params = {}, sessionId) {
  const id = nextId++;
  ws.send(JSON.stringify({ id, method, params, sessionId }));
  return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
}

const { targetId } = await send("Target.createTarget", { url: "about:blank" });
const { sessionId } = await send("Target.attachToTarget", { targetId, flatten: true });
const s = (method, params) => send(method, params, sessionId);
await s("Runtime.enable");
await s("Log.enable");
await s("Page.enable");
await s("Emulation.setDeviceMetricsOverride",
        { width: 1280, height: 1000, deviceScaleFactor: 1, mobile: false });

async function evaluate(expr) {
  const r = await s("Runtime.evaluate", { expression: expr, returnByValue: true });
  if (r.exceptionDetails) throw new Error(expr + ": " + r.exceptionDetails.text);
  return r.result.value;
}
async function waitFor(expr, what, ms = 20_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await evaluate(expr)) return true;
    await new Promise(r => setTimeout(r, 200));
  }
  fail("view never showed " + what);
  return false;
}

const summary = { views: {}, console_errors: consoleErrors };
await s("Page.navigate", { url: base });
for (const view of VIEWS) {
  await evaluate(`location.hash = "#${view}"`);
  const shown = await waitFor(
    `(() => { const v = document.getElementById("view");
              return v && v.dataset.view === "${view}" &&
                     document.getElementById("banner").hidden; })()`,
    view + " rendered without an error banner");
  const info = { rendered: shown };
  if (view === "clock") {
    await waitFor(`[...document.querySelectorAll("svg.plot")].every(p => +p.dataset.points >= 2)`,
                  "plot points");
    info.plot_points = await evaluate(
      `Object.fromEntries([...document.querySelectorAll("svg.plot")].map(p => [p.dataset.series, +p.dataset.points]))`);
    info.state = await evaluate(`document.querySelector(".card .v").textContent`);
    if (!Object.values(info.plot_points).every(n => n >= 2)) fail("clock plots without points");
  }
  if (view === "gnss") {
    await waitFor(`document.querySelectorAll('table.sats[data-system=beidou] tbody tr').length > 0`,
                  "BeiDou satellites");
    info.beidou = await evaluate(
      `[...document.querySelectorAll('table.sats[data-system=beidou] tbody tr')].map(r =>
         ({ prn: r.cells[0].textContent, cn0: r.cells[2].textContent, used: r.cells[3].textContent }))`);
    info.gps = await evaluate(
      `document.querySelectorAll('table.sats[data-system=gps] tbody tr').length`);
    info.signal = await evaluate(`document.getElementById("signal-state").textContent`);
    info.sky_points = await evaluate(`document.querySelectorAll("svg.sky circle:not(.ring)").length`);
    if (!info.beidou.length || info.beidou.some(b => !/^\d+(\.\d+)?$/.test(b.cn0)))
      fail("BeiDou satellites without C/N0: " + JSON.stringify(info.beidou));
  }
  if (view === "audit") {
    info.download = await evaluate(`document.getElementById("audit-download")?.getAttribute("href")`);
    info.records = await evaluate(`document.querySelectorAll("#view table tbody tr").length`);
    if (info.download !== "/audit.jsonl") fail("no audit download link");
  }
  const shot = await s("Page.captureScreenshot", { format: "png", captureBeyondViewport: true });
  writeFileSync(join(out, view + ".png"), Buffer.from(shot.data, "base64"));
  summary.views[view] = info;
}
if (consoleErrors.length) fail("console errors: " + consoleErrors.join(" | "));
finish();

function finish() {
  clearTimeout(deadline);
  summary.ok = !failed;
  if (failed) summary.failure = failed;
  console.log(JSON.stringify(summary));
  try { ws.close(); } catch (e) { /* closing anyway */ }
  chrome.kill("SIGKILL");
  rmSync(profile, { recursive: true, force: true });
  process.exit(failed ? 1 : 0);
}
