// SPDX-License-Identifier: Apache-2.0
// ControlPlane: zeitgeberd's control thread — everything between the
// reference sources and the ClockModels the workers read.
//
// It owns the raw clock (the TSC, calibrated against CLOCK_MONOTONIC_RAW and
// refined about once a second), the configured reference sources (each
// polled at its own interval), the leap-second table, the ClockDiscipline
// (selection, filters, servo, holdover), the audit log, and one
// NicClockTracker per NIC clock (NIC ticks <-> TSC). Every Tick() it polls
// what is due, runs the discipline at "now", publishes the TSC model through
// the PublishedClock seqlock, and republishes each NIC model composed with
// it. Discipline events, source health changes, leap seconds, start, stop
// and configuration changes go to the audit log as JSON lines. The sources
// can change while it runs (servo/control/source_change.h): requests from
// other threads are prepared there and applied by the control thread
// between two steps. It keeps the alarm set (servo/alarms/alarm_set.h): its
// own conditions each Tick (clock_alarms.h), the data plane's through
// alarms(); every raise and clear is audited, and each Tick publishes the
// status and the alarm table for other threads (snapshots()).
//
//   ControlPlaneConfig config;
//   config.sources.push_back(*ParseSourceSpec("gpsd:127.0.0.1:2947"));
//   config.audit.path = "/var/log/zeitgeber/audit.jsonl";
//   ZG_ASSIGN_OR_RETURN(auto control, ControlPlane::Create(config, &tsc_pub));
//   control->AddNicClock("port0", read_nic, &nic_pub);
//   while (running) { control->Tick(); sleep(100ms); }   // control thread
//   // SIGHUP: control->Reopen();   shutdown: control->Stop("SIGTERM");
//   // the control socket's thread:
//   SourceChangeResult r = control->ChangeSources(request, absl::Seconds(5));
//
// One control thread creates it, ticks it, snapshots it and stops it; only
// SubmitSourceChange, ChangeSources and the snapshots (snapshots()) may be
// used from other threads (while it exists). Workers only see the models it
// publishes.
#ifndef ZG_SERVO_CONTROL_PLANE_H_
#define ZG_SERVO_CONTROL_PLANE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "core/time/clock_model.h"
#include "core/time/leap_seconds.h"
#include "servo/alarms/alarm_set.h"
#include "servo/alarms/clock_alarms.h"
#include "servo/audit/audit_log.h"
#include "servo/audit/discipline_audit.h"
#include "servo/clock/nic_clock_tracker.h"
#include "servo/clock/system_time.h"
#include "servo/clock/tsc_clock.h"
#include "servo/control/control_snapshots.h"
#include "servo/control/control_status.h"
#include "servo/control/snapshot_cell.h"
#include "servo/control/source_change.h"
#include "servo/discipline/clock_discipline.h"
#include "servo/leap/leap_file.h"
#include "servo/leap/leap_watch.h"
#include "servo/sources/source_factory.h"
#include "servo/sources/source_spec.h"

namespace zg::servo {

enum class LogLevel : uint8_t { kInfo, kWarning, kError };
// Where the control plane reports to the operator (zeitgeberd's log).
using ControlLogFn = std::function<void(LogLevel, const std::string&)>;

struct ControlPlaneConfig {
  // raw_nominal_hz is set from the TSC calibration and servo.sync_interval_s
  // from the sources' sample intervals; the rest is used as given.
  DisciplineConfig discipline;
  std::vector<SourceSpec> sources;  // at least one
  std::string leap_file = kDefaultLeapFilePath;
  AuditLogOptions audit;  // path empty: no audit log
  int64_t tsc_refine_interval_ns = 1'000'000'000;
  NicTrackerOptions nic;
  int64_t reject_audit_interval_ns = 10'000'000'000;
  // Recorded in the audit log's start record (e.g. the flags as given).
  std::vector<std::pair<std::string, std::string>> settings;
  std::string version;
  ControlLogFn log;  // may be empty
  // Applied to every spec parsed while running (a source added, a reload),
  // as zeitgeberd applied it to `sources` (--require_system_clock_sync).
  // May be empty. Called on the requesting thread.
  std::function<void(SourceSpec*)> prepare_source;
  AlarmSet::Options alarms;
};

class ControlPlane final : public ControlSnapshots {
 public:
  // Builds everything (opens devices and the audit log, loads the leap
  // table) and writes the start record. `tsc` and `ops` are seams for
  // tests; null `tsc` calibrates the real TSC (TscClock::Create, ~100 ms).
  static absl::StatusOr<std::unique_ptr<ControlPlane>> Create(
      ControlPlaneConfig config, core::PublishedClock* tsc_out,
      std::unique_ptr<TscClock> tsc = nullptr,
      SystemClockOps* ops = &RealSystemClockOps());
  ~ControlPlane() override;  // Stop("shutdown") if Stop was not called
  ControlPlane(const ControlPlane&) = delete;
  ControlPlane& operator=(const ControlPlane&) = delete;

