// SPDX-License-Identifier: Apache-2.0
// zg-loadgen's unicast PTP subscribers (--mix=ptp_unicast): what one lane
// does for its share of --ptp_subscribers emulated G.8275.2 slaves, without
// moving packets. Each subscriber
//   - negotiates Announce, Sync and Delay_Resp grants with one Signaling
//     message of REQUEST_UNICAST_TRANSMISSION TLVs (IEEE 1588-2019 16.1) at
//     the configured log intervals and duration, re-asks a REQUEST that got
//     no GRANT within the reply timeout, retries a refused one after the
//     retry time, and renews each grant when half its duration has passed;
//   - receives Announce, Sync and Follow_Up (sequenceId gaps, lateness
//     against the granted schedule, Follow_Up pairing, t1/t2);
//   - sends Delay_Req at its granted Delay_Resp interval while that grant
//     lasts, and matches each Delay_Resp (requestingPortIdentity and
//     sequenceId) to compute the mean path delay and the offset.
// Messages are built and parsed with core/ptp (ptp_wire.h, ptp_tlv.h): no
// second codec. Every frame that is not what a subscriber expects is a
// counted defect (PtpSubscriberDefect), never a crash.
//
// Addressing. The server sends unicast Sync, Follow_Up and Announce to the
// subscriber's address at the PTP ports (319/320), as 1588 unicast over UDP
// does; only the destination address tells which subscriber a Sync is for.
// So subscriber i has its own source address (first + i) and sends from the
// PTP ports (event 319: Delay_Req; general 320: Signaling), as ptp4l does;
// its portIdentity is PtpIdentityOf(i) (lane_engine.h). Subscriber i belongs
// to lane i % lanes, like ClientSpace's clients.
//
// Time. All stamps are the generator's TSC ticks (`*_tsc`); intervals and
// durations become ticks with `tsc_hz`. t2 (Sync receipt) and t3 (Delay_Req
// departure) are TAI through SetClock's ClockModel (the generator's clock:
// the host's system clock, disciplined or not); t1 and t4 are the server's
// TAI timestamps. So `offset_ns` = t2 - t1 - meanPathDelay is the server's
// TAI against the generator's: on the memif rig, the stamping error plus
// the host clock's own error; in-process tests share one clock and get the
// stamping error alone.
//
// Sync lateness: Syncs of one grant are due every 2^logInterMessagePeriod
// s. The schedule is anchored at the first Sync; Sync k (by extended
// sequenceId) is due at anchor + k * interval, and lateness = receipt - due.
// A Sync earlier than its due time moves the anchor there (lateness 0): the
// schedule is the earliest one consistent with the arrivals, so lateness is
// the delay beyond the best-case path, not the path delay itself. Missed
// Syncs are counted two ways: sequenceId gaps, and against the schedule
// (Finish: Syncs due from the first one to the end, less those received).
//
// Memory: one state record per subscriber and up to two heap entries
// (the next-action queue), all allocated at Create: BytesPerSubscriber()
// (208 B: 176 B of state and two 16 B heap entries; 1M subscribers:
// 208 MB). No allocation afterwards.
//
//   ZG_ASSIGN_OR_RETURN(auto engine, PtpSubscriberEngine::Create(config));
//   engine->SetClock(model);                           // per burst
//   while (n < burst && engine->Next(now_tsc, payload[n], &msg[n])) ++n;
//   ... headers, tx_burst ... engine->Sent(msg, sent, tx_tsc);
//   engine->OnFrame(address_offset, dst_port, payload, len, rx_tsc);
//   engine->Finish(end_tsc);  PtpSubscriberSummary s = engine->Summarize();
//
// One writer (the lane); Summarize after Finish (it allocates).
#ifndef ZG_BENCH_LOADGEN_PTP_SUBSCRIBERS_H_
#define ZG_BENCH_LOADGEN_PTP_SUBSCRIBERS_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/loadgen/histogram.h"
#include "core/ptp/ptp_wire.h"
#include "core/time/clock_model.h"
#include "nlohmann/json_fwd.hpp"

