// SPDX-License-Identifier: Apache-2.0
// Fuzzes the per-packet network layer on arbitrary frames (0..2000 bytes):
// ClassifyFrame, PrepareUdpReply + FinaliseUdpChecksum + UpdateUdpChecksum,
// and the ARP/ICMP/ND responders. Checks:
//  - nothing reads or writes outside the frame (ASan; exact-size buffers);
//  - every reported offset lies within the frame, drop reasons are in range;
//  - no reply is longer than its request (a neighbour advertisement at most
//    8 bytes more, within the buffer capacity given);
//  - every reply is a valid frame for its recipient: classified with the
//    peer's addresses it is not dropped (headers, lengths and checksums all
//    verify), and an incremental checksum update equals a full one.
// Seeds: tests/fuzz/corpus/frame/ (tests/core/testdata/make_frame_vectors.py).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "core/net/frame.h"
#include "core/net/frame_build.h"
#include "core/net/l2l3_responder.h"
#include "core/net/local_addresses.h"
#include "core/net/net_headers.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using namespace zg::core;

LocalAddresses Ours(std::optional<uint16_t> vlan) {
  LocalAddresses l =
      LocalAddresses::Create(MacAddr{{0x02, 0, 0, 0, 0, 0x01}}, vlan).value();
  (void)l.AddIpv4(Ipv4Addr::FromOctets(10, 99, 0, 1));
  (void)l.AddIpv4(Ipv4Addr::FromOctets(10, 99, 0, 7));
  (void)l.AddIpv6(ParseIpv6Addr("2001:db8::1").value());
  (void)l.AddIpv6(ParseIpv6Addr("fe80::1").value());
  // Ranges, as a load generator's clients (10.99.1.0-255, 2001:db8::1:0-ff).
  (void)l.AddIpv4Range(Ipv4Addr::FromOctets(10, 99, 1, 0), 256);
  (void)l.AddIpv6Range(ParseIpv6Addr("2001:db8::1:0").value(), 256);
  return l;
}

void CheckInfo(const FrameInfo& i, uint32_t len) {
  ZG_FUZZ_CHECK(i.kind < FrameKind::kCount);
  ZG_FUZZ_CHECK(i.drop < FrameDrop::kCount);
  if (i.kind == FrameKind::kDrop) {
    ZG_FUZZ_CHECK(i.drop != FrameDrop::kNone);
    return;
  }
  ZG_FUZZ_CHECK(i.drop == FrameDrop::kNone);
  ZG_FUZZ_CHECK(i.frame_len == len);
  ZG_FUZZ_CHECK(i.l3_offset >= eth::kHeaderLen && i.l3_offset <= len);
  ZG_FUZZ_CHECK(uint32_t{i.l3_offset} + i.l3_len <= len);
  ZG_FUZZ_CHECK(uint32_t{i.l4_offset} + i.l4_len <= len);
  ZG_FUZZ_CHECK(uint32_t{i.payload_offset} + i.payload_len <= len);
  if (i.l4_offset != 0) ZG_FUZZ_CHECK(i.l4_offset >= i.l3_offset + 20);
  if (i.nd_lladdr_offset != 0) ZG_FUZZ_CHECK(i.nd_lladdr_offset + 6u <= len);
}

// The recipient of a reply: its MAC and IP from the reply's destination.
std::optional<LocalAddresses> Peer(const uint8_t* reply, const FrameInfo& req,
                                   const IpAddress& ip) {
  std::optional<uint16_t> vlan;
  if (req.vlan_tags > 0 && (req.vlan_tci & vlan::kVidMask) != 0) {
    vlan = req.vlan_tci & vlan::kVidMask;
  }
  absl::StatusOr<LocalAddresses> p =
      LocalAddresses::Create(MacAddr::Load(reply + eth::kDst), vlan);
  if (!p.ok() || !p->Add(ip).ok()) return std::nullopt;
  return *std::move(p);
}

