// SPDX-License-Identifier: Apache-2.0
// PpsSource: a pulse-per-second signal (/dev/ppsN, RFC 2783) as a reference.
//
// A PPS edge marks the top of a UTC second (plus the configured cable and
// receiver delay) but not which second. The kernel stamps the edge with
// CLOCK_REALTIME; a coarse source (the system clock, or gpsd's serial time)
// says what UTC it was at that stamp; rounded to the nearest second, that
// names the second. If the coarse time is more than 0.4 s (configurable)
// from any second, the edge is rejected: the coarse source, the edge polarity
// or the configured delay is wrong, and guessing would serve a wrong second.
//
// The edge's CLOCK_REALTIME stamp is mapped to raw ticks by interpolating
// between bracketed (TSC, CLOCK_REALTIME, TSC) anchors taken at every Poll
// (system_time.h), so chronyd slewing the system clock does not bias it.
// Poll often (>= 4 Hz) so that anchors lie close to each edge.
//
//   PpsSourceOptions opt;
//   opt.coarse = SystemClockCoarseUtc();
//   opt.tai_minus_utc = [&](core::UtcNs t) { return leaps.TaiMinusUtc(t); };
//   ZG_ASSIGN_OR_RETURN(auto dev, OpenPpsDevice("/dev/pps0"));
//   ZG_ASSIGN_OR_RETURN(auto pps,
//                       PpsSource::Create(tsc.get(), std::move(dev), opt));
//
// Control thread only.
#ifndef ZG_SERVO_PPS_SOURCE_H_
#define ZG_SERVO_PPS_SOURCE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "servo/clock/system_time.h"
#include "servo/sources/pps_device.h"
#include "servo/sources/reference_source.h"
#include "servo/sources/source_health.h"
#include "servo/sources/tai_offset.h"

namespace zg::servo {

// What UTC it was when CLOCK_REALTIME read `system_realtime` — only needs to
// be right to well within half a second. An error means "don't know now".
using CoarseUtcFn =
    std::function<absl::StatusOr<core::UtcNs>(core::UtcNs system_realtime)>;

// The system clock as the coarse source: CLOCK_REALTIME is UTC.
CoarseUtcFn SystemClockCoarseUtc();

struct PpsSourceOptions {
  PpsEdge edge = PpsEdge::kAssert;
  CoarseUtcFn coarse;           // required
  TaiMinusUtcFn tai_minus_utc;  // required
  // The edge reaches the input this long after the top of the UTC second
  // (antenna cable, receiver, level shifter). Negative if it comes early.
  int64_t edge_delay_ns = 0;
  // Error of an edge stamp: the receiver's PPS accuracy plus interrupt
  // latency of the kernel's CLOCK_REALTIME stamp.
  int64_t edge_error_ns = 2'000;
  int64_t max_coarse_disagreement_ns = 400'000'000;
  // Edges stamped longer ago than this when fetched are stale (the first
  // fetch after start, or a PPS that stopped) and are not used.
  int64_t max_edge_age_ns = 1'500'000'000;
  bool configure_device = true;  // enable capture of `edge` at Create
  int64_t timeout_ns = 3'000'000'000;
  int anchor_reads = 5;
  SourceInfo info = DefaultInfo();  // empty name: "pps:<path>"

  static SourceInfo DefaultInfo();
};

struct PpsStats {
  uint64_t edges = 0;            // new edges seen
  uint64_t missed_edges = 0;     // sequence numbers skipped between polls
  uint64_t rejected_coarse = 0;  // coarse time too far from a whole second
  uint64_t coarse_unavailable = 0;
  uint64_t skipped_near_leap = 0;
  uint64_t stale_edges = 0;
  uint64_t samples = 0;
  int64_t last_coarse_disagreement_ns = 0;  // signed: coarse - labelled edge
};

class PpsSource final : public ReferenceSource {
 public:
  static absl::StatusOr<std::unique_ptr<PpsSource>> Create(
      RawClock* raw, std::unique_ptr<PpsDevice> device,
      PpsSourceOptions options, SystemClockOps* ops = &RealSystemClockOps());

  const SourceInfo& info() const override { return options_.info; }
  absl::Status Poll(std::vector<ReferenceSample>* out) override;
  SourceHealth health() const override { return health_.health(); }

  const absl::Status& problem() const override { return health_.problem(); }
  const PpsStats& stats() const { return stats_; }

 private:
  PpsSource(RawClock* raw, std::unique_ptr<PpsDevice> device,
            PpsSourceOptions options, SystemClockOps* ops);
  absl::Status Fail(absl::Status why);
  // Labels a new edge and appends its sample (or records why not).
  void HandleEdge(int64_t edge_realtime_ns, std::vector<ReferenceSample>* out,
                  int64_t mono);
  void Timeout(int64_t mono);

  std::unique_ptr<PpsDevice> device_;
  PpsSourceOptions options_;
  SystemClockOps* ops_;
  SystemTimeMap map_;
  HealthTracker health_;
  int64_t created_mono_ns_;
  std::optional<uint64_t> last_sequence_;
  PpsStats stats_;
};

}  // namespace zg::servo

#endif  // ZG_SERVO_PPS_SOURCE_H_
