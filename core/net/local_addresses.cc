// SPDX-License-Identifier: Apache-2.0
// LocalAddresses: validation of the port's MAC, VLAN, listed addresses and
// ranges (setup code, may allocate error strings), and the out-of-line
// lookups of the per-packet path (solicited-node groups, IPv6 range
// membership, reply source selection).
#include "core/net/local_addresses.h"

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/base/byte_order.h"

namespace zg::core {

absl::StatusOr<LocalAddresses> LocalAddresses::Create(
    const MacAddr& mac, std::optional<uint16_t> vlan_id) {
  if (mac.IsGroup() || mac.IsZero()) {
    return absl::InvalidArgumentError(
        absl::StrCat("local MAC ", mac.ToString(),
                     " is not a unicast address: use the port's own MAC"));
  }
  if (vlan_id.has_value() && (*vlan_id == 0 || *vlan_id > 4094)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "VLAN id ", *vlan_id, " out of range: use 1..4094, or none"));
  }
  LocalAddresses l;
  l.mac_ = mac;
  l.has_vlan_ = vlan_id.has_value();
  l.vlan_id_ = vlan_id.value_or(0);
  return l;
}

absl::Status LocalAddresses::AddIpv4(Ipv4Addr addr) {
  if (addr.IsReserved()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot serve on ", addr.ToString(), ": not a unicast host address"));
  }
  if (FindIpv4(addr) >= 0) {
    return absl::AlreadyExistsError(
        absl::StrCat("IPv4 address ", addr.ToString(), " listed twice"));
  }
  if (num_ipv4_ >= kMaxIpv4) {
    return absl::ResourceExhaustedError(
        absl::StrCat("too many IPv4 addresses (", kMaxIpv4, " per port) at ",
                     addr.ToString()));
  }
  ipv4_[num_ipv4_++] = addr;
  return absl::OkStatus();
}

absl::Status LocalAddresses::AddIpv6(const Ipv6Addr& addr) {
  if (addr.IsMulticast() || addr.IsUnspecified() || addr.IsLoopback()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot serve on ", addr.ToString(), ": not a unicast host address"));
  }
  if (FindIpv6(addr.b.data()) >= 0) {
    return absl::AlreadyExistsError(
        absl::StrCat("IPv6 address ", addr.ToString(), " listed twice"));
  }
  if (num_ipv6_ >= kMaxIpv6) {
    return absl::ResourceExhaustedError(
        absl::StrCat("too many IPv6 addresses (", kMaxIpv6, " per port) at ",
                     addr.ToString()));
  }
  solicited_low24_[num_ipv6_] =
      (uint32_t{addr.b[13]} << 16) | (uint32_t{addr.b[14]} << 8) | addr.b[15];
  ipv6_[num_ipv6_++] = addr;
  return absl::OkStatus();
}

absl::Status LocalAddresses::Add(const IpAddress& addr) {
  return addr.is_v6() ? AddIpv6(addr.v6) : AddIpv4(addr.v4);
}

absl::Status LocalAddresses::AddIpv4Range(Ipv4Addr first, uint32_t count) {
  if (range4_count_ != 0) {
    return absl::AlreadyExistsError("an IPv4 address range is already set");
  }
  const uint64_t end = uint64_t{first.value} + count;  // one past the last
  const Ipv4Addr last{static_cast<uint32_t>(end - 1)};
  if (count == 0 || end > (uint64_t{1} << 32)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "IPv4 range of ", count, " addresses from ", first.ToString(),
        " is empty or runs past 255.255.255.255"));
  }
  // Reserved space (0/8, 127/8, 224/3) is contiguous per first octet, so a
  // range avoids it iff no first octet it spans is reserved.
  for (uint32_t o = first.value >> 24; o <= last.value >> 24; ++o) {
    if (Ipv4Addr{o << 24}.IsReserved()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "IPv4 range ", first.ToString(), " - ", last.ToString(), " reaches ",
          o, ".0.0.0/8, which is not unicast host space"));
    }
  }
  for (int i = 0; i < num_ipv4_; ++i) {
    if (ipv4_[i].value - first.value < count) {
      return absl::AlreadyExistsError(
          absl::StrCat("IPv4 range ", first.ToString(), " - ", last.ToString(),
                       " contains the listed address ", ipv4_[i].ToString()));
    }
  }
  range4_first_ = first;
  range4_count_ = count;
  return absl::OkStatus();
}

absl::Status LocalAddresses::AddIpv6Range(const Ipv6Addr& first,
                                          uint32_t count) {
  if (range6_count_ != 0) {
    return absl::AlreadyExistsError("an IPv6 address range is already set");
  }
  const uint32_t low = LoadBe32(first.b.data() + 12);
  if (count == 0 || uint64_t{low} + count > (uint64_t{1} << 32)) {
    return absl::InvalidArgumentError(
        absl::StrCat("IPv6 range of ", count, " addresses from ",
                     first.ToString(), " is empty or wraps its low 32 bits"));
  }
  Ipv6Addr last = first;
  StoreBe32(last.b.data() + 12, low + (count - 1));
  // The range shares its first 96 bits: it is multicast iff `first` is, and
  // holds :: or ::1 iff those bits are zero and it starts at 0 or 1.
  const bool zero_prefix =
      Load64(first.b.data()) == 0 && Load32(first.b.data() + 8) == 0;
  if (first.IsMulticast() || (zero_prefix && low <= 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("IPv6 range ", first.ToString(), " - ", last.ToString(),
                     " holds a non-unicast address"));
  }
  range6_first_ = first;
  range6_count_ = count;
  for (int i = 0; i < num_ipv6_; ++i) {
    if (InIpv6Range(ipv6_[i].b.data())) {
      range6_count_ = 0;
      return absl::AlreadyExistsError(
          absl::StrCat("IPv6 range ", first.ToString(), " - ", last.ToString(),
                       " contains the listed address ", ipv6_[i].ToString()));
    }
  }
  return absl::OkStatus();
}

bool LocalAddresses::InIpv6Range(const uint8_t* p) const {
  const uint8_t* f = range6_first_.b.data();
  return Load64(p) == Load64(f) && Load32(p + 8) == Load32(f + 8) &&
         LoadBe32(p + 12) - LoadBe32(f + 12) < range6_count_;
}

bool LocalAddresses::IsOurSolicitedNode(const uint8_t* p) const {
  // ff02:0:0:0:0:1:ffXX:XXXX
  if (LoadBe32(p) != 0xff020000 || LoadBe32(p + 4) != 0 ||
      LoadBe32(p + 8) != 1 || p[12] != 0xff) {
    return false;
  }
  const uint32_t low24 = LoadBe32(p + 12) & 0xFFFFFF;
  for (int i = 0; i < num_ipv6_; ++i) {
    if (solicited_low24_[i] == low24) return true;
  }
  // Some address of the range ends in these 24 bits.
  const uint32_t first24 = LoadBe32(range6_first_.b.data() + 12) & 0xFFFFFF;
  return range6_count_ != 0 && (range6_count_ > 0xFFFFFF ||
                                ((low24 - first24) & 0xFFFFFF) < range6_count_);
}

int LocalAddresses::Ipv6SourceIndexFor(const Ipv6Addr& peer) const {
  if (num_ipv6_ == 0) return -1;
  const bool want_link_local = peer.IsLinkLocal();
  for (int i = 0; i < num_ipv6_; ++i) {
    if (ipv6_[i].IsLinkLocal() == want_link_local) return i;
  }
  return 0;
}

}  // namespace zg::core
