// Frame classification and in-place UDP reply addressing: the per-packet
// front end of every data-plane worker.
//
// ClassifyFrame walks Ethernet / VLAN / IPv4 / IPv6 / UDP / ARP / ICMP / ND
// with every length bounds-checked against the frame, checks checksums and
// addressing against our LocalAddresses, and says what the frame is (a
// FrameKind) or why it is dropped (a FrameDrop, one Prometheus counter
// each). PrepareUdpReply then turns a classified UDP request into the reply's
// headers in the same buffer; the protocol handler writes the payload and
// FinalizeUdpChecksum (or, for a late rewrite such as the NTP transmit
// timestamp, UpdateUdpChecksum) completes it. No allocation, exceptions,
// locks or I/O; a few ns per frame.
//
//   FrameInfo info = ClassifyFrame(data, len, local);
//   if (info.kind == FrameKind::kDrop) {
//     ++stats.drops[static_cast<size_t>(info.drop)];
//   } else if (info.kind == FrameKind::kNtp) {
//     uint16_t n = BuildNtpReplyPayload(data + info.payload_offset, ...);
//     FrameInfo reply;
//     uint32_t reply_len = PrepareUdpReply(data, info, local, n, &reply);
//     if (reply_len != 0) {
//       FinalizeUdpChecksum(data, reply);
//       ... write T3 at reply.payload_offset + 40, then
//       UpdateUdpChecksum(data, reply, 40, old_t3, new_t3, 8);
//     }
//   }
//
// Frames must be contiguous and carry their VLAN tags in the data (disable
// VLAN stripping offload, or re-insert the tag before classifying).
#ifndef ZG_CORE_NET_FRAME_H_
#define ZG_CORE_NET_FRAME_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/net/net_headers.h"

namespace zg::core {

// What a frame is. Everything but kDrop was addressed to us and passed every
// check of its layers.
enum class FrameKind : uint8_t {
  kDrop = 0,              // see FrameInfo::drop
  kArpRequest,            // ARP request for one of our IPv4 addresses
  kIcmpEchoRequest,       // ICMP echo request to one of our IPv4 addresses
  kIcmp6EchoRequest,      // ICMPv6 echo request to one of our IPv6 addresses
  kNeighborSolicitation,  // NS for one of our IPv6 addresses (RFC 4861 7.1.1)
  kNtp,                   // UDP to port 123 of one of our addresses
  kPtpEvent,              // UDP to port 319 (ours or a PTP group)
  kPtpGeneral,            // UDP to port 320 (ours or a PTP group)
  kPtpL2,                 // ethertype 0x88F7 to our MAC or a PTP group MAC
  kOther,  // valid and ours, but nothing we answer (other ports, ARP
           // replies, ICMP errors, ND other than NS, TCP, ESP, ...)
  kCount
};
const char* FrameKindName(FrameKind kind);  // "ntp", "ptp_event", ...

// Why a frame was dropped. Names are stable: they are metric label values.
enum class FrameDrop : uint8_t {
  kNone = 0,
  // Ethernet and VLAN
  kEthTruncated,      // shorter than an Ethernet header (or its VLAN tags)
  kEthTooLong,        // longer than 65535 bytes
  kEthBadSourceMac,   // source MAC is a group address
  kEthDstNotOurs,     // destination MAC is not ours, nor a group valid here
  kVlanMismatch,      // tag missing, unexpected, or another VLAN id
  kUnknownEthertype,  // not IPv4, IPv6, ARP or PTP
  // ARP
  kArpTruncated,
  kArpBadHeader,  // not Ethernet/IPv4, or a group sender MAC
  kArpNotOurs,    // request for an address that is not ours
  // IPv4
  kIpv4Truncated,       // shorter than the 20-byte header
  kIpv4BadHeader,       // version != 4, IHL < 5 or beyond the frame
  kIpv4BadTotalLength,  // total length < header or beyond the frame
  kIpv4BadChecksum,
  kIpv4Fragment,   // MF set or a nonzero fragment offset
  kIpv4BadSource,  // 0/8, 127/8, multicast, 240/4, broadcast
  kIpv4NotOurs,    // destination is not ours (nor a PTP group on 319/320)
  // IPv6
  kIpv6Truncated,         // shorter than the 40-byte header
  kIpv6BadHeader,         // version != 6
  kIpv6BadPayloadLength,  // payload length beyond the frame
  kIpv6BadExtHeader,      // truncated, too many, misplaced hop-by-hop,
                          // routing header with segments left
  kIpv6Fragment,          // a fragment header
  kIpv6BadSource,         // multicast, loopback, unspecified (except DAD)
  kIpv6NotOurs,           // destination is not ours (nor a group we serve)
  // UDP
  kUdpBadLength,  // length < 8 or beyond the IP payload
  kUdpBadChecksum,
  kUdpZeroChecksumV6,  // a zero (absent) checksum over IPv6 (RFC 8200 8.1)
  kUdpSourcePortZero,  // nowhere to reply to
  // ICMP, ICMPv6 and neighbour discovery
  kIcmpBadLength,  // shorter than 8 bytes
  kIcmpBadChecksum,
  kIcmp6BadLength,  // shorter than 8 bytes
  kIcmp6BadChecksum,
  kNdBadHopLimit,  // NS with an IPv6 hop limit other than 255
  kNdBadMessage,   // NS with code != 0, too short, multicast target, a
                   // zero-length option, or DAD with a link-layer option
  kNdTargetNotOurs,
  // Reply construction (responders, PrepareUdpReply)
  kReplyTooLong,    // the reply would not fit where the request was
  kReplyWrongKind,  // asked to answer a frame of another kind
  kCount
};
const char* FrameDropName(FrameDrop drop);  // "ipv4_bad_checksum", ...

inline constexpr size_t kFrameKindCount =
    static_cast<size_t>(FrameKind::kCount);
inline constexpr size_t kFrameDropCount =
    static_cast<size_t>(FrameDrop::kCount);

// Our addresses on one port. Built by setup code, then copied read-only into
// each worker (replace the whole object to reconfigure).
// Written by: control thread (setup). Read by: workers.
class LocalAddresses {
 public:
  static constexpr int kMaxIpv4 = 8;
  static constexpr int kMaxIpv6 = 8;
  // What FindIpv4/FindIpv6 (and so FrameInfo::local_index) say for an address
  // of the range (AddIpv4Range/AddIpv6Range): the address itself is the
  // frame's (dst_ipv4/dst_ipv6, or the ARP/NS target).
  static constexpr uint8_t kRangeIndex = 0xFE;