  // Publishes `name`'s NIC ticks -> TAI model to `out` from the next Tick on.
  void AddNicClock(std::string name, NicClockReadFn read,
                   core::PublishedClock* out);

  // One control step: refine the TSC, poll due sources, update the
  // discipline, publish the TSC model and every NIC model. Call every
  // publish interval (100 ms).
  void Tick();

  // SIGHUP (or zgctl reload): re-open the audit log (after logrotate moved
  // it) and reload the leap-second file; both are recorded (config_change,
  // reason "<why>: ...").
  void Reopen(const std::string& why = "SIGHUP");

  // Records a configuration change made elsewhere (the data plane's SIGHUP
  // reload: dataplane/daemon/config_reload.h) as a config_change record.
  void RecordConfigChange(
      std::vector<std::pair<std::string, AuditValue>> values);
  // Records a login an operator surface refused (access_denied).
  void RecordAccessDenied(
      std::vector<std::pair<std::string, AuditValue>> values);

  // Writes the stop record and syncs the audit log. Idempotent. Requests
  // still queued are answered "stopping".
  void Stop(const std::string& reason);

  // ---- Live source changes (servo/control/source_change.h)
  // Any thread: parses the request and builds its new sources on the
  // calling thread (opening devices and resolving hosts may block there,
  // never on the control thread), then queues it. The control thread takes
  // queued requests at the start of a Tick (at most kMaxChangesPerTick),
  // validates each whole against the sources in force, applies it or
  // refuses it (the old sources stay in force), audits it with the caller's
  // uid, and answers after that Tick's update, so the answer names the
  // source selected with the change in force. A request that does not parse
  // or build is answered at once (and still audited).
  std::shared_ptr<SourceChangeTicket> SubmitSourceChange(
      SourceChangeRequest request);
  // SubmitSourceChange, then Wait(timeout). Never on the control thread.
  SourceChangeResult ChangeSources(SourceChangeRequest request,
                                   absl::Duration timeout);
  static constexpr int kMaxChangesPerTick = 16;

  // Control thread, between Ticks (the flagfile reload, which commits all
  // its components' changes or none): prepares `request` and validates it
  // against the sources in force; a refusal is audited. CommitSourceChange
  // then applies it (valid as long as no Tick ran in between).
  absl::StatusOr<PreparedSourceChange> PrepareSourceChangeNow(
      SourceChangeRequest request);
  SourceChangeResult CommitSourceChange(PreparedSourceChange change);

  ControlPlaneStatus Snapshot() const;

  // The alarms, for the data plane's conditions (links, workers, reloads):
  // set them between Ticks; the next Tick raises or clears, audits and
  // publishes them. Control thread only.
  AlarmSet& alarms() { return alarms_; }
  // What other threads read: published by every Tick.
  const ControlSnapshots& snapshots() const { return *this; }
  std::shared_ptr<const ControlPlaneStatus> Status() const override {
    return status_cell_.Load();
  }
  std::shared_ptr<const AlarmTable> Alarms() const override {
    return alarm_cell_.Load();
  }

  TscClock& tsc() { return *tsc_; }
  const ClockDiscipline& discipline() const { return *discipline_; }
  const core::LeapTable& leap_table() const { return leap_table_; }
  const AuditLog* audit_log() const { return audit_.get(); }

 private:
  struct Source {
    SourceSpec spec;
    std::string key;  // SourceSpecKey(spec)
    std::unique_ptr<ReferenceSource> source;
    GpsdSource* gpsd = nullptr;
    int index = -1;  // in the discipline
    int priority = 0;
    bool enabled = true;
    int64_t next_poll_mono = 0;
    uint64_t polls = 0;
    uint64_t poll_errors = 0;
    uint8_t reach = 0;  // bit 0: the latest poll gave a sample
    SourceHealth last_health = SourceHealth::kUnknown;

    const std::string& name() const { return source->info().name; }
  };
  // How a kReplaceAll maps onto the sources in force.
  struct Replacement {
    std::vector<int> kept;           // per new spec: its source in force, or -1
    std::vector<bool> removed;       // per source in force
    std::vector<std::string> names;  // per new spec
    bool changes_anything = false;
  };
  struct QueuedChange {
    std::shared_ptr<SourceChangeTicket> ticket;  // null: answered already
    PreparedSourceChange change;
  };

