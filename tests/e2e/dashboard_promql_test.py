#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# Every query of the Grafana dashboard (doc/grafana/zeitgeber-dashboard.json)
# evaluated with promtool against a real Prometheus that scrapes a running
# zeitgeberd (net_ring port, a sim: reference, PTP on): a syntax or
# evaluation error fails, and so does an empty result for every panel that
# must have data. Panels that need what this rig has not (a gpsd receiver,
# NTS keys, a raised alarm) may be empty, and are listed here.
# A broken copy of a query must fail too (the check can fail).
#
#   dashboard_promql_test.py ZEITGEBERD DASHBOARD
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

MAY_BE_EMPTY = {
    'GNSS satellites used': 'needs a gpsd source',
    'NTS replies and NAKs': 'needs --nts_master_key and NTS clients',
    'NTS-KE handshakes': 'needs --nts_ke_address',
    'Active alarms': 'empty while no alarm is raised',
}
DEADLINE = time.monotonic() + float(os.environ.get('ZG_TEST_TIMEOUT_S', 60)) * 0.9


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def wait(what, done, limit=30):
    end = min(time.monotonic() + limit, DEADLINE)
    while time.monotonic() < end:
        if done():
            return
        time.sleep(0.2)
    raise SystemExit('timed out waiting for ' + what)


def api(port, path, **params):
    url = 'http://127.0.0.1:%d%s?%s' % (port, path, urllib.parse.urlencode(params))
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return json.load(r)
    except Exception:  # not up yet
        return None


def promql(expr):
    return expr.replace('$__rate_interval', '4s').replace('$instance', '.*')


def query(prom_port, expr):
    r = subprocess.run(['promtool', 'query', 'instant',
                        'http://127.0.0.1:%d' % prom_port, expr],
                       capture_output=True, text=True, timeout=20)
    return r.returncode, r.stdout.strip(), r.stderr.strip()


def main():
    zeitgeberd, dashboard = sys.argv[1], sys.argv[2]
    with open(dashboard) as f:
        dash = json.load(f)
    tmp = tempfile.mkdtemp(prefix='zg-dashboard-')
    metrics_port, prom_port = free_port(), free_port()
    zg = subprocess.Popen(
        [zeitgeberd, '--no-huge', '-m', '256', '--no-shconf', '--no-pci',
         '--no-telemetry', '--file-prefix', 'zgdash%d' % os.getpid(),
         '--log-level=lib.eal:error', '-l', '0-1', '--vdev=net_ring0', '--',
         '--metrics_address=127.0.0.1:%d' % metrics_port,
         '--stats_interval=200ms', '--source=sim:lab,uncertainty=1us',
         '--ptp', '--ptp_transport=udp4', '--address=192.0.2.1/24',
         # No traffic: the idle worker sleeps instead of spinning.
         '--idle_sleep=50us'],
        stdout=subprocess.DEVNULL, stderr=open(os.path.join(tmp, 'zg.log'), 'w'))
    config = os.path.join(tmp, 'prometheus.yml')
    with open(config, 'w') as f:
        f.write('global: {scrape_interval: 1s, evaluation_interval: 1s}\n'
                'scrape_configs:\n'
                '  - job_name: zeitgeber\n'
                '    static_configs: [{targets: ["127.0.0.1:%d"]}]\n' % metrics_port)
    prom = subprocess.Popen(
        ['prometheus', '--config.file=' + config,
         '--storage.tsdb.path=' + os.path.join(tmp, 'data'),
         '--web.listen-address=127.0.0.1:%d' % prom_port],
        stdout=subprocess.DEVNULL, stderr=open(os.path.join(tmp, 'prom.log'), 'w'))
    failures = []
    try:
        # Five scrapes: every rate() over 4s has two points.
        def scraped():
            r = api(prom_port, '/api/v1/query',
                    query='count_over_time(zeitgeber_build_info[1m])')
            return r and r['data']['result'] and \
                float(r['data']['result'][0]['value'][1]) >= 5
        wait('five scrapes of zeitgeberd', scraped)
        checked = 0
        for panel in dash['panels']:
            if panel['type'] == 'row':
                continue
            title = panel['title']
            if not panel.get('targets'):
                failures.append('%s: no query' % title)
            for t in panel.get('targets', []):
                rc, out, err = query(prom_port, promql(t['expr']))
                checked += 1
                if rc != 0:
                    failures.append('%s: %s: %s' % (title, t['expr'], err))
                elif not out and title not in MAY_BE_EMPTY:
                    failures.append('%s: %s: empty result' % (title, t['expr']))
                print('%-5s %-32s %s' % ('ok' if rc == 0 else 'FAIL', title,
                                          (out.splitlines() or ['(empty: %s)' %
                                           MAY_BE_EMPTY.get(title, '?')])[0][:90]))
        # The check can fail: a syntax error and a misspelt metric.
        rc, _, _ = query(prom_port, 'sum(rate(zeitgeber_rx_packets_total[4s])')
        if rc == 0:
            failures.append('promtool accepted a broken expression')
        rc, out, _ = query(prom_port, 'zeitgeber_no_such_metric')
        if rc != 0 or out:
            failures.append('a misspelt metric was not empty')
        print('%d queries of %d panels evaluated' % (
            checked, sum(p['type'] != 'row' for p in dash['panels'])))
    finally:
        for p in (prom, zg):
            p.terminate()
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
    if zg.returncode != 0:
        failures.append('zeitgeberd exited %s: %s' % (
            zg.returncode, open(os.path.join(tmp, 'zg.log')).read()[-2000:]))
    for f in failures:
        print('FAIL: ' + f)
    subprocess.run(['rm', '-rf', tmp])
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
