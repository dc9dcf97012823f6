// SPDX-License-Identifier: Apache-2.0
// PtpTimesync (ptp_tx_stamp.h): the TX latch state of one worker, polled
// from Produce, and the RX latch read from Handle.
#include "dataplane/ptp/ptp_tx_stamp.h"

#include <rte_ethdev.h>

#include "core/time/tsc.h"
#include "dataplane/clock/nic_clock.h"

namespace zg::dataplane {

const char* PtpTxStampResultName(PtpTxStampResult r) {
  switch (r) {
    case PtpTxStampResult::kHardware:
      return "hardware";
    case PtpTxStampResult::kTimeout:
      return "timeout";
    case PtpTxStampResult::kLatchBusy:
      return "latch_busy";
    case PtpTxStampResult::kNoModel:
      return "no_model";
    case PtpTxStampResult::kStale:
      return "stale";
    case PtpTxStampResult::kSoftwareBefore:
      return "software_before";
    case PtpTxStampResult::kSoftwareAfter:
      return "software_after";
    case PtpTxStampResult::kCount:
      break;
  }
  return "?";
}

const char* PtpRxStampResultName(PtpRxStampResult r) {
  switch (r) {
    case PtpRxStampResult::kHardware:
      return "hardware";
    case PtpRxStampResult::kNotLatched:
      return "not_latched";
    case PtpRxStampResult::kNoModel:
      return "no_model";
    case PtpRxStampResult::kSoftware:
      return "software";
    case PtpRxStampResult::kCount:
      break;
  }
  return "?";
}

PtpTimesync::PtpTimesync(const Config& config, PtpStampStats* stats)
    : config_(config),
      stats_(stats),
      reader_(config.clock),
      latch_(config.latch != nullptr ? config.latch : &own_latch_) {
  timeout_tsc_ = static_cast<uint64_t>(
      config.tsc_hz * static_cast<double>(config.tx_timeout_ns) * 1e-9);
  if (timeout_tsc_ == 0) timeout_tsc_ = 1;
}

void PtpTimesync::BeginPoll() {
  if (config_.clock == nullptr || !(config_.tx || config_.rx)) return;
  usable_ = reader_.Refresh().ns_per_tick_q32 != 0;
}

std::optional<core::TaiNs> PtpTimesync::ToTai(const timespec& ts) const {
  if (!usable_) return std::nullopt;
  const uint64_t ns = static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL +
                      static_cast<uint64_t>(ts.tv_nsec);
  return reader_.model().RawToTai(ns);
}

bool PtpTimesync::AcquireTx() {
  if (!config_.tx || !usable_ || awaiting()) return false;
  if (!latch_->TryAcquire(config_.worker_index)) return false;
  // A stamp left from a frame given up on would be taken for this one's.
  (void)ReadTimesyncTxStamp(config_.port_id);
  return true;
}

void PtpTimesync::ReleaseTx() { latch_->Release(config_.worker_index); }

void PtpTimesync::AwaitTx(int32_t slot, uint64_t tsc, core::TaiNs sent_tai) {
  awaiting_slot_ = slot;
  awaiting_sent_tai_ = sent_tai;
  awaiting_deadline_tsc_ = tsc + timeout_tsc_;
}

PtpTimesync::TxPoll PtpTimesync::PollTx(uint64_t tsc) {
  TxPoll r;
  if (!awaiting()) return r;
  for (int i = 0; i < kTimesyncTxTriesPerPoll; ++i) {
    const std::optional<timespec> ts = ReadTimesyncTxStamp(config_.port_id);
    if (!ts.has_value()) continue;
    const std::optional<core::TaiNs> tai = ToTai(*ts);
    if (tai.has_value() &&
        awaiting_sent_tai_ - *tai > config_.tx_timeout_ns / 2) {
      stats_->tx[static_cast<size_t>(PtpTxStampResult::kStale)].Add(1);
      continue;
    }
    r.slot = awaiting_slot_;
    awaiting_slot_ = -1;
    ReleaseTx();
    if (!tai.has_value()) {  // the model went away meanwhile
      r.what = TxPoll::kTimedOut;
      stats_->tx[static_cast<size_t>(PtpTxStampResult::kNoModel)].Add(1);
      return r;
    }
    r.what = TxPoll::kStamped;
    r.tai = *tai;
    stats_->tx[static_cast<size_t>(PtpTxStampResult::kHardware)].Add(1);
    return r;
  }
  if (static_cast<int64_t>(tsc - awaiting_deadline_tsc_) >= 0) {
    r.what = TxPoll::kTimedOut;
    r.slot = awaiting_slot_;
    awaiting_slot_ = -1;
    ReleaseTx();
    stats_->tx[static_cast<size_t>(PtpTxStampResult::kTimeout)].Add(1);
  }
  return r;
}

std::optional<core::TaiNs> PtpTimesync::ReadRx(const rte_mbuf* m,
                                               PtpRxStampResult* why) {
  if ((m->ol_flags & RTE_MBUF_F_RX_IEEE1588_TMST) == 0) {
    *why = PtpRxStampResult::kNotLatched;
    return std::nullopt;
  }
  timespec ts{};
  if (rte_eth_timesync_read_rx_timestamp(config_.port_id, &ts, m->timesync) !=
      0) {
    *why = PtpRxStampResult::kNotLatched;
    return std::nullopt;
  }
  const std::optional<core::TaiNs> tai = ToTai(ts);
  *why = tai.has_value() ? PtpRxStampResult::kHardware
                         : PtpRxStampResult::kNoModel;
  return tai;
}

}  // namespace zg::dataplane
