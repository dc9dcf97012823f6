// SPDX-License-Identifier: Apache-2.0
// ClockDiscipline: configuration checks, creation, source registration, the
// shared event and time helpers, and Update, the control step that runs the
// stages in order. The stages live in their own files:
//   discipline_intake.cc     samples in (AddSamples, jump gate), source health
//   discipline_selection.cc  source selection and switching
//   discipline_tracking.cc   the selected source's samples into the servo
//   discipline_holdover.cc   the error bound and the state machine
//   discipline_publish.cc    the published ClockModel and DisciplineStatus
// Called by the control thread (servo/control/control_plane.cc) and the
// simulation (tests/sim); see servo/discipline/clock_discipline.h.
#include "servo/discipline/clock_discipline.h"

#include <cmath>

#include "absl/strings/str_format.h"
#include "servo/discipline/clock_discipline_internal.h"

namespace zg::servo {

using internal::kMaxPending;

absl::Status ValidateDisciplineConfig(const DisciplineConfig& c) {
  if (!(c.raw_nominal_hz >= 1e3 && c.raw_nominal_hz <= 1e11)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "clock discipline: raw_nominal_hz must be the raw clock's nominal "
        "frequency, 1 kHz .. 100 GHz (got %g Hz)",
        c.raw_nominal_hz));
  }
  ServoConfig servo = c.servo;
  servo.nominal_ns_per_tick = 1e9 / c.raw_nominal_hz;
  if (absl::Status s = ValidateServoConfig(servo); !s.ok()) return s;
  if (absl::Status s = ValidateOutlierFilterConfig(c.outlier); !s.ok()) {
    return s;
  }
  if (absl::Status s = ValidateSelectorConfig(c.selection); !s.ok()) return s;
  if (absl::Status s = ValidateFrequencyEstimatorConfig(c.estimator); !s.ok()) {
    return s;
  }
  if (absl::Status s = ValidateOscillatorProfile(c.oscillator); !s.ok()) {
    return s;
  }
  if (absl::Status s = ValidateHoldoverConfig(c.holdover); !s.ok()) return s;
  if (c.jump.margin_ns < 0 || c.jump_suspect_after < 1 ||
      c.jump_accept_after < 0) {
    return absl::InvalidArgumentError(
        "clock discipline: jump margin_ns >= 0, jump_suspect_after >= 1, "
        "jump_accept_after >= 0 (0: never accept a jump)");
  }
  if (c.source_timeout_ns <= 0 || c.max_extrapolation_ns < 0 ||
      c.coast_after_ns <= 0 || c.coast_after_ns > c.source_timeout_ns) {
    return absl::InvalidArgumentError(
        "clock discipline: need 0 < coast_after_ns <= source_timeout_ns and "
        "max_extrapolation_ns >= 0");
  }
  if (!(c.selection_phi_ppb >= 0) || !(c.initial_frequency_tolerance_ppb > 0)) {
    return absl::InvalidArgumentError(
        "clock discipline: selection_phi_ppb >= 0 and "
        "initial_frequency_tolerance_ppb > 0 required");
  }
  if (!(c.environment.sigmas > 0) ||
      !(c.environment.temperature_excursion_k >= 0)) {
    return absl::InvalidArgumentError(
        "clock discipline: environment sigmas > 0 and "
        "temperature_excursion_k >= 0 required");
  }
  if (c.accuracy_window < 1 || c.variance_window < 3 ||
      c.accuracy_window > 4096 || c.variance_window > 4096) {
    return absl::InvalidArgumentError(
        "clock discipline: accuracy_window in [1, 4096], variance_window in "
        "[3, 4096]");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<ClockDiscipline>> ClockDiscipline::Create(
    const DisciplineConfig& config) {
  if (absl::Status s = ValidateDisciplineConfig(config); !s.ok()) return s;
  ServoConfig servo_config = config.servo;
  servo_config.nominal_ns_per_tick = 1e9 / config.raw_nominal_hz;
  absl::StatusOr<std::unique_ptr<Servo>> servo = MakeServo(servo_config);
  if (!servo.ok()) return servo.status();
  return std::unique_ptr<ClockDiscipline>(
      new ClockDiscipline(config, *std::move(servo)));
}

ClockDiscipline::ClockDiscipline(const DisciplineConfig& config,
                                 std::unique_ptr<Servo> servo)
    : config_(config),
      nominal_ns_per_tick_(1e9 / config.raw_nominal_hz),
      servo_(std::move(servo)),
      estimator_(nominal_ns_per_tick_, config.estimator),
      machine_(config.holdover),
      selector_(config.selection) {
  recent_bounds_.reserve(config_.accuracy_window);
  recent_offsets_.reserve(config_.variance_window + 1);
  model_.ns_per_tick_q32 = 0;
}

absl::StatusOr<int> ClockDiscipline::AddSource(const SourceInfo& info) {
  int configured = 0;
  for (int i = 0; i < static_cast<int>(sources_.size()); ++i) {
    configured += Configured(i);
  }
  if (configured >= kMaxSources) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "clock discipline: at most %d reference sources (adding '%s')",
        kMaxSources, info.name));
  }
  // A removed source's slot, once nothing refers to it any more; else a new
  // one (at most two removed slots are still referred to at any time).
  for (int i = 0; i < static_cast<int>(sources_.size()); ++i) {
    if (!Reusable(i)) continue;
    sources_[i] = Source(info, config_.outlier);
    sources_[i].pending.reserve(kMaxPending);
    selector_.Reselect();
    return i;
  }
  sources_.emplace_back(info, config_.outlier);
  sources_.back().pending.reserve(kMaxPending);
  selector_.Reselect();
  return static_cast<int>(sources_.size()) - 1;
}

