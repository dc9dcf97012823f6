// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
// zeitgeber's XDP steering program for the AF_XDP deployment mode.
//
// Loaded by DPDK's net_af_xdp PMD (--vdev=net_af_xdp0,iface=eth1,
// xdp_prog=zg_xdp.o), which attaches the first program of this object and
// inserts each queue's AF_XDP socket into `xsks_map` at the queue's index.
// zeitgeberd then fills `zg_addrs4`/`zg_addrs6` with its --address values
// and `zg_config` with its --vlan (dataplane/port/xdp_steering.h).
//
// Steered to the AF_XDP socket of the receiving queue: UDP to port 123
// (NTP), 319 (PTP event) or 320 (PTP general), IPv4 or IPv6, addressed to a
// configured address, untagged or (when configured) tagged with the
// configured VLAN id. With the PTP-groups flag set (zeitgeberd serving PTP),
// also UDP 319/320 to the PTP multicast groups (224.0.1.129, 224.0.0.107,
// ff0X::181, ff02::6b) and PTP over Ethernet (ethertype 0x88F7). Everything
// else — ARP, ICMP, neighbour discovery, SSH, IP fragments, IPv6 with
// extension headers — is XDP_PASSed to the kernel.
//
// With the RX-stamp flag set, every steered frame gets a 16-byte header in
// front of its Ethernet header: ZG_STAMP_MAGIC and bpf_ktime_get_ns()
// (CLOCK_MONOTONIC) read on entry, the kernel's receive time of the frame;
// zeitgeberd's XdpStampClock moves it into the mbuf's RX-timestamp field and
// strips it (dataplane/clock/nic_clock.h).
// With the address maps empty (before zeitgeberd configures them) nothing is
// steered.
//
// Built a second time as zg_xdp_hwts.o (bpf/zg_xdp_hwts.c, ZG_XDP_HWTS):
// the stamp is then the driver's RX hardware time of the frame, read with
// the XDP RX metadata kfunc bpf_xdp_metadata_rx_timestamp (kernel >= 6.3;
// the program must be loaded device-bound, so DPDK's PMD cannot load it),
// tagged ZG_STAMP_MAGIC_HW; where the driver has none for the frame
// (-EOPNOTSUPP, -ENODATA, or 0 as veth answers for frames without a
// hardware stamp) it falls back to bpf_ktime_get_ns, tagged ZG_STAMP_MAGIC
// as in zg_xdp.o. core/net/xdp_stamp.h parses both.
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

// Keep in sync with dataplane/port/xdp_steering.cc.
#define ZG_FLAG_PTP_GROUPS 1
#define ZG_FLAG_RX_STAMP 2
// Keep in sync with dataplane/clock/nic_clock.h (XdpStampClock).
#define ZG_STAMP_MAGIC 0x7a67727873746d70ULL     // "zgrxstmp": kernel
#define ZG_STAMP_MAGIC_HW 0x7a67727868777473ULL  // "zgrxhwts": NIC clock
#define ZG_STAMP_LEN 16

#ifdef ZG_XDP_HWTS
// Kernel >= 6.3; a kernel without it refuses the program (the daemon then
// keeps zg_xdp.o).
extern int bpf_xdp_metadata_rx_timestamp(const struct xdp_md* ctx,
                                         __u64* timestamp) __ksym;
#endif
struct zg_config {
  __u16 vlan_id;  // 0: steer untagged frames only; else only this VLAN id
  __u16 flags;    // ZG_FLAG_PTP_GROUPS | ZG_FLAG_RX_STAMP
};
struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct zg_config);
} zg_config SEC(".maps");

// ZG_STAT_HW_STAMPED: steered frames stamped with the driver's time
// (zg_xdp_hwts.o only).
enum zg_stat {
  ZG_STAT_STEERED = 0,
  ZG_STAT_PASSED = 1,
  ZG_STAT_HW_STAMPED = 2,
  ZG_STAT_MAX = 3
};
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

