# SPDX-License-Identifier: Apache-2.0
# Network-namespace rig helpers, sourced by rig scripts and e2e tests:
#   . scripts/netns.sh
#   zg_rig_up zgt$$ 10.99.0.1/24 10.99.0.2/24 [fd99::1/64 fd99::2/64] [queues]
#     creates veth pair  <name>h (host side, stays in the root namespace, no
#     address: DPDK/AF_XDP owns it) <-> <name>c (in namespace <name>, with the
#     client address), brings both up, disables offloads that break AF_XDP.
#     Exports ZG_RIG_NS, ZG_RIG_HOST_IF, ZG_RIG_CLIENT_IF, ZG_RIG_SERVER_IP,
#     ZG_RIG_CLIENT_IP, ZG_RIG_SERVER_IP6, ZG_RIG_CLIENT_IP6.
#   zg_rig_down <name>   kills what runs in the namespace (SIGTERM, then
#     SIGKILL for what is left after 2 s), removes namespace and links
#     (idempotent)
#   zg_in_ns CMD...      runs CMD inside the rig's namespace
#   zg_pair_up zgp$$ 10.98.0.1/24 10.98.0.2/24 [fd98::1/64 fd98::2/64]
#     two namespaces <name>a and <name>b joined by a veth pair (<name>a in
#     <name>a, <name>b in <name>b): for two real peers talking to each other
#     (ptp4l master/slave, chronyd server/ntpdig). Fixed locally administered
#     MACs 02:5a:47:00:00:0a / ...:0b (so captures and PTP clock identities
#     repeat run to run), checksum offload off (so captured packets carry
#     their real checksums), no IPv6 DAD. Exports ZG_PAIR_NS_A/B,
#     ZG_PAIR_IF_A/B, ZG_PAIR_IP_A/B, ZG_PAIR_IP6_A/B.
#   zg_pair_down <name>  the same for both namespaces, and the pair
#   zg_ns_kill <ns>      SIGTERM to every process in namespace <ns>, SIGKILL
#     to those still there 2 s later (a deadline on /proc/uptime)
# Names must be <= 13 characters; include the caller's PID to stay unique.

