#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Drives Debian's headless Chromium over the DevTools protocol
(python3-websocket) through every view of a running zeitgeberd's status page,
saves a PNG of each, and checks what a person would look at:
  - every view renders without an error banner, and the browser console
    shows no error (console.error, uncaught exceptions, failed loads);
  - the clock plots have points;
  - the GNSS view lists BeiDou satellites with their C/N0;
  - the traffic view lists the PTP ports /api/ptp lists, with their state;
  - the audit view offers the whole log for download;
  - the alarms view lists the alarms /api/alarms lists, and its events.
Prints one JSON summary line; exits 1 with the reason when a check fails.

  status_page_browser.py --chromium=/usr/bin/chromium \\
      --url=https://10.97.0.1:9124/ --out=/tmp/shots [--views=clock,gnss] \\
      [--auth=USER:PASSWORD] [--spki=BASE64]
--auth sends HTTP Basic credentials with every request (the page's users);
--spki trusts exactly the server key with that SHA-256 (a test CA's server
certificate) and nothing else.
"""
import argparse
import base64
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import websocket

VIEWS = "clock,sources,gnss,traffic,clients,audit,alarms"


class Browser:
    def __init__(self, chromium, extra_args):
        self.profile = tempfile.mkdtemp(prefix="zg-chromium-")
        self.proc = subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu",
             "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--user-data-dir=" + self.profile,
             "--remote-debugging-port=0", "--window-size=1280,1000"] +
            extra_args + ["about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        url = None
        deadline = time.time() + 30
        while time.time() < deadline and url is None:
            line = self.proc.stderr.readline()
            if not line and self.proc.poll() is not None:
                raise RuntimeError("chromium exited: %s" % self.proc.returncode)
            m = re.search(r"DevTools listening on (ws://\S+)", line)
            if m:
                url = m.group(1)
        if url is None:
            raise RuntimeError("chromium printed no DevTools address")
        self.ws = websocket.create_connection(url, timeout=30)
        self.next_id = 0
        self.session = None
        self.errors = []

    def send(self, method, params=None, session=True):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        self.ws.send(json.dumps(msg))
        while True:
            m = json.loads(self.ws.recv())
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            self.event(m)

    def event(self, m):
        method, p = m.get("method"), m.get("params", {})
        if method == "Runtime.consoleAPICalled" and p["type"] in ("error", "assert"):
            self.errors.append(" ".join(str(a.get("value", a.get("description")))
                                        for a in p["args"]))
        elif method == "Runtime.exceptionThrown":
            d = p["exceptionDetails"]
            self.errors.append("exception: " +
                               d.get("exception", {}).get("description", d["text"]))
        elif method == "Log.entryAdded" and p["entry"]["level"] == "error":
            self.errors.append(p["entry"]["text"] + " " + p["entry"].get("url", ""))

    def open(self):
        target = self.send("Target.createTarget", {"url": "about:blank"},
                           session=False)["targetId"]
        self.session = self.send("Target.attachToTarget",
                                 {"targetId": target, "flatten": True},
                                 session=False)["sessionId"]
        for domain in ("Runtime", "Log", "Page"):
            self.send(domain + ".enable")
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": 1280, "height": 1000, "deviceScaleFactor": 1,
                   "mobile": False})

    def eval(self, expr, await_promise=False):
        r = self.send("Runtime.evaluate",
                      {"expression": expr, "returnByValue": True,
                       "awaitPromise": await_promise})
        if "exceptionDetails" in r:
            raise RuntimeError("%s: %s" % (expr, r["exceptionDetails"]["text"]))
        return r["result"].get("value")

    def wait_for(self, expr, seconds=20):
        deadline = time.time() + seconds
        while time.time() < deadline:
            if self.eval(expr):
                return True
            time.sleep(0.2)
        return False

    def screenshot(self, path):
        data = self.send("Page.captureScreenshot",
                         {"format": "png", "captureBeyondViewport": True})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self):
        try:
            self.ws.close()
        finally:
            self.proc.kill()
            self.proc.wait()
            shutil.rmtree(self.profile, ignore_errors=True)


def check_view(b, view, failures):
    info = {}
    b.eval('location.hash = "#%s"' % view)
    info["rendered"] = b.wait_for(
        '(() => { const v = document.getElementById("view");'
        ' return v && v.dataset.view === "%s" &&'
        ' document.getElementById("banner").hidden; })()' % view)
    if not info["rendered"]:
        failures.append("%s: not rendered (banner: %s)" % (
            view, b.eval('document.getElementById("banner").textContent')))
        return info
    if view == "clock":
        b.wait_for('[...document.querySelectorAll("svg.plot")]'
                   '.every(p => +p.dataset.points >= 2)')
        info["plot_points"] = b.eval(
            'Object.fromEntries([...document.querySelectorAll("svg.plot")]'
            '.map(p => [p.dataset.series, +p.dataset.points]))')
        info["state"] = b.eval('document.querySelector(".card .v").textContent')
        if not info["plot_points"] or min(info["plot_points"].values()) < 2:
            failures.append("clock plots without points: %s" % info["plot_points"])
    if view == "gnss":
        b.wait_for('document.querySelectorAll('
                   '"table.sats[data-system=beidou] tbody tr").length > 0')
        info["beidou"] = b.eval(
            '[...document.querySelectorAll("table.sats[data-system=beidou] tbody tr")]'
            '.map(r => ({prn: r.cells[0].textContent, cn0: r.cells[2].textContent,'
            ' used: r.cells[3].textContent}))')
        info["gps"] = b.eval('document.querySelectorAll('
                             '"table.sats[data-system=gps] tbody tr").length')
        info["signal"] = b.eval('document.getElementById("signal-state").textContent')
        info["sky_points"] = b.eval(
            'document.querySelectorAll("svg.sky circle:not(.ring)").length')
        if not info["beidou"] or not all(
                re.fullmatch(r"\d+(\.\d+)?", s["cn0"]) for s in info["beidou"]):
            failures.append("BeiDou satellites without C/N0: %s" % info["beidou"])
    if view == "traffic":
        # One row per PTP port of /api/ptp (zgctl ptp --json), with its state.
        api = b.eval('fetch("/api/ptp").then(r => r.json())', True)
        want = [[p["port"], p["port_state"]]
                for p in (api.get("data") or {}).get("ports", [])]
        info["ptp_ports"] = b.eval(
            '[...document.querySelectorAll("#ptp-ports tbody tr")]'
            '.map(r => [r.cells[0].textContent, r.cells[3].textContent])')
        if info["ptp_ports"] != want:
            failures.append("PTP port rows %s, /api/ptp %s" % (
                info["ptp_ports"], want))
    if view == "audit":
        info["download"] = b.eval(
            'document.getElementById("audit-download")?.getAttribute("href")')
        info["records"] = b.eval('document.querySelectorAll("#view table tbody tr").length')
        if info["download"] != "/audit.jsonl":
            failures.append("no audit download link")
    if view == "alarms":
        # The table shows what /api/alarms (zgctl alarms --json) lists.
        # An alarm may come or go between the two reads: then again.
        for _ in range(5):
            api = b.eval('fetch("/api/alarms").then(r => r.json())', True)["data"]
            info["raised"] = b.eval(
                '[...document.querySelectorAll("#alarm-table tbody tr")]'
                '.map(r => r.cells[1].textContent)')
            info["events"] = b.eval(
                'document.querySelectorAll("#alarm-events tbody tr").length')
            if sorted(info["raised"]) == sorted(a["name"] for a in api["alarms"]):
                break
            time.sleep(1)
        if sorted(info["raised"]) != sorted(a["name"] for a in api["alarms"]):
            failures.append("alarm rows %s, /api/alarms %s" % (
                info["raised"], [a["name"] for a in api["alarms"]]))
        if info["events"] == 0 and api["events"]:
            failures.append("alarm events not shown")
    return info


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("--url", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--views", default=VIEWS)
    ap.add_argument("--auth")
    ap.add_argument("--spki")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    failures = []
    summary = {"views": {}}
    extra = ["--ignore-certificate-errors-spki-list=" + args.spki] if args.spki else []
    b = Browser(args.chromium, extra)
    try:
        b.open()
        if args.auth:
            b.send("Network.enable")
            token = base64.b64encode(args.auth.encode()).decode()
            b.send("Network.setExtraHTTPHeaders",
                   {"headers": {"Authorization": "Basic " + token}})
        b.send("Page.navigate", {"url": args.url})
        for view in args.views.split(","):
            summary["views"][view] = check_view(b, view, failures)
            b.screenshot(os.path.join(args.out, view + ".png"))
        time.sleep(0.5)
        b.eval("1")  # collect events that arrived meanwhile
    finally:
        summary["console_errors"] = b.errors
        b.close()
    if summary["console_errors"]:
        failures.append("console errors: %s" % summary["console_errors"])
    summary["ok"] = not failures
    summary["failures"] = failures
    print(json.dumps(summary))
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
