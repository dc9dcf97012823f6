// SPDX-License-Identifier: Apache-2.0
// ClassifyFrame: the bounds-checked walk of Ethernet, VLAN, IPv4, IPv6, UDP,
// ARP, ICMP, ICMPv6 and neighbour discovery of every received frame, and the
// metric-label names of its FrameKind and FrameDrop outcomes.
#include "core/net/frame.h"

#include <cstdint>

#include "core/net/checksum.h"

namespace zg::core {

// ---- Names -----------------------------------------------------------------

const char* FrameKindName(FrameKind kind) {
  switch (kind) {
    case FrameKind::kDrop:
      return "drop";
    case FrameKind::kArpRequest:
      return "arp_request";
    case FrameKind::kIcmpEchoRequest:
      return "icmp_echo_request";
    case FrameKind::kIcmp6EchoRequest:
      return "icmp6_echo_request";
    case FrameKind::kNeighborSolicitation:
      return "neighbor_solicitation";
    case FrameKind::kNtp:
      return "ntp";
    case FrameKind::kPtpEvent:
      return "ptp_event";
    case FrameKind::kPtpGeneral:
      return "ptp_general";
    case FrameKind::kPtpL2:
      return "ptp_l2";
    case FrameKind::kOther:
      return "other";
    case FrameKind::kCount:
      break;
  }
  return "unknown";
}

const char* FrameDropName(FrameDrop drop) {
  switch (drop) {
    case FrameDrop::kNone:
      return "none";
    case FrameDrop::kEthTruncated:
      return "eth_truncated";
    case FrameDrop::kEthTooLong:
      return "eth_too_long";
    case FrameDrop::kEthBadSourceMac:
      return "eth_bad_source_mac";
    case FrameDrop::kEthDstNotOurs:
      return "eth_dst_not_ours";
    case FrameDrop::kVlanMismatch:
      return "vlan_mismatch";
    case FrameDrop::kUnknownEthertype:
      return "unknown_ethertype";
    case FrameDrop::kArpTruncated:
      return "arp_truncated";
    case FrameDrop::kArpBadHeader:
      return "arp_bad_header";
    case FrameDrop::kArpNotOurs:
      return "arp_not_ours";
    case FrameDrop::kIpv4Truncated:
      return "ipv4_truncated";
    case FrameDrop::kIpv4BadHeader:
      return "ipv4_bad_header";
    case FrameDrop::kIpv4BadTotalLength:
      return "ipv4_bad_total_length";
    case FrameDrop::kIpv4BadChecksum:
      return "ipv4_bad_checksum";
    case FrameDrop::kIpv4Fragment:
      return "ipv4_fragment";
    case FrameDrop::kIpv4BadSource:
      return "ipv4_bad_source";
    case FrameDrop::kIpv4NotOurs:
      return "ipv4_not_ours";
    case FrameDrop::kIpv6Truncated:
      return "ipv6_truncated";
    case FrameDrop::kIpv6BadHeader:
      return "ipv6_bad_header";
    case FrameDrop::kIpv6BadPayloadLength:
      return "ipv6_bad_payload_length";
    case FrameDrop::kIpv6BadExtHeader:
      return "ipv6_bad_ext_header";
    case FrameDrop::kIpv6Fragment:
      return "ipv6_fragment";
    case FrameDrop::kIpv6BadSource:
      return "ipv6_bad_source";
    case FrameDrop::kIpv6NotOurs:
      return "ipv6_not_ours";
    case FrameDrop::kUdpBadLength:
      return "udp_bad_length";
    case FrameDrop::kUdpBadChecksum:
      return "udp_bad_checksum";
    case FrameDrop::kUdpZeroChecksumV6:
      return "udp_zero_checksum_v6";
    case FrameDrop::kUdpSourcePortZero:
      return "udp_source_port_zero";
    case FrameDrop::kIcmpBadLength:
      return "icmp_bad_length";
    case FrameDrop::kIcmpBadChecksum:
      return "icmp_bad_checksum";
    case FrameDrop::kIcmp6BadLength:
      return "icmp6_bad_length";
    case FrameDrop::kIcmp6BadChecksum:
      return "icmp6_bad_checksum";
    case FrameDrop::kNdBadHopLimit:
      return "nd_bad_hop_limit";
    case FrameDrop::kNdBadMessage:
      return "nd_bad_message";
    case FrameDrop::kNdTargetNotOurs:
      return "nd_target_not_ours";
    case FrameDrop::kReplyTooLong:
      return "reply_too_long";
    case FrameDrop::kReplyWrongKind:
      return "reply_wrong_kind";
    case FrameDrop::kCount:
      break;
  }
  return "unknown";
}

// ---- Classification -------------------------------------------------------

namespace {

// Context of one classification: the frame and what L2 found.
struct Ctx {
  const uint8_t* f;
  uint32_t len;
  const LocalAddresses& local;
  uint32_t rx_flags;
  bool mac_ours;  // destination MAC == ours (else it is a group address)
  FrameInfo& info;
};

// The common path (Ethernet, IPv4/IPv6, UDP) is forced inline into one
// function; ARP, ICMP, ND and malformed frames stay out of line.
#define ZG_HOT inline __attribute__((always_inline))
#define ZG_COLD __attribute__((noinline, cold))

inline void Drop(FrameInfo& info, FrameDrop drop) {
  info.kind = FrameKind::kDrop;
  info.drop = drop;
}

bool IsPtpIpv6Group(const uint8_t* p) {
  // ff0X::181 for any scope X (flags 0), and ff02::6b.
  const uint32_t first = LoadBe32(p);
  if ((first & 0xFFF0FFFF) != 0xFF000000 || Load64(p + 4) != 0) return false;
  const uint32_t last = LoadBe32(p + 12);
  return last == 0x181 || (last == 0x6b && first == 0xFF020000);
}

// UDP over either IP version. `pseudo` is the pseudo-header sum without the
// length (added here once the UDP length is known). `avail`: IP payload
// bytes from the UDP header on.
ZG_HOT void ClassifyUdp(Ctx& c, uint32_t l4, uint32_t avail,
                        FrameDrop not_ours) {
  FrameInfo& info = c.info;
  if (avail < udp::kHeaderLen) return Drop(info, FrameDrop::kUdpBadLength);
  const uint8_t* u = c.f + l4;
  const uint16_t ulen = LoadBe16(u + udp::kLength);
  if (ulen < udp::kHeaderLen || ulen > avail) {
    return Drop(info, FrameDrop::kUdpBadLength);
  }
  const uint16_t dport = LoadBe16(u + udp::kDstPort);
  FrameKind kind;
  if (dport == kNtpPort) {
    kind = FrameKind::kNtp;
  } else if (dport == kPtpEventPort) {
    kind = FrameKind::kPtpEvent;
  } else if (dport == kPtpGeneralPort) {
    kind = FrameKind::kPtpGeneral;
  } else {
    kind = FrameKind::kOther;
  }
  // Groups are ours only for PTP.
  if (info.dst_multicast && kind != FrameKind::kPtpEvent &&
      kind != FrameKind::kPtpGeneral) {
    return Drop(info, not_ours);
  }
  const uint16_t csum = LoadBe16(u + udp::kChecksum);
  if (csum == 0) {
    if (info.ip_version == 6) return Drop(info, FrameDrop::kUdpZeroChecksumV6);
  } else if ((c.rx_flags & kRxL4ChecksumGood) == 0) {
    const uint16_t pseudo =
        info.ip_version == 4
            ? PseudoHeaderSumV4(info.src_ipv4, info.dst_ipv4, kIpProtoUdp, ulen)
            : PseudoHeaderSumV6(info.src_ipv6, info.dst_ipv6, kIpProtoUdp,
                                ulen);
    if (!L4ChecksumValid(pseudo, u, ulen)) {
      return Drop(info, FrameDrop::kUdpBadChecksum);
    }
  }
  const uint16_t sport = LoadBe16(u + udp::kSrcPort);
  if (sport == 0) return Drop(info, FrameDrop::kUdpSourcePortZero);
  info.src_port = sport;
  info.dst_port = dport;
  info.l4_len = ulen;
  info.payload_offset = static_cast<uint16_t>(l4 + udp::kHeaderLen);
  info.payload_len = static_cast<uint16_t>(ulen - udp::kHeaderLen);
  info.kind = kind;
}

ZG_COLD void ClassifyIcmp(Ctx& c, uint32_t l4, uint32_t avail) {
  FrameInfo& info = c.info;
  if (info.dst_multicast) return Drop(info, FrameDrop::kIpv4NotOurs);
  if (avail < icmp::kHeaderLen) return Drop(info, FrameDrop::kIcmpBadLength);
  const uint8_t* m = c.f + l4;
  if (!L4ChecksumValid(0, m, avail)) {
    return Drop(info, FrameDrop::kIcmpBadChecksum);
  }
  info.l4_len = static_cast<uint16_t>(avail);
  info.payload_offset = static_cast<uint16_t>(l4 + icmp::kHeaderLen);
  info.payload_len = static_cast<uint16_t>(avail - icmp::kHeaderLen);
  info.kind = m[icmp::kType] == icmp::kEchoRequest && m[icmp::kCode] == 0
                  ? FrameKind::kIcmpEchoRequest
                  : FrameKind::kOther;
}

ZG_HOT void ClassifyIpv4(Ctx& c, uint32_t l3) {
  FrameInfo& info = c.info;
  info.ip_version = 4;
  if (c.len - l3 < ipv4::kMinHeaderLen) {
    return Drop(info, FrameDrop::kIpv4Truncated);
  }
  const uint8_t* ip = c.f + l3;
  const uint8_t vihl = ip[ipv4::kVersionIhl];
  const uint32_t ihl = (vihl & 0x0Fu) * 4;
  if ((vihl >> 4) != 4 || ihl < ipv4::kMinHeaderLen || ihl > c.len - l3) {
    return Drop(info, FrameDrop::kIpv4BadHeader);
  }
  const uint16_t total = LoadBe16(ip + ipv4::kTotalLength);
  if (total < ihl || total > c.len - l3) {
    return Drop(info, FrameDrop::kIpv4BadTotalLength);
  }
  const uint16_t frag = LoadBe16(ip + ipv4::kFlagsFragment);
  if ((frag & (ipv4::kFlagMf | ipv4::kFragmentOffsetMask)) != 0) {
    return Drop(info, FrameDrop::kIpv4Fragment);
  }
  info.src_ipv4 = Ipv4Addr::Load(ip + ipv4::kSrc);
  info.dst_ipv4 = Ipv4Addr::Load(ip + ipv4::kDst);
  const int idx = c.local.FindIpv4(info.dst_ipv4);
  if (idx >= 0) {
    // A unicast IP destination must arrive on our unicast MAC (RFC 1122
    // 3.3.6), not on a broadcast or multicast frame.
    if (!c.mac_ours) return Drop(info, FrameDrop::kEthDstNotOurs);
    info.local_index = static_cast<uint8_t>(idx);
  } else if (info.dst_ipv4 == kPtpPrimaryIpv4 ||
             info.dst_ipv4 == kPtpPdelayIpv4) {
    info.dst_multicast = true;
  } else {
    return Drop(info, FrameDrop::kIpv4NotOurs);
  }
  if ((c.rx_flags & kRxIpv4ChecksumGood) == 0 &&
      !Ipv4HeaderChecksumValid(ip, ihl)) {
    return Drop(info, FrameDrop::kIpv4BadChecksum);
  }
  if (info.src_ipv4.IsReserved()) return Drop(info, FrameDrop::kIpv4BadSource);
  info.hop_limit = ip[ipv4::kTtl];
  info.l4_protocol = ip[ipv4::kProtocol];
  info.l3_len = total;
  const uint32_t l4 = l3 + ihl;
  info.l4_offset = static_cast<uint16_t>(l4);
  if (info.l4_protocol == kIpProtoUdp) {
    return ClassifyUdp(c, l4, total - ihl, FrameDrop::kIpv4NotOurs);
  }
  if (info.l4_protocol == kIpProtoIcmp) return ClassifyIcmp(c, l4, total - ihl);
  if (info.dst_multicast) return Drop(info, FrameDrop::kIpv4NotOurs);
  info.l4_len = static_cast<uint16_t>(total - ihl);
  info.kind = FrameKind::kOther;
}

// RFC 4861 7.1.1 validation of a neighbour solicitation; ICMPv6 checksum
// and length >= 8 already checked.
ZG_COLD void ClassifyNeighborSolicitation(Ctx& c, uint32_t l4, uint32_t avail,
                                          bool dst_solicited) {
  FrameInfo& info = c.info;
  const uint8_t* m = c.f + l4;
  if (info.hop_limit != icmp6::kNdHopLimit) {
    return Drop(info, FrameDrop::kNdBadHopLimit);
  }
  if (m[icmp6::kCode] != 0 || avail < icmp6::kNdMinLen ||
      m[icmp6::kNdTarget] == 0xff) {
    return Drop(info, FrameDrop::kNdBadMessage);
  }
  // Options: every length nonzero and within the message.
  uint32_t sllao = 0;
  for (uint32_t o = icmp6::kNdOptions; o < avail;) {
    if (avail - o < 2 || m[o + 1] == 0 || m[o + 1] * 8u > avail - o) {
      return Drop(info, FrameDrop::kNdBadMessage);
    }
    if (m[o] == icmp6::kOptSourceLinkAddr && sllao == 0 &&
        m[o + 1] * 8u == icmp6::kOptLinkAddrLen) {
      sllao = l4 + o + 2;
    }
    o += m[o + 1] * 8u;
  }
  if (info.src_ipv6.IsUnspecified() && (!dst_solicited || sllao != 0)) {
    return Drop(info, FrameDrop::kNdBadMessage);  // DAD rules
  }
  const int idx = c.local.FindIpv6(m + icmp6::kNdTarget);
  if (idx < 0) return Drop(info, FrameDrop::kNdTargetNotOurs);
  if (sllao != 0 && (c.f[sllao] & 1) != 0) {
    return Drop(info, FrameDrop::kNdBadMessage);  // group link-layer address
  }
  info.local_index = static_cast<uint8_t>(idx);
  info.nd_lladdr_offset = static_cast<uint16_t>(sllao);
  info.kind = FrameKind::kNeighborSolicitation;
}

ZG_COLD void ClassifyIcmp6(Ctx& c, uint32_t l4, uint32_t avail,
                           bool dst_solicited) {
  FrameInfo& info = c.info;
  if (avail < icmp6::kHeaderLen) return Drop(info, FrameDrop::kIcmp6BadLength);
  const uint8_t* m = c.f + l4;
  const uint16_t pseudo =
      PseudoHeaderSumV6(info.src_ipv6, info.dst_ipv6, kIpProtoIcmp6, avail);
  if (!L4ChecksumValid(pseudo, m, avail)) {
    return Drop(info, FrameDrop::kIcmp6BadChecksum);
  }
  info.l4_len = static_cast<uint16_t>(avail);
  info.payload_offset = static_cast<uint16_t>(l4 + icmp6::kHeaderLen);
  info.payload_len = static_cast<uint16_t>(avail - icmp6::kHeaderLen);
  const uint8_t type = m[icmp6::kType];
  if (type == icmp6::kNeighborSolicitation) {
    // To our unicast address or our solicited-node group, not a PTP group.
    if (info.dst_multicast && !dst_solicited) {
      return Drop(info, FrameDrop::kIpv6NotOurs);
    }
    return ClassifyNeighborSolicitation(c, l4, avail, dst_solicited);
  }
  if (info.dst_multicast) return Drop(info, FrameDrop::kIpv6NotOurs);
  if (info.src_ipv6.IsUnspecified()) {
    return Drop(info, FrameDrop::kIpv6BadSource);
  }
  info.kind = type == icmp6::kEchoRequest && m[icmp6::kCode] == 0
                  ? FrameKind::kIcmp6EchoRequest
                  : FrameKind::kOther;
}

// At most this many hop-by-hop/routing/destination-options headers.
constexpr int kMaxIpv6ExtHeaders = 8;

// Walks extension headers from `*off` to `end`; leaves `*next` = the
// upper-layer protocol and `*off` its offset. False: malformed (drop set).
bool WalkIpv6ExtHeaders(Ctx& c, uint8_t* next, uint32_t* off, uint32_t end) {
  for (int i = 0;; ++i) {
    const uint8_t nh = *next;
    if (nh == kIpProtoFragment) {
      Drop(c.info, FrameDrop::kIpv6Fragment);
      return false;
    }
    if (nh != kIpProtoHopByHop && nh != kIpProtoRouting &&
        nh != kIpProtoDstOpts) {
      return true;
    }
    const uint8_t* h = c.f + *off;
    // Hop-by-hop only first (RFC 8200 4.1); we route nothing, so a routing
    // header must have no segments left (4.4).
    if (i >= kMaxIpv6ExtHeaders || (nh == kIpProtoHopByHop && i != 0) ||
        end - *off < ipv6::kExtMinLen ||
        (h[ipv6::kExtLength] + 1u) * 8 > end - *off ||
        (nh == kIpProtoRouting && h[ipv6::kRoutingSegmentsLeft] != 0)) {
      Drop(c.info, FrameDrop::kIpv6BadExtHeader);
      return false;
    }
    *next = h[ipv6::kExtNextHeader];
    *off += (h[ipv6::kExtLength] + 1u) * 8;
  }
}

ZG_HOT void ClassifyIpv6(Ctx& c, uint32_t l3) {
  FrameInfo& info = c.info;
  info.ip_version = 6;
  if (c.len - l3 < ipv6::kHeaderLen) {
    return Drop(info, FrameDrop::kIpv6Truncated);
  }
  const uint8_t* ip = c.f + l3;
  if ((ip[0] >> 4) != 6) return Drop(info, FrameDrop::kIpv6BadHeader);
  const uint32_t plen = LoadBe16(ip + ipv6::kPayloadLength);
  if (plen > c.len - l3 - ipv6::kHeaderLen) {
    return Drop(info, FrameDrop::kIpv6BadPayloadLength);
  }
  const uint8_t* dst = ip + ipv6::kDst;
  bool dst_solicited = false;
  const int idx = c.local.FindIpv6(dst);
  if (idx >= 0) {
    if (!c.mac_ours) return Drop(info, FrameDrop::kEthDstNotOurs);
    info.local_index = static_cast<uint8_t>(idx);
  } else if (IsPtpIpv6Group(dst)) {
    info.dst_multicast = true;
  } else if (c.local.IsOurSolicitedNode(dst)) {
    info.dst_multicast = true;
    dst_solicited = true;
  } else {
    return Drop(info, FrameDrop::kIpv6NotOurs);
  }
  const uint8_t* src = ip + ipv6::kSrc;
  if (src[0] == 0xff || Ipv6Addr::IsLoopbackAt(src)) {
    return Drop(info, FrameDrop::kIpv6BadSource);
  }
  const bool src_unspecified = Ipv6Addr::IsUnspecifiedAt(src);
  info.src_ipv6 = Ipv6Addr::Load(src);
  info.dst_ipv6 = Ipv6Addr::Load(dst);
  info.hop_limit = ip[ipv6::kHopLimit];
  info.l3_len = static_cast<uint16_t>(ipv6::kHeaderLen + plen);
  uint8_t next = ip[ipv6::kNextHeader];
  uint32_t l4 = l3 + ipv6::kHeaderLen;
  const uint32_t end = l4 + plen;
  if (!WalkIpv6ExtHeaders(c, &next, &l4, end)) return;
  info.l4_protocol = next;
  info.l4_offset = static_cast<uint16_t>(l4);
  if (next == kIpProtoIcmp6) {
    return ClassifyIcmp6(c, l4, end - l4, dst_solicited);
  }
  // Only an NS may come from the unspecified address or to a solicited-node
  // group.
  if (dst_solicited) return Drop(info, FrameDrop::kIpv6NotOurs);
  if (src_unspecified) {
    return Drop(info, FrameDrop::kIpv6BadSource);
  }
  if (next == kIpProtoUdp) {
    return ClassifyUdp(c, l4, end - l4, FrameDrop::kIpv6NotOurs);
  }
  // ESP, AH, no next header, TCP, ...: not UDP.
  if (info.dst_multicast) return Drop(info, FrameDrop::kIpv6NotOurs);
  info.l4_len = static_cast<uint16_t>(end - l4);
  info.kind = FrameKind::kOther;
}

ZG_COLD void ClassifyArp(Ctx& c, uint32_t l3) {
  FrameInfo& info = c.info;
  if (c.len - l3 < arp::kLen) return Drop(info, FrameDrop::kArpTruncated);
  const uint8_t* a = c.f + l3;
  if (!c.mac_ours && !kBroadcastMac.Equals(c.f + eth::kDst)) {
    return Drop(info, FrameDrop::kEthDstNotOurs);
  }
  const uint16_t op = LoadBe16(a + arp::kOperation);
  if (LoadBe16(a + arp::kHardwareType) != arp::kHardwareEthernet ||
      LoadBe16(a + arp::kProtocolType) != kEtherTypeIpv4 ||
      a[arp::kHardwareLen] != 6 || a[arp::kProtocolLen] != 4 ||
      (op != arp::kOpRequest && op != arp::kOpReply) ||
      (a[arp::kSenderMac] & 1) != 0) {
    return Drop(info, FrameDrop::kArpBadHeader);
  }
  info.l3_len = arp::kLen;
  info.src_ipv4 = Ipv4Addr::Load(a + arp::kSenderIp);
  info.dst_ipv4 = Ipv4Addr::Load(a + arp::kTargetIp);
  const int idx = c.local.FindIpv4(info.dst_ipv4);
  // Gratuitous ARP (sender == target) announces, it asks nothing.
  const bool gratuitous = info.src_ipv4 == info.dst_ipv4;
  if (idx < 0 && !gratuitous) return Drop(info, FrameDrop::kArpNotOurs);
  if (idx >= 0) info.local_index = static_cast<uint8_t>(idx);
  info.kind = op == arp::kOpRequest && !gratuitous ? FrameKind::kArpRequest
                                                   : FrameKind::kOther;
}

ZG_COLD void ClassifyPtpL2(Ctx& c, uint32_t l3) {
  FrameInfo& info = c.info;
  if (!c.mac_ours && !kPtpPrimaryMac.Equals(c.f + eth::kDst) &&
      !kPtpPdelayMac.Equals(c.f + eth::kDst)) {
    return Drop(info, FrameDrop::kEthDstNotOurs);
  }
  info.l3_len = static_cast<uint16_t>(c.len - l3);
  info.payload_offset = static_cast<uint16_t>(l3);
  info.payload_len = static_cast<uint16_t>(c.len - l3);
  info.kind = FrameKind::kPtpL2;
}

// Ethernet and VLAN tags; returns the L3 offset, or 0 (drop set).
ZG_HOT uint32_t ParseL2(Ctx& c) {
  FrameInfo& info = c.info;
  uint32_t off = eth::kType;  // offset of the current ethertype/TPID
  uint16_t type = LoadBe16(c.f + off);
  if (type == kEtherTypeQinQ) {
    // 802.1ad: skip the S-tag; a C-tag must follow.
    if (c.len < off + 2 * vlan::kTagLen + 2) {
      Drop(info, FrameDrop::kEthTruncated);
      return 0;
    }
    off += vlan::kTagLen;
    type = LoadBe16(c.f + off);
    if (type != kEtherTypeVlan) {
      Drop(info, FrameDrop::kVlanMismatch);
      return 0;
    }
    info.vlan_tags = 1;
  }
  uint16_t vid = 0;
  if (type == kEtherTypeVlan) {
    if (c.len < off + vlan::kTagLen + 2) {
      Drop(info, FrameDrop::kEthTruncated);
      return 0;
    }
    info.vlan_tci = LoadBe16(c.f + off + 2);
    vid = info.vlan_tci & vlan::kVidMask;
    ++info.vlan_tags;
    off += vlan::kTagLen;
    type = LoadBe16(c.f + off);
  }
  // Untagged and priority-tagged (VID 0) frames belong to an untagged port.
  if (c.local.has_vlan() ? (info.vlan_tags == 0 || vid != c.local.vlan_id())
                         : vid != 0) {
    Drop(info, FrameDrop::kVlanMismatch);
    return 0;
  }
  info.ethertype = type;
  return off + 2;
}

void Classify(Ctx& c) {
  FrameInfo& info = c.info;
  if (c.len < eth::kHeaderLen) return Drop(info, FrameDrop::kEthTruncated);
  if (c.len > 0xFFFF) return Drop(info, FrameDrop::kEthTooLong);
  info.frame_len = static_cast<uint16_t>(c.len);
  c.mac_ours = c.local.mac().Equals(c.f + eth::kDst);
  if (!c.mac_ours && (c.f[eth::kDst] & 1) == 0) {
    return Drop(info, FrameDrop::kEthDstNotOurs);
  }
  if ((c.f[eth::kSrc] & 1) != 0) return Drop(info, FrameDrop::kEthBadSourceMac);
  const uint32_t l3 = ParseL2(c);
  if (l3 == 0) return;
  info.l3_offset = static_cast<uint16_t>(l3);
  switch (info.ethertype) {
    case kEtherTypeIpv4:
      return ClassifyIpv4(c, l3);
    case kEtherTypeIpv6:
      return ClassifyIpv6(c, l3);
    case kEtherTypeArp:
      return ClassifyArp(c, l3);
    case kEtherTypePtp:
      return ClassifyPtpL2(c, l3);
    default:
      return Drop(info, FrameDrop::kUnknownEthertype);
  }
}

}  // namespace

FrameInfo ClassifyFrame(const uint8_t* frame, uint32_t len,
                        const LocalAddresses& local, uint32_t rx_flags) {
  FrameInfo info;
  Ctx c{frame, len, local, rx_flags, false, info};
  Classify(c);
  return info;
}

}  // namespace zg::core
