// SPDX-License-Identifier: Apache-2.0
#include "dataplane/worker/worker_stats.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace zg::dataplane {
namespace {

bool IsLabelValue(absl::string_view s) {
  if (s.empty() || s.size() > 48) return false;
  for (char c : s) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

WorkerStatsSnapshot WorkerStatsSnapshot::Of(const WorkerStats& s) {
  WorkerStatsSnapshot r;
  r.rx_packets = s.rx_packets.Load();
  r.rx_bytes = s.rx_bytes.Load();
  r.tx_packets = s.tx_packets.Load();
  r.tx_bytes = s.tx_bytes.Load();
  r.tx_dropped = s.tx_dropped.Load();
  r.tx_finalise_splits = s.tx_finalise_splits.Load();
  r.tx_scheduled = s.tx_scheduled.Load();
  r.tx_schedule_late = s.tx_schedule_late.Load();
  r.bursts = s.bursts.Load();
  r.empty_polls = s.empty_polls.Load();
  r.model_refresh_failures = s.model_refresh_failures.Load();
  r.hw_stamped = s.hw_stamped.Load();
  r.sw_stamped = s.sw_stamped.Load();
  for (size_t i = 0; i < kMaxFrameKinds; ++i) {
    r.handled[i] = s.handled[i].Load();
    r.replied[i] = s.replied[i].Load();
  }
  for (size_t i = 0; i < kMaxDropReasons; ++i)
    r.dropped[i] = s.dropped[i].Load();
  return r;
}

WorkerStatsSnapshot& WorkerStatsSnapshot::operator+=(
    const WorkerStatsSnapshot& o) {
  rx_packets += o.rx_packets;
  rx_bytes += o.rx_bytes;
  tx_packets += o.tx_packets;
  tx_bytes += o.tx_bytes;
  tx_dropped += o.tx_dropped;
  tx_finalise_splits += o.tx_finalise_splits;
  tx_scheduled += o.tx_scheduled;
  tx_schedule_late += o.tx_schedule_late;
  bursts += o.bursts;
  empty_polls += o.empty_polls;
  model_refresh_failures += o.model_refresh_failures;
  hw_stamped += o.hw_stamped;
  sw_stamped += o.sw_stamped;
  for (size_t i = 0; i < kMaxFrameKinds; ++i) {
    handled[i] += o.handled[i];
    replied[i] += o.replied[i];
  }
  for (size_t i = 0; i < kMaxDropReasons; ++i) dropped[i] += o.dropped[i];
  return *this;
}

uint64_t WorkerStatsSnapshot::TotalDropped() const {
  uint64_t n = 0;
  for (uint64_t d : dropped) n += d;
  return n;
}

CounterNames::CounterNames() {
  // Cannot fail: the table is empty and the names are valid.
  (void)AddDropReasons("worker",
                       {"unclassified", "no_handler", "multi_segment"});
}

absl::Status CounterNames::SetKindName(uint8_t kind, absl::string_view name) {
  if (kind >= kMaxFrameKinds) {
    return absl::OutOfRangeError(absl::StrCat(
        "frame kind ", kind, " ('", name, "') is beyond the ", kMaxFrameKinds,
        " kinds WorkerStats counts; raise kMaxFrameKinds"));
  }
  if (!IsLabelValue(name)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "frame kind name '", name, "' must match [a-z0-9_]{1,48}"));
  }
  if (!kinds_[kind].empty() && kinds_[kind] != name) {
    return absl::AlreadyExistsError(absl::StrCat(
        "frame kind ", kind, " already named '", kinds_[kind], "'"));
  }
  kinds_[kind] = std::string(name);
  return absl::OkStatus();
}

absl::StatusOr<uint8_t> CounterNames::AddDropReasons(
    absl::string_view prefix, std::initializer_list<absl::string_view> names) {
  return AddDropReasonList(
      prefix, absl::Span<const absl::string_view>(names.begin(), names.size()));
}

absl::StatusOr<uint8_t> CounterNames::AddDropReasonList(
    absl::string_view prefix, absl::Span<const absl::string_view> names) {
  if (num_reasons_ + names.size() > kMaxDropReasons) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "drop reasons of '", prefix, "' (", names.size(), ") overflow the ",
        kMaxDropReasons, " WorkerStats counts (", num_reasons_,
        " used); raise kMaxDropReasons"));
  }
  for (absl::string_view n : names) {  // validate all before adding any
    const std::string full = absl::StrCat(prefix, "_", n);
    if (!IsLabelValue(full)) {
      return absl::InvalidArgumentError(
          absl::StrCat("drop reason '", full, "' must match [a-z0-9_]{1,48}"));
    }
  }
  const size_t base = num_reasons_;
  for (absl::string_view n : names) {
    reasons_[num_reasons_++] = absl::StrCat(prefix, "_", n);
  }
  return static_cast<uint8_t>(base);
}

std::string CounterNames::KindName(size_t kind) const {
  if (kind < kMaxFrameKinds && !kinds_[kind].empty()) return kinds_[kind];
  return absl::StrCat("kind_", kind);
}

std::string CounterNames::DropReasonName(size_t reason) const {
  if (reason < kMaxDropReasons && !reasons_[reason].empty())
    return reasons_[reason];
  return absl::StrCat("reason_", reason);
}

}  // namespace zg::dataplane