  // Empty: MAC 00:00:00:00:00:00, no addresses. Use Create.
  LocalAddresses() = default;
  // `mac` must be a nonzero unicast address; `vlan_id` 1..4094 when frames
  // carry an 802.1Q tag, nullopt for untagged (priority-tagged VID 0 frames
  // are then also accepted).
  static absl::StatusOr<LocalAddresses> Create(
      const MacAddr& mac, std::optional<uint16_t> vlan_id = std::nullopt);
  // Adds a unicast address (not reserved, multicast, loopback, unspecified;
  // no duplicates; at most kMaxIpv4/kMaxIpv6). The first of each family is
  // the primary: the source of replies to multicast requests.
  absl::Status AddIpv4(Ipv4Addr addr);
  absl::Status AddIpv6(const Ipv6Addr& addr);
  absl::Status Add(const IpAddress& addr);
  // Adds `count` consecutive addresses from `first` (IPv6: counting in the
  // low 32 bits, which must not wrap), matched after the listed ones: the
  // simulated clients of a load generator (bench/loadgen/), answered for
  // ARP/ND and classified like listed addresses, with local_index
  // kRangeIndex. One range per family; none of its addresses may be
  // reserved, multicast, loopback or unspecified, nor overlap a listed one.
  // Never the source of replies to multicast requests.
  absl::Status AddIpv4Range(Ipv4Addr first, uint32_t count);
  absl::Status AddIpv6Range(const Ipv6Addr& first, uint32_t count);

  const MacAddr& mac() const { return mac_; }
  bool has_vlan() const { return has_vlan_; }
  uint16_t vlan_id() const { return vlan_id_; }
  int num_ipv4() const { return num_ipv4_; }
  int num_ipv6() const { return num_ipv6_; }
  Ipv4Addr ipv4(int i) const { return ipv4_[i]; }
  const Ipv6Addr& ipv6(int i) const { return ipv6_[i]; }

  uint32_t ipv4_range_count() const { return range4_count_; }
  Ipv4Addr ipv4_range_first() const { return range4_first_; }
  uint32_t ipv6_range_count() const { return range6_count_; }
  const Ipv6Addr& ipv6_range_first() const { return range6_first_; }

