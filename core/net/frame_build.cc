// SPDX-License-Identifier: Apache-2.0
// The frames we send: UDP replies written in place over the classified
// request, their UDP checksums (full, incremental, NIC offload), and the
// frames we originate (UDP over IPv4/IPv6, PTP over Ethernet). Header
// writers shared with the L2/L3 responders are in frame_internal.h.
#include "core/net/frame_build.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>

#include "core/net/checksum.h"
#include "core/net/frame_internal.h"

namespace zg::core {

// ---- UDP replies ------------------------------------------------------------

uint32_t PrepareUdpReply(uint8_t* frame, const FrameInfo& req,
                         const LocalAddresses& local,
                         uint16_t reply_payload_len, FrameInfo* reply) {
  if (req.kind == FrameKind::kDrop || req.l4_protocol != kIpProtoUdp ||
      (req.ip_version != 4 && req.ip_version != 6)) {
    return 0;
  }
  const bool v6 = req.ip_version == 6;
  const uint32_t l3 = req.l3_offset;
  const uint32_t l4 = l3 + (v6 ? ipv6::kHeaderLen : ipv4::kMinHeaderLen);
  const uint32_t payload = l4 + udp::kHeaderLen;
  const uint32_t total = payload + reply_payload_len;
  if (total > req.frame_len || req.payload_offset < payload ||
      req.payload_offset > req.frame_len) {
    return 0;
  }
  int src_index = req.local_index;
  if (req.local_index == FrameInfo::kNoLocalIndex) {
    src_index = v6 ? local.Ipv6SourceIndexFor(req.src_ipv6)
                   : (local.num_ipv4() > 0 ? 0 : -1);
  }
  if (src_index < 0 ||
      !(v6 ? local.HasIpv6Index(static_cast<uint8_t>(src_index))
           : local.HasIpv4Index(static_cast<uint8_t>(src_index)))) {
    return 0;
  }
  // A range address answers from itself.
  const bool from_range = src_index == LocalAddresses::kRangeIndex;
  uint8_t* ip = frame + l3;
  const uint8_t tos = (v6 ? internal::Ipv6TrafficClass(ip) : ip[ipv4::kTos]) &
                      internal::kDscpMask;
  if (req.payload_offset != payload) {
    const uint32_t n = std::min<uint32_t>(reply_payload_len,
                                          req.frame_len - req.payload_offset);
    std::memmove(frame + payload, frame + req.payload_offset, n);
  }
  internal::WriteMacs(frame, frame + eth::kSrc, local.mac());
  // `reply` may be `&req`: everything still needed from req is read first.
  const uint16_t sport = req.src_port;
  const uint16_t dport = req.dst_port;
  if (reply != &req) *reply = req;
  FrameInfo& r = *reply;
  const uint16_t udp_len =
      static_cast<uint16_t>(udp::kHeaderLen + reply_payload_len);
  if (v6) {
    const Ipv6Addr src = from_range ? r.dst_ipv6 : local.ipv6(src_index);
    r.dst_ipv6 = r.src_ipv6;
    r.src_ipv6 = src;
    internal::WriteIpv6Header(ip, tos, internal::Ipv6FlowLabel(ip), udp_len,
                              kIpProtoUdp, internal::kReplyTtl, r.src_ipv6,
                              r.dst_ipv6);
    r.l3_len = static_cast<uint16_t>(ipv6::kHeaderLen + udp_len);
  } else {
    const Ipv4Addr src = from_range ? r.dst_ipv4 : local.ipv4(src_index);
    r.dst_ipv4 = r.src_ipv4;
    r.src_ipv4 = src;
    r.l3_len = static_cast<uint16_t>(ipv4::kMinHeaderLen + udp_len);
    internal::WriteIpv4Header(ip, tos, r.l3_len, internal::kReplyTtl,
                              kIpProtoUdp, r.src_ipv4, r.dst_ipv4);
  }
  uint8_t* u = frame + l4;
  StoreBe16(u + udp::kSrcPort, dport);
  StoreBe16(u + udp::kDstPort, sport);
  StoreBe16(u + udp::kLength, udp_len);
  StoreBe16(u + udp::kChecksum, 0);
  r.src_port = dport;
  r.dst_port = sport;
  r.local_index = static_cast<uint8_t>(src_index);
  r.dst_multicast = false;
  r.hop_limit = internal::kReplyTtl;
  r.frame_len = static_cast<uint16_t>(total);
  r.l4_offset = static_cast<uint16_t>(l4);
  r.l4_len = udp_len;
  r.payload_offset = static_cast<uint16_t>(payload);
  r.payload_len = reply_payload_len;
  r.nd_lladdr_offset = 0;
  return total;
}

namespace {
uint16_t UdpPseudoSum(const FrameInfo& f) {
  return f.ip_version == 6
             ? PseudoHeaderSumV6(f.src_ipv6, f.dst_ipv6, kIpProtoUdp, f.l4_len)
             : PseudoHeaderSumV4(f.src_ipv4, f.dst_ipv4, kIpProtoUdp, f.l4_len);
}
}  // namespace

void FinaliseUdpChecksum(uint8_t* frame, const FrameInfo& reply) {
  // The header from `reply` (just written: re-reading it with wide loads
  // would stall on store forwarding), the payload from the frame.
  uint8_t* u = frame + reply.l4_offset;
  const uint64_t header = uint64_t{UdpPseudoSum(reply)} + reply.src_port +
                          reply.dst_port + reply.l4_len;
  const uint16_t sum =
      OnesComplementSum(u + udp::kHeaderLen, reply.l4_len - udp::kHeaderLen,
                        checksum_internal::Fold64(header));
  StoreBe16(u + udp::kChecksum,
            UdpChecksumForWire(static_cast<uint16_t>(~sum)));
}

void PrepareUdpChecksumOffload(uint8_t* frame, const FrameInfo& reply) {
  StoreBe16(frame + reply.l4_offset + udp::kChecksum, UdpPseudoSum(reply));
}

void UpdateUdpChecksum(uint8_t* frame, const FrameInfo& reply,
                       uint32_t payload_offset, const uint8_t* old_bytes,
                       const uint8_t* new_bytes, uint32_t len) {
  uint8_t* field = frame + reply.l4_offset + udp::kChecksum;
  StoreBe16(field, UdpChecksumUpdateBytes(LoadBe16(field),
                                          udp::kHeaderLen + payload_offset,
                                          old_bytes, new_bytes, len));
}

// ---- Originated frames ------------------------------------------------------

namespace {

// Ethernet (+802.1Q) header; returns its length.
uint32_t WriteL2(uint8_t* out, const MacAddr& src, const MacAddr& dst,
                 std::optional<uint16_t> vlan_id, uint8_t pcp,
                 uint16_t ethertype, FrameInfo* info) {
  dst.Store(out + eth::kDst);
  src.Store(out + eth::kSrc);
  uint32_t off = eth::kType;
  if (vlan_id.has_value()) {
    const uint16_t tci =
        static_cast<uint16_t>(uint32_t{pcp} << vlan::kPcpShift | *vlan_id);
    StoreBe16(out + off, kEtherTypeVlan);
    StoreBe16(out + off + 2, tci);
    off += vlan::kTagLen;
    info->vlan_tags = 1;
    info->vlan_tci = tci;
  }
  StoreBe16(out + off, ethertype);
  info->ethertype = ethertype;
  info->l3_offset = static_cast<uint16_t>(off + 2);
  return off + 2;
}

bool VlanOk(std::optional<uint16_t> vlan_id, uint8_t pcp) {
  return pcp <= 7 &&
         (!vlan_id.has_value() || (*vlan_id >= 1 && *vlan_id <= 4094));
}

}  // namespace

uint32_t BuildUdpFrame(uint8_t* out, uint32_t cap, const UdpFrameSpec& spec,
                       uint16_t payload_len, FrameInfo* info) {
  const bool v6 = spec.src_ip.is_v6();
  if (spec.dst_ip.is_v6() != v6 || !VlanOk(spec.vlan_id, spec.vlan_pcp) ||
      spec.dscp > 63) {
    return 0;
  }
  const uint32_t l3 = eth::kHeaderLen + (spec.vlan_id ? vlan::kTagLen : 0);
  const uint32_t l4 = l3 + (v6 ? ipv6::kHeaderLen : ipv4::kMinHeaderLen);
  const uint32_t total = l4 + udp::kHeaderLen + payload_len;
  if (total > cap || total > 0xFFFF) return 0;
  FrameInfo r;
  WriteL2(out, spec.src_mac, spec.dst_mac, spec.vlan_id, spec.vlan_pcp,
          v6 ? kEtherTypeIpv6 : kEtherTypeIpv4, &r);
  const uint16_t udp_len = static_cast<uint16_t>(udp::kHeaderLen + payload_len);
  const uint8_t tos = static_cast<uint8_t>(spec.dscp << 2);
  if (v6) {
    internal::WriteIpv6Header(out + l3, tos, 0, udp_len, kIpProtoUdp, spec.ttl,
                              spec.src_ip.v6, spec.dst_ip.v6);
    r.src_ipv6 = spec.src_ip.v6;
    r.dst_ipv6 = spec.dst_ip.v6;
    r.dst_multicast = spec.dst_ip.v6.IsMulticast();
    r.l3_len = static_cast<uint16_t>(ipv6::kHeaderLen + udp_len);
  } else {
    r.l3_len = static_cast<uint16_t>(ipv4::kMinHeaderLen + udp_len);
    internal::WriteIpv4Header(out + l3, tos, r.l3_len, spec.ttl, kIpProtoUdp,
                              spec.src_ip.v4, spec.dst_ip.v4);
    r.src_ipv4 = spec.src_ip.v4;
    r.dst_ipv4 = spec.dst_ip.v4;
    r.dst_multicast = spec.dst_ip.v4.IsMulticast();
  }
  uint8_t* u = out + l4;
  StoreBe16(u + udp::kSrcPort, spec.src_port);
  StoreBe16(u + udp::kDstPort, spec.dst_port);
  StoreBe16(u + udp::kLength, udp_len);
  StoreBe16(u + udp::kChecksum, 0);
  r.kind = FrameKind::kOther;
  r.ip_version = v6 ? 6 : 4;
  r.l4_protocol = kIpProtoUdp;
  r.hop_limit = spec.ttl;
  r.frame_len = static_cast<uint16_t>(total);
  r.l4_offset = static_cast<uint16_t>(l4);
  r.l4_len = udp_len;
  r.payload_offset = static_cast<uint16_t>(l4 + udp::kHeaderLen);
  r.payload_len = payload_len;
  r.src_port = spec.src_port;
  r.dst_port = spec.dst_port;
  *info = r;
  return total;
}

uint32_t BuildL2Frame(uint8_t* out, uint32_t cap, const MacAddr& src_mac,
                      const MacAddr& dst_mac, std::optional<uint16_t> vlan_id,
                      uint8_t vlan_pcp, uint16_t ethertype,
                      uint16_t payload_len, FrameInfo* info) {
  if (!VlanOk(vlan_id, vlan_pcp)) return 0;
  const uint32_t l3 = eth::kHeaderLen + (vlan_id ? vlan::kTagLen : 0);
  const uint32_t total = l3 + payload_len;
  if (total > cap || total > 0xFFFF) return 0;
  FrameInfo r;
  WriteL2(out, src_mac, dst_mac, vlan_id, vlan_pcp, ethertype, &r);
  r.kind = ethertype == kEtherTypePtp ? FrameKind::kPtpL2 : FrameKind::kOther;
  r.frame_len = static_cast<uint16_t>(total);
  r.l3_len = payload_len;
  r.payload_offset = static_cast<uint16_t>(l3);
  r.payload_len = payload_len;
  *info = r;
  return total;
}

}  // namespace zg::core