namespace zg::bench {

// The three negotiated message types, in TLV order.
enum class PtpSubGrant : uint8_t { kAnnounce = 0, kSync = 1, kDelayResp = 2 };
inline constexpr size_t kPtpSubGrants = 3;
const char* PtpSubGrantName(size_t g);  // "announce", "sync", "delay_resp"

struct PtpSubscriberConfig {
  uint32_t lane = 0;
  uint32_t lanes = 1;
  uint32_t subscribers = 1;  // in all lanes (< 2^24: PtpIdentityOf)
  uint8_t domain = 44;       // G.8275.2's default domain
  uint16_t sdo_id = 0;       // 12 bits
  // G.8275.2 allows Announce 2^-3..1 s, Sync and Delay_Resp 2^-7..1 s and
  // 60..1000 s grants (its profile defaults: 0, -4, -4, 300 s). The defaults
  // here are its slowest rates: 1/s each, 300 s.
  std::array<int8_t, kPtpSubGrants> log_interval = {0, 0, 0};
  uint32_t duration_s = 300;
  uint64_t tsc_hz = 0;
  uint64_t start_tsc = 0;  // subscriber k asks first at start + spread*k/n
  uint64_t spread_ticks = 0;
  // A REQUEST without a GRANT is asked again after this; a Delay_Req is
  // unanswered if no Delay_Resp came before the next one is sent.
  uint64_t reply_timeout_ticks = 0;
  uint64_t retry_ticks = 0;  // after a refusal (durationField 0)
};

// Frames a subscriber did not expect. Names (PtpSubscriberDefectName) are
// report labels.
enum class PtpSubscriberDefect : uint8_t {
  kUnknownDestination = 0,  // not one of our subscribers' addresses
  kMisrouted,               // another lane's subscriber
  kMalformed,               // core::ParsePtpMessage rejected it
  kWrongDomain,             // domainNumber or sdoId not ours
  kUnexpectedType,          // a type a slave does not receive
  kWrongPort,               // event message on 320 or general on 319
  kNotUnicast,              // unicastFlag clear
  kForeignMaster,           // sourcePortIdentity not the granting master's
  kWrongTarget,             // Signaling for another portIdentity
  kBadGrantTlv,             // malformed or non-negotiable TLV in a grant
  kNotFromTarget,           // UDP to a subscriber from another address
  kCount
};
inline constexpr size_t kPtpSubscriberDefectCount =
    static_cast<size_t>(PtpSubscriberDefect::kCount);
const char* PtpSubscriberDefectName(PtpSubscriberDefect d);

// Totals. Written by: the lane's engine. Summed over lanes for the report.
struct PtpSubscriberCounts {
  uint64_t subscribers = 0;
  // Per PtpSubGrant: REQUEST TLVs sent (first asks, re-asks and renewals),
  // GRANTs with a duration, refusals (duration 0), grants at a longer
  // interval than asked, grants of a live grant (renewals), and GRANTs for a
  // type not being asked (answered twice, or never asked).
  std::array<uint64_t, kPtpSubGrants> asked{}, granted{}, refused{}, reduced{},
      renewed{}, unsolicited{};
  uint64_t ask_timeouts = 0;  // REQUEST TLVs re-asked for want of a GRANT
  uint64_t signaling_sent = 0;
  uint64_t signaling_received = 0;
  uint64_t subscribers_all_granted = 0;  // at Finish: all three live
  uint64_t subscribers_any_refused = 0;  // at Finish: a type refused last
  uint64_t announces = 0;
  uint64_t subscribers_without_announce = 0;  // Announce granted, none came
  uint64_t syncs = 0;                         // every Sync received
  uint64_t syncs_out_of_order = 0;        // sequenceId repeated or backwards
  uint64_t syncs_missed_sequence = 0;     // sequenceId gaps
  uint64_t syncs_missed_schedule = 0;     // due by the granted interval, absent
  uint64_t subscribers_without_sync = 0;  // Sync granted, none came
  uint64_t one_step_syncs = 0;            // no twoStepFlag: t1 in the Sync
  uint64_t follow_ups = 0;
  uint64_t syncs_with_follow_up = 0;
  uint64_t syncs_without_follow_up = 0;  // the next Sync came first
  // The last Sync of a subscriber whose Follow_Up had not come when the
  // run ended (in flight: neither with nor without).
  uint64_t syncs_follow_up_pending = 0;
  uint64_t follow_ups_unmatched = 0;   // no two-step Sync of that seqId
  uint64_t delay_reqs = 0;             // Delay_Reqs that left (Sent)
  uint64_t delay_resps_answered = 0;   // matched their Delay_Req
  uint64_t delay_reqs_unanswered = 0;  // next Delay_Req or the end first
  uint64_t delay_resps_unmatched = 0;  // late, duplicate or unknown
  uint64_t queue_full = 0;  // a reschedule found the action heap full
  std::array<uint64_t, kPtpSubscriberDefectCount> defects{};

  PtpSubscriberCounts& operator+=(const PtpSubscriberCounts& o);
  uint64_t DefectTotal() const;
};

// What the report shows, one lane's or merged. Histograms in ns.
struct PtpSubscriberSummary {
  PtpSubscriberCounts counts;
  // Received Syncs per second of each subscriber with two Syncs or more:
  // (Syncs - 1) / (last - first receipt), unsorted.
  std::vector<double> sync_rates;
  LogHistogram sync_lateness_ns;
  LogHistogram follow_up_delay_ns;  // Follow_Up receipt - its Sync's
  SignedHistogram path_delay_ns;    // meanPathDelay per Delay_Resp
  SignedHistogram offset_ns;        // t2 - t1 - meanPathDelay per Sync
  // Granted log intervals seen (the last grant of each subscriber).
  std::array<int8_t, kPtpSubGrants> min_granted_log = {127, 127, 127};
  std::array<int8_t, kPtpSubGrants> max_granted_log = {-128, -128, -128};
  size_t bytes_per_subscriber = 0;
  double duration_s = 0;  // the run, for the report

