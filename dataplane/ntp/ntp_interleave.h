// SPDX-License-Identifier: Apache-2.0
// NTP interleaved mode in the workers (RFC 9769, chrony's `xleave`; the
// table is core/ntp/ntp_interleave.h): NtpInterleaveFactory (control
// thread) sizes one table per worker from --ntp_interleave_slots, exports
// the counters; NtpWorkerInterleave is what NtpHandler
// (dataplane/ntp/ntp_handler.h) calls per request:
//
//   Handle       before the reply is written: Inspect (the request's
//                origin, receive, transmit); after WriteNtpReply: Apply
//                tags T2 (every reply) and, for a request that looks
//                interleaved, answers from the table (origin := the
//                request's receive timestamp, T3 := the previous reply's
//                exact transmit time) and saves this reply's T2
//   FinaliseTx   T3 of a basic reply is stamped as before, with its tag bit
//                cleared; an interleaved reply's T3 is final already
//   AfterTx      the reply's transmit time: the TSC stamp read when
//                tx_burst returned (after net_af_xdp's kick), unless
//                FinaliseTx already set it: the stamp read before tx_burst
//                where the port's StampPlan says ntp_tx = kSoftwareBefore
//                (WorkerPort::stamps: which software stamp is closer to the
//                wire is the plan's call), or an exact launch time
//                (send-on-timestamp: SetExactTx)
//
// It works for MAC- (--ntp_keys) and NTS-authenticated requests as for
// plain ones: the MAC or seal covers the reply as sent, T3 included.
//
// Metrics (prefix zeitgeber_ntp_interleave_):
//   requests_total{worker,result}  requests that looked interleaved, by
//                                  result: interleaved (answered with the
//                                  exact T3), unknown (origin not in the
//                                  table: new client, or evicted), replay
//                                  (entry already used), no_tx (its reply
//                                  was not sent or had no usable TX time)
//   evictions_total{worker}        unanswered entries dropped for room
//   unsaved_total{worker}          replies not saved (key duplicate, or a
//                                  bucket full of replies not yet sent)
//   slots                          per worker (gauge)
//
//   NtpInterleaveFactory xleave;
//   ZG_RETURN_IF_ERROR(xleave.Configure(config));   // --ntp_interleave*
//   ProtocolPipelineFactory factory({..., .ntp_interleave = &xleave});
#ifndef ZG_DATAPLANE_NTP_NTP_INTERLEAVE_H_
#define ZG_DATAPLANE_NTP_NTP_INTERLEAVE_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/ntp/ntp_interleave.h"
#include "core/ntp/ntp_wire.h"
#include "dataplane/clock/timestamper.h"
#include "dataplane/daemon/flags/ntp.h"
#include "dataplane/worker/pipeline.h"
#include "dataplane/worker/worker_stats.h"

namespace prometheus {
class Collectable;
}  // namespace prometheus

namespace zg::dataplane {

struct DaemonConfig;  // dataplane/daemon/flags.h

// Counters of one worker's interleaved mode. Written by: that worker. Read
// by: metrics scrapes, the final report and tests.
struct alignas(64) NtpInterleaveStats {
  SingleWriterCounter interleaved;  // replies with the exact previous T3
  SingleWriterCounter unknown;      // basic replies: origin not in the table
  SingleWriterCounter replay;       // basic replies: entry already used
  SingleWriterCounter no_tx;        // basic replies: no transmit time kept
  SingleWriterCounter evictions;    // unanswered entries dropped for room
  SingleWriterCounter unsaved;      // duplicate keys, busy buckets
};

// One worker's interleaved mode. Used by that worker alone; no locks,
// allocation or syscalls.
class NtpWorkerInterleave {
 public:
  // `stats` must outlive this object. `keep_before_tx`: the transmit time
  // kept is the stamp read before tx_burst (FinaliseTx), not after.
  NtpWorkerInterleave(core::NtpInterleaveTable table, NtpInterleaveStats* stats,
                      bool keep_before_tx = false)
      : table_(std::move(table)),
        stats_(stats),
        keep_before_tx_(keep_before_tx) {}

  // Handle, before the reply overwrites the request.
  static core::NtpInterleavedRequest Inspect(
      const uint8_t* payload, const core::NtpRequestCheck& check) {
    return core::NtpInterleavedLookup(payload, check);
  }

