// SPDX-License-Identifier: Apache-2.0
// Admission control for PTP unicast negotiation (IEEE 1588-2019 16.1): what
// one source address may hold and what all grants together may cost, so that
// forged REQUESTs cannot turn the grandmaster into an amplifier.
//
//  - PtpAdmissionConfig: the operator's limits (--ptp_max_grants_per_source,
//    --ptp_min_log_interval_per_source, --ptp_tx_budget), immutable, built
//    and validated by one function from flag values (so a reload can build a
//    new one and swap it in whole).
//  - PtpGrantRateUnits: what one grant costs the transmit budget, in 1/32
//    messages per second, counting the messages IEEE 1588 grants: Sync (plus
//    its Follow_Up when two-step), Announce, Delay_Resp (one per Delay_Req
//    the grant allows), Pdelay_Resp (plus its Pdelay_Resp_Follow_Up).
//  - PtpSourceTable: grants held per source address (IPv4, IPv6, or a MAC
//    for Layer 2), across all its portIdentities, in fixed memory.
//
// Single-threaded (the owning worker's PtpUnicastService). No allocation
// after Create.
//
//   ZG_ASSIGN_OR_RETURN(auto sources, PtpSourceTable::Create(1'000'000, seed));
//   if (sources->Grants(addr) >= config.max_grants_per_source) { /* refuse */ }
//   sources->Add(addr);     // a grant made
//   sources->Remove(addr);  // a grant ended
#ifndef ZG_CORE_PTP_PTP_ADMISSION_H_
#define ZG_CORE_PTP_PTP_ADMISSION_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/ptp/ptp_profile.h"
#include "core/ptp/ptp_unicast_table.h"

namespace zg::core {

// Budget arithmetic is exact in units of 1/32 message per second: a grant
// at the slowest interval (2^5 s) costs 1 unit per message it covers.
inline constexpr int kPtpRateUnitsLog2 = kPtpMaxLogInterval;
inline constexpr uint64_t kPtpRateUnitsPerMessage = uint64_t{1}
                                                    << kPtpRateUnitsLog2;

// Messages per grant interval: 2 for a two-step Sync (Sync + Follow_Up) and
// for Pdelay_Resp (+ Pdelay_Resp_Follow_Up), else 1.
constexpr uint32_t PtpGrantMessagesPerInterval(PtpGrantType g, bool two_step) {
  if (g == PtpGrantType::kSync) return two_step ? 2 : 1;
  return g == PtpGrantType::kPdelayResp ? 2 : 1;
}

// The budget one grant of `g` at `log_interval` (in [kPtpMinLogInterval,
// kPtpMaxLogInterval]) takes: messages per second times 32.
constexpr uint64_t PtpGrantRateUnits(PtpGrantType g, int8_t log_interval,
                                     bool two_step) {
  return uint64_t{PtpGrantMessagesPerInterval(g, two_step)}
         << (kPtpRateUnitsLog2 - log_interval);
}

// The operator's admission limits. The default-constructed value limits
// nothing (the behaviour before admission control); zeitgeberd's flags give
// the deployed defaults (doc/ptp.md, "Admission control").
// Written by: setup (or a reload) on the control thread. Read by: each
// worker's PtpUnicastService (its own copy).
struct PtpAdmissionConfig {
  // Grants (one per message type per portIdentity) one source address may
  // hold across all its portIdentities; 0: no limit.
  uint32_t max_grants_per_source = 0;
  // The shortest logInterMessagePeriod granted to any source: a faster
  // request is granted at this interval (a reduced grant). Applies to Sync,
  // Announce, Delay_Resp and Pdelay_Resp alike.
  int8_t min_log_interval_per_source = kPtpMinLogInterval;
  // Messages per second all unicast grants together may commit, for the
  // whole daemon; 0: no limit. Each of `shards` workers gets an equal share.
  uint64_t tx_budget_per_s = 0;
  // Replies per second that grant nothing (refusals, CANCEL
  // acknowledgements: each a 1:1 reflection towards a possibly forged
  // source), for the whole daemon; past it such a message is dropped
  // unanswered. A reply that grants is always sent. 0: no limit.
  uint64_t refusal_replies_per_s = 0;
  unsigned shards = 1;
  bool two_step = true;  // a Sync grant costs Sync + Follow_Up