  void Merge(const PtpSubscriberSummary& o);
  // Nearest-rank quantile of sync_rates (q in [0, 1]); 0 when empty.
  double SyncRateQuantile(double q) const;
};

// The report's text section and its "ptp_unicast" JSON object.
std::string FormatPtpSubscriberSummary(const PtpSubscriberSummary& s);
void PtpSubscriberSummaryToJson(const PtpSubscriberSummary& s,
                                nlohmann::json* out);

// The largest message Next() writes: a Signaling with three REQUESTs.
inline constexpr uint16_t kPtpSubscriberMaxPayload = 96;

// One message built by Next(). Delay_Req goes 319 -> 319, Signaling
// 320 -> 320.
struct PtpSubscriberMessage {
  uint32_t local = 0;           // the lane's subscriber index
  uint32_t address_offset = 0;  // the subscriber's (global index)
  uint16_t port = 0;            // source and destination UDP port
  uint16_t payload_len = 0;
  bool delay_req = false;
};

class PtpSubscriberEngine {
 public:
  static absl::StatusOr<std::unique_ptr<PtpSubscriberEngine>> Create(
      const PtpSubscriberConfig& config);
  ~PtpSubscriberEngine();

  static size_t BytesPerSubscriber();

  void SetClock(const core::ClockModel& model) { model_ = model; }
  // Moves the start (and every subscriber's first REQUEST) to `start_tsc`;
  // before the first Next.
  void Rebase(uint64_t start_tsc);

  // Writes the next message due at `now_tsc` into
  // payload[0..kPtpSubscriberMaxPayload); false when nothing is due.
  bool Next(uint64_t now_tsc, uint8_t* payload, PtpSubscriberMessage* out);
  // The first `n` of `msgs` left at `tx_tsc` (Delay_Req t3).
  void Sent(const PtpSubscriberMessage* msgs, uint32_t n, uint64_t tx_tsc);
  // One UDP payload sent to first address + `address_offset` at port
  // `dst_port`, received at `rx_tsc`.
  void OnFrame(uint64_t address_offset, uint16_t dst_port,
               const uint8_t* payload, uint32_t len, uint64_t rx_tsc);
  void CountDefect(PtpSubscriberDefect d) {
    ++counts_.defects[static_cast<size_t>(d)];
  }
  // Ends the run at `end_tsc`: pending Follow_Ups and Delay_Resps are
  // missing, Syncs due by the schedule are counted.
  void Finish(uint64_t end_tsc);

  const PtpSubscriberCounts& counts() const { return counts_; }
  uint32_t subscribers() const { return n_; }
  uint32_t lanes() const { return config_.lanes; }
  // After Finish; allocates.
  PtpSubscriberSummary Summarize() const;

 private:
  struct Sub;
  struct HeapEntry {
    uint64_t due_tsc;
    uint32_t local;
  };
  explicit PtpSubscriberEngine(const PtpSubscriberConfig& config);

  uint64_t IntervalTicks(int8_t log2) const;
  uint64_t Wake(const Sub& s, uint64_t now_tsc) const;
  void Schedule(uint32_t local, uint64_t now_tsc);
  uint16_t WriteSignaling(uint32_t local, uint64_t now_tsc, uint8_t* payload);
  uint16_t WriteDelayReq(uint32_t local, uint64_t now_tsc, uint8_t* payload);
  void OnSignaling(uint32_t local, const core::PtpMessage& msg,
                   uint64_t rx_tsc);
  void OnSync(uint32_t local, const core::PtpMessage& msg, uint64_t rx_tsc);
  void OnFollowUp(uint32_t local, const core::PtpMessage& msg, uint64_t rx_tsc);
  void OnDelayResp(uint32_t local, const core::PtpMessage& msg);
  void OnT1T2(Sub& s, int64_t t1_tai_ns, uint64_t t2_tsc);
  bool FromMaster(const core::PtpMessage& msg);

  PtpSubscriberConfig config_;
  uint32_t n_ = 0;  // this lane's subscribers
  std::vector<Sub> subs_;
  std::vector<HeapEntry> heap_;  // min-heap on due_tsc; capacity fixed
  size_t heap_capacity_ = 0;
  core::ClockModel model_;
  PtpSubscriberCounts counts_;
  LogHistogram sync_lateness_ns_;
  LogHistogram follow_up_delay_ns_;
  SignedHistogram path_delay_ns_;
  SignedHistogram offset_ns_;
  core::PtpPortIdentity master_;  // from the first GRANT's source
  bool have_master_ = false;
  double duration_s_ = 0;  // start to Finish
};

}  // namespace zg::bench

#endif  // ZG_BENCH_LOADGEN_PTP_SUBSCRIBERS_H_
