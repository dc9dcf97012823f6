// SPDX-License-Identifier: Apache-2.0
#include "servo/sources/pps_source.h"

#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/base/status_macros.h"
#include "servo/sources/refid.h"

namespace zg::servo {
namespace {

SystemTimeMapOptions MapOptions(int reads) {
  SystemTimeMapOptions o;
  o.clock = CLOCK_REALTIME;
  o.tries = reads;
  return o;
}

}  // namespace

CoarseUtcFn SystemClockCoarseUtc() {
  return [](core::UtcNs system_realtime) -> absl::StatusOr<core::UtcNs> {
    return system_realtime;
  };
}

SourceInfo PpsSourceOptions::DefaultInfo() {
  SourceInfo info;
  info.kind = SourceKind::kPps;
  info.ntp_refid = NtpRefId("PPS");
  info.stratum = 0;
  info.ptp_time_source = core::PtpTimeSource::kGnss;
  info.time_traceable = true;
  info.frequency_traceable = true;
  info.priority = 10;
  return info;
}

absl::StatusOr<std::unique_ptr<PpsSource>> PpsSource::Create(
    RawClock* raw, std::unique_ptr<PpsDevice> device, PpsSourceOptions options,
    SystemClockOps* ops) {
  if (device == nullptr) {
    return absl::InvalidArgumentError("PPS source: no device");
  }
  if (!options.coarse) {
    return absl::InvalidArgumentError(
        "PPS source needs a coarse time source to name each second (the "
        "system clock or gpsd)");
  }
  if (!options.tai_minus_utc) {
    return absl::InvalidArgumentError(
        "PPS source needs TAI-UTC (the leap-seconds file): PPS edges mark "
        "UTC seconds");
  }
  if (options.max_coarse_disagreement_ns <= 0 ||
      options.max_coarse_disagreement_ns >= core::kNanosPerSecond / 2) {
    return absl::InvalidArgumentError(
        "PPS max_coarse_disagreement_ns must be in (0, 0.5 s): beyond half a "
        "second the nearest second is ambiguous");
  }
  if (options.configure_device) {
    ZG_RETURN_IF_ERROR(device->Configure(options.edge));
  }
  if (options.info.name.empty()) {
    options.info.name = absl::StrCat("pps:", device->path());
  }
  return std::unique_ptr<PpsSource>(
      new PpsSource(raw, std::move(device), std::move(options), ops));
}

PpsSource::PpsSource(RawClock* raw, std::unique_ptr<PpsDevice> device,
                     PpsSourceOptions options, SystemClockOps* ops)
    : device_(std::move(device)),
      options_(std::move(options)),
      ops_(ops),
      map_(raw, ops, MapOptions(options_.anchor_reads)),
      health_(options_.timeout_ns),
      created_mono_ns_(MonotonicNs(*ops)) {}

absl::Status PpsSource::Fail(absl::Status why) {
  health_.OnFailure(why);
  return why;
}

void PpsSource::Timeout(int64_t mono) {
  const int64_t since =
      health_.last_sample_mono_ns().value_or(created_mono_ns_);
  if (mono - since <= options_.timeout_ns ||
      health_.health() == SourceHealth::kDown) {
    return;
  }
  health_.OnFailure(absl::UnavailableError(absl::StrFormat(
      "no usable PPS edge on %s for %.1f s%s%s. Check the signal with "
      "`ppstest %s`, the cable, and that the receiver has a fix (many "
      "squelch PPS without one)",
      device_->path(), (mono - since) / 1e9,
      health_.problem().ok() ? "" : "; last problem: ",
      health_.problem().ok() ? "" : std::string(health_.problem().message()),
      device_->path())));
}

absl::Status PpsSource::Poll(std::vector<ReferenceSample>* out) {
  const int64_t mono = MonotonicNs(*ops_);
  map_.Anchor();
  PpsFetch f;
  if (absl::Status s = device_->Fetch(&f); !s.ok()) return Fail(s);
  map_.Anchor();
  const bool assert_edge = options_.edge == PpsEdge::kAssert;
  const uint64_t seq = assert_edge ? f.assert_sequence : f.clear_sequence;
  const int64_t stamp =
      assert_edge ? f.assert_realtime_ns : f.clear_realtime_ns;
  if (seq != 0 && seq != last_sequence_.value_or(0)) {
    if (last_sequence_ && seq > *last_sequence_ + 1) {
      stats_.missed_edges += seq - *last_sequence_ - 1;
    }
    last_sequence_ = seq;
    ++stats_.edges;
    int64_t now_realtime = 0;
    if (ops_->ReadNs(CLOCK_REALTIME, &now_realtime) &&
        now_realtime - stamp > options_.max_edge_age_ns) {
      ++stats_.stale_edges;
    } else {
      HandleEdge(stamp, out, mono);
    }
  }
  Timeout(mono);
  return absl::OkStatus();
}

void PpsSource::HandleEdge(int64_t edge_realtime_ns,
                           std::vector<ReferenceSample>* out, int64_t mono) {
  const absl::StatusOr<core::UtcNs> coarse =
      options_.coarse(core::UtcNs{edge_realtime_ns});
  if (!coarse.ok()) {
    ++stats_.coarse_unavailable;
    health_.OnDegraded(absl::UnavailableError(absl::StrCat(
        "PPS edge not labelled: the coarse time source has no time (",
        coarse.status().message(), ")")));
    return;
  }
  // The top of the second the edge marks: coarse time less the edge delay,
  // rounded to the nearest second.
  const int64_t at_top = coarse->value - options_.edge_delay_ns;
  const int64_t second =
      core::FloorDiv(at_top + core::kNanosPerSecond / 2, core::kNanosPerSecond);
  const int64_t disagreement = at_top - second * core::kNanosPerSecond;
  stats_.last_coarse_disagreement_ns = disagreement;
  if (std::llabs(disagreement) > options_.max_coarse_disagreement_ns) {
    ++stats_.rejected_coarse;
    health_.OnDegraded(absl::OutOfRangeError(absl::StrFormat(
        "PPS edge rejected: the coarse time is %.3f s from the nearest whole "
        "second (limit %.3f s). The coarse source (system clock or gpsd) is "
        "off, or the edge polarity or edge delay is misconfigured",
        disagreement / 1e9, options_.max_coarse_disagreement_ns / 1e9)));
    return;
  }
  const core::UtcNs utc{second * core::kNanosPerSecond +
                        options_.edge_delay_ns};
  const std::optional<core::TaiNs> tai =
      UtcToTaiUnambiguous(utc, options_.tai_minus_utc);
  if (!tai) {
    ++stats_.skipped_near_leap;
    return;
  }
  const std::optional<SystemTimeMap::Mapping> m =
      map_.TicksAt(edge_realtime_ns);
  if (!m) return;  // no anchor: the system clock is unreadable
  ReferenceSample s;
  s.raw_ticks = m->ticks;
  s.reference_tai = *tai;
  s.uncertainty_ns = m->uncertainty_ns + options_.edge_error_ns;
  s.taken_at = *tai;
  out->push_back(s);
  ++stats_.samples;
  health_.OnSample(mono);
}

}  // namespace zg::servo
