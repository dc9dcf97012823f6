# Waiting on events in the e2e shell tests (sourced). Every wait ends on the
# event itself (a log line, a counter reaching its value, a socket that
# answers) or on a deadline in wall time, read from /proc/uptime (it never
# steps), never on a count of tries that a loaded machine stretches. When
# the deadline passes the wait says what it was waiting for and returns 1.
#   zg_wait SECONDS WHAT CMD [ARGS...]
#                     runs CMD every 0.1 s until it succeeds
#   zg_wait_log LOG REGEX SECONDS
#                     until LOG has a line matching the extended REGEX
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

zg_wait() {
  local secs=$1 what=$2 deadline
  shift 2
  zg__now
  deadline=$((ZG_NOW_CS + secs * 100))
  until "$@"; do
    zg__now
    if [ "$ZG_NOW_CS" -ge "$deadline" ]; then
      echo "timed out after $secs s waiting for $what" >&2
      return 1
    fi
    sleep 0.1
  done
}

zg__log_has() { grep -Eq -e "$2" "$1" 2>/dev/null; }

zg_wait_log() {
  zg_wait "$3" "'$2' in $(basename "$1")" zg__log_has "$1" "$2"
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