  struct Applied {
    uint32_t slot = core::kNtpInterleaveNoSlot;  // for AfterTx / SetExactTx
    bool interleaved = false;  // T3 is final: FinaliseTx leaves it
  };
  // Handle, right after WriteNtpReply (before the checksum and any MAC):
  // see the file comment.
  Applied Apply(uint8_t* payload, const core::NtpInterleavedRequest& request);

  // FinaliseTx, after a basic reply's T3 is written: clears its tag bit.
  static void TagTransmit(uint8_t* payload) {
    payload[core::kNtpOffsetTransmitTime + 7] &= 0xfe;
  }
  // FinaliseTx, where the frame's transmit time is exact (a send-on-
  // timestamp launch time, --tx_schedule; the T3 a basic reply carries):
  // keep it for the slot's entry (note.xleave_slot). AfterTx then leaves it
  // (only a pending entry takes a TX time) unless the frame was not sent.
  // An interleaved reply (its T3 is the previous reply's) still passes its
  // own launch time here.
  void SetExactTx(uint32_t slot, core::NtpTimestamp launch) {
    table_.SetTx(slot, launch);
  }
  // The same from the T3 just written in `payload`.
  void SetExactTx(uint32_t slot, const uint8_t* payload) {
    SetExactTx(slot,
               core::LoadNtpTimestamp(payload + core::kNtpOffsetTransmitTime));
  }
  // AfterTx: `after` is the stamp taken when tx_burst returned.
  void AfterTx(uint32_t slot, const TxStamp& after, bool sent) {
    if (!sent) {
      table_.ClearTx(slot);
      return;
    }
    last_tx_tsc_ = after.tsc_ticks;
    table_.SetTx(slot, core::UtcToNtp(after.tsc_model->TaiToUtc(after.tai)));
  }

  // FinaliseTx: `before` is the stamp T3 was (or, for an interleaved
  // reply, would have been) written from; kept where the plan says so.
  void BeforeTx(uint32_t slot, core::TaiNs before,
                const core::ClockModel& model) {
    if (keep_before_tx_ && slot != core::kNtpInterleaveNoSlot) {
      table_.SetTx(slot, core::UtcToNtp(model.TaiToUtc(before)));
    }
  }
  bool keeps_before_tx() const { return keep_before_tx_; }

  const core::NtpInterleaveTable& table() const { return table_; }
  // The TSC stamp of the last transmit time kept (tests). Worker thread.
  uint64_t last_tx_tsc() const { return last_tx_tsc_; }

 private:
  core::NtpInterleaveTable table_;
  NtpInterleaveStats* stats_;
  bool keep_before_tx_ = false;
  uint64_t last_tx_tsc_ = 0;
};

class NtpInterleaveFactory {
 public:
  NtpInterleaveFactory();
  ~NtpInterleaveFactory();

  // Reads config.ntp_interleave. Control thread.
  absl::Status Configure(const DaemonConfig& config);
  // The same for tests.
  void SetConfig(const NtpInterleaveConfig& config) { config_ = config; }
  bool enabled() const { return config_.enabled; }

  // One per worker (its table allocated now); null when turned off.
  absl::StatusOr<std::unique_ptr<NtpWorkerInterleave>> Create(
      const WorkerSetup& setup);

  // zeitgeber_ntp_interleave_* (null when turned off), read when
  // Prometheus scrapes; created after the workers (Create). This object
  // must outlive the collectable's last Collect().
  std::shared_ptr<prometheus::Collectable> ScrapeCollectable() const;
  void Report();

  // Valid for the workers created so far, in creation order (tests).
  const NtpInterleaveStats& stats(size_t worker) const {
    return *stats_[worker];
  }
  // Valid while that worker's pipeline lives (tests).
  const NtpWorkerInterleave& worker(size_t worker) const {
    return *workers_[worker];
  }

 private:
  NtpInterleaveConfig config_;
  std::vector<std::unique_ptr<NtpInterleaveStats>> stats_;
  std::vector<const NtpWorkerInterleave*> workers_;  // owned by handlers
  std::vector<unsigned> worker_index_;
  // Slots per worker table, kept here because the tables die with the
  // pipelines (StopWorkers) while scrapes and Report may still run.
  // Written by: Create (before the collectable exists). Read by: scrapes.
  size_t slots_ = 0;
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_NTP_NTP_INTERLEAVE_H_
