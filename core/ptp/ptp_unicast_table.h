// SPDX-License-Identifier: Apache-2.0
// The unicast subscription table of one worker (a "shard"): who negotiated
// which unicast messages (IEEE 1588-2019 16.1), at what interval and until
// when, and how to reach them. Sized at setup for up to 16M subscribers
// (1,000,000 in zeitgeberd's default) in fixed memory; lookups, inserts and
// erases are O(1) and never allocate.
//
// A subscriber is a requesting PTP port: its address (IPv4, IPv6 or a MAC
// for Layer 2) plus its portIdentity, so several ptp4l instances behind one
// address are separate subscribers. The index is open addressing with linear
// probing over 32-bit slots (8 tag bits of the hash, 24 bits of entry index;
// load factor <= 1/2), backward-shift deletion (no tombstones), and a hash
// keyed by a per-table seed so that remote clients cannot choose colliding
// keys. Entries are 64-byte records in one array; free ones on a stack.
//
// Single-threaded: owned and used by one worker (the shard owner). Metrics
// read size() via the owner's stats.
//
//   ZG_ASSIGN_OR_RETURN(auto table, PtpUnicastTable::Create(1'000'000, seed));
//   bool inserted;
//   uint32_t i = table->Insert(key, &inserted);
//   if (i == PtpUnicastTable::kNone) { /* full: deny */ }
//   PtpUnicastSubscriber& s = table->at(i);
//   ...
//   table->Erase(i);
#ifndef ZG_CORE_PTP_PTP_UNICAST_TABLE_H_
#define ZG_CORE_PTP_PTP_UNICAST_TABLE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "core/ptp/ptp_profile.h"
#include "core/ptp/ptp_wire.h"

namespace zg::core {

enum class PtpUnicastTransport : uint8_t {
  kNone = 0,
  kUdpIpv4 = 1,
  kUdpIpv6 = 2,
  kL2 = 3,
};

// A subscriber's address: IPv4 in octets[0..3], IPv6 in all 16, a MAC in
// octets[0..5] for Layer 2; the rest zero (so the bytes compare and hash
// canonically).
struct PtpUnicastAddress {
  PtpUnicastTransport transport = PtpUnicastTransport::kNone;
  std::array<uint8_t, 16> octets{};
  static PtpUnicastAddress Ipv4(const uint8_t* four);
  static PtpUnicastAddress Ipv6(const uint8_t* sixteen);
  static PtpUnicastAddress L2(const uint8_t* six);
  friend constexpr bool operator==(const PtpUnicastAddress&,
                                   const PtpUnicastAddress&) = default;
};

struct PtpUnicastClientKey {
  PtpUnicastAddress address;
  PtpPortIdentity port_identity;
  friend constexpr bool operator==(const PtpUnicastClientKey&,
                                   const PtpUnicastClientKey&) = default;
};

// How to send to a subscriber: learnt from its latest request frame.
struct PtpUnicastReturnPath {
  std::array<uint8_t, 6> mac{};  // destination MAC (the client or a router)
  uint16_t vlan_tci = 0;         // 0: untagged
  uint8_t local_index = 0;       // which of our addresses it asked
  friend constexpr bool operator==(const PtpUnicastReturnPath&,
                                   const PtpUnicastReturnPath&) = default;
};

// One subscription. Written by: the owning worker only.
struct alignas(64) PtpUnicastSubscriber {
  PtpUnicastClientKey key;
  PtpUnicastReturnPath path;
  uint8_t granted = 0;  // bit i: grant of PtpGrantType i is active
  // Per PtpGrantType: when the grant ends (seconds on the caller's
  // monotonic clock; expired once now_s >= expiry_s) and its interval.
  std::array<uint32_t, kPtpGrantTypeCount> expiry_s{};
  std::array<int8_t, kPtpGrantTypeCount> log_interval{};
  // sequenceId of the next Announce and Sync sent to this subscriber.
  uint16_t announce_sequence_id = 0;
  uint16_t sync_sequence_id = 0;

  bool Has(PtpGrantType g) const {
    return (granted >> static_cast<unsigned>(g)) & 1u;
  }
  void Set(PtpGrantType g, bool on) {
    const auto bit = static_cast<uint8_t>(1u << static_cast<unsigned>(g));
    granted = on ? static_cast<uint8_t>(granted | bit)
                 : static_cast<uint8_t>(granted & ~bit);
  }
};
static_assert(sizeof(PtpUnicastSubscriber) == 64,
              "one cache line per subscriber");

class PtpUnicastTable {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;
  static constexpr uint32_t kMaxCapacity = (1u << 24) - 1;

  // Allocates everything for `capacity` subscribers (1..kMaxCapacity):
  // 64 B per entry plus 12-16 B of index and free list. `seed` keys the hash
  // (pass a random value).
  static absl::StatusOr<std::unique_ptr<PtpUnicastTable>> Create(
      uint32_t capacity, uint64_t seed);

  // The entry of `key`, or kNone.
  uint32_t Find(const PtpUnicastClientKey& key) const;
  // The entry of `key`, inserted (zeroed but for the key) if absent;
  // kNone when the table is full.
  uint32_t Insert(const PtpUnicastClientKey& key, bool* inserted);
  // Removes entry `index` (must be in use).
  void Erase(uint32_t index);

  PtpUnicastSubscriber& at(uint32_t index) { return entries_[index]; }
  const PtpUnicastSubscriber& at(uint32_t index) const {
    return entries_[index];
  }
  bool in_use(uint32_t index) const {
    return index < capacity_ && slot_of_[index] != kNone;
  }
  uint32_t size() const { return size_; }
  uint32_t capacity() const { return capacity_; }
  // Probe statistics for tests and benchmarks: the longest probe sequence
  // walked by Insert since creation.
  uint32_t max_probe() const { return max_probe_; }

  // The keyed hash (exposed for tests).
  uint64_t Hash(const PtpUnicastClientKey& key) const;

 private:
  PtpUnicastTable(uint32_t capacity, uint32_t index_bits, uint64_t seed);
  uint32_t Home(uint64_t hash) const {
    return static_cast<uint32_t>(hash >> (64 - index_bits_));
  }
  static uint32_t Tag(uint64_t hash) { return (hash & 0xFF) << 24; }

  uint32_t capacity_;
  uint32_t index_bits_;
  uint32_t index_mask_;
  uint64_t seed_;
  uint32_t size_ = 0;
  uint32_t max_probe_ = 0;
  std::vector<PtpUnicastSubscriber> entries_;
  // Index slots: 0 = empty, else tag (high 8 bits) | (entry index + 1).
  std::vector<uint32_t> index_;
  // Per entry: its index slot, or kNone when free.
  std::vector<uint32_t> slot_of_;
  std::vector<uint32_t> free_;  // stack of free entry indices
};

}  // namespace zg::core

#endif  // ZG_CORE_PTP_PTP_UNICAST_TABLE_H_
