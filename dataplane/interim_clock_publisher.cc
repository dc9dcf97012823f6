// INTERIM: see interim_clock_publisher.h.
#include "dataplane/interim_clock_publisher.h"

#include <sys/timex.h>

#include <cmath>
#include <ctime>

#include "absl/strings/str_cat.h"
#include "core/tsc.h"

namespace zg::dataplane {
namespace {

constexpr int kBracketTries = 5;
constexpr int64_t kMinNicSpanNs = 50'000'000;
constexpr int64_t kMinRateSpanNs = 1'000'000'000;
constexpr uint32_t kRefidSystemClock = 0x53595343;  // "SYSC"

uint64_t Q32(double ns_per_tick) {
  return static_cast<uint64_t>(std::llround(ns_per_tick * 4294967296.0));
}

int8_t PrecisionLog2(int64_t ns) {
  if (ns < 1) ns = 1;
  return static_cast<int8_t>(std::ceil(std::log2(ns * 1e-9)));
}

}  // namespace

InterimClockPublisher::InterimClockPublisher(core::PublishedClock* tsc_out,
                                             const Options& options)
    : tsc_out_(tsc_out), options_(options) {
  if (!(options_.tsc_hz > 0)) options_.tsc_hz = 1e9;
}

void InterimClockPublisher::AddNicClock(NicClock* clock,
                                        core::PublishedClock* out) {
  nics_.push_back({clock, out, {}, 0});
}

InterimClockPublisher::Sample InterimClockPublisher::ReadRealtimeBracketed() {
  Sample best;
  uint64_t best_width = UINT64_MAX;
  for (int i = 0; i < kBracketTries; ++i) {
    timespec ts{};
    const uint64_t t1 = core::ReadTscOrdered();
    clock_gettime(CLOCK_REALTIME, &ts);
    const uint64_t t2 = core::ReadTscOrdered();
    if (t2 - t1 < best_width) {
      best_width = t2 - t1;
      best.tsc = t1 + (t2 - t1) / 2;
      best.ref_ns = ts.tv_sec * core::kNanosPerSecond + ts.tv_nsec;
      best.half_bracket_tsc = (t2 - t1 + 1) / 2;
    }
  }
  return best;
}

void InterimClockPublisher::UpdateSystemStatus(int64_t utc_ns,
                                               core::ClockModel* m) {
  timex tx{};
  const int state = adjtimex(&tx);  // modes == 0: read only
  system_.kernel_synchronized =
      state != -1 && state != TIME_ERROR && (tx.status & STA_UNSYNC) == 0;
  system_.synchronized =
      system_.kernel_synchronized || !options_.require_synchronized;
  system_.est_error_ns = system_.kernel_synchronized
                             ? static_cast<int64_t>(tx.esterror) * 1000
                             : options_.unsynchronized_error_ns;
  system_.tai_offset_from_kernel = tx.tai > 0;
  system_.tai_offset_s =
      system_.tai_offset_from_kernel ? tx.tai : options_.fallback_tai_offset_s;
  m->utc_offset_s = system_.tai_offset_s;
  m->leap = core::LeapPending::kNone;
  if (state != TIME_OOP && (tx.status & (STA_INS | STA_DEL)) != 0) {
    // The kernel applies it at the end of the current UTC day.
    const int64_t utc_s = core::FloorDiv(utc_ns, core::kNanosPerSecond);
    const int64_t midnight = (core::FloorDiv(utc_s, core::kSecondsPerDay) + 1) *
                             core::kSecondsPerDay;
    const bool insert = (tx.status & STA_INS) != 0;
    m->leap = insert ? core::LeapPending::kInsert : core::LeapPending::kDelete;
    m->leap_at = core::TaiNs{(midnight - (insert ? 0 : 1) + m->utc_offset_s) *
                             core::kNanosPerSecond};
  }
}

absl::Status InterimClockPublisher::Step() {
  const Sample s = ReadRealtimeBracketed();
  const double nominal = 1e9 / options_.tsc_hz;
  double ns_per_tick =
      tsc_model_.ns_per_tick_q32 != 0
          ? static_cast<double>(tsc_model_.ns_per_tick_q32) / 4294967296.0
          : nominal;
  if (!window_.empty()) {
    const Sample& last = window_.back();
    const double predicted =
        last.ref_ns + static_cast<double>(s.tsc - last.tsc) * ns_per_tick;
    if (std::fabs(s.ref_ns - predicted) >
        static_cast<double>(options_.step_threshold_ns)) {
      window_.clear();  // the system clock was stepped: start over
    }
  }
  window_.push_back(s);
  while (window_.size() > 2 &&
         s.ref_ns - window_[1].ref_ns >= options_.window_ns) {
    window_.pop_front();
  }
  const Sample& first = window_.front();
  ns_per_tick = (s.ref_ns - first.ref_ns >= kMinRateSpanNs && s.tsc > first.tsc)
                    ? static_cast<double>(s.ref_ns - first.ref_ns) /
                          static_cast<double>(s.tsc - first.tsc)
                    : nominal;

  core::ClockModel m;
  m.raw_anchor = s.tsc;
  m.ns_per_tick_q32 = Q32(ns_per_tick);
  UpdateSystemStatus(s.ref_ns, &m);
  m.tai_anchor =
      core::TaiNs{s.ref_ns + int64_t{m.utc_offset_s} * core::kNanosPerSecond};
  const int64_t half_bracket_ns =
      static_cast<int64_t>(std::ceil(s.half_bracket_tsc * ns_per_tick));
  m.error_bound_ns = system_.est_error_ns + half_bracket_ns;
  m.error_growth_ns_per_s = options_.error_growth_ns_per_s;
  m.max_extrapolation_ns = options_.max_extrapolation_ns;
  m.state = system_.synchronized ? core::SyncState::kLocked
                                 : core::SyncState::kFreerun;
  m.stratum = system_.synchronized ? 2 : 16;
  m.precision_log2 = PrecisionLog2(2 * half_bracket_ns);
  m.reference_id = kRefidSystemClock;
  m.reference_time = m.tai_anchor;
  m.ptp_time_source = system_.synchronized
                          ? core::PtpTimeSource::kNtp
                          : core::PtpTimeSource::kInternalOscillator;
  m.generation = tsc_model_.generation + 1;
  tsc_model_ = m;
  tsc_out_->Write(m);

  absl::Status status;
  for (NicTrack& nic : nics_) status.Update(StepNic(nic));
  return status;
}

absl::Status InterimClockPublisher::StepNic(NicTrack& nic) {
  Sample s;
  uint64_t best_width = UINT64_MAX;
  for (int i = 0; i < kBracketTries; ++i) {
    absl::StatusOr<NicTscSample> r = nic.clock->Sample();
    if (!r.ok()) return r.status();
    const uint64_t width = r->tsc_after - r->tsc_before;
    if (width < best_width) {
      best_width = width;
      s = {r->tsc_mid(), static_cast<int64_t>(r->nic_ticks), (width + 1) / 2};
    }
  }
  const double ns_per_tsc =
      static_cast<double>(tsc_model_.ns_per_tick_q32) / 4294967296.0;
  if (nic.window.size() >= 2) {
    const Sample& first = nic.window.front();
    const Sample& last = nic.window.back();
    const double tsc_per_nic = static_cast<double>(last.tsc - first.tsc) /
                               static_cast<double>(last.ref_ns - first.ref_ns);
    const double predicted =
        last.ref_ns + static_cast<double>(s.tsc - last.tsc) / tsc_per_nic;
    const double err_ns =
        std::fabs(s.ref_ns - predicted) * tsc_per_nic * ns_per_tsc;
    if (err_ns > static_cast<double>(options_.step_threshold_ns)) {
      nic.window.clear();  // the NIC clock was stepped
    }
  }
  nic.window.push_back(s);
  const auto span_ns = [&](const Sample& a) {
    return static_cast<double>(s.tsc - a.tsc) * ns_per_tsc;
  };
  while (nic.window.size() > 2 &&
         span_ns(nic.window[1]) >= static_cast<double>(options_.window_ns)) {
    nic.window.pop_front();
  }
  const Sample& first = nic.window.front();
  if (span_ns(first) < kMinNicSpanNs || s.ref_ns == first.ref_ns) {
    return absl::OkStatus();  // not enough span for a rate yet
  }
  const double tsc_per_nic = static_cast<double>(s.tsc - first.tsc) /
                             static_cast<double>(s.ref_ns - first.ref_ns);
  core::ClockModel m = tsc_model_;
  m.raw_anchor = static_cast<uint64_t>(s.ref_ns);
  m.tai_anchor = tsc_model_.RawToTai(s.tsc);
  m.ns_per_tick_q32 = Q32(ns_per_tsc * tsc_per_nic);
  m.error_bound_ns += static_cast<int64_t>(
      std::ceil(static_cast<double>(s.half_bracket_tsc) * ns_per_tsc));
  m.generation = ++nic.generation;
  nic.out->Write(m);
  return absl::OkStatus();
}

}  // namespace zg::dataplane
