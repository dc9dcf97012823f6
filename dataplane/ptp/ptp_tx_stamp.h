// SPDX-License-Identifier: Apache-2.0
// PTP hardware stamps through DPDK's IEEE 1588 timesync API, for one
// PtpWorker (dataplane/ptp/ptp_worker.h), where the port's StampPlan says
// ptp_tx / ptp_rx == kTimesync (--timesync on a PMD with timesync ops):
//
//  - TX: a two-step Sync or a Pdelay_Resp leaves with
//    RTE_MBUF_F_TX_IEEE1588_TMST; the NIC latches its wire time. The worker
//    never waits for it: once tx_burst took the frame, PollTx (every
//    Produce, kTimesyncTxTriesPerPoll reads of
//    rte_eth_timesync_read_tx_timestamp) collects the stamp, or gives up
//    after kTimesyncTxTimeoutNs (no follow-up is sent then: a wrong one is
//    worse than none). One latch per port (PortStampCaps.
//    timesync_one_latch, every 22.11 PMD: the read has no index): at most
//    one TX-stamped frame is outstanding per port, across the port's
//    workers (TimesyncTxLatch); a Sync due meanwhile waits (deferred,
//    counted) and a Pdelay_Resp falls back to the software stamp (counted).
//  - RX: an event frame flagged RTE_MBUF_F_RX_IEEE1588_TMST has its stamp
//    read with rte_eth_timesync_read_rx_timestamp (mbuf->timesync) as soon
//    as it is handled (which also frees Intel's one RX latch); a Delay_Req
//    (t4) or Pdelay_Req (t2) without one keeps its software stamp, counted.
//
// Both map timesync ns to TAI with the model of the timesync clock that the
// control plane publishes (TimesyncNicClock in dataplane/clock/nic_clock.h,
// correlated by servo's NIC-clock tracker like the RX-dynfield clock: on
// Intel PMDs the timesync registers are not the clock rte_eth_read_clock
// reads). So t1/t3 and t2/t4 come from one clock.
//
// Written and read by: the owning worker (TimesyncTxLatch: the port's
// workers, atomically). Stats: written by the worker, read by the control
// thread (metrics).
//
//   PtpTimesync ts(config);
//   ts.BeginPoll();                        // once per burst / Produce
//   if (ts.tx() && ts.AcquireTx()) m->ol_flags |= RTE_MBUF_F_TX_IEEE1588_TMST;
//   ... tx_burst took it: ts.AwaitTx(slot, tsc);
//   PtpTimesync::TxPoll r = ts.PollTx(tsc);  // kStamped: r.slot, r.tai
#ifndef ZG_DATAPLANE_PTP_PTP_TX_STAMP_H_
#define ZG_DATAPLANE_PTP_PTP_TX_STAMP_H_

#include <rte_mbuf.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <ctime>
#include <optional>

#include "core/time/clock_model.h"
#include "core/time/time_types.h"
#include "dataplane/worker/worker_stats.h"

namespace zg::dataplane {

// How long a TX stamp may take to appear in the latch before the follow-up
// is given up (Intel: a few us after the wire; 5 ms is far past any PMD's
// latency and still well inside a Sync interval).
inline constexpr int64_t kTimesyncTxTimeoutNs = 5'000'000;
// rte_eth_timesync_read_tx_timestamp calls per Produce while a stamp is
// awaited (each is a few register reads on Intel; the loop comes back at
// once while one is pending).
inline constexpr int kTimesyncTxTriesPerPoll = 2;

// Where a PTP TX stamp (t1 of a two-step Sync, t3 of a Pdelay_Resp) came
// from: zeitgeber_ptp_tx_stamps_total{result}.
enum class PtpTxStampResult : uint8_t {
  kHardware,        // the timesync latch, mapped to TAI
  kTimeout,         // no stamp within kTimesyncTxTimeoutNs: no follow-up
  kLatchBusy,       // Pdelay_Resp while the latch was held: software stamp
  kNoModel,         // no timesync clock model yet: software stamp
  kStale,           // a latched stamp older than its frame (a timed-out
                    // frame's, latched late): discarded, read again
  kSoftwareBefore,  // plan: TSC before tx_burst
  kSoftwareAfter,   // plan: TSC after tx_burst
  kCount
};
const char* PtpTxStampResultName(PtpTxStampResult r);
// Where a Delay_Req t4 / Pdelay_Req t2 came from:
// zeitgeber_ptp_rx_stamps_total{result}.
enum class PtpRxStampResult : uint8_t {
  kHardware,    // rte_eth_timesync_read_rx_timestamp, mapped to TAI
  kNotLatched,  // plan kTimesync but the frame had no RX_IEEE1588_TMST (or
                // the read failed): its software stamp
  kNoModel,     // latched, but no timesync clock model yet: software stamp
  kSoftware,    // plan: the worker's RX stamp (software or dynfield)
  kCount
};
const char* PtpRxStampResultName(PtpRxStampResult r);

// Counters of one worker's PTP stamps (inside PtpWorkerStats).
struct PtpStampStats {
  std::array<SingleWriterCounter, static_cast<size_t>(PtpTxStampResult::kCount)>
      tx;
  std::array<SingleWriterCounter, static_cast<size_t>(PtpRxStampResult::kCount)>
      rx;
  SingleWriterCounter syncs_deferred;  // a Sync waited for the TX latch
};

// One port's TX stamp latch, shared by every worker sending on the port.
// Written by: those workers (compare-and-swap, no lock).
class TimesyncTxLatch {
 public:
  // Whether `worker` now holds it (false: another frame's stamp is due).
  bool TryAcquire(unsigned worker) {
    uint32_t free = 0;
    return holder_.compare_exchange_strong(free, worker + 1,
                                           std::memory_order_acquire);
  }
  void Release(unsigned worker) {
    uint32_t mine = worker + 1;
    holder_.compare_exchange_strong(mine, 0, std::memory_order_release);
  }
  bool held() const { return holder_.load(std::memory_order_relaxed) != 0; }

