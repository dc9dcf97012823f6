# Helpers for zeitgeberd's PTP end-to-end tests (sourced):
#   zg_ptp_cpus                 sets ZG_CPU0/ZG_CPU1: two CPUs we may use
#   zg_ptp_start_gm LOG IFACE ADDR ARGS...
#                               zeitgeberd on AF_XDP over IFACE with the XDP
#                               program, serving ADDR; pid in ZG_GM_PID
#   zg_ptp4l_conf FILE TRANSPORT DOMAIN [EXTRA_LINES]
#                               a slave-only ptp4l config for software
#                               timestamps that cannot touch the host clock
#   zg_ptp4l_run NS IFACE CONF SECONDS LOG
#   zg_ptp_offset_stats LOG WINDOW_S MAX_MEDIAN_NS
#   zg_ptp_rig_floor HOST_IF SLAVE_CONF TRANSPORT DOMAIN SECONDS WINDOW_S DIR
#                               the rig's own error with linuxptp as master;
#                               median |offset| in ZG_RIG_FLOOR_NS
#
# The slave's clock: ptp4l -S disciplines CLOCK_REALTIME, which is shared by
# every namespace (and is zeitgeberd's own reference here). The tests run
# ptp4l without CAP_SYS_TIME (setpriv), so every adjustment fails and its
# "master offset" is the raw difference between zeitgeberd's time and the
# host clock, as seen through the PTP exchange: exactly the error we want to
# measure. Stepping is off (first_step_threshold 0) and the clock sanity
# check is off (it would see a clock that never follows the servo).
# Waits are e2e_lib.sh's (zg_wait_log: a deadline, not a count of tries).

. "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"

zg_ptp_cpus() {
  local cpus
  cpus=$(python3 -c 'import os; print(" ".join(map(str, sorted(os.sched_getaffinity(0)))))')
  ZG_CPU0=$(echo "$cpus" | awk '{print $1}')
  ZG_CPU1=$(echo "$cpus" | awk '{print ($2 == "" ? $1 : $2)}')
}

# zg_ptp_start_gm LOG IFACE ADDR [zeitgeberd flags...]
zg_ptp_start_gm() {
  local log=$1 iface=$2 addr=$3; shift 3
  local prefix="zgp${iface}"
  ZG_GM_N=$((${ZG_GM_N:-0} + 1))
  local dev="net_af_xdp${ZG_GM_N}"
  # This host's kernel clock is the reference and is not synchronised
  # (STA_UNSYNC): --require_system_clock_sync=false serves it anyway.
  # The worker busy-polls; on a shared 2-core host it must not be starved
  # (deployments give it a core of its own).
  # nice execs zeitgeberd (same pid: the caller's kill reaches it), which
  # stops itself after --run_for.
  nice -n -20 "$ZG_ZEITGEBERD" \
    --no-huge -m 512 --no-shconf --no-pci --no-telemetry \
    --file-prefix "$prefix" --lcores="0@$ZG_CPU0,1@$ZG_CPU1" \
    --log-level=lib.eal:warning \
    --vdev="$dev,iface=$iface,xdp_prog=$ZG_XDP_OBJ" -- \
    --port="$dev" --address="$addr" --ptp --require_system_clock_sync=false \
    --metrics_address=127.0.0.1:0 --run_for="${ZG_GM_TIMEOUT:-300}s" "$@" \
    >"$log" 2>&1 &
  ZG_GM_PID=$!
}

# zg_ptp4l_conf FILE TRANSPORT DOMAIN [EXTRA]
zg_ptp4l_conf() {
  cat >"$1" <<EOF
[global]
slaveOnly 1
domainNumber $3
network_transport $2
time_stamping software
summary_interval -7
first_step_threshold 0.0
step_threshold 0.0
sanity_freq_limit 0
pi_proportional_const 0.7
pi_integral_const 0.3
tx_timestamp_timeout 100
logging_level 6
${4:-}
EOF
}

# zg_ptp4l_run NS IFACE CONF SECONDS LOG [ptp4l args...]: ptp4l as a slave
# with software timestamps, without CAP_SYS_TIME, pinned to ZG_CPU0.
zg_ptp4l_run() {
  local ns=$1 iface=$2 conf=$3 secs=$4 log=$5; shift 5
  ip netns exec "$ns" timeout "$(zg_left "$secs")" taskset -c "$ZG_CPU0" \
    setpriv --inh-caps=-sys_time --bounding-set=-sys_time \
    ptp4l -i "$iface" -f "$conf" -m "$@" >"$log" 2>&1 || true
}