void CheckUdpReply(const uint8_t* data, uint32_t len, const FrameInfo& req,
                   const LocalAddresses& local, uint16_t payload_len,
                   uint8_t fill) {
  std::vector<uint8_t> f(data, data + len);
  FrameInfo reply;
  const uint32_t n = PrepareUdpReply(f.data(), req, local, payload_len, &reply);
  if (n == 0) return;
  ZG_FUZZ_CHECK(n <= len && reply.frame_len == n);
  ZG_FUZZ_CHECK(uint32_t{reply.payload_offset} + reply.payload_len == n);
  std::memset(f.data() + reply.payload_offset, fill, payload_len);
  FinaliseUdpChecksum(f.data(), reply);
  const IpAddress peer_ip = req.ip_version == 6 ? IpAddress::V6(req.src_ipv6)
                                                : IpAddress::V4(req.src_ipv4);
  const std::optional<LocalAddresses> peer = Peer(f.data(), req, peer_ip);
  if (!peer) return;
  std::vector<uint8_t> exact(f.begin(), f.begin() + n);
  FrameInfo seen = ClassifyFrame(exact.data(), n, *peer);
  CheckInfo(seen, n);
  // Port 0 as our source is the one thing a peer refuses.
  ZG_FUZZ_CHECK(
      seen.kind != FrameKind::kDrop ||
      (seen.drop == FrameDrop::kUdpSourcePortZero && req.dst_port == 0));
  // A late rewrite of up to 8 payload bytes, updated incrementally.
  if (payload_len == 0) return;
  const uint32_t off = fill % payload_len;
  const uint32_t cnt = std::min<uint32_t>(8, payload_len - off);
  uint8_t old_bytes[8], new_bytes[8];
  std::memcpy(old_bytes, f.data() + reply.payload_offset + off, cnt);
  for (uint32_t k = 0; k < cnt; ++k) new_bytes[k] = old_bytes[k] ^ (fill + k);
  std::memcpy(f.data() + reply.payload_offset + off, new_bytes, cnt);
  UpdateUdpChecksum(f.data(), reply, off, old_bytes, new_bytes, cnt);
  std::vector<uint8_t> full(f);
  FinaliseUdpChecksum(full.data(), reply);
  ZG_FUZZ_CHECK(std::memcmp(full.data(), f.data(), n) == 0);
}

void CheckResponder(const uint8_t* data, uint32_t len, const FrameInfo& req,
                    const LocalAddresses& local) {
  const uint32_t cap = len + 64;
  std::vector<uint8_t> f(data, data + len);
  f.resize(cap);
  FrameDrop drop = FrameDrop::kNone;
  const uint32_t n = AnswerL2L3(f.data(), cap, req, local, &drop);
  const bool l2l3 = req.kind == FrameKind::kArpRequest ||
                    req.kind == FrameKind::kIcmpEchoRequest ||
                    req.kind == FrameKind::kIcmp6EchoRequest ||
                    req.kind == FrameKind::kNeighborSolicitation;
  if (!l2l3) {
    ZG_FUZZ_CHECK(n == 0 && drop == FrameDrop::kReplyWrongKind);
    return;
  }
  ZG_FUZZ_CHECK(n != 0);  // capacity is ample
  if (req.kind == FrameKind::kNeighborSolicitation) {
    ZG_FUZZ_CHECK(n <= len + 8);
    // Exactly the request's size is enough for an NS with an SLLAO.
    if (req.nd_lladdr_offset != 0) {
      std::vector<uint8_t> g(data, data + len);
      ZG_FUZZ_CHECK(AnswerL2L3(g.data(), len, req, local, &drop) != 0);
    }
  } else {
    ZG_FUZZ_CHECK(n <= len);
  }
  // The recipient accepts it (not the all-nodes DAD answer).
  IpAddress peer_ip;
  if (req.kind == FrameKind::kArpRequest) {
    peer_ip = IpAddress::V4(
        Ipv4Addr::Load(f.data() + req.l3_offset + arp::kTargetIp));
  } else if (req.ip_version == 4) {
    peer_ip = IpAddress::V4(req.src_ipv4);
  } else {
    if (req.src_ipv6.IsUnspecified()) return;
    peer_ip = IpAddress::V6(req.src_ipv6);
  }
  const std::optional<LocalAddresses> peer = Peer(f.data(), req, peer_ip);
  if (!peer) return;
  std::vector<uint8_t> exact(f.begin(), f.begin() + n);
  const FrameInfo seen = ClassifyFrame(exact.data(), n, *peer);
  CheckInfo(seen, n);
  ZG_FUZZ_CHECK(seen.kind == FrameKind::kOther);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 2000) size = 2000;
  const uint32_t len = static_cast<uint32_t>(size);
  static const LocalAddresses untagged = Ours(std::nullopt);
  static const LocalAddresses tagged = Ours(100);
  // An exact-size copy: any read past the end is an ASan error.
  const std::vector<uint8_t> frame(data, data + size);
  // With the NIC's checksum hints too: mutated frames then reach the reply
  // paths (our replies' checksums are computed afresh, so they must verify).
  for (const LocalAddresses* local : {&untagged, &tagged}) {
    for (uint32_t flags : {0u, kRxIpv4ChecksumGood | kRxL4ChecksumGood}) {
      const FrameInfo info = ClassifyFrame(frame.data(), len, *local, flags);
      CheckInfo(info, len);
      if (info.kind == FrameKind::kDrop) continue;
      if (info.l4_protocol == kIpProtoUdp && info.ip_version != 0) {
        const uint8_t fill = size > 0 ? data[size - 1] : 0;
        for (uint32_t p :
             {uint32_t{info.payload_len}, uint32_t{info.payload_len} / 2,
              uint32_t{info.payload_len} + fill % 16}) {
          CheckUdpReply(frame.data(), len, info, *local,
                        static_cast<uint16_t>(p), fill);
        }
      }
      CheckResponder(frame.data(), len, info, *local);
    }
  }
  return 0;
}
