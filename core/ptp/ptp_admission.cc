// SPDX-License-Identifier: Apache-2.0
#include "core/ptp/ptp_admission.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace zg::core {
namespace {

inline uint64_t Mix(uint64_t a, uint64_t b) {
  const unsigned __int128 p = static_cast<unsigned __int128>(a) * b;
  return static_cast<uint64_t>(p) ^ static_cast<uint64_t>(p >> 64);
}

// The largest budget the rate-unit arithmetic holds without overflow for
// any number of grants a worker can have (16M subscribers x 4 grants x
// 2^15 units x 2 fits easily; this bounds the flag).
constexpr int64_t kMaxTxBudget = int64_t{1} << 40;

}  // namespace

absl::StatusOr<PtpAdmissionConfig> MakePtpAdmissionConfig(
    const PtpAdmissionFlagValues& f) {
  if (f.cancel_requires_auth) {
    return absl::InvalidArgumentError(
        "--ptp_cancel_requires_auth=true cannot be honoured: zeitgeber has "
        "no PTP authentication yet (no IEEE 1588-2019 AUTHENTICATION TLV, "
        "no PTP keys), so no CANCEL_UNICAST_TRANSMISSION could ever be "
        "verified; leave it false (CANCELs are honoured only from the "
        "address and UDP port the grant was made to, see doc/ptp.md) or "
        "turn unicast negotiation off");
  }
  if (f.max_grants_per_source < 0 || f.max_grants_per_source > 1'000'000) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--ptp_max_grants_per_source=", f.max_grants_per_source,
        " must be between 0 (no limit) and 1000000; a ptp4l slave holds 3 "
        "grants (Announce, Sync, Delay_Resp)"));
  }
  if (f.min_log_interval_per_source < kPtpMinLogInterval ||
      f.min_log_interval_per_source > kPtpMaxLogInterval) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--ptp_min_log_interval_per_source=", f.min_log_interval_per_source,
        " must be a log2 interval between ", kPtpMinLogInterval, " and ",
        kPtpMaxLogInterval, " (e.g. -4: at most 16 messages/s per grant)"));
  }
  if (f.tx_budget < 0 || f.tx_budget > kMaxTxBudget) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--ptp_tx_budget=", f.tx_budget, " must be between 0 (no limit) and ",
        kMaxTxBudget, " messages per second"));
  }
  if (f.refusal_rate < 0 || f.refusal_rate > kMaxTxBudget) {
    return absl::InvalidArgumentError(
        absl::StrCat("--ptp_refusal_rate=", f.refusal_rate,
                     " must be between 0 (no limit) and ", kMaxTxBudget,
                     " replies per second"));
  }
  PtpAdmissionConfig c;
  c.refusal_replies_per_s = static_cast<uint64_t>(f.refusal_rate);
  c.max_grants_per_source = static_cast<uint32_t>(f.max_grants_per_source);
  c.min_log_interval_per_source =
      static_cast<int8_t>(f.min_log_interval_per_source);
  c.tx_budget_per_s = static_cast<uint64_t>(f.tx_budget);
  c.two_step = f.two_step;
  return c;
}

std::string DescribePtpAdmission(const PtpAdmissionConfig& c) {
  auto limit = [](uint64_t v, const char* unit) {
    return v == 0 ? std::string("no limit") : absl::StrCat(v, " ", unit);
  };
  return absl::StrCat(limit(c.max_grants_per_source, "grants"),
                      " per source, intervals >= "
                      "2^",
                      c.min_log_interval_per_source, " s, budget ",
                      limit(c.tx_budget_per_s, "messages/s"), ", refusals ",
                      limit(c.refusal_replies_per_s, "replies/s"));
}

absl::StatusOr<std::unique_ptr<PtpSourceTable>> PtpSourceTable::Create(
    uint32_t capacity, uint64_t seed) {
  if (capacity == 0 || capacity > PtpUnicastTable::kMaxCapacity) {
    return absl::InvalidArgumentError(
        absl::StrCat("source table capacity ", capacity,
                     " must be between 1 and ", PtpUnicastTable::kMaxCapacity));
  }
  const uint32_t bits =
      std::max<uint32_t>(4, std::bit_width(uint64_t{capacity} * 2 - 1));
  return std::unique_ptr<PtpSourceTable>(
      new PtpSourceTable(capacity, bits, seed));
}

PtpSourceTable::PtpSourceTable(uint32_t capacity, uint32_t bits, uint64_t seed)
    : capacity_(capacity),
      bits_(bits),
      mask_((1u << bits) - 1),
      seed_(seed),
      slots_(size_t{1} << bits) {}

uint32_t PtpSourceTable::Home(const PtpUnicastAddress& a) const {
  uint64_t w[2];
  std::memcpy(w, a.octets.data(), sizeof w);
  const uint64_t h =
      Mix(w[0] ^ seed_ ^ 0xa0761d6478bd642full,
          w[1] ^ (uint64_t{static_cast<uint8_t>(a.transport)} << 56) ^
              0xe7037ed1a0b428dbull);
  return static_cast<uint32_t>(Mix(h, seed_ ^ 0x8ebc6af09c88c6e3ull) >>
                               (64 - bits_));
}

uint32_t PtpSourceTable::Probe(const PtpUnicastAddress& a) const {
  uint32_t s = Home(a);
  while (slots_[s].grants != 0 && !(slots_[s].address == a)) {
    s = (s + 1) & mask_;
  }
  return s;
}

uint32_t PtpSourceTable::Grants(const PtpUnicastAddress& a) const {
  return slots_[Probe(a)].grants;
}

bool PtpSourceTable::Add(const PtpUnicastAddress& a) {
  Slot& slot = slots_[Probe(a)];
  if (slot.grants == 0) {
    if (size_ == capacity_) return false;
    slot.address = a;
    ++size_;
  }
  ++slot.grants;
  return true;
}

void PtpSourceTable::Remove(const PtpUnicastAddress& a) {
  uint32_t hole = Probe(a);
  if (slots_[hole].grants == 0 || --slots_[hole].grants != 0) return;
  --size_;
  // Backward-shift deletion: pull later members of the run into the hole
  // unless their home lies (cyclically) in (hole, s].
  for (uint32_t s = (hole + 1) & mask_; slots_[s].grants != 0;
       s = (s + 1) & mask_) {
    const uint32_t home = Home(slots_[s].address);
    if (((s - home) & mask_) >= ((s - hole) & mask_)) {
      slots_[hole] = slots_[s];
      hole = s;
    }
  }
  slots_[hole] = Slot{};
}

}  // namespace zg::core
