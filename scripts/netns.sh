# Network-namespace rig helpers, sourced by rig scripts and e2e tests:
#   . scripts/netns.sh
#   zg_rig_up zgt$$ 10.99.0.1/24 10.99.0.2/24 [fd99::1/64 fd99::2/64] [queues]
#     creates veth pair  <name>h (host side, stays in the root namespace, no
#     address: DPDK/AF_XDP owns it) <-> <name>c (in namespace <name>, with the
#     client address), brings both up, disables offloads that break AF_XDP.
#     Exports ZG_RIG_NS, ZG_RIG_HOST_IF, ZG_RIG_CLIENT_IF, ZG_RIG_SERVER_IP,
#     ZG_RIG_CLIENT_IP, ZG_RIG_SERVER_IP6, ZG_RIG_CLIENT_IP6.
#   zg_rig_down <name>   removes namespace and links (idempotent)
#   zg_in_ns CMD...      runs CMD inside the rig's namespace
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

zg_rig_down() {
  local name=$1
  ip netns pids "$name" 2>/dev/null | xargs -r kill 2>/dev/null || true
  ip link del "${name}h" 2>/dev/null || true
  ip netns del "$name" 2>/dev/null || true
}

zg_in_ns() { ip netns exec "$ZG_RIG_NS" "$@"; }
