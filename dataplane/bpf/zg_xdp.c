// zeitgeber's XDP steering program for the AF_XDP deployment mode.
//
// Loaded by DPDK's net_af_xdp PMD (--vdev=net_af_xdp0,iface=eth1,
// xdp_prog=zg_xdp.o), which attaches the first program of this object and
// inserts each queue's AF_XDP socket into `xsks_map` at the queue's index.
// zeitgeberd then fills `zg_addrs4`/`zg_addrs6` with its --address values
// and `zg_config` with its --vlan (dataplane/xdp_steering.h).
//
// Steered to the AF_XDP socket of the receiving queue: UDP to port 123
// (NTP), 319 (PTP event) or 320 (PTP general), IPv4 or IPv6, addressed to a
// configured address, untagged or (when configured) tagged with the
// configured VLAN id. Everything else — ARP, ICMP, neighbour discovery, SSH,
// IP fragments, IPv6 with extension headers — is XDP_PASSed to the kernel.
// With the address maps empty (before zeitgeberd configures them) nothing is
// steered.
//
// Build: clang -O2 -g -target bpf -c zg_xdp.c -o zg_xdp.o
// (dataplane/meson.build)

// The kernel headers must come before libbpf's.
// clang-format off
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>
// clang-format on

#define ZG_MAX_QUEUES 256
#define ZG_MAX_ADDRESSES 64

// The PMD inserts its AF_XDP sockets here, key = queue index.
struct {
  __uint(type, BPF_MAP_TYPE_XSKMAP);
  __uint(max_entries, ZG_MAX_QUEUES);
  __type(key, __u32);
  __type(value, __u32);
} xsks_map SEC(".maps");

// Served addresses; key in network byte order, value unused (1).
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, ZG_MAX_ADDRESSES);
  __type(key, __u32);
  __type(value, __u8);
} zg_addrs4 SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, ZG_MAX_ADDRESSES);
  __type(key, struct in6_addr);
  __type(value, __u8);
} zg_addrs6 SEC(".maps");

// Keep in sync with dataplane/xdp_steering.cc.
struct zg_config {
  __u16 vlan_id;  // 0: steer untagged frames only; else only this VLAN id
  __u16 reserved;
};
struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct zg_config);
} zg_config SEC(".maps");

enum zg_stat { ZG_STAT_STEERED = 0, ZG_STAT_PASSED = 1, ZG_STAT_MAX = 2 };
struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, ZG_STAT_MAX);
  __type(key, __u32);
  __type(value, __u64);
} zg_stats SEC(".maps");

struct vlan_tag {
  __be16 tci;
  __be16 encapsulated_proto;
};

static __always_inline void count(__u32 stat) {
  __u64* v = bpf_map_lookup_elem(&zg_stats, &stat);
  if (v) *v += 1;
}

static __always_inline int is_time_port(__be16 port) {
  return port == bpf_htons(123) || port == bpf_htons(319) ||
         port == bpf_htons(320);
}

// Returns 1 if the frame is NTP/PTP over UDP to one of our addresses.
static __always_inline int is_ours(void* data, void* data_end) {
  struct ethhdr* eth = data;
  if ((void*)(eth + 1) > data_end) return 0;
  void* l3 = eth + 1;
  __be16 proto = eth->h_proto;
  __u16 vlan_id = 0;
  if (proto == bpf_htons(ETH_P_8021Q) || proto == bpf_htons(ETH_P_8021AD)) {
    struct vlan_tag* tag = l3;
    if ((void*)(tag + 1) > data_end) return 0;
    vlan_id = bpf_ntohs(tag->tci) & 0x0fff;
    proto = tag->encapsulated_proto;
    l3 = tag + 1;
  }
  __u32 zero = 0;
  struct zg_config* cfg = bpf_map_lookup_elem(&zg_config, &zero);
  __u16 want_vlan = cfg ? cfg->vlan_id : 0;
  if (vlan_id != want_vlan) return 0;

  struct udphdr* udp;
  if (proto == bpf_htons(ETH_P_IP)) {
    struct iphdr* ip = l3;
    if ((void*)(ip + 1) > data_end) return 0;
    if (ip->ihl < 5 || ip->protocol != IPPROTO_UDP) return 0;
    // Fragments (MF set or a non-zero offset) carry no usable UDP header.
    if (ip->frag_off & bpf_htons(0x3fff)) return 0;
    udp = (void*)ip + ip->ihl * 4;
    if ((void*)(udp + 1) > data_end) return 0;
    if (!is_time_port(udp->dest)) return 0;
    __u32 daddr = ip->daddr;
    return bpf_map_lookup_elem(&zg_addrs4, &daddr) != 0;
  }
  if (proto == bpf_htons(ETH_P_IPV6)) {
    struct ipv6hdr* ip6 = l3;
    if ((void*)(ip6 + 1) > data_end) return 0;
    if (ip6->nexthdr != IPPROTO_UDP) return 0;  // extension headers: kernel
    udp = (void*)(ip6 + 1);
    if ((void*)(udp + 1) > data_end) return 0;
    if (!is_time_port(udp->dest)) return 0;
    struct in6_addr daddr = ip6->daddr;
    return bpf_map_lookup_elem(&zg_addrs6, &daddr) != 0;
  }
  return 0;
}

SEC("xdp")
int zg_xdp_steer(struct xdp_md* ctx) {
  void* data = (void*)(long)ctx->data;
  void* data_end = (void*)(long)ctx->data_end;
  if (!is_ours(data, data_end)) {
    count(ZG_STAT_PASSED);
    return XDP_PASS;
  }
  count(ZG_STAT_STEERED);
  // No socket on this queue (zeitgeberd not running there): the kernel
  // gets it, as if this program were not loaded.
  return bpf_redirect_map(&xsks_map, ctx->rx_queue_index, XDP_PASS);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
