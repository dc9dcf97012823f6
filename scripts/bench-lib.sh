# SPDX-License-Identifier: Apache-2.0
# Server handling shared by the benchmark rigs (scripts/bench-memif.sh,
# scripts/bench-veth.sh); sourced after scripts/lib.sh. The rig owns the
# globals these read and write: SERVER_PID (the server now running), WORK
# (its log directory), STOP_RC (the status stop_pid saw). Waits are
# scripts/wait-lib.sh's.
. "$(dirname "${BASH_SOURCE[0]}")/wait-lib.sh"

# stop_pid PID: SIGTERM, then SIGKILL after 10 s; STOP_RC: its status.
stop_pid() {
  zg_stop "$1" 10 2>/dev/null
  STOP_RC=$ZG_STOP_RC
}

# wait_for LOG REGEX WHAT: until LOG has REGEX (30 s); the server dying
# first fails the run with its log.
wait_for() {
  zg_wait_started "$1" "$2" 30 "$SERVER_PID" ||
    { cat "$1"; zg_die "$3 did not start (exited, or not ready after 30 s)"; }
}

# stop_server NAME: stop it; a server that crashed fails the run.
stop_server() {
  stop_pid "$SERVER_PID"
  # 0: stopped cleanly; 124: timeout's TERM; anything else is a crash.
  if [ "$STOP_RC" -ne 0 ] && [ "$STOP_RC" -ne 124 ]; then
    tail -n 30 "$WORK/$1.log"
    zg_die "$1 ended with status $STOP_RC when stopped (signal $((STOP_RC - 128)) if > 128)"
  fi
  SERVER_PID=
}
