#include "servo/clock_discipline.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "absl/strings/str_format.h"
#include "servo/refid.h"

namespace zg::servo {

using core::SyncState;

namespace {

constexpr size_t kMaxPending = 64;
constexpr int kMaxSources = 32;
// Published when nothing bounds the error (no sample yet).
constexpr int64_t kUnboundedNs = std::numeric_limits<int64_t>::max() / 4;

// Samples outside these are invalid: before 2000-01-01 TAI or beyond 2^62 ns
// (year 2116), or claiming more than ~11.6 days of uncertainty. The margins
// keep every difference of two valid times far from int64 overflow.
constexpr int64_t kMinValidTaiNs = 946'684'800LL * 1'000'000'000;
constexpr int64_t kMaxValidTaiNs = int64_t{1} << 62;
constexpr int64_t kMaxUncertaintyNs = 1'000'000'000'000'000;

bool ValidSample(const ReferenceSample& s) {
  return s.uncertainty_ns >= 0 && s.uncertainty_ns <= kMaxUncertaintyNs &&
         s.reference_tai.value >= kMinValidTaiNs &&
         s.reference_tai.value <= kMaxValidTaiNs;
}

bool Tracking(SyncState s) {
  return s == SyncState::kLocking || s == SyncState::kLocked;
}
bool InHoldover(SyncState s) {
  return s == SyncState::kHoldoverInSpec || s == SyncState::kHoldoverOutOfSpec;
}

int64_t ToNs(double ns) {
  if (!(ns < static_cast<double>(kUnboundedNs))) return kUnboundedNs;
  if (ns < -static_cast<double>(kUnboundedNs)) return -kUnboundedNs;
  return static_cast<int64_t>(std::llround(ns));
}

}  // namespace

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
  if (static_cast<int>(sources_.size()) >= kMaxSources) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "clock discipline: at most %d reference sources (adding '%s')",
        kMaxSources, info.name));
  }
  sources_.emplace_back(info, config_.outlier);
  sources_.back().pending.reserve(kMaxPending);
  return static_cast<int>(sources_.size()) - 1;
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

// ---- Samples in -----------------------------------------------------------

void ClockDiscipline::AddSamples(int source,
                                 absl::Span<const ReferenceSample> samples) {
  if (source < 0 || source >= static_cast<int>(sources_.size())) return;
  Source& src = sources_[source];
  const ReferenceSample* best = nullptr;
  for (const ReferenceSample& s : samples) {
    if (!ValidSample(s) || !PlausibleRaw(s.raw_ticks)) {
      ++src.status.invalid;
      DisciplineEvent e =
          MakeEvent(EventKind::kSampleRejected, s.raw_ticks, source);
      e.reason = RejectReason::kInvalid;
      e.limit_ns = s.uncertainty_ns;
      Emit(e);
      continue;
    }
    if (best == nullptr || s.uncertainty_ns < best->uncertainty_ns) best = &s;
  }
  if (best == nullptr) return;
  ++src.status.samples;
  src.has_latest = true;  // the source is alive, whatever we make of it
  src.latest = *best;
  if (!servo_->initialized()) {
    src.pending.assign(1, *best);  // the first sample sets the clock
    return;
  }
  const double offset =
      servo_->model().OffsetNs(best->raw_ticks, best->reference_tai);
  src.status.last_offset_ns = offset;
  if (!PassesJumpGate(source, *best, offset)) return;
  const bool gate = machine_.state() == SyncState::kLocked;
  if (src.outlier.Check(offset, best->uncertainty_ns, gate) ==
      FilterVerdict::kOutlier) {
    ++src.status.outliers;
    DisciplineEvent e =
        MakeEvent(EventKind::kSampleRejected, best->raw_ticks, source);
    e.reason = RejectReason::kOutlier;
    e.offset_ns = ToNs(offset);
    e.limit_ns = ToNs(src.outlier.GateNs() + best->uncertainty_ns);
    Emit(e);
    return;
  }
  if (src.pending.size() >= kMaxPending) src.pending.erase(src.pending.begin());
  src.pending.push_back(*best);
}

