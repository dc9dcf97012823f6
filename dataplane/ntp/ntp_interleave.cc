// SPDX-License-Identifier: Apache-2.0
#include "dataplane/ntp/ntp_interleave.h"

#include <algorithm>
#include <array>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"
#include "dataplane/daemon/flags.h"
#include "dataplane/daemon/log.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"

namespace zg::dataplane {

using core::NtpInterleaveTable;

NtpWorkerInterleave::Applied NtpWorkerInterleave::Apply(
    uint8_t* payload, const core::NtpInterleavedRequest& request) {
  uint8_t* t2_field = payload + core::kNtpOffsetReceiveTime;
  core::NtpTimestamp t2 = core::TagNtpRx(core::LoadNtpTimestamp(t2_field));
  Applied a;
  if (!request.looks_interleaved) {
    core::StoreNtpTimestamp(t2_field, t2);
    return a;
  }
  const NtpInterleaveTable::Taken taken = table_.Take(request.origin);
  switch (taken.result) {
    case NtpInterleaveTable::TakeResult::kHit:
      stats_->interleaved.Add(1);
      a.interleaved = true;
      // RFC 9769: the origin is the request's receive timestamp; T3 the
      // previous reply's transmit time.
      core::StoreNtpTimestamp(payload + core::kNtpOffsetOriginTime,
                              request.receive);
      core::StoreNtpTimestamp(payload + core::kNtpOffsetTransmitTime, taken.tx);
      break;
    case NtpInterleaveTable::TakeResult::kUnknown:
      stats_->unknown.Add(1);
      break;
    case NtpInterleaveTable::TakeResult::kReplay:
      stats_->replay.Add(1);
      break;
    case NtpInterleaveTable::TakeResult::kNoTx:
      stats_->no_tx.Add(1);
      break;
  }
  t2 = table_.UniqueRx(t2);
  core::StoreNtpTimestamp(t2_field, t2);
  const NtpInterleaveTable::Saved saved = table_.Save(t2);
  switch (saved.result) {
    case NtpInterleaveTable::SaveResult::kSaved:
      break;
    case NtpInterleaveTable::SaveResult::kSavedEvicting:
      stats_->evictions.Add(1);
      break;
    case NtpInterleaveTable::SaveResult::kDuplicate:
    case NtpInterleaveTable::SaveResult::kBusy:
      stats_->unsaved.Add(1);
      break;
  }
  a.slot = saved.slot;
  return a;
}

// One worker's exported counters, advanced to its running totals.
struct NtpInterleaveFactory::Series {
  static constexpr size_t kCount = 6;
  const NtpInterleaveStats* stats = nullptr;
  std::array<prometheus::Counter*, kCount> counters = {};
  std::array<double, kCount> last = {};
  static std::array<const SingleWriterCounter*, kCount> Of(
      const NtpInterleaveStats& s) {
    return {&s.interleaved, &s.unknown,   &s.replay,
            &s.no_tx,       &s.evictions, &s.unsaved};
  }
};

NtpInterleaveFactory::NtpInterleaveFactory() = default;
NtpInterleaveFactory::~NtpInterleaveFactory() = default;

absl::Status NtpInterleaveFactory::Configure(const DaemonConfig& config) {
  config_ = config.ntp_interleave;
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<NtpWorkerInterleave>>
NtpInterleaveFactory::Create(const WorkerSetup& setup) {
  if (!config_.enabled) return std::unique_ptr<NtpWorkerInterleave>();
  ZG_ASSIGN_OR_RETURN(NtpInterleaveTable table,
                      NtpInterleaveTable::Create(config_.slots));
  stats_.push_back(std::make_unique<NtpInterleaveStats>());
  worker_index_.push_back(setup.worker_index);
  // Which software stamp the port's plan keeps (clock/stamp_plan.h): the
  // T3 written before tx_burst (the plan says kSoftwareBefore, or the basic
  // T3 is the --ntp_tx_stamp=midpoint estimate, measured within 0.6 us of
  // the peer's receive time on veth where the stamp after tx_burst was
  // 17-22 us late: doc/timestamps.md), or the one after (the fallback for
  // scheduled and hardware TX until they set it).
  const bool before =
      !setup.ports.empty() &&
      std::all_of(setup.ports.begin(), setup.ports.end(), [](const auto& p) {
        return p.stamps.ntp_tx == TxStampSource::kSoftwareBefore ||
               (p.stamps.ntp_tx == TxStampSource::kSoftwareAfter &&
                p.stamps.ntp_tx_placement == core::TxStampPlacement::kMidpoint);
      });
  auto w = std::make_unique<NtpWorkerInterleave>(std::move(table),
                                                 stats_.back().get(), before);
  workers_.push_back(w.get());
  slots_ = w->table().slots();
  return w;
}

absl::Status NtpInterleaveFactory::AddMetrics(prometheus::Registry& registry) {
  if (!config_.enabled) return absl::OkStatus();
  auto& requests =
      prometheus::BuildCounter()
          .Name("zeitgeber_ntp_interleave_requests_total")
          .Help(
              "NTP requests that looked interleaved (origin = one of our "
              "receive timestamps), by result: interleaved (exact T3 of "
              "the previous reply), unknown, replay, no_tx (basic replies)")
          .Register(registry);
  auto& evictions =
      prometheus::BuildCounter()
          .Name("zeitgeber_ntp_interleave_evictions_total")
          .Help(
              "Interleaved-mode entries dropped before their client came "
              "back (--ntp_interleave_slots too small, or clients gone)")
          .Register(registry);
  auto& unsaved =
      prometheus::BuildCounter()
          .Name("zeitgeber_ntp_interleave_unsaved_total")
          .Help(
              "Replies not remembered for interleaved mode (duplicate "
              "receive timestamp, or a bucket of replies not yet sent)")
          .Register(registry);
  for (size_t w = 0; w < stats_.size(); ++w) {
    const std::string worker = absl::StrCat(worker_index_[w]);
    Series s;
    s.stats = stats_[w].get();
    size_t i = 0;
    for (const char* result : {"interleaved", "unknown", "replay", "no_tx"}) {
      s.counters[i++] = &requests.Add({{"worker", worker}, {"result", result}});
    }
    s.counters[i++] = &evictions.Add({{"worker", worker}});
    s.counters[i++] = &unsaved.Add({{"worker", worker}});
    series_.push_back(s);
  }
  slots_gauge_ = &prometheus::BuildGauge()
                      .Name("zeitgeber_ntp_interleave_slots")
                      .Help(
                          "Interleaved-mode entries per worker "
                          "(--ntp_interleave_slots, rounded up)")
                      .Register(registry)
                      .Add({});
  UpdateMetrics();
  return absl::OkStatus();
}

void NtpInterleaveFactory::UpdateMetrics() {
  if (slots_gauge_ != nullptr && slots_ != 0) {
    slots_gauge_->Set(static_cast<double>(slots_));
  }
  for (Series& s : series_) {
    const auto counters = Series::Of(*s.stats);
    for (size_t i = 0; i < Series::kCount; ++i) {
      const double v = static_cast<double>(counters[i]->Load());
      if (v > s.last[i]) s.counters[i]->Increment(v - s.last[i]);
      s.last[i] = v;
    }
  }
}

void NtpInterleaveFactory::Report() {
  if (!config_.enabled) return;
  std::array<uint64_t, Series::kCount> sum = {};
  for (const auto& st : stats_) {
    const auto counters = Series::Of(*st);
    for (size_t i = 0; i < Series::kCount; ++i) sum[i] += counters[i]->Load();
  }
  LogInfo(absl::StrCat("NTP interleaved mode: interleaved=", sum[0],
                       " unknown=", sum[1], " replay=", sum[2], " no_tx=",
                       sum[3], " evictions=", sum[4], " unsaved=", sum[5]));
}

}  // namespace zg::dataplane
