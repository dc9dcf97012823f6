// SPDX-License-Identifier: Apache-2.0
// Unicast service of one worker's shard (IEEE 1588-2019 16.1; G.8265.1 /
// G.8275.2 unicast negotiation): grant, reduce or refuse each REQUEST
// against the port's limits and the admission limits (core/ptp/
// ptp_admission.h: grants per source address, the shortest interval per
// source, this shard's share of the transmit budget), keep the subscription
// table, arm the send scheduler, end grants on CANCEL (only from the
// address and UDP port the grant was made to) or expiry, and drive the
// periodic unicast Announce and Sync to every subscriber through a send
// callback.
//
// Each worker owns one service for the clients whose frames its RX queue
// receives (RSS hashes on IP addresses only, so a client's event and
// general messages reach the same worker; Layer 2 clients all reach queue
// 0). Nothing is shared: no locks, no allocation after Create.
//
//   ZG_ASSIGN_OR_RETURN(auto svc, PtpUnicastService::Create(
//       {config.grant_limits, capacity, seed}));
//   svc->Start(now_ns);
//   PtpGrantDecision d = svc->Request(key, path, request, serving, now_ns);
//   ...
//   svc->Poll(now_ns, 64, /*transmit=*/state == kMaster,
//             [&](const PtpUnicastSubscriber& s, PtpTimerKind k, uint16_t seq,
//                 int8_t log_interval) { return EnqueueSend(s, k, seq); });
//   svc->SweepExpired(now_ns, 64);
#ifndef ZG_CORE_PTP_PTP_UNICAST_SERVICE_H_
#define ZG_CORE_PTP_PTP_UNICAST_SERVICE_H_

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "core/ptp/ptp_admission.h"
#include "core/ptp/ptp_profile.h"
#include "core/ptp/ptp_scheduler.h"
#include "core/ptp/ptp_tlv.h"
#include "core/ptp/ptp_unicast_table.h"