# zg_ptp_offset_stats LOG WINDOW_S MAX_MEDIAN_NS: over the last WINDOW_S
# seconds of SLAVE samples in ptp4l's log, the median |master offset| must be
# at most MAX_MEDIAN_NS. Prints the statistics; 0 on success.
zg_ptp_offset_stats() {
  python3 - "$1" "$2" "$3" <<'EOF'
import re, statistics, sys
log, window, limit = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
samples, slave = [], False
for line in open(log):
    m = re.match(r'ptp4l\[([0-9.]+)\]: (.*)', line)
    if not m:
        continue
    t, text = float(m.group(1)), m.group(2)
    if 'to SLAVE' in text:
        slave = True
    elif re.search(r'SLAVE to |to (LISTENING|FAULTY|UNCALIBRATED)', text):
        slave = False
    o = re.match(r'master offset\s+(-?\d+) s(\d)', text)
    if o and slave:
        samples.append((t, int(o.group(1))))
if not samples:
    print("no master offset samples in SLAVE state"); sys.exit(1)
end = samples[-1][0]
win = [v for t, v in samples if t >= end - window]
span = end - min(t for t, v in samples if t >= end - window)
a = sorted(abs(v) for v in win)
med = statistics.median(a)
print("SLAVE samples: %d over %.1f s; median |offset| %.0f ns, mean %.0f ns, "
      "p90 %d ns, max %d ns (limit %.0f ns)" %
      (len(win), span, med, statistics.mean(win), a[int(0.9 * (len(a) - 1))],
       a[-1], limit))
if span < window * 0.9:
    print("window too short"); sys.exit(1)
sys.exit(0 if med <= limit else 1)
EOF
}

# zg_ptp_rig_floor HOST_IF SLAVE_CONF TRANSPORT DOMAIN SECONDS WINDOW_S DIR
# The error this rig shows for any master: linuxptp's own ptp4l as the
# master (software timestamps, CLOCK_REALTIME, pinned where zeitgeberd's
# worker runs) on HOST_IF with zeitgeber's XDP program attached as
# zeitgeberd will have it (with empty maps it passes every frame, but veth
# then receives through NAPI, which delays the master's receive stamps by
# microseconds), and the same ptp4l slave in the rig's namespace. Needs
# ZG_XDP_OBJ, ZG_RIG_NS, ZG_RIG_CLIENT_IF, ZG_CPU0/1. Sets ZG_RIG_FLOOR_NS
# to the median |master offset| over the last WINDOW_S seconds; prints the
# statistics; 1 when the slave never got there. Detaches the program. The
# master's pid is in ZG_FLOOR_PID while it runs (for the caller's cleanup).
# Stops the floor's ptp4l master and detaches the XDP program from HOST_IF.
zg_ptp_floor_stop() {
  zg_stop "$ZG_FLOOR_PID" 5 2>/dev/null
  ZG_FLOOR_PID=
  ip link set dev "$1" xdpdrv off
}

zg_ptp_rig_floor() {
  local host_if=$1 slave_conf=$2 transport=$3 domain=$4 secs=$5 window=$6
  local dir=$7 rc stats
  ZG_RIG_FLOOR_NS=
  ip link set dev "$host_if" xdpdrv obj "$ZG_XDP_OBJ" sec xdp || return 1
  cat >"$dir/floor_master.conf" <<EOF
[global]
priority1 100
domainNumber $domain
network_transport $transport
time_stamping software
logSyncInterval -1
tx_timestamp_timeout 100
logging_level 6
EOF
  nice -n -20 taskset -c "$ZG_CPU1" ptp4l -i "$host_if" \
    -f "$dir/floor_master.conf" -m >"$dir/floor_master.log" 2>&1 &
  ZG_FLOOR_PID=$!
  if ! zg_wait_log "$dir/floor_master.log" "to MASTER" 20; then
    echo "rig floor: ptp4l never became master"; cat "$dir/floor_master.log"
    zg_ptp_floor_stop "$host_if"
    return 1
  fi
  zg_ptp4l_run "$ZG_RIG_NS" "$ZG_RIG_CLIENT_IF" "$slave_conf" "$secs" \
    "$dir/floor_slave.log" -S
  zg_ptp_floor_stop "$host_if"
  # The statistics' own limit does not apply: any floor is a floor.
  stats=$(zg_ptp_offset_stats "$dir/floor_slave.log" "$window" inf); rc=$?
  echo "rig floor (ptp4l master): $stats"
  [ "$rc" -eq 0 ] || return 1
  ZG_RIG_FLOOR_NS=$(echo "$stats" | sed -n 's/.*median |offset| \([0-9]*\) ns.*/\1/p')
  [ -n "$ZG_RIG_FLOOR_NS" ]
}
