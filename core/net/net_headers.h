// SPDX-License-Identifier: Apache-2.0
// Wire layouts of the L2-L4 headers zeitgeber reads and writes, the address
// value types. Fields are read and written with core/base/byte_order.h.
//
// Everything here is layout and arithmetic: the walk through a frame
// (VLAN, IPv4 options, IPv6 extension headers, drop reasons) is ClassifyFrame
// in core/net/frame.h. Headers are described as byte offsets from the start of
// each header (`ipv4::kTtl` is byte 8 of the IPv4 header) and read with
// LoadBe16/LoadBe32 (memcpy: no alignment or aliasing assumptions, so no UB
// on a frame at any address).
//
// Byte order of the value types:
//   MacAddr   bytes in wire order (b[0] is the first byte on the wire).
//   Ipv4Addr  a host-order uint32_t: 10.99.0.1 == Ipv4Addr{0x0A630001}.
//             Ipv4Addr::Load/Store convert from/to the wire.
//   Ipv6Addr  bytes in wire order (b[0] is the first, most significant byte).
//
// Setup code parses and formats addresses (never on the hot path):
//
//   absl::StatusOr<IpPrefix> p = ParseIpPrefix("10.99.0.1/24");
//   // p->addr.v4 == Ipv4Addr::FromOctets(10, 99, 0, 1), p->length == 24
//   absl::StatusOr<MacAddr> mac = ParseMacAddr("02:00:5e:10:00:01");
//   std::string s = p->addr.ToString();  // "10.99.0.1"
#ifndef ZG_CORE_NET_NET_HEADERS_H_
#define ZG_CORE_NET_NET_HEADERS_H_

#include <array>
#include <cstdint>
#include <cstring>
#include <iosfwd>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/base/byte_order.h"