namespace zg::core {

// Why a REQUEST was denied (a GRANT with durationField 0). Names suit
// metric labels.
enum class PtpGrantDenial : uint8_t {
  kGranted = 0,
  kTypeNotGranted,    // this port does not grant this message type
  kIntervalTooShort,  // faster than the port's limit
  kIntervalTooLong,   // slower than the port's limit
  kZeroDuration,      // durationField 0
  kTableFull,         // no room for another subscriber
  kNotMaster,         // the port is not MASTER (PASSIVE, LISTENING)
  kPerSource,         // the source address holds --ptp_max_grants_per_source
  kBudget,            // not even the slowest interval fits --ptp_tx_budget
  kAcl,               // --ptp_allow/--ptp_deny (counted; nothing is sent)
  kCount,
};
const char* PtpGrantDenialName(PtpGrantDenial d);
inline constexpr size_t kPtpGrantDenialCount =
    static_cast<size_t>(PtpGrantDenial::kCount);

// Why a grant was made at a longer interval than requested (1588-2019
// 16.1.4.2: the GRANT's logInterMessagePeriod is the rate granted).
enum class PtpGrantReduction : uint8_t {
  kNone = 0,
  kInterval,  // faster than --ptp_min_log_interval_per_source
  kBudget,    // the requested rate did not fit --ptp_tx_budget
  kCount,
};
const char* PtpGrantReductionName(PtpGrantReduction r);
inline constexpr size_t kPtpGrantReductionCount =
    static_cast<size_t>(PtpGrantReduction::kCount);

// What a CANCEL_UNICAST_TRANSMISSION did.
enum class PtpCancelResult : uint8_t {
  kCancelled = 0,
  kNoGrant,      // nothing of that type was granted to this key
  kWrongSource,  // granted to another UDP port of this address: ignored
};

struct PtpGrantDecision {
  PtpGrantDenial denial = PtpGrantDenial::kGranted;
  // Granted: the interval granted (the requested one unless reduced);
  // refused: the requested one.
  int8_t log_interval = 0;
  uint32_t duration_s = 0;  // granted duration, 0 when denied
  bool renewal = false;     // the subscriber already held this grant
  PtpGrantReduction reduction = PtpGrantReduction::kNone;
  bool granted() const { return denial == PtpGrantDenial::kGranted; }
};

// How late unicast messages leave their schedule (PtpUnicastScheduler's due
// time to the send), in buckets whose upper bounds are
// kPtpLatenessBoundsNs; the last bucket is everything later. Due times are
// the starts of the wheel's 2^-10 s slots and the worker looks at the wheel
// at each slot start, so a worker that keeps up sends within tens of
// microseconds: the sub-millisecond buckets show how far within.
inline constexpr std::array<int64_t, 12> kPtpLatenessBoundsNs = {
    50'000,    100'000,   250'000,    500'000,    1'000'000,   2'000'000,
    4'000'000, 8'000'000, 16'000'000, 64'000'000, 256'000'000, 1'000'000'000};
inline constexpr size_t kPtpLatenessBuckets = kPtpLatenessBoundsNs.size() + 1;
inline size_t PtpLatenessBucket(int64_t late_ns) {
  size_t b = 0;
  while (b < kPtpLatenessBoundsNs.size() && late_ns > kPtpLatenessBoundsNs[b]) {
    ++b;
  }
  return b;
}

// Written by: the owning worker. Read by: the worker's stats export.
struct PtpUnicastServiceStats {
  std::array<uint64_t, kPtpGrantTypeCount> grants{};    // incl. renewals
  std::array<uint64_t, kPtpGrantTypeCount> renewals{};  // of a live grant
  std::array<uint64_t, kPtpGrantDenialCount> denials{};
  std::array<uint64_t, kPtpGrantReductionCount> reductions{};
  uint64_t cancels_wrong_source = 0;  // CANCELs from another UDP port
  uint64_t silenced = 0;  // replies granting nothing, not sent (rate)
  std::array<uint64_t, kPtpGrantTypeCount> cancels{};   // grants cancelled
  std::array<uint64_t, kPtpGrantTypeCount> expiries{};  // grants run out
  std::array<uint64_t, kPtpTimerKinds> sent{};          // Announce, Sync
  uint64_t suppressed = 0;    // sends skipped while not MASTER
  uint64_t backpressure = 0;  // Poll stopped by the send callback
  // Messages never sent because their timer fired a whole interval or more
  // late (the worker fell behind): PtpPollStats::skipped, per kind.
  std::array<uint64_t, kPtpTimerKinds> skipped{};
  // Per kind, how late each sent message left (kPtpLatenessBoundsNs), and
  // the sum of those lateness values in ns.
  std::array<std::array<uint64_t, kPtpLatenessBuckets>, kPtpTimerKinds>
      lateness{};
  std::array<uint64_t, kPtpTimerKinds> lateness_sum_ns{};
};

class PtpUnicastService {
 public:
  struct Config {
    PtpGrantLimits limits;
    uint32_t capacity = 1'000'000;  // subscribers in this shard
    uint64_t seed = 0;              // hash key for the table
    PtpAdmissionConfig admission;   // default: no admission limits
  };
  static absl::StatusOr<std::unique_ptr<PtpUnicastService>> Create(
      const Config& config);

  void Start(int64_t now_mono_ns) { scheduler_->Start(now_mono_ns); }

  // Decides one REQUEST_UNICAST_TRANSMISSION from `key`, sent from UDP
  // port `source_port` (0 for Layer 2). In order: the port's limits
  // (type, interval range, duration, MASTER: refused), the source's grant
  // count (refused: per_source), the per-source interval floor (reduced:
  // interval), the shard's budget (reduced to the fastest interval that
  // fits, else refused: budget), room in the tables (refused: table_full).
  // A grant creates or renews the subscription (its expiry becomes now +
  // the granted duration, clamped to the limits), remembers `path` and
  // `source_port`, and arms the Announce/Sync timer; a refusal leaves any
  // existing grant alone. `serving`: the port is MASTER.
  PtpGrantDecision Request(const PtpUnicastClientKey& key,
                           const PtpUnicastReturnPath& path,
                           const PtpUnicastRequest& request, bool serving,
                           int64_t now_mono_ns, uint16_t source_port = 0);

  // Ends the grant of `type` held by `key` (CANCEL_UNICAST_TRANSMISSION)
  // when it comes from the UDP port the grant was last made to (for Layer 2
  // the key's MAC is the whole address). The subscriber is removed with its
  // last grant.
  PtpCancelResult Cancel(const PtpUnicastClientKey& key, PtpMessageType type,
                         uint16_t source_port = 0);

  // Whether a reply that grants nothing (refusals, CANCEL ACKs) may be sent
  // now: a token bucket at this shard's share of refusal_replies_per_s,
  // holding an eighth of a second's worth (at least one). False counts
  // `silenced`.
  bool AllowRefusalReply(int64_t now_mono_ns);

  // Counts a REQUEST refused by the access list (the caller sends nothing).
  void CountAclRefusal() {
    ++stats_.denials[static_cast<size_t>(PtpGrantDenial::kAcl)];
  }

  // New limits for the grants made from now on (a reload); live grants keep
  // theirs until they are renewed or end.
  void SetAdmission(const PtpAdmissionConfig& admission) {
    config_.admission = admission;
    budget_units_ = admission.ShardBudgetUnits();
    refusal_rate_1024_ = admission.ShardRefusalRate1024();
  }
  // The rate all live grants of this shard commit, and this shard's budget
  // (0: none), in rate units (1/32 message per second).
  uint64_t committed_units() const { return committed_units_; }
  uint64_t budget_units() const { return budget_units_; }
  const PtpSourceTable& sources() const { return *sources_; }

  // Whether `key` holds a live grant of `type` (e.g. Delay_Resp).
  bool HasGrant(const PtpUnicastClientKey& key, PtpGrantType type,
                int64_t now_mono_ns) const;

  // Runs the scheduler: for each due Announce/Sync timer of a live grant,
  // calls send(const PtpUnicastSubscriber&, PtpTimerKind, uint16_t
  // sequence_id, int8_t log_interval) -> bool (false: no room now; the
  // timer stays due and Poll ends). Expired grants are dropped instead.
  // With transmit false (not MASTER) timers keep their phase but nothing is
  // sent. At most `budget` timers per call.
  template <typename Send>
  PtpPollStats Poll(int64_t now_mono_ns, uint32_t budget, bool transmit,
                    Send&& send);

  // Ends expired grants of entries the scheduler does not visit (Delay_Resp
  // and Pdelay_Resp only): walks at most `max_visits` entries from where the
  // previous call stopped. Returns the subscribers removed.
  uint32_t SweepExpired(int64_t now_mono_ns, uint32_t max_visits);

  const PtpUnicastTable& table() const { return *table_; }
  const PtpUnicastScheduler& scheduler() const { return *scheduler_; }
  const PtpUnicastServiceStats& stats() const { return stats_; }
  const Config& config() const { return config_; }

  static uint32_t Seconds(int64_t mono_ns) {
    return static_cast<uint32_t>(mono_ns / kNanosPerSecond);
  }

 private:
  PtpUnicastService(const Config& config,
                    std::unique_ptr<PtpUnicastTable> table,
                    std::unique_ptr<PtpUnicastScheduler> scheduler,
                    std::unique_ptr<PtpSourceTable> sources);
  PtpGrantDenial Check(const PtpUnicastRequest& request, bool serving) const;
  // The interval to grant `g` at, given what the live grant being renewed
  // (if any) frees: *out and the reduction, or a refusal.
  PtpGrantDenial Admit(PtpGrantType g, int8_t requested, uint64_t freed,
                       int8_t* out, PtpGrantReduction* reduction) const;
  uint64_t Units(PtpGrantType g, int8_t log_interval) const {
    return PtpGrantRateUnits(g, log_interval, config_.admission.two_step);
  }
  void EndGrant(uint32_t index, PtpGrantType type);

  Config config_;
  std::unique_ptr<PtpUnicastTable> table_;
  std::unique_ptr<PtpUnicastScheduler> scheduler_;
  std::unique_ptr<PtpSourceTable> sources_;
  // Per subscriber entry: the UDP source port of its latest granted
  // REQUEST (0 for Layer 2), the port a CANCEL must come from.
  std::vector<uint16_t> source_port_;
  uint64_t budget_units_ = 0;     // this shard's budget; 0: none
  uint64_t committed_units_ = 0;  // sum over every grant bit set
  // Refusal replies: tokens in 1/1024 reply (scaled by the rate's 1024),
  // refilled at refusal_rate_1024_ per second from refill_ns_.
  uint64_t refusal_rate_1024_ = 0;  // 0: no limit
  uint64_t refusal_tokens_ = 0;
  int64_t refill_ns_ = 0;
  PtpUnicastServiceStats stats_;
  uint32_t sweep_cursor_ = 0;
};

// ---- Implementation ---------------------------------------------------------

constexpr PtpGrantType PtpGrantTypeOf(PtpTimerKind kind) {
  return kind == PtpTimerKind::kAnnounce ? PtpGrantType::kAnnounce
                                         : PtpGrantType::kSync;
}

template <typename Send>
PtpPollStats PtpUnicastService::Poll(int64_t now_mono_ns, uint32_t budget,
                                     bool transmit, Send&& send) {
  const uint32_t now_s = Seconds(now_mono_ns);
  PtpPollStats st = scheduler_->Poll(
      now_mono_ns, budget, [&](uint32_t index, PtpTimerKind kind) {
        const PtpGrantType g = PtpGrantTypeOf(kind);
        if (!table_->in_use(index)) return PtpTimerAction::kDisarm;
        PtpUnicastSubscriber& s = table_->at(index);
        if (!s.Has(g)) return PtpTimerAction::kDisarm;
        const size_t gi = static_cast<size_t>(g);
        if (now_s >= s.expiry_s[gi]) {
          ++stats_.expiries[gi];
          EndGrant(index, g);
          return PtpTimerAction::kDisarm;
        }
        if (!transmit) {
          ++stats_.suppressed;
          return PtpTimerAction::kRearm;
        }
        uint16_t& seq = kind == PtpTimerKind::kAnnounce ? s.announce_sequence_id
                                                        : s.sync_sequence_id;
        if (!send(static_cast<const PtpUnicastSubscriber&>(s), kind, seq,
                  s.log_interval[gi])) {
          return PtpTimerAction::kStop;
        }
        ++seq;
        const size_t k = static_cast<size_t>(kind);
        ++stats_.sent[k];
        const int64_t late =
            std::max<int64_t>(0, now_mono_ns - scheduler_->due_ns());
        ++stats_.lateness[k][PtpLatenessBucket(late)];
        stats_.lateness_sum_ns[k] += static_cast<uint64_t>(late);
        return PtpTimerAction::kRearm;
      });
  if (st.stopped) ++stats_.backpressure;
  for (size_t k = 0; k < kPtpTimerKinds; ++k)
    stats_.skipped[k] += st.skipped[k];
  return st;
}

}  // namespace zg::core

#endif  // ZG_CORE_PTP_PTP_UNICAST_SERVICE_H_
