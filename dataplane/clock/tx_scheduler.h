// SPDX-License-Identifier: Apache-2.0
// Send-on-timestamp transmission for one worker queue (--tx_schedule=auto on
// a port whose StampPlan says ntp_tx/ptp_tx = kScheduled): each
// frame whose transmit time it carries (NTP T3, a one-step PTP Sync's
// originTimestamp) gets a launch time a lead (--tx_schedule_lead) ahead of
// now in the NIC's clock, written into the mbuf's TX-timestamp dynfield with
// its dynflag (rte_mbuf_dyn_tx_timestamp_register, what mlx5 tx_pp and the
// emulated NIC read); the NIC sends it at exactly that time, so the stamp
// written into the frame is exact. The arithmetic (now + lead, strictly
// increasing, spaced by the frames' wire time at the link speed) is
// core::TxLaunchSchedule (core/time/tx_launch.h); the NIC ticks <-> TAI
// mapping is the NIC clock's model (core::ClockModel::RawToTai/TaiToRaw)
// from the worker's Timestamper.
//
// A frame is late when its launch time has already passed as it is handed
// to tx_burst (a lead too short for the batch's finalising, or a stall): the
// NIC then sends it at once and its stamp is early. The worker checks that
// just before tx_burst (TakeBatch) and counts it; the NIC's own count is in
// its xstats (mlx5: tx_pp_timestamp_past_errors).
//
// Without a usable NIC-clock model (none published yet) frames go
// unscheduled with their software stamp.
//
// Used by its worker alone; hot path: no allocation, locks or syscalls.
//
//   TxScheduler s({.field = port.tx_launch_field(), .lead_ns = 20'000,
//                  .link_mbps = port.link().speed_mbps});
//   s.Begin(stamper.nic_model());                  // per TX batch
//   TxStamp t3 = s.Schedule(mbuf, tx);             // per frame
//   TxScheduleCounts c = s.TakeBatch(TxNow().tai); // just before tx_burst
#ifndef ZG_DATAPLANE_CLOCK_TX_SCHEDULER_H_
#define ZG_DATAPLANE_CLOCK_TX_SCHEDULER_H_

#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#include <array>
#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "core/time/clock_model.h"
#include "core/time/tx_launch.h"
#include "dataplane/clock/timestamper.h"

namespace zg::dataplane {

// Where DPDK's TX-timestamp (launch time) dynamic field and flag live: the
// field is the same "rte_dynfield_timestamp" as the RX stamp's, in NIC-clock
// ticks (the unit of rte_eth_read_clock).
struct TxLaunchField {
  int offset = -1;
  uint64_t flag = 0;  // ol_flags bit: the frame has a launch time
  bool valid() const { return offset >= 0 && flag != 0; }
  void Write(rte_mbuf* m, uint64_t ticks) const {
    *RTE_MBUF_DYNFIELD(m, offset, uint64_t*) = ticks;
    m->ol_flags |= flag;
  }
  uint64_t Read(const rte_mbuf* m) const {
    return *RTE_MBUF_DYNFIELD(m, offset, const uint64_t*);
  }
};

// Registers (idempotently) the TX-timestamp dynfield and flag. Needs EAL.
// Before the port's tx queues are used (a PMD reads it at start).
absl::StatusOr<TxLaunchField> RegisterTxLaunchField();

// Frames the NIC itself reports it sent late (launch time already past when
// it reached the descriptor), from its xstats: mlx5's
// tx_pp_timestamp_past_errors, the emulated NIC's tx_launch_time_late.
// Control thread (a syscall-free read, but not for the hot path); nullopt
// when the port has no such xstat.
std::optional<uint64_t> ReadNicLateLaunches(uint16_t port_id);

// What one TX batch did, for WorkerStats.
struct TxScheduleCounts {
  uint32_t scheduled = 0;  // frames given a launch time
  uint32_t late = 0;       // of them, launch time already past at tx_burst
};

class TxScheduler {
 public:
  struct Config {
    TxLaunchField field;  // invalid: scheduling off
    int64_t lead_ns = 20'000;
    uint32_t link_mbps = 0;  // 0: unknown (10G assumed)
  };
  TxScheduler() = default;  // off
  explicit TxScheduler(const Config& config)
      : field_(config.field),
        schedule_(config.lead_ns, config.link_mbps),
        enabled_(config.field.valid()) {}

  bool enabled() const { return enabled_; }

  // Once per TX batch (chunk), before its first Schedule: the NIC-clock
  // model of this batch (null: none usable; the batch goes unscheduled).
  void Begin(const core::ClockModel* nic_model) {
    nic_ = enabled_ && nic_model != nullptr && nic_model->ns_per_tick_q32 != 0
               ? nic_model
               : nullptr;
  }
  bool active() const { return nic_ != nullptr; }

  // Gives `m` (its final length set) a launch time and returns the stamp
  // the frame must carry: `now` with tai = the launch time and scheduled
  // set. Unscheduled (not active(), or too many frames pending): `now`.
  TxStamp Schedule(rte_mbuf* m, const TxStamp& now) {
    if (nic_ == nullptr || pending_ == kMaxPending) return now;
    const core::TxLaunch l = schedule_.Next(now.tai, *nic_, m->pkt_len);
    field_.Write(m, l.raw);
    pending_tai_[pending_++] = l.tai;
    TxStamp t = now;
    t.tai = l.tai;
    t.scheduled = true;
    return t;
  }

  // Just before tx_burst of the frames scheduled since the last call, with
  // TAI now (TSC model): counts them, and those already late.
  TxScheduleCounts TakeBatch(core::TaiNs now) {
    TxScheduleCounts c;
    c.scheduled = pending_;
    for (uint32_t i = 0; i < pending_; ++i) {
      c.late += pending_tai_[i] <= now ? 1 : 0;
    }
    pending_ = 0;
    return c;
  }
  uint32_t pending() const { return pending_; }

  const core::TxLaunchSchedule& schedule() const { return schedule_; }
  void SetLinkMbps(uint32_t mbps) { schedule_.SetLinkMbps(mbps); }

 private:
  static constexpr uint32_t kMaxPending = 64;  // > one burst
  TxLaunchField field_;
  core::TxLaunchSchedule schedule_;
  bool enabled_ = false;
  const core::ClockModel* nic_ = nullptr;  // this batch's
  uint32_t pending_ = 0;
  std::array<core::TaiNs, kMaxPending> pending_tai_ = {};
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_CLOCK_TX_SCHEDULER_H_