  // Index of `addr` among our IPv4 addresses, kRangeIndex if it is in the
  // range, or -1.
  int FindIpv4(Ipv4Addr addr) const {
    for (int i = 0; i < num_ipv4_; ++i) {
      if (ipv4_[i] == addr) return i;
    }
    if (addr.value - range4_first_.value < range4_count_) return kRangeIndex;
    return -1;
  }
  // Index of the 16 bytes at `p` among our IPv6 addresses, kRangeIndex if
  // they are in the range, or -1.
  int FindIpv6(const uint8_t* p) const {
    for (int i = 0; i < num_ipv6_; ++i) {
      if (ipv6_[i].Equals(p)) return i;
    }
    if (range6_count_ != 0 && InIpv6Range(p)) return kRangeIndex;
    return -1;
  }
  // True if `index` (a FrameInfo::local_index) names one of our IPv4 / IPv6
  // addresses: a listed one or the range.
  bool HasIpv4Index(uint8_t index) const {
    return index < num_ipv4_ || (index == kRangeIndex && range4_count_ != 0);
  }
  bool HasIpv6Index(uint8_t index) const {
    return index < num_ipv6_ || (index == kRangeIndex && range6_count_ != 0);
  }
  // True if the 16 bytes at `p` are the solicited-node group of one of our
  // IPv6 addresses.
  bool IsOurSolicitedNode(const uint8_t* p) const;
  // Index of the source for a reply to `peer` when the request went to a
  // group: our first link-local address for a link-local peer, else our
  // first other address, else the primary (0). -1 if we have no IPv6.
  int Ipv6SourceIndexFor(const Ipv6Addr& peer) const;

 private:
  bool InIpv6Range(const uint8_t* p) const;

  MacAddr mac_;
  bool has_vlan_ = false;
  uint16_t vlan_id_ = 0;
  uint8_t num_ipv4_ = 0;
  uint8_t num_ipv6_ = 0;
  std::array<Ipv4Addr, kMaxIpv4> ipv4_{};
  std::array<Ipv6Addr, kMaxIpv6> ipv6_{};
  // Low 24 bits of each IPv6 address (its solicited-node group).
  std::array<uint32_t, kMaxIpv6> solicited_low24_{};
  Ipv4Addr range4_first_;
  uint32_t range4_count_ = 0;
  Ipv6Addr range6_first_;
  uint32_t range6_count_ = 0;
};

// The result of ClassifyFrame. Offsets are from the start of the frame and,
// for any kind but kDrop, lie within it: x_offset + x_len <= frame_len.
// For kDrop only `kind`, `drop` and the fields filled before the failing
// layer are meaningful.
struct FrameInfo {
  static constexpr uint8_t kNoLocalIndex = 0xFF;

