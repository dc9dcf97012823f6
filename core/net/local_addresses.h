// SPDX-License-Identifier: Apache-2.0
// Our addresses on one port: the MAC, the optional VLAN, up to eight IPv4 and
// eight IPv6 unicast addresses and one load-generator range per family.
// ClassifyFrame (core/net/frame.h) matches destinations against them;
// PrepareUdpReply (core/net/frame_build.h) and the L2/L3 responders pick
// reply sources from them. Setup code validates and fills one with Create
// and the Add* calls; the lookups are inline, allocation-free and safe on the
// per-packet path.
#ifndef ZG_CORE_NET_LOCAL_ADDRESSES_H_
#define ZG_CORE_NET_LOCAL_ADDRESSES_H_

#include <array>
#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/net/net_headers.h"

namespace zg::core {

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

}  // namespace zg::core

#endif  // ZG_CORE_NET_LOCAL_ADDRESSES_H_
