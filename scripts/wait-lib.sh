# SPDX-License-Identifier: Apache-2.0
# Waiting on events, for the shell tests and the rigs (sourced after
# scripts/lib.sh or on its own). Every wait ends on the
# event itself (a log line, a counter reaching its value, a socket that
# answers) or on a deadline in wall time, read from /proc/uptime (it never
# steps), never on a count of tries that a loaded machine stretches. When
# the deadline passes the wait says what it was waiting for and returns 1.
# No deadline runs past the test's budget: ZG_TEST_TIMEOUT_S (meson passes
# each e2e test its timeout; unset: no budget, as in the benchmark rigs) from when this file was sourced, less a tenth
# (at least 3 s) for cleanup and reporting, as tests/util/deadline.h does.
#   zg_wait SECONDS WHAT CMD [ARGS...]
#                     runs CMD every 0.1 s until it succeeds
#   zg_left SECONDS   prints SECONDS, or what is left of the budget if that
#                     is less (at least 1): for timeout(1) around one step
#   zg_phase TEXT     prints "[+12.34 s] TEXT", the time since this file was
#                     sourced: where a test's time goes, in its log
#   zg_stop PID SECONDS
#                     SIGTERM to PID (a child of this shell), up to SECONDS
#                     for it to exit, SIGKILL after; its status in ZG_STOP_RC
#   zg_wait_log LOG REGEX SECONDS
#                     until LOG has a line matching the extended REGEX
#   zg_wait_started LOG REGEX SECONDS PID
#                     the same for a process starting up: returns 1 at once
#                     when PID exits before LOG has the line
#   zg_metric FILE NAME [LABEL_REGEX]
#                     prints the sum of NAME's samples in the Prometheus
#                     text FILE whose labels match LABEL_REGEX (0 if none)
#   zg_wait_metric SECONDS PORT OUT NAME LABEL_REGEX VALUE
#                     scrapes 127.0.0.1:PORT/metrics into OUT until that sum
#                     reaches VALUE (>=: the caller checks exact values on
#                     OUT, the first scrape that has them)

# Sets ZG_NOW_CS: seconds since boot, in hundredths.
zg__now() {
  local up
  read -r up _ </proc/uptime
  up=${up/./}
  ZG_NOW_CS=$((10#$up))
}

# The start and the budget's end (ZG_BUDGET_END_CS), once per test.
if [ -z "${ZG_START_CS:-}" ]; then
  zg__now
  ZG_START_CS=$ZG_NOW_CS
  ZG_BUDGET_END_CS=
  if [ -n "${ZG_TEST_TIMEOUT_S:-}" ]; then
    zg__margin=$((ZG_TEST_TIMEOUT_S / 10 > 3 ? ZG_TEST_TIMEOUT_S / 10 : 3))
    ZG_BUDGET_END_CS=$((ZG_NOW_CS + (ZG_TEST_TIMEOUT_S - zg__margin) * 100))
  fi
fi

zg_phase() {
  zg__now
  printf '[+%d.%02d s] %s\n' $(((ZG_NOW_CS - ZG_START_CS) / 100)) \
    $(((ZG_NOW_CS - ZG_START_CS) % 100)) "$*"
}

zg_left() {
  local secs=$1 left
  [ -n "$ZG_BUDGET_END_CS" ] || { echo "$secs"; return; }
  zg__now
  left=$(((ZG_BUDGET_END_CS - ZG_NOW_CS) / 100))
  [ "$left" -ge 1 ] || left=1
  echo $((left < secs ? left : secs))
}

zg_wait() {
  local secs=$1 what=$2 deadline budget=""
  shift 2
  zg__now
  deadline=$((ZG_NOW_CS + secs * 100))
  if [ -n "$ZG_BUDGET_END_CS" ] && [ "$ZG_BUDGET_END_CS" -lt "$deadline" ]; then
    deadline=$ZG_BUDGET_END_CS budget=" (the test's budget is spent)"
  fi
  local start=$ZG_NOW_CS
  until "$@"; do
    zg__now
    if [ "$ZG_NOW_CS" -ge "$deadline" ]; then
      printf 'timed out after %d.%02d s waiting for %s%s\n' \
        $(((ZG_NOW_CS - start) / 100)) $(((ZG_NOW_CS - start) % 100)) \
        "$what" "$budget" >&2
      return 1
    fi
    sleep 0.1
  done
}

zg__gone() { ! kill -0 "$1" 2>/dev/null; }

zg_stop() {
  local pid=$1 secs=$2
  kill -TERM "$pid" 2>/dev/null
  zg_wait "$secs" "pid $pid to exit after SIGTERM" zg__gone "$pid" ||
    kill -KILL "$pid" 2>/dev/null
  ZG_STOP_RC=0
  wait "$pid" || ZG_STOP_RC=$?
}

zg__log_has() { grep -Eq -e "$2" "$1" 2>/dev/null; }

zg_wait_log() {
  zg_wait "$3" "'$2' in $(basename "$1")" zg__log_has "$1" "$2"
}

zg__started_or_gone() { zg__log_has "$1" "$2" || ! kill -0 "$3" 2>/dev/null; }

zg_wait_started() {
  zg_wait "$3" "'$2' in $(basename "$1")" zg__started_or_gone "$1" "$2" "$4" &&
    zg__log_has "$1" "$2"
}

zg_metric() {
  awk -v name="$2" -v labels="${3:-}" '
    $1 ~ ("^" name "([{]|$)") && $1 ~ labels { sum += $2 }
    END { printf "%.17g\n", sum + 0 }' "$1"
}

zg__metric_reached() {  # PORT OUT NAME LABEL_REGEX VALUE
  curl -sf --max-time 2 "http://127.0.0.1:$1/metrics" >"$2" 2>/dev/null ||
    return 1
  awk -v have="$(zg_metric "$2" "$3" "$4")" -v want="$5" \
    'BEGIN { exit !(have >= want) }'
}

zg_wait_metric() {
  local secs=$1 port=$2 out=$3 name=$4 labels=$5 value=$6
  zg_wait "$secs" "$name{$labels} to reach $value" \
    zg__metric_reached "$port" "$out" "$name" "$labels" "$value"
}
