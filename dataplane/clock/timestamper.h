// SPDX-License-Identifier: Apache-2.0
// Receive and transmit timestamps for one worker queue, on the TAI scale.
//
// Two raw clocks feed a worker:
//  - the TSC, read once right after rx_burst returns frames (software stamp:
//    every frame of the burst gets the same stamp), and again just before
//    tx_burst (the NTP transmit time T3);
//  - where the port stamps in hardware (RTE_ETH_RX_OFFLOAD_TIMESTAMP, or the
//    FakeNicClock in tests), the NIC clock's ticks, read from each mbuf's
//    RX-timestamp dynamic field when its dynamic flag is set.
// Each raw clock has its own ClockModel, published by the control thread
// (TSC -> TAI from the servo; NIC ticks -> TAI from the NIC-clock correlator,
// which composes NIC -> TSC with TSC -> TAI). The Timestamper holds a
// ClockReader for each and refreshes them once per burst; the hot path only
// applies the models (core::ClockModel::RawToTai).
//
// A hardware-flagged frame falls back to the burst's TSC stamp while no
// usable NIC model has been published yet.
//
//   Timestamper ts({.tsc_clock = &tsc_published,
//                   .nic_clock = &nic_published, .nic_field = field});
//   n = rte_eth_rx_burst(...);
//   ts.BeginBurst();                          // once per burst
//   RxStamp rx = ts.Stamp(pkts[i]);           // per frame
//   TxStamp tx = ts.TxNow();                  // just before tx_burst
#ifndef ZG_DATAPLANE_CLOCK_TIMESTAMPER_H_
#define ZG_DATAPLANE_CLOCK_TIMESTAMPER_H_

#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "core/time/clock_model.h"
#include "core/time/time_types.h"
#include "core/time/tsc.h"

namespace zg::dataplane {

// Which raw clock a stamp was read from.
enum class RawClockKind : uint8_t { kTsc = 0, kNic = 1 };

// A receive timestamp: the raw reading and its TAI value under the model
// current for the burst.
struct RxStamp {
  core::TaiNs tai;
  uint64_t raw_ticks = 0;  // TSC ticks or NIC clock ticks, per `clock`
  RawClockKind clock = RawClockKind::kTsc;
};

// A transmit-side stamp taken just before tx_burst.
struct TxStamp {
  core::TaiNs tai;
  uint64_t tsc_ticks = 0;
  const core::ClockModel* tsc_model = nullptr;  // the burst's TSC model
  // Send-on-timestamp (dataplane/clock/tx_scheduler.h): `tai` is the
  // frame's launch time, exact (the NIC sends it then); write it as is.
  bool scheduled = false;
  // --ntp_tx_stamp (core/time/tx_kick_estimate.h): the worker's estimate,
  // in TSC ticks, of how long after tsc_ticks the frame leaves (the rest of
  // the batch's finalising plus the chosen part of tx_burst), and of the
  // tx_burst part alone (for a stamp read again at the end of a frame's
  // finalising). 0 for the stamp before tx_burst. Written by: the worker
  // (Worker::Flush). Read by: FinaliseTx hooks that write a T3 (NTP).
  uint64_t leave_ticks = 0;
  uint64_t kick_ticks = 0;
};

// Where DPDK's RX-timestamp dynamic field and flag live in an mbuf
// (rte_mbuf_dyn_rx_timestamp_register). The field holds NIC clock ticks in
// the unit rte_eth_read_clock reports.
struct NicStampField {
  int offset = -1;    // byte offset of the uint64_t field in rte_mbuf
  uint64_t flag = 0;  // ol_flags bit set on frames the NIC stamped
  bool valid() const { return offset >= 0 && flag != 0; }

  uint64_t Read(const rte_mbuf* m) const {
    return *RTE_MBUF_DYNFIELD(m, offset, const uint64_t*);
  }
  void Write(rte_mbuf* m, uint64_t ticks) const {
    *RTE_MBUF_DYNFIELD(m, offset, uint64_t*) = ticks;
    m->ol_flags |= flag;
  }
};

// Registers (idempotently, once per process is enough) the RX-timestamp
// dynamic field and flag. Needs EAL initialised.
absl::StatusOr<NicStampField> RegisterNicStampField();

class Timestamper {
 public:
  struct Config {
    // TSC -> TAI. Required. Written by: control thread. Read by: this worker.
    const core::PublishedClock* tsc_clock = nullptr;
    // NIC ticks -> TAI, only where the port stamps RX in hardware.
    // Written by: control thread. Read by: this worker.
    const core::PublishedClock* nic_clock = nullptr;
    NicStampField nic_field;  // valid() iff nic_clock is set
  };

  explicit Timestamper(const Config& config);

  // Once per burst, right after rx_burst returned frames: reads the TSC and
  // refreshes both models. Returns how many model refreshes failed (0..2);
  // a failed refresh keeps the previous good model.
  uint32_t BeginBurst() { return BeginBurstAt(core::ReadTsc()); }
  uint32_t BeginBurstAt(uint64_t tsc);

  // The receive stamp of one frame of the current burst.
  RxStamp Stamp(const rte_mbuf* m) const {
    if (nic_usable_ && (m->ol_flags & nic_field_.flag) != 0) {
      const uint64_t ticks = nic_field_.Read(m);
      return {nic_reader_->model().RawToTai(ticks), ticks, RawClockKind::kNic};
    }
    return burst_stamp_;
  }

  // A fresh TSC stamp (for T3 just before tx_burst).
  TxStamp TxNow() const {
    const uint64_t tsc = core::ReadTsc();
    return {tsc_reader_.model().RawToTai(tsc), tsc, &tsc_reader_.model()};
  }

  const core::ClockModel& tsc_model() const { return tsc_reader_.model(); }
  // Null when the port has no hardware stamps or no usable NIC model yet.
  const core::ClockModel* nic_model() const {
    return nic_usable_ ? &nic_reader_->model() : nullptr;
  }
  uint64_t burst_tsc() const { return burst_stamp_.raw_ticks; }
  bool hardware() const { return nic_reader_.has_value(); }

 private:
  core::ClockReader tsc_reader_;
  std::optional<core::ClockReader> nic_reader_;
  NicStampField nic_field_;
  bool nic_usable_ = false;
  RxStamp burst_stamp_;
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_CLOCK_TIMESTAMPER_H_