  FrameKind kind = FrameKind::kDrop;
  FrameDrop drop = FrameDrop::kNone;
  uint8_t ip_version = 0;   // 4, 6, or 0 (ARP, PTP over Ethernet)
  uint8_t l4_protocol = 0;  // IPv4 protocol / IPv6 upper-layer next header
  uint8_t vlan_tags = 0;    // 0, 1, or 2 (802.1ad outer + 802.1Q inner)
  // Which of our addresses the frame was for: the IPv4/IPv6 destination
  // (ARP and NS: the target), as an index into LocalAddresses::ipv4()/ipv6();
  // LocalAddresses::kRangeIndex for an address of the range; kNoLocalIndex
  // for a PTP group destination.
  uint8_t local_index = kNoLocalIndex;
  uint8_t hop_limit = 0;       // IPv4 TTL / IPv6 hop limit
  bool dst_multicast = false;  // sent to an IP group (PTP, solicited-node)
  uint16_t vlan_tci = 0;       // TCI of the innermost tag (PCP, DEI, VID)
  uint16_t ethertype = 0;      // after the VLAN tags
  uint16_t frame_len = 0;
  uint16_t l3_offset = 0;       // == the L2 header length (14, 18 or 22)
  uint16_t l3_len = 0;          // IPv4 total length, IPv6 40 + payload, ARP 28
  uint16_t l4_offset = 0;       // after IPv4 options / IPv6 extension headers
  uint16_t l4_len = 0;          // UDP length, ICMP/ICMPv6 message length
  uint16_t payload_offset = 0;  // UDP payload; PTP L2: the PTP message
  uint16_t payload_len = 0;
  uint16_t src_port = 0;
  uint16_t dst_port = 0;
  // NS: offset of the 6-byte address in the source link-layer address
  // option, 0 if absent.
  uint16_t nd_lladdr_offset = 0;
  Ipv4Addr src_ipv4;  // ip_version 4 and ARP (sender / target address)
  Ipv4Addr dst_ipv4;
  Ipv6Addr src_ipv6;  // ip_version 6
  Ipv6Addr dst_ipv6;
};

// Hints from the NIC's receive checksum offload (DPDK
// RTE_MBUF_F_RX_IP_CKSUM_GOOD / RTE_MBUF_F_RX_L4_CKSUM_GOOD): checks the NIC
// already passed are skipped. Pass 0 when unsure.
inline constexpr uint32_t kRxIpv4ChecksumGood = 1u << 0;
inline constexpr uint32_t kRxL4ChecksumGood = 1u << 1;

// Classifies `len` bytes at `frame` (without FCS). Never reads outside them.
FrameInfo ClassifyFrame(const uint8_t* frame, uint32_t len,
                        const LocalAddresses& local, uint32_t rx_flags = 0);

// Rewrites the classified UDP request `req` (ip_version 4 or 6, l4_protocol
// UDP) in place into the headers of a reply carrying `reply_payload_len`
// payload bytes:
//  - Ethernet: destination = the request's source, source = our MAC; VLAN
//    tags kept as received.
//  - IP: source = the address the request was sent to (for a group: our
//    primary IPv4, or Ipv6SourceIndexFor(peer)), destination = the requester;
//    TTL/hop limit 64; DSCP kept, ECN cleared; IPv4: ID 0, DF, header
//    checksum; IPv6: flow label kept.
//  - IPv4 options and IPv6 extension headers are not echoed: the reply has
//    a bare 20/40-byte header, and the first reply_payload_len bytes at
//    req.payload_offset are moved to the reply's payload offset.
//  - UDP: ports swapped, length set, checksum 0 (FinalizeUdpChecksum).
// Returns the reply's frame length, which never exceeds req.frame_len (short
// replies are not padded: the NIC pads to 60 bytes), and describes it in
// *reply (may be &req). Returns 0 and leaves the frame untouched when the
// reply would not fit in req.frame_len or `req` is not UDP.
uint32_t PrepareUdpReply(uint8_t* frame, const FrameInfo& req,
                         const LocalAddresses& local,
                         uint16_t reply_payload_len, FrameInfo* reply);

// Computes and stores the UDP checksum of a prepared or built frame (after
// its payload is written). The pseudo-header and UDP header are taken from
// `reply` (as PrepareUdpReply or BuildUdpFrame left it and the frame), only
// the payload from the frame. A computed 0 is sent as 0xFFFF.
void FinalizeUdpChecksum(uint8_t* frame, const FrameInfo& reply);

// For NIC checksum offload (DPDK RTE_MBUF_F_TX_UDP_CKSUM): stores the
// pseudo-header sum the NIC expects in the UDP checksum field.
void PrepareUdpChecksumOffload(uint8_t* frame, const FrameInfo& reply);

// Updates the stored UDP checksum after `len` payload bytes at
// `payload_offset` (from reply.payload_offset) changed from `old_bytes` to
// `new_bytes` (RFC 1624). The caller writes the new bytes; the frame's
// payload is not read. Equals FinalizeUdpChecksum on the new payload.
void UpdateUdpChecksum(uint8_t* frame, const FrameInfo& reply,
                       uint32_t payload_offset, const uint8_t* old_bytes,
                       const uint8_t* new_bytes, uint32_t len);

// Addressing of a frame we originate (PTP Sync/Announce/Delay_Resp, the
// load generator).
struct UdpFrameSpec {
  MacAddr src_mac;
  MacAddr dst_mac;  // for a group IP: Ipv4MulticastMac / MulticastMac()
  std::optional<uint16_t> vlan_id;  // 802.1Q tag when set (1..4094)
  uint8_t vlan_pcp = 0;             // 0..7
  IpAddress src_ip;                 // same family as dst_ip
  IpAddress dst_ip;
  uint16_t src_port = 0;
  uint16_t dst_port = 0;
  uint8_t dscp = 0;  // 0..63
  uint8_t ttl = 64;  // TTL / hop limit (ptp4l uses 1 for multicast)
};

// Writes Ethernet (+802.1Q) + IPv4/IPv6 + UDP headers for `payload_len`
// bytes into `out` (capacity `cap`) and describes the frame in *info (kind
// kOther; payload at info->payload_offset). The payload is not touched; call
// FinalizeUdpChecksum once it is written. Returns the frame length, or 0 if
// it exceeds `cap` or the spec is inconsistent (mixed families, VLAN id or
// PCP or DSCP out of range).
uint32_t BuildUdpFrame(uint8_t* out, uint32_t cap, const UdpFrameSpec& spec,
                       uint16_t payload_len, FrameInfo* info);

// Writes an Ethernet (+802.1Q) header with `ethertype` for `payload_len`
// bytes (PTP over Ethernet: kEtherTypePtp to kPtpPrimaryMac). Returns the
// frame length (payload at info->payload_offset) or 0 as BuildUdpFrame.
uint32_t BuildL2Frame(uint8_t* out, uint32_t cap, const MacAddr& src_mac,
                      const MacAddr& dst_mac, std::optional<uint16_t> vlan_id,
                      uint8_t vlan_pcp, uint16_t ethertype,
                      uint16_t payload_len, FrameInfo* info);

}  // namespace zg::core

#endif  // ZG_CORE_NET_FRAME_H_
