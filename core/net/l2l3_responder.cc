// SPDX-License-Identifier: Apache-2.0
#include "core/net/l2l3_responder.h"

#include <algorithm>
#include <cstring>

#include "core/net/checksum.h"
#include "core/net/frame_build.h"
#include "core/net/frame_internal.h"

namespace zg::core {
namespace {

uint32_t Fail(FrameDrop* drop, FrameDrop why) {
  *drop = why;
  return 0;
}

// `req` is of `kind`, was for one of our addresses (`has_index`: a listed
// one or the range) and its L4 message lies within the frame.
bool Check(const FrameInfo& req, FrameKind kind, bool has_index) {
  return req.kind == kind && has_index &&
         uint32_t{req.l4_offset} + req.l4_len <= req.frame_len;
}

// Moves an upper-layer message of `len` bytes from `from` to `to` (<= from)
// when options or extension headers are being dropped.
void MoveDown(uint8_t* frame, uint32_t to, uint32_t from, uint32_t len) {
  if (to != from) std::memmove(frame + to, frame + from, len);
}

// Turns the ICMP or ICMPv6 echo request at `m` into an echo reply by its
// type byte alone, updating the checksum for that one word (RFC 1624).
// ICMP and ICMPv6 share the layout: type at 0, checksum at 2.
void SetEchoReplyType(uint8_t* m, uint8_t reply_type) {
  static_assert(icmp::kType == icmp6::kType &&
                icmp::kChecksum == icmp6::kChecksum);
  const uint16_t old_word = LoadBe16(m + icmp::kType);
  m[icmp::kType] = reply_type;
  StoreBe16(m + icmp::kChecksum,
            ChecksumUpdate16(LoadBe16(m + icmp::kChecksum), old_word,
                             LoadBe16(m + icmp::kType)));
}

}  // namespace

uint32_t AnswerArpRequest(uint8_t* frame, const FrameInfo& req,
                          const LocalAddresses& local, FrameDrop* drop) {
  if (req.kind != FrameKind::kArpRequest ||
      !local.HasIpv4Index(req.local_index) ||
      uint32_t{req.l3_offset} + arp::kLen > req.frame_len) {
    return Fail(drop, FrameDrop::kReplyWrongKind);
  }
  uint8_t* a = frame + req.l3_offset;
  // The requester's hardware address (not necessarily the Ethernet source).
  uint8_t requester[6];
  std::memcpy(requester, a + arp::kSenderMac, 6);
  internal::WriteMacs(frame, requester, local.mac());
  StoreBe16(a + arp::kOperation, arp::kOpReply);
  std::memcpy(a + arp::kTargetMac, requester, 6);
  req.src_ipv4.Store(a + arp::kTargetIp);
  local.mac().Store(a + arp::kSenderMac);
  // The requested address (ours: a listed one or one of the range).
  req.dst_ipv4.Store(a + arp::kSenderIp);
  const uint32_t len = req.l3_offset + arp::kLen;
  // Pad to the minimum frame as the request was, with zeros rather than the
  // request's padding.
  const uint32_t padded =
      std::max(len, std::min<uint32_t>(req.frame_len, eth::kMinFrameLen));
  std::memset(frame + len, 0, padded - len);
  return padded;
}

uint32_t AnswerIcmpEcho(uint8_t* frame, const FrameInfo& req,
                        const LocalAddresses& local, FrameDrop* drop) {
  if (!Check(req, FrameKind::kIcmpEchoRequest,
             local.HasIpv4Index(req.local_index)) ||
      req.ip_version != 4) {
    return Fail(drop, FrameDrop::kReplyWrongKind);
  }
  uint8_t* ip = frame + req.l3_offset;
  const uint8_t tos = ip[ipv4::kTos] & internal::kDscpMask;
  const uint32_t l4 = req.l3_offset + ipv4::kMinHeaderLen;
  MoveDown(frame, l4, req.l4_offset, req.l4_len);
  internal::WriteMacs(frame, frame + eth::kSrc, local.mac());
  internal::WriteIpv4Header(
      ip, tos, static_cast<uint16_t>(ipv4::kMinHeaderLen + req.l4_len),
      internal::kReplyTtl, kIpProtoIcmp, req.dst_ipv4, req.src_ipv4);
  // Only the type changes (8 -> 0).
  SetEchoReplyType(frame + l4, icmp::kEchoReply);
  return l4 + req.l4_len;
}

uint32_t AnswerIcmp6Echo(uint8_t* frame, const FrameInfo& req,
                         const LocalAddresses& local, FrameDrop* drop) {
  if (!Check(req, FrameKind::kIcmp6EchoRequest,
             local.HasIpv6Index(req.local_index)) ||
      req.ip_version != 6) {
    return Fail(drop, FrameDrop::kReplyWrongKind);
  }
  uint8_t* ip = frame + req.l3_offset;
  const uint8_t tc = internal::Ipv6TrafficClass(ip) & internal::kDscpMask;
  const uint32_t flow = internal::Ipv6FlowLabel(ip);
  const uint32_t l4 = req.l3_offset + ipv6::kHeaderLen;
  MoveDown(frame, l4, req.l4_offset, req.l4_len);
  internal::WriteMacs(frame, frame + eth::kSrc, local.mac());
  internal::WriteIpv6Header(ip, tc, flow, req.l4_len, kIpProtoIcmp6,
                            internal::kReplyTtl, req.dst_ipv6, req.src_ipv6);
  // The pseudo-header sum is unchanged (same address pair, same length):
  // only the type changes (128 -> 129).
  SetEchoReplyType(frame + l4, icmp6::kEchoReply);
  return l4 + req.l4_len;
}

uint32_t AnswerNeighborSolicitation(uint8_t* frame, uint32_t frame_cap,
                                    const FrameInfo& req,
                                    const LocalAddresses& local,
                                    FrameDrop* drop) {
  if (!Check(req, FrameKind::kNeighborSolicitation,
             local.HasIpv6Index(req.local_index)) ||
      req.ip_version != 6 || req.l4_len < icmp6::kNdMinLen ||
      (req.nd_lladdr_offset != 0 &&
       uint32_t{req.nd_lladdr_offset} + 6 > req.frame_len)) {
    return Fail(drop, FrameDrop::kReplyWrongKind);
  }
  constexpr uint32_t kNaLen = icmp6::kNdOptions + icmp6::kOptLinkAddrLen;
  const uint32_t l4 = req.l3_offset + ipv6::kHeaderLen;
  const uint32_t total = l4 + kNaLen;
  if (total > frame_cap) return Fail(drop, FrameDrop::kReplyTooLong);
  // RFC 4861 7.2.4: to the solicitor (its link-layer address option, else
  // the frame's source); for DAD, unsolicited to all nodes.
  const bool dad = req.src_ipv6.IsUnspecified();
  const Ipv6Addr& dst = dad ? kAllNodesIpv6 : req.src_ipv6;
  uint8_t dst_mac[6];
  if (dad) {
    kAllNodesIpv6.MulticastMac().Store(dst_mac);
  } else {
    std::memcpy(
        dst_mac,
        frame + (req.nd_lladdr_offset != 0 ? req.nd_lladdr_offset : eth::kSrc),
        6);
  }
  // The solicited address (ours: a listed one or one of the range), read
  // before the frame is rewritten.
  const Ipv6Addr target =
      Ipv6Addr::Load(frame + req.l4_offset + icmp6::kNdTarget);
  internal::WriteMacs(frame, dst_mac, local.mac());
  internal::WriteIpv6Header(frame + req.l3_offset, 0, 0, kNaLen, kIpProtoIcmp6,
                            icmp6::kNdHopLimit, target, dst);
  uint8_t* m = frame + l4;
  m[icmp6::kType] = icmp6::kNeighborAdvertisement;
  m[icmp6::kCode] = 0;
  StoreBe16(m + icmp6::kChecksum, 0);
  StoreBe32(m + icmp6::kNdFlags,
            icmp6::kNaFlagOverride | (dad ? 0 : icmp6::kNaFlagSolicited));
  target.Store(m + icmp6::kNdTarget);
  uint8_t* opt = m + icmp6::kNdOptions;
  opt[0] = icmp6::kOptTargetLinkAddr;
  opt[1] = 1;  // 8 bytes
  local.mac().Store(opt + 2);
  StoreBe16(m + icmp6::kChecksum, Icmp6Checksum(target, dst, m, kNaLen));
  return total;
}

uint32_t AnswerL2L3(uint8_t* frame, uint32_t frame_cap, const FrameInfo& req,
                    const LocalAddresses& local, FrameDrop* drop) {
  switch (req.kind) {
    case FrameKind::kArpRequest:
      return AnswerArpRequest(frame, req, local, drop);
    case FrameKind::kIcmpEchoRequest:
      return AnswerIcmpEcho(frame, req, local, drop);
    case FrameKind::kIcmp6EchoRequest:
      return AnswerIcmp6Echo(frame, req, local, drop);
    case FrameKind::kNeighborSolicitation:
      return AnswerNeighborSolicitation(frame, frame_cap, req, local, drop);
    default:
      return Fail(drop, FrameDrop::kReplyWrongKind);
  }
}

uint32_t BuildArpRequest(uint8_t* out, uint32_t cap, const MacAddr& sender_mac,
                         Ipv4Addr sender_ip, Ipv4Addr target_ip,
                         std::optional<uint16_t> vlan_id) {
  if (sender_mac.IsGroup()) return 0;
  FrameInfo info;
  const uint32_t len =
      BuildL2Frame(out, cap, sender_mac, kBroadcastMac, vlan_id, 0,
                   kEtherTypeArp, arp::kLen, &info);
  const uint32_t padded = std::max<uint32_t>(len, eth::kMinFrameLen);
  if (len == 0 || padded > cap) return 0;
  uint8_t* a = out + info.l3_offset;
  StoreBe16(a + arp::kHardwareType, arp::kHardwareEthernet);
  StoreBe16(a + arp::kProtocolType, kEtherTypeIpv4);
  a[arp::kHardwareLen] = 6;
  a[arp::kProtocolLen] = 4;
  StoreBe16(a + arp::kOperation, arp::kOpRequest);
  sender_mac.Store(a + arp::kSenderMac);
  sender_ip.Store(a + arp::kSenderIp);
  std::memset(a + arp::kTargetMac, 0, 6);
  target_ip.Store(a + arp::kTargetIp);
  std::memset(out + len, 0, padded - len);
  return padded;
}

bool ReadArpReply(const uint8_t* frame, const FrameInfo& info, Ipv4Addr who,
                  MacAddr* mac) {
  if (info.kind != FrameKind::kOther || info.ethertype != kEtherTypeArp ||
      info.src_ipv4 != who ||
      uint32_t{info.l3_offset} + arp::kLen > info.frame_len) {
    return false;
  }
  const uint8_t* a = frame + info.l3_offset;
  const bool reply = LoadBe16(a + arp::kOperation) == arp::kOpReply;
  const bool announcement = info.src_ipv4 == info.dst_ipv4;
  if (!reply && !announcement) return false;
  *mac = MacAddr::Load(a + arp::kSenderMac);
  return !mac->IsGroup() && !mac->IsZero();
}

}  // namespace zg::core
