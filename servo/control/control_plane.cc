// SPDX-License-Identifier: Apache-2.0
#include "servo/control/control_plane.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/base/status_macros.h"
#include "core/time/time_format.h"
#include "servo/holdover/holdover.h"
#include "servo/leap/leap_file.h"
#include "servo/sources/source_health.h"

namespace zg::servo {
namespace {

// Which discipline events the operator's log shows, and how loudly.
std::optional<LogLevel> LogLevelFor(EventKind kind) {
  switch (kind) {
    case EventKind::kLocked:
    case EventKind::kHoldoverExit:
    case EventKind::kSourceUp:
    case EventKind::kSourceSwitch:
    case EventKind::kStep:
    case EventKind::kStateChange:
    case EventKind::kClockClassChange:
      return LogLevel::kInfo;
    case EventKind::kHoldoverEnter:
    case EventKind::kSourceDown:
    case EventKind::kSampleRejected:
    case EventKind::kFalseticker:
    case EventKind::kModelOutvoted:
      return LogLevel::kWarning;
  }
  return std::nullopt;
}

std::string Describe(const AuditRecord& r) {
  std::string s = absl::StrCat("clock: ", AuditEventName(r.event));
  if (!r.source.empty()) absl::StrAppend(&s, " ", r.source);
  if (!r.old_state.empty() || !r.new_state.empty()) {
    absl::StrAppend(&s, " ", r.old_state, " -> ", r.new_state);
  }
  for (const auto& [key, value] : r.values) {
    absl::StrAppend(&s, " ", key, "=");
    if (const auto* i = std::get_if<int64_t>(&value)) {
      absl::StrAppend(&s, *i);
    } else if (const auto* d = std::get_if<double>(&value)) {
      absl::StrAppend(&s, *d);
    } else if (const auto* b = std::get_if<bool>(&value)) {
      absl::StrAppend(&s, *b ? "true" : "false");
    } else {
      absl::StrAppend(&s, std::get<std::string>(value));
    }
  }
  return s;
}

}  // namespace

absl::StatusOr<std::unique_ptr<ControlPlane>> ControlPlane::Create(
    ControlPlaneConfig config, core::PublishedClock* tsc_out,
    std::unique_ptr<TscClock> tsc, SystemClockOps* ops) {
  if (config.sources.empty()) {
    return absl::InvalidArgumentError(
        "no reference source configured: give at least one --source (e.g. "
        "--source=system, --source=gpsd:127.0.0.1:2947)");
  }
  if (tsc == nullptr) {
    ZG_ASSIGN_OR_RETURN(tsc, TscClock::Create());
  }
  std::unique_ptr<ControlPlane> cp(
      new ControlPlane(std::move(config), tsc_out, std::move(tsc), ops));
  ZG_RETURN_IF_ERROR(cp->Init());
  return cp;
}

ControlPlane::ControlPlane(ControlPlaneConfig config,
                           core::PublishedClock* tsc_out,
                           std::unique_ptr<TscClock> tsc, SystemClockOps* ops)
    : config_(std::move(config)),
      tsc_out_(tsc_out),
      tsc_(std::move(tsc)),
      ops_(ops),
      discipline_audit_({config_.reject_audit_interval_ns}),
      alarms_(config_.alarms) {}

ControlPlane::~ControlPlane() { Stop("shutdown"); }

absl::Status ControlPlane::Init() {
  start_mono_ = MonotonicNs(*ops_);
  LoadLeaps("");
  DisciplineConfig dc = config_.discipline;
  dc.raw_nominal_hz = tsc_->NominalHz();
  int64_t interval = config_.sources.front().sample_interval_ns;
  for (const SourceSpec& s : config_.sources) {
    interval = std::min(interval, s.sample_interval_ns);
  }
  dc.servo.sync_interval_s = static_cast<double>(interval) * 1e-9;
  ZG_ASSIGN_OR_RETURN(discipline_, ClockDiscipline::Create(dc));
  if (!config_.audit.path.empty()) {
    ZG_ASSIGN_OR_RETURN(audit_, AuditLog::Open(config_.audit));
  }
  ZG_RETURN_IF_ERROR(BuildSources());
  source_names_.resize(sources_.size());
  for (const Source& s : sources_) {
    source_names_[s.index] = s.source->info().name;
  }
  clock_alarms_.AddSources(Snapshot().sources);
  discipline_->SetEventSink(
      [this](const DisciplineEvent& e) { OnDisciplineEvent(e); });

  AuditRecord start;
  start.tai = SystemTai();
  start.event = AuditEvent::kStart;
  start.values.push_back({"version", config_.version});
  std::vector<std::string> names;
  for (const Source& s : sources_) {
    names.push_back(absl::StrCat(s.name(), " (", s.spec.text, ", priority ",
                                 s.priority, ")"));
  }
  start.values.push_back({"sources", absl::StrJoin(names, "; ")});
  start.values.push_back({"tsc_hz", tsc_->NominalHz()});
  for (const auto& [key, value] : config_.settings) {
    start.values.push_back({key, value});
  }
  stopped_ = false;  // from here on, a stop record pairs the start record
  Record(std::move(start));
  AuditRecord leaps;
  leaps.tai = SystemTai();
  leaps.event = AuditEvent::kConfigChange;
  leaps.values.push_back({"leap_file", config_.leap_file});
  leaps.values.push_back({"leap_table", leap_table_.Describe()});
  for (size_t i = 0; i < leap_warnings_.size(); ++i) {
    leaps.values.push_back(
        {absl::StrCat("warning_", i + 1), leap_warnings_[i]});
  }
  Record(std::move(leaps));
  next_refine_mono_ = start_mono_ + config_.tsc_refine_interval_ns;
  Tick();  // a model (and the sources' first polls) before any worker runs
  return absl::OkStatus();
}

void ControlPlane::LoadLeaps(const std::string& why) {
  int64_t realtime = 0;
  ops_->ReadNs(CLOCK_REALTIME, &realtime);
  LeapTableLoad load = LoadLeapTable(config_.leap_file, core::UtcNs{realtime});
  const std::string before = leap_table_.Describe();
  leap_table_ = std::move(load.table);
  leap_warnings_ = std::move(load.warnings);
  Log(LogLevel::kInfo, absl::StrCat("leap seconds: ", leap_table_.Describe()));
  for (const std::string& w : leap_warnings_) Log(LogLevel::kWarning, w);
  if (why.empty()) return;  // start-up: recorded with the start record
  AuditRecord r;
  r.tai = SystemTai();
  r.event = AuditEvent::kConfigChange;
  r.values.push_back({"reason", why});
  r.values.push_back({"leap_file", config_.leap_file});
  r.values.push_back({"leap_table", leap_table_.Describe()});
  r.values.push_back({"changed", leap_table_.Describe() != before});
  for (size_t i = 0; i < leap_warnings_.size(); ++i) {
    r.values.push_back({absl::StrCat("warning_", i + 1), leap_warnings_[i]});
  }
  Record(std::move(r));
}

void ControlPlane::AddNicClock(std::string name, NicClockReadFn read,
                               core::PublishedClock* out) {
  nics_.push_back(std::make_unique<NicClockTracker>(
      std::move(name), std::move(read), out, tsc_->NominalHz(), config_.nic));
  nic_errors_.emplace_back();
}

// ---- One step ---------------------------------------------------------------

void ControlPlane::Tick() {
  if (stopped_) return;
  ApplyQueuedChanges();  // selection follows in this same step
  const int64_t mono = MonotonicNs(*ops_);
  if (mono >= next_refine_mono_) {
    tsc_->Refine();
    next_refine_mono_ = mono + config_.tsc_refine_interval_ns;
  }
  PollSources(mono);
  const uint64_t raw_now = tsc_->NowTicks();
  last_tick_raw_ = raw_now;
  UpdateLeap(raw_now);
  published_ = discipline_->Update(raw_now);
  tsc_out_->Write(published_);
  PublishNics(mono, published_, raw_now);
  UpdateAlarms(mono, raw_now);
  if (audit_ != nullptr) {
    if (absl::Status s = audit_->MaybeSync(); !s.ok()) {
      Log(LogLevel::kError, absl::StrCat("audit log: ", s.message()));
    }
  }
  ++ticks_;
  AnswerAppliedChanges();
}

void ControlPlane::PollSources(int64_t mono) {
  for (Source& s : sources_) {
    if (mono < s.next_poll_mono) continue;
    s.next_poll_mono = mono + s.spec.poll_interval_ns;
    samples_.clear();
    ++s.polls;
    const bool ok = s.source->Poll(&samples_).ok();
    if (!ok) ++s.poll_errors;
    s.reach = static_cast<uint8_t>((s.reach << 1) |
                                   (ok && !samples_.empty() ? 1 : 0));
    discipline_->AddSamples(s.index, samples_);
    CheckSourceHealth(s);
  }
}

void ControlPlane::CheckSourceHealth(Source& s) {
  const SourceHealth h = s.source->health();
  if (h == s.last_health) return;
  AuditRecord r;
  r.tai = ServedTai(tsc_->NowTicks());
  r.event = AuditEvent::kSourceHealth;
  r.source = s.source->info().name;
  r.old_state = std::string(SourceHealthName(s.last_health));
  r.new_state = std::string(SourceHealthName(h));
  const absl::Status& problem = s.source->problem();
  if (!problem.ok())
    r.values.push_back({"reason", std::string(problem.message())});
  s.last_health = h;
  Log(h == SourceHealth::kUp ? LogLevel::kInfo : LogLevel::kWarning,
      Describe(r));
  Record(std::move(r));
}

void ControlPlane::UpdateLeap(uint64_t raw_now) {
  const core::TaiNs now = ServedTai(raw_now);
  core::ClockModel leap_fields;
  leap_table_.FillLeapFields(now, &leap_fields);
  discipline_->SetLeap(leap_fields.utc_offset_s, leap_fields.leap,
                       leap_fields.leap_at);
  const std::optional<LeapWatch::Change> c =
      leap_watch_.Update(leap_table_, now);
  if (!c) return;
  AuditRecord r;
  r.tai = now;
  r.event = c->applied ? AuditEvent::kLeapApplied : AuditEvent::kLeapScheduled;
  r.values.push_back(
      {"kind", std::string(core::LeapPendingName(c->leap.kind))});
  r.values.push_back({"leap_tai_ns", c->leap.tai.value});
  r.values.push_back({"day_ends_utc", core::FormatUtc(c->leap.utc)});
  r.values.push_back(
      {"tai_minus_utc_before", int64_t{c->leap.offset_before_s}});
  r.values.push_back({"tai_minus_utc_after", int64_t{c->leap.offset_after_s}});
  Log(LogLevel::kInfo, Describe(r));
  Record(std::move(r));
}

void ControlPlane::PublishNics(int64_t mono, const core::ClockModel& model,
                               uint64_t raw_now) {
  for (size_t i = 0; i < nics_.size(); ++i) {
    const absl::Status s = nics_[i]->Tick(mono, model, raw_now);
    const std::string msg(s.message());
    if (!s.ok() && msg != nic_errors_[i]) Log(LogLevel::kWarning, msg);
    nic_errors_[i] = msg;
  }
}

void ControlPlane::UpdateAlarms(int64_t mono, uint64_t raw_now) {
  auto status = std::make_shared<ControlPlaneStatus>(Snapshot());
  const core::TaiNs tai = ServedTai(raw_now);
  const core::UtcNs utc = leap_table_.TaiToUtc(tai);
  clock_alarms_.Update(*status, utc, mono);
  for (const AlarmEvent& e : alarms_.Evaluate(mono, tai, utc)) {
    const AlarmDef& def = AlarmDefOf(e.id);
    AuditRecord r;
    r.tai = e.tai;
    r.event = e.raised ? AuditEvent::kAlarmRaised : AuditEvent::kAlarmCleared;
    r.source = e.instance;
    r.values.push_back({"alarm", std::string(def.name)});
    r.values.push_back({"id", int64_t{static_cast<int>(e.id)}});
    r.values.push_back(
        {"severity", std::string(AlarmSeverityName(e.severity))});
    r.values.push_back({"message", e.message});
    r.values.push_back({"alarm_seq", static_cast<int64_t>(e.seq)});
    Log(e.raised && e.severity != AlarmSeverity::kInfo ? LogLevel::kWarning
                                                       : LogLevel::kInfo,
        absl::StrCat("alarm ", e.raised ? "raised" : "cleared", ": ", def.name,
                     e.instance.empty() ? "" : " ", e.instance, " (",
                     AlarmSeverityName(e.severity), "): ", e.message));
    Record(std::move(r));
  }
  status_cell_.Publish(std::move(status));
  alarm_cell_.Publish(std::make_shared<const AlarmTable>(alarms_.Table()));
}

void ControlPlane::OnDisciplineEvent(const DisciplineEvent& e) {
  clock_alarms_.OnEvent(e, source_names_, MonotonicNs(*ops_));
  std::optional<AuditRecord> r = discipline_audit_.Convert(
      e, *discipline_, SystemTai(), MonotonicNs(*ops_));
  if (!r) return;
  const Source* s =
      e.kind == EventKind::kSourceDown ? SourceAt(e.source) : nullptr;
  if (s != nullptr) {
    const ReferenceSource& src = *s->source;
    r->values.push_back(
        {"health", std::string(SourceHealthName(src.health()))});
    r->values.push_back(
        {"reason", src.problem().ok()
                       ? std::string("no sample within the source timeout")
                       : std::string(src.problem().message())});
  }
  if (std::optional<LogLevel> level = LogLevelFor(e.kind)) {
    Log(*level, Describe(*r));
  }
  Record(*std::move(r));
}

// ---- Time for records
// ---------------------------------------------------------

core::TaiNs ControlPlane::SystemTai() const {
  int64_t realtime = 0;
  ops_->ReadNs(CLOCK_REALTIME, &realtime);
  return leap_table_.UtcToTai(core::UtcNs{realtime});
}

core::TaiNs ControlPlane::ServedTai(uint64_t raw) const {
  if (discipline_ != nullptr && discipline_->servo().initialized()) {
    return discipline_->servo().model().TaiAt(raw);
  }
  return SystemTai();
}

void ControlPlane::RecordConfigChange(
    std::vector<std::pair<std::string, AuditValue>> values) {
  AuditRecord r;
  r.tai = ServedTai(tsc_->NowTicks());
  r.event = AuditEvent::kConfigChange;
  r.values = std::move(values);
  Record(std::move(r));
}

void ControlPlane::RecordAccessDenied(
    std::vector<std::pair<std::string, AuditValue>> values) {
  AuditRecord r;
  r.tai = ServedTai(tsc_->NowTicks());
  r.event = AuditEvent::kAccessDenied;
  r.values = std::move(values);
  Record(std::move(r));
}

void ControlPlane::Record(AuditRecord r) {
  if (audit_ == nullptr) return;
  r.utc = leap_table_.TaiToUtc(r.tai);
  const absl::Status s = audit_->Append(r);
  const std::string msg(s.message());
  if (!s.ok() && msg != last_audit_error_) {
    Log(LogLevel::kError,
        absl::StrCat("audit log ", audit_->path(), ": ", msg));
  }
  last_audit_error_ = msg;
}

void ControlPlane::Log(LogLevel level, const std::string& message) const {
  if (config_.log) config_.log(level, message);
}

// ---- Signals, shutdown, status
// ------------------------------------------------

void ControlPlane::Reopen(const std::string& why) {
  if (audit_ != nullptr) {
    if (absl::Status s = audit_->Reopen(); !s.ok()) {
      Log(LogLevel::kError, absl::StrCat("audit log reopen: ", s.message()));
    } else {
      Log(LogLevel::kInfo,
          absl::StrCat("audit log reopened: ", audit_->path()));
    }
  }
  LoadLeaps(
      absl::StrCat(why, ": audit log reopened, leap-second file reloaded"));
}

void ControlPlane::Stop(const std::string& reason) {
  if (stopped_) return;
  stopped_ = true;
  CancelQueuedChanges();
  AuditRecord r;
  r.tai = ServedTai(tsc_->NowTicks());
  r.event = AuditEvent::kStop;
  r.values.push_back({"reason", reason});
  r.values.push_back({"state", std::string(SyncStateName(
                                   discipline_ ? discipline_->status().state
                                               : core::SyncState::kFreerun))});
  r.values.push_back(
      {"uptime_s",
       static_cast<double>(MonotonicNs(*ops_) - start_mono_) * 1e-9});
  Record(std::move(r));
  if (audit_ != nullptr) {
    if (absl::Status s = audit_->Sync(); !s.ok()) {
      Log(LogLevel::kError, absl::StrCat("audit log: ", s.message()));
    }
  }
}

ControlPlaneStatus ControlPlane::Snapshot() const {
  ControlPlaneStatus st;
  st.model = published_;
  st.discipline = discipline_->status();
  st.holdover_in_spec_limit_ns = config_.discipline.holdover.in_spec_limit_ns;
  st.holdover_in_spec_left_s = discipline_->HoldoverInSpecLeftS(last_tick_raw_);
  st.uptime_ns = MonotonicNs(*ops_) - start_mono_;
  st.now_tai = ServedTai(tsc_->NowTicks());
  st.now_utc = leap_table_.TaiToUtc(st.now_tai);
  st.tsc = tsc_->calibration();
  for (const Source& s : sources_) {
    SourceSnapshot snap;
    snap.name = s.name();
    snap.reach = s.reach;
    snap.kind = s.source->info().kind;
    snap.spec = s.spec.text;
    snap.priority = s.priority;
    snap.enabled = s.enabled;
    snap.health = s.source->health();
    snap.problem = std::string(s.source->problem().message());
    snap.discipline = discipline_->source_status(s.index);
    snap.polls = s.polls;
    snap.poll_errors = s.poll_errors;
    if (s.gpsd != nullptr) snap.gnss = s.gpsd->gnss();
    st.sources.push_back(std::move(snap));
  }
  for (const auto& nic : nics_) st.nics.push_back(nic->status());
  st.audit_enabled = audit_ != nullptr;
  if (audit_ != nullptr) st.audit = audit_->stats();
  st.audit_suppressed = discipline_audit_.suppressed_total();
  st.leap_table = leap_table_.Describe();
  st.leap_table_expiry = leap_table_.expiry();
  st.ticks = ticks_;
  return st;
}

}  // namespace zg::servo