namespace zg::core {

// ---- Protocol numbers ------------------------------------------------------

inline constexpr uint16_t kEtherTypeIpv4 = 0x0800;
inline constexpr uint16_t kEtherTypeArp = 0x0806;
inline constexpr uint16_t kEtherTypeVlan = 0x8100;  // 802.1Q C-tag
inline constexpr uint16_t kEtherTypeQinQ = 0x88A8;  // 802.1ad S-tag
inline constexpr uint16_t kEtherTypeIpv6 = 0x86DD;
inline constexpr uint16_t kEtherTypePtp = 0x88F7;  // IEEE 1588 annex E

inline constexpr uint8_t kIpProtoHopByHop = 0;
inline constexpr uint8_t kIpProtoIcmp = 1;
inline constexpr uint8_t kIpProtoTcp = 6;
inline constexpr uint8_t kIpProtoUdp = 17;
inline constexpr uint8_t kIpProtoRouting = 43;
inline constexpr uint8_t kIpProtoFragment = 44;
inline constexpr uint8_t kIpProtoEsp = 50;
inline constexpr uint8_t kIpProtoAh = 51;
inline constexpr uint8_t kIpProtoIcmp6 = 58;
inline constexpr uint8_t kIpProtoNoNextHeader = 59;
inline constexpr uint8_t kIpProtoDstOpts = 60;

inline constexpr uint16_t kNtpPort = 123;
inline constexpr uint16_t kPtpEventPort = 319;
inline constexpr uint16_t kPtpGeneralPort = 320;

// ---- Header layouts (byte offsets within each header) ---------------------

namespace eth {
inline constexpr uint32_t kDst = 0;
inline constexpr uint32_t kSrc = 6;
inline constexpr uint32_t kType = 12;
inline constexpr uint32_t kHeaderLen = 14;
// Frames shorter than this (without FCS) are padded by the sender.
inline constexpr uint32_t kMinFrameLen = 60;
}  // namespace eth

// An 802.1Q/802.1ad tag: TPID (the ethertype slot) then TCI; the next
// ethertype follows the TCI.
namespace vlan {
inline constexpr uint32_t kTagLen = 4;
inline constexpr uint16_t kVidMask = 0x0FFF;
inline constexpr uint32_t kPcpShift = 13;
}  // namespace vlan

namespace ipv4 {
inline constexpr uint32_t kVersionIhl = 0;
inline constexpr uint32_t kTos = 1;
inline constexpr uint32_t kTotalLength = 2;
inline constexpr uint32_t kId = 4;
inline constexpr uint32_t kFlagsFragment = 6;
inline constexpr uint32_t kTtl = 8;
inline constexpr uint32_t kProtocol = 9;
inline constexpr uint32_t kChecksum = 10;
inline constexpr uint32_t kSrc = 12;
inline constexpr uint32_t kDst = 16;
inline constexpr uint32_t kMinHeaderLen = 20;
inline constexpr uint16_t kFlagDf = 0x4000;
inline constexpr uint16_t kFlagMf = 0x2000;
inline constexpr uint16_t kFragmentOffsetMask = 0x1FFF;
}  // namespace ipv4

namespace ipv6 {
inline constexpr uint32_t kVersionClassFlow = 0;  // 4 version, 8 TC, 20 flow
inline constexpr uint32_t kPayloadLength = 4;
inline constexpr uint32_t kNextHeader = 6;
inline constexpr uint32_t kHopLimit = 7;
inline constexpr uint32_t kSrc = 8;
inline constexpr uint32_t kDst = 24;
inline constexpr uint32_t kHeaderLen = 40;
// Extension headers (hop-by-hop, routing, destination options): next header,
// length in 8-byte units not counting the first 8.
inline constexpr uint32_t kExtNextHeader = 0;
inline constexpr uint32_t kExtLength = 1;
inline constexpr uint32_t kExtMinLen = 8;
inline constexpr uint32_t kRoutingSegmentsLeft = 3;
}  // namespace ipv6

namespace udp {
inline constexpr uint32_t kSrcPort = 0;
inline constexpr uint32_t kDstPort = 2;
inline constexpr uint32_t kLength = 4;
inline constexpr uint32_t kChecksum = 6;
inline constexpr uint32_t kHeaderLen = 8;
}  // namespace udp

// ARP for Ethernet/IPv4 (RFC 826), the only kind we answer.
namespace arp {
inline constexpr uint32_t kHardwareType = 0;
inline constexpr uint32_t kProtocolType = 2;
inline constexpr uint32_t kHardwareLen = 4;
inline constexpr uint32_t kProtocolLen = 5;
inline constexpr uint32_t kOperation = 6;
inline constexpr uint32_t kSenderMac = 8;
inline constexpr uint32_t kSenderIp = 14;
inline constexpr uint32_t kTargetMac = 18;
inline constexpr uint32_t kTargetIp = 24;
inline constexpr uint32_t kLen = 28;
inline constexpr uint16_t kHardwareEthernet = 1;
inline constexpr uint16_t kOpRequest = 1;
inline constexpr uint16_t kOpReply = 2;
}  // namespace arp

// ICMPv4 (RFC 792) and ICMPv6 (RFC 4443) share the first 8 bytes of echo.
namespace icmp {
inline constexpr uint32_t kType = 0;
inline constexpr uint32_t kCode = 1;
inline constexpr uint32_t kChecksum = 2;
inline constexpr uint32_t kHeaderLen = 8;  // type, code, checksum, id, seq
inline constexpr uint8_t kEchoReply = 0;
inline constexpr uint8_t kEchoRequest = 8;
}  // namespace icmp

namespace icmp6 {
inline constexpr uint32_t kType = 0;
inline constexpr uint32_t kCode = 1;
inline constexpr uint32_t kChecksum = 2;
inline constexpr uint32_t kHeaderLen = 8;
inline constexpr uint8_t kEchoRequest = 128;
inline constexpr uint8_t kEchoReply = 129;
inline constexpr uint8_t kNeighborSolicitation = 135;
inline constexpr uint8_t kNeighborAdvertisement = 136;
// Neighbour solicitation/advertisement (RFC 4861 4.3, 4.4): 4 bytes of
// flags/reserved after the checksum, then the target, then options.
inline constexpr uint32_t kNdFlags = 4;
inline constexpr uint32_t kNdTarget = 8;
inline constexpr uint32_t kNdOptions = 24;
inline constexpr uint32_t kNdMinLen = 24;
inline constexpr uint32_t kNaFlagRouter = 0x80000000;
inline constexpr uint32_t kNaFlagSolicited = 0x40000000;
inline constexpr uint32_t kNaFlagOverride = 0x20000000;
// ND options: type, length in 8-byte units (0 is invalid), data.
inline constexpr uint8_t kOptSourceLinkAddr = 1;
inline constexpr uint8_t kOptTargetLinkAddr = 2;
inline constexpr uint32_t kOptLinkAddrLen = 8;  // Ethernet: 2 + 6 bytes
inline constexpr uint8_t kNdHopLimit = 255;
}  // namespace icmp6

// ---- Address value types ---------------------------------------------------

// An Ethernet MAC address, bytes in wire order.
struct MacAddr {
  std::array<uint8_t, 6> b{};

