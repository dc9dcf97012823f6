// SPDX-License-Identifier: Apache-2.0
#include "dataplane/ntp/ntp_interleave.h"

#include <algorithm>
#include <array>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"
#include "dataplane/daemon/flags.h"
#include "dataplane/daemon/log.h"
#include "dataplane/metrics/scrape_families.h"

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
namespace {

// A worker's counters in the order the families list them.
constexpr size_t kInterleaveCounters = 6;
std::array<const SingleWriterCounter*, kInterleaveCounters> CountersOf(
    const NtpInterleaveStats& s) {
  return {&s.interleaved, &s.unknown,   &s.replay,
          &s.no_tx,       &s.evictions, &s.unsaved};
}

}  // namespace

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

std::shared_ptr<prometheus::Collectable>
NtpInterleaveFactory::ScrapeCollectable() const {
  if (!config_.enabled) return nullptr;
  return std::make_shared<FamiliesCollectable>([this](ScrapeFamilies& f) {
    const char* requests = "zeitgeber_ntp_interleave_requests_total";
    const char* requests_help =
        "NTP requests that looked interleaved (origin = one of our receive "
        "timestamps), by result: interleaved (exact T3 of the previous "
        "reply), unknown, replay, no_tx (basic replies)";
    const char* evictions = "zeitgeber_ntp_interleave_evictions_total";
    const char* evictions_help =
        "Interleaved-mode entries dropped before their client came back "
        "(--ntp_interleave_slots too small, or clients gone)";
    const char* unsaved = "zeitgeber_ntp_interleave_unsaved_total";
    const char* unsaved_help =
        "Replies not remembered for interleaved mode (duplicate receive "
        "timestamp, or a bucket of replies not yet sent)";
    f.Declare(requests, requests_help, prometheus::MetricType::Counter);
    f.Declare(evictions, evictions_help, prometheus::MetricType::Counter);
    f.Declare(unsaved, unsaved_help, prometheus::MetricType::Counter);
    for (size_t w = 0; w < stats_.size(); ++w) {
      const std::string worker = absl::StrCat(worker_index_[w]);
      const auto c = CountersOf(*stats_[w]);
      size_t i = 0;
      for (const char* result : {"interleaved", "unknown", "replay", "no_tx"}) {
        f.Counter(requests, requests_help,
                  {{"worker", worker}, {"result", result}},
                  static_cast<double>(c[i++]->Load()));
      }
      f.Counter(evictions, evictions_help, {{"worker", worker}},
                static_cast<double>(c[i++]->Load()));
      f.Counter(unsaved, unsaved_help, {{"worker", worker}},
                static_cast<double>(c[i++]->Load()));
    }
    f.Gauge("zeitgeber_ntp_interleave_slots",
            "Interleaved-mode entries per worker (--ntp_interleave_slots, "
            "rounded up)",
            {}, static_cast<double>(slots_));
  });
}

void NtpInterleaveFactory::Report() {
  if (!config_.enabled) return;
  std::array<uint64_t, kInterleaveCounters> sum = {};
  for (const auto& st : stats_) {
    const auto counters = CountersOf(*st);
    for (size_t i = 0; i < counters.size(); ++i) sum[i] += counters[i]->Load();
  }
  LogInfo(absl::StrCat("NTP interleaved mode: interleaved=", sum[0],
                       " unknown=", sum[1], " replay=", sum[2], " no_tx=",
                       sum[3], " evictions=", sum[4], " unsaved=", sum[5]));
}

}  // namespace zg::dataplane