bool ClockDiscipline::PassesJumpGate(int source, const ReferenceSample& s,
                                     double offset) {
  Source& src = sources_[source];
  const bool selected = source == selector_.selected();
  if (selected && bypass_gate_) return true;
  const int64_t bound = machine_.state() == SyncState::kFreerun
                            ? -1
                            : ToNs(std::ceil(BoundNs(s.raw_ticks)));
  const GateResult gate =
      CheckJump(offset, s.uncertainty_ns, bound, config_.jump);
  if (gate.accept) {
    src.gate_failures = 0;
    return true;
  }
  ++src.gate_failures;
  ++src.status.jumps;
  DisciplineEvent e =
      MakeEvent(EventKind::kSampleRejected, s.raw_ticks, source);
  e.reason = RejectReason::kJump;
  e.offset_ns = ToNs(offset);
  e.limit_ns = gate.limit_ns;
  Emit(e);
  // The source the model follows (even if its failures got it deselected)
  // may, by explicit configuration, be followed across the jump.
  const bool followed = selected || source == synced_source_;
  if (!followed || config_.jump_accept_after == 0 ||
      src.gate_failures < config_.jump_accept_after) {
    return false;
  }
  Reacquire();  // explicitly configured: follow the jumped reference
  return true;
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

void ClockDiscipline::UpdateHealth(uint64_t raw_now) {
  const double timeout_s =
      static_cast<double>(config_.source_timeout_ns) * 1e-9;
  for (int i = 0; i < static_cast<int>(sources_.size()); ++i) {
    Source& src = sources_[i];
    const bool up = src.has_latest &&
                    SecondsBetween(src.latest.raw_ticks, raw_now) <= timeout_s;
    if (up == src.status.up) continue;
    src.status.up = up;
    Emit(MakeEvent(up ? EventKind::kSourceUp : EventKind::kSourceDown, raw_now,
                   i));
  }
}

void ClockDiscipline::RunSelection(uint64_t raw_now) {
  const double phi =
      std::max(config_.selection_phi_ppb,
               have_sample_ ? track_growth_ppb_
                            : config_.initial_frequency_tolerance_ppb);
  candidates_.clear();
  for (int i = 0; i < static_cast<int>(sources_.size()); ++i) {
    const Source& src = sources_[i];
    SelectionCandidate c;
    c.id = i;
    c.priority = src.info.priority;
    c.stratum = src.info.stratum;
    c.usable = src.status.up && src.gate_failures < config_.jump_suspect_after;
    if (src.status.up && src.has_latest && servo_->initialized()) {
      c.votes = true;
      c.offset_ns = servo_->model().OffsetNs(src.latest.raw_ticks,
                                             src.latest.reference_tai);
      const double age =
          std::max(0.0, SecondsBetween(src.latest.raw_ticks, raw_now));
      c.half_width_ns =
          static_cast<double>(src.latest.uncertainty_ns) + age * phi;
    }
    candidates_.push_back(c);
  }
  const int64_t model_bound =
      have_sample_ && machine_.state() != SyncState::kFreerun
          ? ToNs(BoundNs(raw_now))
          : -1;
  const SelectionResult r = selector_.Select(candidates_, model_bound);
  for (int i = 0; i < static_cast<int>(sources_.size()); ++i) {
    Source& src = sources_[i];
    const bool ft = std::find(r.falsetickers.begin(), r.falsetickers.end(),
                              i) != r.falsetickers.end();
    if (ft && !src.status.falseticker) {
      DisciplineEvent e = MakeEvent(EventKind::kFalseticker, raw_now, i);
      e.offset_ns = ToNs(candidates_[i].offset_ns);
      e.limit_ns = ToNs(candidates_[i].half_width_ns);
      Emit(e);
    }
    src.status.falseticker = ft;
    src.status.suspect = src.gate_failures >= config_.jump_suspect_after;
    src.status.selected = i == r.selected;
  }
  if (r.switched) {
    DisciplineEvent e =
        MakeEvent(EventKind::kSourceSwitch, raw_now, r.selected);
    e.other_source = r.previous;
    Emit(e);
  }
  if (r.model_outvoted && !outvoted_) {
    DisciplineEvent e =
        MakeEvent(EventKind::kModelOutvoted, raw_now, r.selected);
    e.offset_ns = ToNs((r.intersection.lo + r.intersection.hi) / 2);
    e.limit_ns = model_bound;
    Emit(e);
    if (config_.follow_outvoting_majority) Reacquire();
  }
  outvoted_ = r.model_outvoted;
}

void ClockDiscipline::Reacquire() {
  servo_->Reset();
  estimator_.Reset();
  recent_offsets_.clear();
  bypass_gate_ = true;
  reacquire_pending_ = true;
  for (Source& src : sources_) {
    src.gate_failures = 0;
    src.outlier.Reset();
  }
}

void ClockDiscipline::ProcessPending() {
  const int selected = selector_.selected();
  for (int i = 0; i < static_cast<int>(sources_.size()); ++i) {
    if (i == selected) {
      for (const ReferenceSample& s : sources_[i].pending) {
        // Older than what the servo already has (e.g. after a switch): skip.
        if (have_sample_ &&
            static_cast<int64_t>(s.raw_ticks - sample_raw_) <= 0) {
          continue;
        }
        Accept(i, s);
      }
    }
    sources_[i].pending.clear();
  }
}

void ClockDiscipline::Accept(int source, const ReferenceSample& s) {
  Source& src = sources_[source];
  ServoState st;
  double offset = 0;
  if (!servo_->initialized()) {
    servo_->Start(s.raw_ticks, s.reference_tai, s.uncertainty_ns);
    st = ServoState::kJump;
  } else {
    offset = servo_->model().OffsetNs(s.raw_ticks, s.reference_tai);
    st = servo_->Sample({s.raw_ticks, offset, s.uncertainty_ns});
  }
  const double after = servo_->model().OffsetNs(s.raw_ticks, s.reference_tai);
  if (st == ServoState::kJump) {
    ++status_.steps;
    DisciplineEvent e = MakeEvent(EventKind::kStep, s.raw_ticks, source);
    e.offset_ns = ToNs(after - offset);
    Emit(e);
  }
  estimator_.Add(s.raw_ticks, s.reference_tai, s.uncertainty_ns);
  have_sample_ = true;
  in_holdover_ = false;
  bypass_gate_ = false;
  sample_raw_ = s.raw_ticks;
  sample_bound_ns_ = std::fabs(after) + static_cast<double>(s.uncertainty_ns);
  track_growth_ppb_ =
      estimator_.estimate().valid
          ? std::fabs(servo_->frequency_ppb() - estimator_.estimate().ppb) +
                FrequencyUncertaintyPpb()
          : config_.initial_frequency_tolerance_ppb;
  synced_source_ = source;
  reference_time_ = s.reference_tai;
  ++src.status.accepted;
  if (recent_bounds_.size() < static_cast<size_t>(config_.accuracy_window)) {
    recent_bounds_.push_back(sample_bound_ns_);
  } else {
    recent_bounds_[bounds_next_] = sample_bound_ns_;
  }
  bounds_next_ =
      (bounds_next_ + 1) % static_cast<size_t>(config_.accuracy_window);
  recent_offsets_.push_back(after);
  if (recent_offsets_.size() > static_cast<size_t>(config_.variance_window)) {
    recent_offsets_.erase(recent_offsets_.begin());
  }
}

// ---- Error bound ----------------------------------------------------------

double ClockDiscipline::FrequencyUncertaintyPpb() const {
  const FrequencyEstimate& est = estimator_.estimate();
  if (!est.valid) return config_.initial_frequency_tolerance_ppb;
  return LearnedFrequencyUncertaintyPpb(config_.oscillator, config_.environment,
                                        est.stderr_ppb, est.dof, est.span_s);
}

double ClockDiscipline::BoundNs(uint64_t raw, double dt_s) const {
  if (!have_sample_) return -1;
  const double tau_k = std::max(0.0, SecondsBetween(sample_raw_, raw) + dt_s);
  const double wander =
      WanderNs(config_.oscillator, config_.environment, tau_k);
  if (!in_holdover_) {
    return sample_bound_ns_ + track_growth_ppb_ * tau_k + wander;
  }
  const double tau_h = std::max(0.0, SecondsBetween(holdover_raw_, raw) + dt_s);
  return holdover_bound_ns_ + holdover_freq_unc_ppb_ * tau_h +
         std::max(0.0, wander - holdover_wander0_ns_);
}

double ClockDiscipline::MaxExtrapolationS(uint64_t raw_now,
                                          double bound_now) const {
  const SyncState state = machine_.state();
  if (state == SyncState::kFreerun || bound_now < 0) return 0;
  const double in_spec = static_cast<double>(config_.holdover.in_spec_limit_ns);
  const double limit =
      (state == SyncState::kLocked || state == SyncState::kHoldoverInSpec) &&
              bound_now < in_spec
          ? in_spec
          : static_cast<double>(config_.holdover.freerun_limit_ns);
  if (bound_now >= limit) return 0;
  const double max_s = static_cast<double>(config_.max_extrapolation_ns) * 1e-9;
  if (BoundNs(raw_now, max_s) <= limit) return max_s;
  double lo = 0, hi = max_s;  // the bound is increasing in time: bisect
  for (int i = 0; i < 40; ++i) {
    const double mid = (lo + hi) / 2;
    (BoundNs(raw_now, mid) <= limit ? lo : hi) = mid;
  }
  return lo;
}

// ---- States ---------------------------------------------------------------

void ClockDiscipline::AdvanceState(uint64_t raw_now, bool reacquire) {
  HoldoverInputs in;
  in.reference_available =
      have_sample_ && SecondsBetween(sample_raw_, raw_now) <=
                          static_cast<double>(config_.source_timeout_ns) * 1e-9;
  in.servo_stable = servo_->state() == ServoState::kLockedStable;
  in.reacquire = reacquire;
  in.bound_ns = have_sample_ ? ToNs(BoundNs(raw_now)) : kUnboundedNs;
  const SyncState from = machine_.state();
  const SyncState to = machine_.Update(in);
  if (from != to) OnStateChange(raw_now, from, to);
}

void ClockDiscipline::EnterHoldover(uint64_t raw_now) {
  if (in_holdover_ || !have_sample_) return;
  const double bound = BoundNs(raw_now);
  const FrequencyEstimate& est = estimator_.estimate();
  const double freq = est.valid ? est.ppb : servo_->FrequencyEstimatePpb();
  holdover_freq_unc_ppb_ = FrequencyUncertaintyPpb();
  holdover_bound_ns_ = bound;
  holdover_wander0_ns_ =
      WanderNs(config_.oscillator, config_.environment,
               std::max(0.0, SecondsBetween(sample_raw_, raw_now)));
  holdover_raw_ = raw_now;
  in_holdover_ = true;
  servo_->Holdover(raw_now, freq);
}

void ClockDiscipline::OnStateChange(uint64_t raw_now, SyncState from,
                                    SyncState to) {
  EventKind kind = EventKind::kStateChange;
  if (to == SyncState::kLocked) {
    kind = EventKind::kLocked;
  } else if (Tracking(from) && !Tracking(to)) {
    kind = EventKind::kHoldoverEnter;
    EnterHoldover(raw_now);
    servo_->ResetLock();
  } else if (InHoldover(from) && to == SyncState::kLocking) {
    kind = EventKind::kHoldoverExit;
  }
  if (to == SyncState::kFreerun) {
    // Forget what no longer holds: the next reference starts from scratch
    // (and may step, as at start-up).
    servo_->Reset();
    estimator_.Reset();
    recent_offsets_.clear();
    for (Source& src : sources_) src.outlier.Reset();
  }
  DisciplineEvent e = MakeEvent(kind, raw_now, synced_source_);
  e.from_state = from;
  e.to_state = to;
  e.limit_ns = have_sample_ ? ToNs(BoundNs(raw_now)) : -1;
  Emit(e);
}

// ---- Publication ----------------------------------------------------------

void ClockDiscipline::Publish(uint64_t raw_now) {
  const SyncState state = machine_.state();
  core::ClockModel m;
  if (servo_->initialized()) {
    servo_->model().FillClockModel(raw_now, &m);
  } else {
    RateModel(raw_now, core::TaiNs{0}, nominal_ns_per_tick_)
        .FillClockModel(raw_now, &m);
  }
  const double bound = BoundNs(raw_now);
  if (bound < 0) {
    m.error_bound_ns = kUnboundedNs;
  } else {
    const double x = MaxExtrapolationS(raw_now, bound);
    const double horizon = x > 1e-3 ? x : 1.0;
    const double secant = (BoundNs(raw_now, horizon) - bound) / horizon;
    // +1 ns: the anchor's rounding; q32: the rate's rounding.
    m.error_bound_ns = ToNs(std::ceil(bound) + 1);
    m.error_growth_ns_per_s = ToNs(std::ceil(
        secant + RateModel::Q32RoundingPpb(servo_->model().ns_per_tick())));
    m.max_extrapolation_ns = ToNs(x * 1e9);
  }
  m.utc_offset_s = utc_offset_s_;
  m.leap = leap_;
  m.leap_at = leap_at_;
  m.state = state;
  m.precision_log2 = config_.precision_log2;
  const Source* src = synced_source_ >= 0 ? &sources_[synced_source_] : nullptr;
  m.stratum = src ? NtpStratumFor(state, src->info.stratum) : 16;
  m.reference_id = src ? src->info.ntp_refid : NtpRefId("INIT");
  m.root_delay_ns = 0;
  m.reference_time = reference_time_;
  SyncState class_state = state;
  if (state == SyncState::kLocking && machine_.holdover_capable()) {
    class_state =
        bound <= static_cast<double>(config_.holdover.in_spec_limit_ns)
            ? SyncState::kHoldoverInSpec
            : SyncState::kHoldoverOutOfSpec;
  }
  const bool traceable = src && src->info.time_traceable;
  m.ptp_quality.clock_class =
      ClockClassFor(class_state, traceable, config_.oscillator.category,
                    config_.class_policy);
  if (state == SyncState::kFreerun || bound < 0) {
    m.ptp_quality.clock_accuracy = kClockAccuracyUnknown;
    m.ptp_quality.offset_scaled_log_variance = kVarianceUnknown;
  } else {
    double worst = bound;
    if (!in_holdover_) {
      for (double b : recent_bounds_) worst = std::max(worst, b);
    }
    m.ptp_quality.clock_accuracy =
        ClockAccuracyForBound(ToNs(std::ceil(worst)));
    // Floored at 1 ns^2: the timestamps' resolution.
    double tvar = std::max(1.0, TimeVarianceNs2(recent_offsets_));
    if (in_holdover_) {
      const double extra =
          (bound - holdover_bound_ns_) / config_.environment.sigmas;
      tvar += extra * extra;
    }
    m.ptp_quality.offset_scaled_log_variance =
        state == SyncState::kHoldoverOutOfSpec
            ? kVarianceUnknown
            : OffsetScaledLogVariance(tvar * 1e-18);
  }
  const bool usable =
      state == SyncState::kLocked || state == SyncState::kHoldoverInSpec;
  m.ptp_time_source = Tracking(state) && src
                          ? src->info.ptp_time_source
                          : core::PtpTimeSource::kInternalOscillator;
  m.time_traceable = usable && traceable;
  m.frequency_traceable = usable && src && src->info.frequency_traceable;
  m.generation = model_.generation + 1;
  if (status_.updates > 0 &&
      m.ptp_quality.clock_class != model_.ptp_quality.clock_class) {
    DisciplineEvent e =
        MakeEvent(EventKind::kClockClassChange, raw_now, synced_source_);
    e.from_class = model_.ptp_quality.clock_class;
    e.to_class = m.ptp_quality.clock_class;
    e.limit_ns = ToNs(bound);
    Emit(e);
  }
  model_ = m;

  status_.state = state;
  status_.servo_state = servo_->state();
  status_.selected = selector_.selected();
  status_.bound_ns = bound < 0 ? -1 : ToNs(bound);
  status_.frequency_ppb = servo_->frequency_ppb();
  status_.frequency_uncertainty_ppb =
      in_holdover_ ? holdover_freq_unc_ppb_ : FrequencyUncertaintyPpb();
  status_.holdover_s =
      in_holdover_ ? std::max(0.0, SecondsBetween(sample_raw_, raw_now)) : 0.0;
  ++status_.updates;
}

}  // namespace zg::servo