  friend bool operator==(const PtpAdmissionConfig&,
                         const PtpAdmissionConfig&) = default;

  // This shard's share of the budget in rate units; 0: no limit.
  uint64_t ShardBudgetUnits() const {
    if (tx_budget_per_s == 0) return 0;
    const uint64_t units =
        tx_budget_per_s * kPtpRateUnitsPerMessage / (shards == 0 ? 1 : shards);
    return units == 0 ? 1 : units;  // a tiny budget still limits
  }
  // This shard's share of refusal_replies_per_s in replies per 1024 s
  // (so small shares stay exact); 0: no limit.
  uint64_t ShardRefusalRate1024() const {
    if (refusal_replies_per_s == 0) return 0;
    const uint64_t r =
        refusal_replies_per_s * 1024 / (shards == 0 ? 1 : shards);
    return r == 0 ? 1 : r;
  }
};

// The flag values PtpAdmissionConfig is built from (as given: int, so range
// errors can name the value).
struct PtpAdmissionFlagValues {
  int max_grants_per_source = 0;
  int min_log_interval_per_source = kPtpMinLogInterval;
  int64_t tx_budget = 0;
  int64_t refusal_rate = 0;
  bool cancel_requires_auth = false;
  bool two_step = true;
};

// zeitgeberd's defaults (the --ptp_* flags'): a ptp4l slave holds 3 grants,
// so 8 per address leave room for two behind one address; Sync at most
// 16/s per grant (G.8275.2's usual rate); 1M messages/s in all (about 1M
// clients at 1 Hz, or 0.8 Gbit/s of UDP/IPv4 Sync frames); 1000 replies/s
// that grant nothing.
inline constexpr PtpAdmissionFlagValues kPtpAdmissionDefaults = {
    .max_grants_per_source = 8,
    .min_log_interval_per_source = -4,
    .tx_budget = 1'000'000,
    .refusal_rate = 1000,
    .cancel_requires_auth = false,
    .two_step = true,
};

// Validates and builds the admission config; errors name the flag and say
// what to do. --ptp_cancel_requires_auth=true is refused: zeitgeber has no
// PTP authentication (no 1588-2019 AUTHENTICATION TLV, no keys), so no
// CANCEL could ever be verified.
absl::StatusOr<PtpAdmissionConfig> MakePtpAdmissionConfig(
    const PtpAdmissionFlagValues& flags);

// For logs and the audit log: "8 grants per source, intervals >= 2^-4 s,
// budget 1000000 messages/s, 1000 refusals/s" ("no limit" for zeros).
std::string DescribePtpAdmission(const PtpAdmissionConfig& c);

// Grants held per source address. Open addressing with linear probing over
// slots that hold the entries themselves (24 B; load <= 1/2, so 48 B per
// source), backward-shift deletion, hash keyed by a per-table seed.
class PtpSourceTable {
 public:
  static absl::StatusOr<std::unique_ptr<PtpSourceTable>> Create(
      uint32_t capacity, uint64_t seed);

  // Grants `address` holds (0 when absent).
  uint32_t Grants(const PtpUnicastAddress& address) const;
  // One more grant for `address`; false when it is new and the table holds
  // `capacity` sources already.
  bool Add(const PtpUnicastAddress& address);
  // One grant fewer; the source is removed with its last grant.
  void Remove(const PtpUnicastAddress& address);

  uint32_t size() const { return size_; }
  uint32_t capacity() const { return capacity_; }

 private:
  struct Slot {
    PtpUnicastAddress address;
    uint32_t grants = 0;  // 0: empty
  };
  PtpSourceTable(uint32_t capacity, uint32_t bits, uint64_t seed);
  uint32_t Home(const PtpUnicastAddress& address) const;
  // The slot holding `address`, or the empty slot ending its probe run.
  uint32_t Probe(const PtpUnicastAddress& address) const;

  uint32_t capacity_;
  uint32_t bits_;
  uint32_t mask_;
  uint64_t seed_;
  uint32_t size_ = 0;
  std::vector<Slot> slots_;
};

}  // namespace zg::core

#endif  // ZG_CORE_PTP_PTP_ADMISSION_H_