bool ClockDiscipline::Configured(int source) const {
  return source >= 0 && source < static_cast<int>(sources_.size()) &&
         !sources_[source].removed;
}

bool ClockDiscipline::Reusable(int source) const {
  return sources_[source].removed && source != synced_source_ &&
         source != selector_.selected();
}

absl::Status ClockDiscipline::RemoveSource(int source) {
  if (!Configured(source)) {
    return absl::NotFoundError(
        absl::StrFormat("clock discipline: no source %d", source));
  }
  Source& src = sources_[source];
  src.removed = true;
  src.status.enabled = false;
  src.pending.clear();
  selector_.Reselect();
  return absl::OkStatus();
}

absl::Status ClockDiscipline::SetSourceEnabled(int source, bool enabled) {
  if (!Configured(source)) {
    return absl::NotFoundError(
        absl::StrFormat("clock discipline: no source %d", source));
  }
  sources_[source].status.enabled = enabled;
  selector_.Reselect();
  return absl::OkStatus();
}

absl::Status ClockDiscipline::SetSourcePriority(int source, int priority) {
  if (!Configured(source)) {
    return absl::NotFoundError(
        absl::StrFormat("clock discipline: no source %d", source));
  }
  sources_[source].info.priority = priority;
  selector_.Reselect();
  return absl::OkStatus();
}

const SourceInfo& ClockDiscipline::source_info(int source) const {
  return sources_.at(source).info;
}

const SourceStatus& ClockDiscipline::source_status(int source) const {
  return sources_.at(source).status;
}

void ClockDiscipline::SetLeap(int32_t utc_offset_s, core::LeapPending leap,
                              core::TaiNs leap_at) {
  utc_offset_s_ = utc_offset_s;
  leap_ = leap;
  leap_at_ = leap_at;
}

bool ClockDiscipline::PlausibleRaw(uint64_t raw) const {
  if (!have_now_) return true;
  return std::fabs(SecondsBetween(last_raw_now_, raw)) <= kPlausibleRawWindowS;
}

double ClockDiscipline::SecondsBetween(uint64_t from, uint64_t to) const {
  return static_cast<double>(static_cast<int64_t>(to - from)) *
         nominal_ns_per_tick_ * 1e-9;
}

void ClockDiscipline::Emit(DisciplineEvent e) {
  if (sink_) sink_(e);
}

DisciplineEvent ClockDiscipline::MakeEvent(EventKind kind, uint64_t raw,
                                           int source) const {
  DisciplineEvent e;
  e.kind = kind;
  e.raw_ticks = raw;
  e.tai = servo_->initialized() ? servo_->model().TaiAt(raw) : core::TaiNs{0};
  e.source = source;
  e.from_state = e.to_state = machine_.state();
  e.from_class = e.to_class = model_.ptp_quality.clock_class;
  return e;
}

// ---- One control step -----------------------------------------------------

const core::ClockModel& ClockDiscipline::Update(uint64_t raw_now) {
  have_now_ = true;
  last_raw_now_ = raw_now;
  UpdateHealth(raw_now);
  RunSelection(raw_now);
  ProcessPending();
  if (have_sample_ && !in_holdover_ &&
      SecondsBetween(sample_raw_, raw_now) >
          static_cast<double>(config_.coast_after_ns) * 1e-9) {
    EnterHoldover(raw_now);  // coast; the state follows at the timeout
  }
  AdvanceState(raw_now, reacquire_pending_);
  reacquire_pending_ = false;
  Publish(raw_now);
  return model_;
}

}  // namespace zg::servo