  static MacAddr Load(const uint8_t* p) {
    MacAddr m;
    std::memcpy(m.b.data(), p, 6);
    return m;
  }
  void Store(uint8_t* p) const { std::memcpy(p, b.data(), 6); }
  // True if the 6 bytes at `p` equal this address.
  bool Equals(const uint8_t* p) const {
    return ((Load32(p) ^ Load32(b.data())) |
            (Load16(p + 4) ^ Load16(b.data() + 4))) == 0;
  }
  // Group (multicast or broadcast): the I/G bit of the first byte.
  constexpr bool IsGroup() const { return (b[0] & 1) != 0; }
  constexpr bool IsBroadcast() const {
    return b == std::array<uint8_t, 6>{0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
  }
  constexpr bool IsZero() const { return b == std::array<uint8_t, 6>{}; }
  std::string ToString() const;  // "02:00:5e:10:00:01"
  friend constexpr bool operator==(const MacAddr&, const MacAddr&) = default;
};

// An IPv4 address as a host-order integer (10.99.0.1 == 0x0A630001).
struct Ipv4Addr {
  uint32_t value = 0;

  static constexpr Ipv4Addr FromOctets(uint8_t a, uint8_t b, uint8_t c,
                                       uint8_t d) {
    return {(uint32_t{a} << 24) | (uint32_t{b} << 16) | (uint32_t{c} << 8) | d};
  }
  static Ipv4Addr Load(const uint8_t* p) { return {LoadBe32(p)}; }
  void Store(uint8_t* p) const { StoreBe32(p, value); }
  constexpr bool IsMulticast() const { return (value >> 28) == 0xE; }
  // Never a valid unicast source or destination of a host: 0.0.0.0/8,
  // 127.0.0.0/8, multicast, 240.0.0.0/4 and the limited broadcast.
  constexpr bool IsReserved() const {
    const uint32_t first = value >> 24;
    return first == 0 || first == 127 || first >= 224;
  }
  std::string ToString() const;  // "10.99.0.1"
  friend constexpr auto operator<=>(Ipv4Addr, Ipv4Addr) = default;
};

// An IPv6 address, bytes in wire (network) order.
struct Ipv6Addr {
  std::array<uint8_t, 16> b{};

  static Ipv6Addr Load(const uint8_t* p) {
    Ipv6Addr a;
    std::memcpy(a.b.data(), p, 16);
    return a;
  }
  void Store(uint8_t* p) const { std::memcpy(p, b.data(), 16); }
  bool Equals(const uint8_t* p) const {
    return ((Load64(p) ^ Load64(b.data())) |
            (Load64(p + 8) ^ Load64(b.data() + 8))) == 0;
  }
  // Tests on the 16 wire bytes at `p`, without copying them.
  static bool IsUnspecifiedAt(const uint8_t* p) {
    return (Load64(p) | Load64(p + 8)) == 0;
  }
  static bool IsLoopbackAt(const uint8_t* p) {
    return Load64(p) == 0 && LoadBe32(p + 8) == 0 && LoadBe32(p + 12) == 1;
  }
  constexpr bool IsMulticast() const { return b[0] == 0xff; }
  constexpr bool IsLinkLocal() const {  // fe80::/10
    return b[0] == 0xfe && (b[1] & 0xc0) == 0x80;
  }
  constexpr bool IsUnspecified() const {
    return b == std::array<uint8_t, 16>{};
  }
  constexpr bool IsLoopback() const {
    return b == std::array<uint8_t, 16>{0, 0, 0, 0, 0, 0, 0, 0,
                                        0, 0, 0, 0, 0, 0, 0, 1};
  }
  // The solicited-node multicast group of this address (RFC 4291 2.7.1):
  // ff02::1:ffXX:XXXX with the low 24 bits of this address.
  constexpr Ipv6Addr SolicitedNode() const {
    return {{0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0xff, b[13], b[14],
             b[15]}};
  }
  // The Ethernet group address of an IPv6 multicast address (RFC 2464 7):
  // 33:33 and the low 32 bits.
  constexpr MacAddr MulticastMac() const {
    return {{0x33, 0x33, b[12], b[13], b[14], b[15]}};
  }
  std::string ToString() const;  // RFC 5952 form, "2001:db8::1"
  friend constexpr auto operator<=>(const Ipv6Addr&, const Ipv6Addr&) = default;
};

// The Ethernet group address of an IPv4 multicast address (RFC 1112 6.4).
constexpr MacAddr Ipv4MulticastMac(Ipv4Addr a) {
  return {{0x01, 0x00, 0x5e, static_cast<uint8_t>((a.value >> 16) & 0x7f),
           static_cast<uint8_t>(a.value >> 8), static_cast<uint8_t>(a.value)}};
}

enum class IpFamily : uint8_t { kIpv4 = 4, kIpv6 = 6 };

// An address of either family (setup code and frame builders).
struct IpAddress {
  IpFamily family = IpFamily::kIpv4;
  Ipv4Addr v4;  // valid when family == kIpv4
  Ipv6Addr v6;  // valid when family == kIpv6