 private:
  std::atomic<uint32_t> holder_{0};  // 0: free; else worker index + 1
};

class PtpTimesync {
 public:
  struct Config {
    uint16_t port_id = 0;
    unsigned worker_index = 0;
    bool tx = false;  // plan.ptp_tx == kTimesync
    bool rx = false;  // plan.ptp_rx == kTimesync
    // Timesync ns -> TAI (null: none published; stamps fall back to
    // software). Written by: control thread. Read by: this worker.
    const core::PublishedClock* clock = nullptr;
    TimesyncTxLatch* latch = nullptr;  // null: this worker's own
    int64_t tx_timeout_ns = kTimesyncTxTimeoutNs;
    double tsc_hz = 0;
  };
  PtpTimesync(const Config& config, PtpStampStats* stats);

  bool tx() const { return config_.tx; }
  bool rx() const { return config_.rx; }
  // Once per burst and per Produce: re-reads the clock model.
  void BeginPoll();
  // The timesync clock mapped to TAI, or nullopt without a usable model.
  std::optional<core::TaiNs> ToTai(const timespec& ts) const;

  // TX. AcquireTx before building a TX-stamped frame (false: the latch is
  // busy or nothing maps its stamp to TAI yet); ReleaseTx if it was not
  // sent; AwaitTx(slot) once tx_burst took it.
  bool AcquireTx();
  void ReleaseTx();
  // `sent_tai`: the software stamp before tx_burst; a latched stamp more
  // than half the timeout before it belongs to an earlier frame.
  void AwaitTx(int32_t slot, uint64_t tsc, core::TaiNs sent_tai);
  bool awaiting() const { return awaiting_slot_ >= 0; }
  bool latch_busy() const { return latch_->held(); }
  // A timesync clock model is there to map stamps with.
  bool usable() const { return usable_; }
  struct TxPoll {
    enum What : uint8_t { kNothing, kStamped, kTimedOut } what = kNothing;
    int32_t slot = -1;
    core::TaiNs tai;
  };
  // Counts kHardware / kTimeout itself.
  TxPoll PollTx(uint64_t tsc);

  // RX. Reads the latch of an event frame flagged RX_IEEE1588_TMST (call
  // once per handled frame: frees the latch). Returns its TAI stamp, or
  // nullopt (not flagged, read failed, no model) with *why set.
  std::optional<core::TaiNs> ReadRx(const rte_mbuf* m, PtpRxStampResult* why);

  PtpStampStats& stats() { return *stats_; }

 private:
  Config config_;
  PtpStampStats* stats_;
  core::ClockReader reader_;
  bool usable_ = false;
  TimesyncTxLatch own_latch_;
  TimesyncTxLatch* latch_;
  uint64_t timeout_tsc_ = 0;
  int32_t awaiting_slot_ = -1;
  uint64_t awaiting_deadline_tsc_ = 0;
  core::TaiNs awaiting_sent_tai_;
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_PTP_PTP_TX_STAMP_H_