zg_rig_up() {
  local name=$1 srv=$2 cli=$3 srv6=${4:-} cli6=${5:-} queues=${6:-1}
  [ "${#name}" -le 13 ] || { echo "rig name '$name' longer than 13" >&2; return 1; }
  export ZG_RIG_NS=$name ZG_RIG_HOST_IF=${name}h ZG_RIG_CLIENT_IF=${name}c
  export ZG_RIG_SERVER_IP=${srv%/*} ZG_RIG_CLIENT_IP=${cli%/*}
  export ZG_RIG_SERVER_IP6=${srv6%/*} ZG_RIG_CLIENT_IP6=${cli6%/*}
  ip netns add "$name"
  ip link add "$ZG_RIG_HOST_IF" numtxqueues "$queues" numrxqueues "$queues" type veth \
    peer name "$ZG_RIG_CLIENT_IF" numtxqueues "$queues" numrxqueues "$queues"
  ip link set "$ZG_RIG_CLIENT_IF" netns "$name"
  ip link set "$ZG_RIG_HOST_IF" up
  ip netns exec "$name" ip link set lo up
  ip netns exec "$name" ip addr add "$cli" dev "$ZG_RIG_CLIENT_IF"
  if [ -n "$cli6" ]; then
    ip netns exec "$name" sysctl -qw net.ipv6.conf."$ZG_RIG_CLIENT_IF".accept_dad=0
    ip netns exec "$name" ip -6 addr add "$cli6" dev "$ZG_RIG_CLIENT_IF" nodad
  fi
  ip netns exec "$name" ip link set "$ZG_RIG_CLIENT_IF" up
  # Checksum offload on veth hands AF_XDP partial checksums; compute them.
  ethtool -K "$ZG_RIG_HOST_IF" tx off rx off >/dev/null 2>&1 || true
  ip netns exec "$name" ethtool -K "$ZG_RIG_CLIENT_IF" tx off rx off >/dev/null 2>&1 || true
  # XDP on veth needs the peer to have an XDP program or GRO for redirects.
  ip netns exec "$name" ethtool -K "$ZG_RIG_CLIENT_IF" gro on >/dev/null 2>&1 || true
}

zg_ns_kill() {
  local ns=$1 pids up end
  pids=$(ip netns pids "$ns" 2>/dev/null) || return 0
  [ -n "$pids" ] || return 0
  # shellcheck disable=SC2086
  kill $pids 2>/dev/null || true
  read -r up _ </proc/uptime
  end=$((10#${up/./} + 200))
  while pids=$(ip netns pids "$ns" 2>/dev/null) && [ -n "$pids" ]; do
    read -r up _ </proc/uptime
    if [ "$((10#${up/./}))" -ge "$end" ]; then
      # shellcheck disable=SC2086
      kill -KILL $pids 2>/dev/null || true
      return 0
    fi
    sleep 0.05
  done
  return 0
}

zg_rig_down() {
  local name=$1
  zg_ns_kill "$name"
  ip link del "${name}h" 2>/dev/null || true
  ip netns del "$name" 2>/dev/null || true
}

zg_in_ns() { ip netns exec "$ZG_RIG_NS" "$@"; }

# zg_pair_side NS IF MAC ADDR [ADDR6]: configures one end of a pair.
# (Each step checks its own status: callers may run this where set -e is off.)
zg_pair_side() {
  local ns=$1 ifc=$2 mac=$3 addr=$4 addr6=${5:-}
  ip netns exec "$ns" ip link set lo up || return 1
  ip netns exec "$ns" ip link set "$ifc" address "$mac" || return 1
  ip netns exec "$ns" ethtool -K "$ifc" tx off rx off >/dev/null 2>&1 || true
  ip netns exec "$ns" ip addr add "$addr" dev "$ifc" || return 1
  if [ -n "$addr6" ]; then
    ip netns exec "$ns" sysctl -qw net.ipv6.conf."$ifc".accept_dad=0 || return 1
    ip netns exec "$ns" ip -6 addr add "$addr6" dev "$ifc" nodad || return 1
  fi
  ip netns exec "$ns" ip link set "$ifc" up
}

zg_pair_up() {
  local name=$1 a=$2 b=$3 a6=${4:-} b6=${5:-}
  [ "${#name}" -le 13 ] || { echo "pair name '$name' longer than 13" >&2; return 1; }
  export ZG_PAIR_NS_A=${name}a ZG_PAIR_NS_B=${name}b
  export ZG_PAIR_IF_A=${name}a ZG_PAIR_IF_B=${name}b
  export ZG_PAIR_IP_A=${a%/*} ZG_PAIR_IP_B=${b%/*}
  export ZG_PAIR_IP6_A=${a6%/*} ZG_PAIR_IP6_B=${b6%/*}
  ip netns add "$ZG_PAIR_NS_A" || return 1
  ip netns add "$ZG_PAIR_NS_B" || return 1
  ip link add "$ZG_PAIR_IF_A" netns "$ZG_PAIR_NS_A" type veth \
    peer name "$ZG_PAIR_IF_B" netns "$ZG_PAIR_NS_B" || return 1
  zg_pair_side "$ZG_PAIR_NS_A" "$ZG_PAIR_IF_A" 02:5a:47:00:00:0a "$a" "$a6" &&
    zg_pair_side "$ZG_PAIR_NS_B" "$ZG_PAIR_IF_B" 02:5a:47:00:00:0b "$b" "$b6"
}

zg_pair_down() {
  local name=$1 ns
  for ns in "${name}a" "${name}b"; do
    zg_ns_kill "$ns"
    ip netns del "$ns" 2>/dev/null || true  # takes its end of the veth along
  done
}