  ControlPlane(ControlPlaneConfig config, core::PublishedClock* tsc_out,
               std::unique_ptr<TscClock> tsc, SystemClockOps* ops);
  absl::Status Init();
  // `why` empty: at start (recorded with the start record).
  void LoadLeaps(const std::string& why);

  // control_sources.cc: the sources in force and changes to them.
  SourceEnv Env() const;
  absl::Status BuildSources();
  Source MakeSource(const SourceSpec& spec, BuiltSource built);
  // Any thread.
  PreparedSourceChange Prepare(SourceChangeRequest request) const;
  // Control thread.
  absl::Status Validate(const PreparedSourceChange& change) const;
  absl::StatusOr<Replacement> PlanReplacement(
      const PreparedSourceChange& change) const;
  SourceChangeResult Apply(PreparedSourceChange change);
  void ApplyReplaceAll(PreparedSourceChange& change, SourceChangeResult& out);
  void ApplyToOne(PreparedSourceChange& change, SourceChangeResult& out);
  void ApplyQueuedChanges();
  void AnswerAppliedChanges();
  void SourcesChanged();  // the gpsd link and the in-force keys
  Source* FindSource(const std::string& name);
  const Source* FindSource(const std::string& name) const;
  const Source* SourceAt(int index) const;  // by discipline index
  void RecordSourceChange(const SourceChangeRequest& request,
                          const SourceChangeEntry& entry,
                          const std::string& old_state,
                          std::vector<std::pair<std::string, AuditValue>> more);
  void RecordRefusal(const PreparedSourceChange& change,
                     const std::string& error);
  void CancelQueuedChanges();

  void PollSources(int64_t mono);
  void CheckSourceHealth(Source& s);
  void UpdateLeap(uint64_t raw_now);
  void PublishNics(int64_t mono, const core::ClockModel& model,
                   uint64_t raw_now);
  void OnDisciplineEvent(const DisciplineEvent& e);
  // Judges the clock's alarm conditions, makes the transitions due, audits
  // and logs them, and publishes the status and the alarm table.
  void UpdateAlarms(int64_t mono, uint64_t raw_now);

  // The served TAI at `raw` (the discipline's model), or the system clock's
  // before the model has its first sample.
  core::TaiNs ServedTai(uint64_t raw) const;
  core::TaiNs SystemTai() const;
  void Record(AuditRecord r);
  void Log(LogLevel level, const std::string& message) const;

  ControlPlaneConfig config_;
  core::PublishedClock* tsc_out_;
  std::unique_ptr<TscClock> tsc_;
  SystemClockOps* ops_;
  core::LeapTable leap_table_ = core::LeapTable::BuiltIn();
  std::vector<std::string> leap_warnings_;
  LeapWatch leap_watch_;
  std::unique_ptr<ClockDiscipline> discipline_;
  std::unique_ptr<AuditLog> audit_;
  DisciplineAudit discipline_audit_;
  std::vector<Source> sources_;
  GpsdLink gpsd_link_;  // the first gpsd source, for pps coarse=gpsd
  // Held only to push, swap or copy, never while building, applying or
  // writing: a bounded hand-over (Tick only try_locks it to take requests).
  mutable std::mutex changes_mu_;
  std::vector<QueuedChange> queued_;        // guarded by changes_mu_
  std::vector<std::string> in_force_keys_;  // guarded by changes_mu_
  bool changes_closed_ = false;             // guarded by changes_mu_; Stop
  // Applied in this Tick, answered at its end. Control thread.
  std::vector<
      std::pair<std::shared_ptr<SourceChangeTicket>, SourceChangeResult>>
      answering_;
  std::vector<std::unique_ptr<NicClockTracker>> nics_;
  std::vector<std::string> nic_errors_;   // last error logged, per NIC
  std::vector<ReferenceSample> samples_;  // reused poll buffer
  core::ClockModel published_;
  int64_t next_refine_mono_ = 0;
  int64_t start_mono_ = 0;
  uint64_t last_tick_raw_ = 0;
  uint64_t ticks_ = 0;
  std::string last_audit_error_;
  bool stopped_ = true;  // until the start record is written
  AlarmSet alarms_;
  ClockAlarms clock_alarms_{&alarms_};
  std::vector<std::string> source_names_;  // by discipline index
  // Written by: the control thread (Tick). Read by: any thread.
  SnapshotCell<ControlPlaneStatus> status_cell_;
  SnapshotCell<AlarmTable> alarm_cell_;
};

}  // namespace zg::servo

#endif  // ZG_SERVO_CONTROL_PLANE_H_