static __always_inline int is_ptp_port(__be16 port) {
  return port == bpf_htons(319) || port == bpf_htons(320);
}

// 224.0.1.129 (all PTP messages) and 224.0.0.107 (peer delay).
static __always_inline int is_ptp_group4(__be32 daddr) {
  return daddr == bpf_htonl(0xe0000181) || daddr == bpf_htonl(0xe000006b);
}

// ff0X::181 (any scope) and ff02::6b.
static __always_inline int is_ptp_group6(const struct in6_addr* a) {
  if (a->s6_addr[0] != 0xff) return 0;
  if (a->s6_addr32[1] != 0 || a->s6_addr32[2] != 0) return 0;
  if ((a->s6_addr[1] & 0xf0) != 0 || a->s6_addr[2] != 0 || a->s6_addr[3] != 0)
    return 0;
  if (a->s6_addr32[3] == bpf_htonl(0x181)) return 1;
  return a->s6_addr[1] == 0x02 && a->s6_addr32[3] == bpf_htonl(0x6b);
}

// Returns 1 if the frame is NTP/PTP over UDP to one of our addresses (or,
// with ZG_FLAG_PTP_GROUPS, PTP to a PTP group or over Ethernet).
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
  const int ptp_groups = cfg && (cfg->flags & ZG_FLAG_PTP_GROUPS);
  if (proto == bpf_htons(0x88f7)) return ptp_groups;

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
    if (ptp_groups && is_ptp_port(udp->dest) && is_ptp_group4(daddr)) return 1;
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
    if (ptp_groups && is_ptp_port(udp->dest) && is_ptp_group6(&daddr)) return 1;
    return bpf_map_lookup_elem(&zg_addrs6, &daddr) != 0;
  }
  return 0;
}

// Prepends the RX-stamp header; leaves the frame as it is if it cannot.
// In front, not behind: XDP guarantees headroom (XDP_PACKET_HEADROOM) but
// not tailroom. veth copies a frame into a buffer rounded up to 64 bytes,
// so a 58-byte PTP-over-Ethernet Delay_Req had 6 bytes of tailroom and a
// trailer could not be appended (doc/ptp.md, "Layer 2").
static __always_inline void stamp(struct xdp_md* ctx, __u64 now) {
  __u64 magic = ZG_STAMP_MAGIC;
#ifdef ZG_XDP_HWTS
  // Read before the head moves (the driver's descriptor, not the data).
  __u64 hw = 0;
  if (bpf_xdp_metadata_rx_timestamp(ctx, &hw) == 0 && hw != 0) {
    magic = ZG_STAMP_MAGIC_HW;
    now = hw;
    count(ZG_STAT_HW_STAMPED);
  }
#endif
  if (bpf_xdp_adjust_head(ctx, -ZG_STAMP_LEN) != 0) return;
  void* data = (void*)(long)ctx->data;
  void* data_end = (void*)(long)ctx->data_end;
  __u64* t = data;
  if ((void*)(t + 2) > data_end) return;
  t[0] = magic;
  t[1] = now;
}

SEC("xdp")
int zg_xdp_steer(struct xdp_md* ctx) {
  const __u64 now = bpf_ktime_get_ns();
  void* data = (void*)(long)ctx->data;
  void* data_end = (void*)(long)ctx->data_end;
  if (!is_ours(data, data_end)) {
    count(ZG_STAT_PASSED);
    return XDP_PASS;
  }
  count(ZG_STAT_STEERED);
  __u32 zero = 0;
  struct zg_config* cfg = bpf_map_lookup_elem(&zg_config, &zero);
  if (cfg && (cfg->flags & ZG_FLAG_RX_STAMP)) stamp(ctx, now);
  // No socket on this queue (zeitgeberd not running there): the kernel
  // gets it, as if this program were not loaded.
  return bpf_redirect_map(&xsks_map, ctx->rx_queue_index, XDP_PASS);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
