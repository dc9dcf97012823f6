// SPDX-License-Identifier: Apache-2.0
#include "core/ptp/ptp_unicast_table.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace zg::core {
namespace {

// 64x64 -> 128 multiply, folded (the core of wyhash / rapidhash).
inline uint64_t Mix(uint64_t a, uint64_t b) {
  const unsigned __int128 p = static_cast<unsigned __int128>(a) * b;
  return static_cast<uint64_t>(p) ^ static_cast<uint64_t>(p >> 64);
}

constexpr uint64_t kP0 = 0xa0761d6478bd642full;
constexpr uint64_t kP1 = 0xe7037ed1a0b428dbull;
constexpr uint64_t kP2 = 0x8ebc6af09c88c6e3ull;

// The key as 32 canonical octets: transport, address, port identity.
void Canonical(const PtpUnicastClientKey& key, uint8_t out[32]) {
  std::memset(out, 0, 32);
  out[0] = static_cast<uint8_t>(key.address.transport);
  std::memcpy(out + 1, key.address.octets.data(), 16);
  std::memcpy(out + 17, key.port_identity.clock_identity.octets.data(), 8);
  out[25] = static_cast<uint8_t>(key.port_identity.port_number >> 8);
  out[26] = static_cast<uint8_t>(key.port_identity.port_number);
}

}  // namespace

PtpUnicastAddress PtpUnicastAddress::Ipv4(const uint8_t* four) {
  PtpUnicastAddress a;
  a.transport = PtpUnicastTransport::kUdpIpv4;
  std::memcpy(a.octets.data(), four, 4);
  return a;
}
PtpUnicastAddress PtpUnicastAddress::Ipv6(const uint8_t* sixteen) {
  PtpUnicastAddress a;
  a.transport = PtpUnicastTransport::kUdpIpv6;
  std::memcpy(a.octets.data(), sixteen, 16);
  return a;
}
PtpUnicastAddress PtpUnicastAddress::L2(const uint8_t* six) {
  PtpUnicastAddress a;
  a.transport = PtpUnicastTransport::kL2;
  std::memcpy(a.octets.data(), six, 6);
  return a;
}

absl::StatusOr<std::unique_ptr<PtpUnicastTable>> PtpUnicastTable::Create(
    uint32_t capacity, uint64_t seed) {
  if (capacity == 0 || capacity > kMaxCapacity) {
    return absl::InvalidArgumentError(
        absl::StrCat("unicast table capacity ", capacity,
                     " must be between 1 and ", kMaxCapacity));
  }
  // At least twice as many index slots as entries: load factor <= 1/2.
  const uint32_t index_bits =
      std::max<uint32_t>(4, std::bit_width(uint64_t{capacity} * 2 - 1));
  return std::unique_ptr<PtpUnicastTable>(
      new PtpUnicastTable(capacity, index_bits, seed));
}

PtpUnicastTable::PtpUnicastTable(uint32_t capacity, uint32_t index_bits,
                                 uint64_t seed)
    : capacity_(capacity),
      index_bits_(index_bits),
      index_mask_((1u << index_bits) - 1),
      seed_(seed),
      entries_(capacity),
      index_(size_t{1} << index_bits, 0),
      slot_of_(capacity, kNone),
      free_(capacity) {
  // Pop order: entry 0 first (keeps the working set dense when small).
  for (uint32_t i = 0; i < capacity; ++i) free_[i] = capacity - 1 - i;
}

uint64_t PtpUnicastTable::Hash(const PtpUnicastClientKey& key) const {
  uint8_t b[32];
  Canonical(key, b);
  uint64_t w[4];
  std::memcpy(w, b, sizeof w);
  const uint64_t h =
      Mix(w[0] ^ kP0 ^ seed_, w[1] ^ kP1) ^ Mix(w[2] ^ kP2 ^ seed_, w[3] ^ kP0);
  return Mix(h ^ kP1, seed_ ^ kP2);
}

uint32_t PtpUnicastTable::Find(const PtpUnicastClientKey& key) const {
  const uint64_t h = Hash(key);
  const uint32_t tag = Tag(h);
  for (uint32_t s = Home(h);; s = (s + 1) & index_mask_) {
    const uint32_t v = index_[s];
    if (v == 0) return kNone;
    if ((v & 0xFF000000u) == tag) {
      const uint32_t e = (v & 0x00FFFFFFu) - 1;
      if (entries_[e].key == key) return e;
    }
  }
}

uint32_t PtpUnicastTable::Insert(const PtpUnicastClientKey& key,
                                 bool* inserted) {
  *inserted = false;
  const uint64_t h = Hash(key);
  const uint32_t tag = Tag(h);
  uint32_t probe = 0;
  uint32_t s = Home(h);
  for (;; s = (s + 1) & index_mask_, ++probe) {
    const uint32_t v = index_[s];
    if (v == 0) break;
    if ((v & 0xFF000000u) == tag) {
      const uint32_t e = (v & 0x00FFFFFFu) - 1;
      if (entries_[e].key == key) return e;
    }
  }
  if (free_.empty()) return kNone;
  const uint32_t e = free_.back();
  free_.pop_back();
  entries_[e] = PtpUnicastSubscriber{};
  entries_[e].key = key;
  index_[s] = tag | (e + 1);
  slot_of_[e] = s;
  ++size_;
  if (probe > max_probe_) max_probe_ = probe;
  *inserted = true;
  return e;
}

void PtpUnicastTable::Erase(uint32_t index) {
  if (!in_use(index)) return;
  uint32_t hole = slot_of_[index];
  slot_of_[index] = kNone;
  free_.push_back(index);
  --size_;
  // Backward-shift deletion: move later members of the probe run into the
  // hole when their home slot does not lie (cyclically) in (hole, s].
  for (uint32_t s = (hole + 1) & index_mask_;; s = (s + 1) & index_mask_) {
    const uint32_t v = index_[s];
    if (v == 0) break;
    const uint32_t e = (v & 0x00FFFFFFu) - 1;
    const uint32_t home = Home(Hash(entries_[e].key));
    const uint32_t dist_home = (s - home) & index_mask_;
    const uint32_t dist_hole = (s - hole) & index_mask_;
    if (dist_home >= dist_hole) {
      index_[hole] = v;
      slot_of_[e] = hole;
      hole = s;
    }
  }
  index_[hole] = 0;
}

}  // namespace zg::core