  static constexpr IpAddress V4(Ipv4Addr a) { return {IpFamily::kIpv4, a, {}}; }
  static constexpr IpAddress V6(const Ipv6Addr& a) {
    return {IpFamily::kIpv6, {}, a};
  }
  constexpr bool is_v6() const { return family == IpFamily::kIpv6; }
  std::string ToString() const;
  friend constexpr bool operator==(const IpAddress& x, const IpAddress& y) {
    return x.family == y.family &&
           (x.family == IpFamily::kIpv4 ? x.v4 == y.v4 : x.v6 == y.v6);
  }
};

// An address with a prefix length ("10.99.0.1/24", "2001:db8::1/64").
struct IpPrefix {
  IpAddress addr;
  uint8_t length = 0;  // 0..32 or 0..128
  std::string ToString() const;
  friend constexpr bool operator==(const IpPrefix&, const IpPrefix&) = default;
};

// Well-known addresses.
inline constexpr MacAddr kBroadcastMac{{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}};
// IEEE 1588 annex E (PTP over Ethernet): all messages but peer delay, and
// the peer-delay address (not forwarded by bridges).
inline constexpr MacAddr kPtpPrimaryMac{{0x01, 0x1b, 0x19, 0x00, 0x00, 0x00}};
inline constexpr MacAddr kPtpPdelayMac{{0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e}};
// IEEE 1588 annex C/D (PTP over UDP).
inline constexpr Ipv4Addr kPtpPrimaryIpv4 =
    Ipv4Addr::FromOctets(224, 0, 1, 129);
inline constexpr Ipv4Addr kPtpPdelayIpv4 = Ipv4Addr::FromOctets(224, 0, 0, 107);
// ff0X::181 (any scope X; ptp4l's udp6_scope, default 0xE) and ff02::6b.
inline constexpr Ipv6Addr kPtpPrimaryIpv6{
    {0xff, 0x0e, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x81}};
inline constexpr Ipv6Addr kPtpPdelayIpv6{
    {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x6b}};
inline constexpr Ipv6Addr kAllNodesIpv6{
    {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01}};

// ---- Parsing and formatting (setup code) -----------------------------------

// "02:00:5e:10:00:01" or "02-00-5E-10-00-01" (hex, case-insensitive).
absl::StatusOr<MacAddr> ParseMacAddr(absl::string_view text);
// Dotted quad, exactly four decimal parts ("10.99.0.1").
absl::StatusOr<Ipv4Addr> ParseIpv4Addr(absl::string_view text);
// RFC 4291 text form ("2001:db8::1", "::ffff:10.0.0.1"); no zone index.
absl::StatusOr<Ipv6Addr> ParseIpv6Addr(absl::string_view text);
// Either family; IPv6 if the text contains ':'.
absl::StatusOr<IpAddress> ParseIpAddress(absl::string_view text);
// "addr/len"; without "/len" the full length (32 or 128) is assumed.
absl::StatusOr<IpPrefix> ParseIpPrefix(absl::string_view text);

// gtest and log printers.
std::ostream& operator<<(std::ostream& os, const MacAddr& a);
std::ostream& operator<<(std::ostream& os, Ipv4Addr a);
std::ostream& operator<<(std::ostream& os, const Ipv6Addr& a);
std::ostream& operator<<(std::ostream& os, const IpAddress& a);
std::ostream& operator<<(std::ostream& os, const IpPrefix& p);

}  // namespace zg::core

#endif  // ZG_CORE_NET_NET_HEADERS_H_
