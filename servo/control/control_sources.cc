// SPDX-License-Identifier: Apache-2.0
// ControlPlane, its reference sources: building them at start, and live
// changes (servo/control/source_change.h). A change is prepared on the
// requesting thread (parse, then build: opening devices and resolving hosts
// happen there), queued, then validated against the sources in force,
// applied, audited and answered by the control thread between two steps;
// the discipline (servo/discipline/clock_discipline.h) hands selection over
// as it does for a lost source.
#include <algorithm>
#include <iterator>
#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/base/status_macros.h"
#include "servo/control/control_plane.h"

namespace zg::servo {
namespace {

// The priority a spec gives its source: priority=, else its kind's default.
int SpecPriority(const SourceSpec& spec) {
  if (spec.priority) return *spec.priority;
  switch (spec.kind) {
    case SourceKind::kSystemClock:
      return spec.system.info.priority;
    case SourceKind::kGpsd:
      return spec.gpsd.info.priority;
    case SourceKind::kPhc:
      return spec.phc.info.priority;
    case SourceKind::kPps:
      return spec.pps.info.priority;
    case SourceKind::kSimulated:
      return spec.sim.info.priority;
  }
  return 0;
}

bool NeedsGpsd(const SourceSpec& spec) {
  return spec.kind == SourceKind::kPps && spec.pps_coarse_from_gpsd;
}

absl::Status NoGpsdFor(const SourceSpec& spec) {
  return absl::InvalidArgumentError(
      absl::StrCat("--source=", spec.text,
                   ": coarse=gpsd needs a gpsd source: add "
                   "--source=gpsd:HOST:PORT"));
}

// A source's configuration state in source_change records.
const char* ConfigState(bool present, bool enabled) {
  if (!present) return "absent";
  return enabled ? "enabled" : "disabled";
}

bool ActsOnOne(SourceAction a) {
  return a != SourceAction::kAdd && a != SourceAction::kReplaceAll;
}

SourceChangeResult Refused(SourceAction action, std::string error) {
  SourceChangeResult r;
  r.action = action;
  r.error = std::move(error);
  return r;
}

std::vector<std::pair<std::string, AuditValue>> RequestValues(
    const SourceChangeRequest& r) {
  std::vector<std::pair<std::string, AuditValue>> v;
  v.push_back({"action", std::string(SourceActionName(r.action))});
  if (!r.origin.empty()) v.push_back({"origin", r.origin});
  if (r.uid) v.push_back({"uid", int64_t{*r.uid}});
  return v;
}

}  // namespace

// ---- The sources at start ---------------------------------------------------

SourceEnv ControlPlane::Env() const {
  SourceEnv env;
  env.raw = tsc_.get();
  // Called by the sources' Poll only: on the control thread.
  env.tai_minus_utc = [this](core::UtcNs t) {
    return leap_table_.TaiMinusUtc(t);
  };
  env.ops = ops_;
  env.gpsd = &gpsd_link_;
  return env;
}

ControlPlane::Source ControlPlane::MakeSource(const SourceSpec& spec,
                                              BuiltSource built) {
  Source s;
  s.spec = spec;
  s.key = SourceSpecKey(spec);
  s.gpsd = built.gpsd;
  s.source = std::move(built.source);
  s.priority = s.source->info().priority;
  return s;
}

absl::Status ControlPlane::BuildSources() {
  const bool have_gpsd = std::any_of(
      config_.sources.begin(), config_.sources.end(),
      [](const SourceSpec& s) { return s.kind == SourceKind::kGpsd; });
  for (const SourceSpec& spec : config_.sources) {
    if (NeedsGpsd(spec) && !have_gpsd) return NoGpsdFor(spec);
  }
  const SourceEnv env = Env();
  for (const SourceSpec& spec : config_.sources) {
    ZG_ASSIGN_OR_RETURN(BuiltSource b, BuildSource(spec, env));
    Source s = MakeSource(spec, std::move(b));
    if (const Source* other = FindSource(s.name())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "two sources named '", s.name(), "' (--source=", other->spec.text,
          " and --source=", spec.text, "): give one of them name=..."));
    }
    ZG_ASSIGN_OR_RETURN(s.index, discipline_->AddSource(s.source->info()));
    s.next_poll_mono = start_mono_;
    sources_.push_back(std::move(s));
  }
  SourcesChanged();
  return absl::OkStatus();
}

void ControlPlane::SourcesChanged() {
  gpsd_link_.source = nullptr;
  std::vector<std::string> keys;
  for (const Source& s : sources_) {
    if (s.gpsd != nullptr && gpsd_link_.source == nullptr) {
      gpsd_link_.source = s.gpsd;
    }
    keys.push_back(s.key);
  }
  std::lock_guard<std::mutex> lock(changes_mu_);
  in_force_keys_.swap(keys);
}

ControlPlane::Source* ControlPlane::FindSource(const std::string& name) {
  for (Source& s : sources_) {
    if (s.name() == name) return &s;
  }
  return nullptr;
}

const ControlPlane::Source* ControlPlane::FindSource(
    const std::string& name) const {
  return const_cast<ControlPlane*>(this)->FindSource(name);
}

const ControlPlane::Source* ControlPlane::SourceAt(int index) const {
  for (const Source& s : sources_) {
    if (s.index == index) return &s;
  }
  return nullptr;
}

// ---- Requests from any thread -----------------------------------------------

PreparedSourceChange ControlPlane::Prepare(SourceChangeRequest request) const {
  PreparedSourceChange p;
  p.request = std::move(request);
  const SourceChangeRequest& r = p.request;
  if (ActsOnOne(r.action)) {
    if (r.name.empty() || r.name.size() > kMaxSourceSpecBytes) {
      p.status = absl::InvalidArgumentError(
          absl::StrCat("a source name of 1..", kMaxSourceSpecBytes,
                       " bytes is required (zgctl sources lists them)"));
    } else if (r.action == SourceAction::kPriority &&
               (r.priority < -1000 || r.priority > 1000)) {
      p.status = absl::InvalidArgumentError(absl::StrCat(
          "priority ", r.priority, ": must be -1000..1000 (lower preferred)"));
    }
    return p;
  }
  const std::vector<std::string> texts = r.action == SourceAction::kAdd
                                             ? std::vector<std::string>{r.spec}
                                             : r.specs;
  if (texts.empty()) {
    p.status = absl::InvalidArgumentError(
        "no reference source: give at least one --source");
    return p;
  }
  if (texts.size() > static_cast<size_t>(ClockDiscipline::kMaxSources)) {
    p.status = absl::InvalidArgumentError(absl::StrCat(
        texts.size(), " sources: at most ", ClockDiscipline::kMaxSources));
    return p;
  }
  // A replacement rebuilds only what is not in force already.
  std::vector<std::string> in_force;
  if (r.action == SourceAction::kReplaceAll) {
    std::lock_guard<std::mutex> lock(changes_mu_);
    in_force = in_force_keys_;
  }
  const SourceEnv env = Env();
  for (const std::string& text : texts) {
    absl::StatusOr<SourceSpec> spec = ParseSourceSpec(text);
    if (spec.ok() && config_.prepare_source) config_.prepare_source(&*spec);
    BuiltSource built;
    if (spec.ok()) {
      const auto kept =
          std::find(in_force.begin(), in_force.end(), SourceSpecKey(*spec));
      if (kept != in_force.end()) {
        in_force.erase(kept);
      } else if (absl::StatusOr<BuiltSource> b = BuildSource(*spec, env);
                 b.ok()) {
        built = *std::move(b);
      } else {
        spec = b.status();
      }
    }
    if (!spec.ok()) {
      p.status = spec.status();
      p.specs.clear();
      p.built.clear();  // what was built is closed here, on this thread
      return p;
    }
    p.specs.push_back(*std::move(spec));
    p.built.push_back(std::move(built));
  }
  return p;
}

std::shared_ptr<SourceChangeTicket> ControlPlane::SubmitSourceChange(
    SourceChangeRequest request) {
  const SourceAction action = request.action;
  auto ticket = std::make_shared<SourceChangeTicket>(action);
  QueuedChange q;
  q.change = Prepare(std::move(request));
  if (q.change.status.ok()) {
    q.ticket = ticket;
  } else {  // answered now; the control thread still audits it
    ticket->Take();
    ticket->Complete(Refused(action, std::string(q.change.status.message())));
  }
  bool closed = false;
  {
    std::lock_guard<std::mutex> lock(changes_mu_);
    closed = changes_closed_;
    if (!closed) queued_.push_back(std::move(q));
  }
  if (closed && ticket->Take()) {
    ticket->Complete(Refused(action, "not applied: zeitgeberd is stopping"));
  }
  return ticket;
}

SourceChangeResult ControlPlane::ChangeSources(SourceChangeRequest request,
                                               absl::Duration timeout) {
  return SubmitSourceChange(std::move(request))->Wait(timeout);
}

// ---- The control thread -----------------------------------------------------

void ControlPlane::ApplyQueuedChanges() {
  std::vector<QueuedChange> batch;
  {
    std::unique_lock<std::mutex> lock(changes_mu_, std::try_to_lock);
    if (!lock.owns_lock() || queued_.empty()) return;  // next Tick
    const size_t n =
        std::min(queued_.size(), static_cast<size_t>(kMaxChangesPerTick));
    batch.assign(std::make_move_iterator(queued_.begin()),
                 std::make_move_iterator(queued_.begin() + n));
    queued_.erase(queued_.begin(), queued_.begin() + n);
  }
  for (QueuedChange& q : batch) {
    if (q.ticket == nullptr) {
      RecordRefusal(q.change, std::string(q.change.status.message()));
      continue;
    }
    if (!q.ticket->Take()) continue;  // withdrawn by its caller
    SourceChangeResult r = Apply(std::move(q.change));
    answering_.emplace_back(std::move(q.ticket), std::move(r));
  }
}

void ControlPlane::AnswerAppliedChanges() {
  if (answering_.empty()) return;
  const Source* selected = SourceAt(discipline_->status().selected);
  for (auto& [ticket, result] : answering_) {
    if (result.ok) result.selected = selected ? selected->name() : "";
    ticket->Complete(std::move(result));
  }
  answering_.clear();
}

void ControlPlane::CancelQueuedChanges() {
  std::vector<QueuedChange> batch;
  {
    std::lock_guard<std::mutex> lock(changes_mu_);
    changes_closed_ = true;
    batch.swap(queued_);
  }
  for (QueuedChange& q : batch) {
    if (q.ticket != nullptr && q.ticket->Take()) {
      q.ticket->Complete(Refused(q.change.request.action,
                                 "not applied: zeitgeberd is stopping"));
    }
  }
}

absl::StatusOr<PreparedSourceChange> ControlPlane::PrepareSourceChangeNow(
    SourceChangeRequest request) {
  PreparedSourceChange p = Prepare(std::move(request));
  if (absl::Status s = Validate(p); !s.ok()) {
    RecordRefusal(p, std::string(s.message()));
    return s;
  }
  if (p.request.action == SourceAction::kReplaceAll) {
    Replacement plan = *PlanReplacement(p);  // validated
    p.names_after = std::move(plan.names);
    p.changes_anything = plan.changes_anything;
  }
  return p;
}

SourceChangeResult ControlPlane::CommitSourceChange(
    PreparedSourceChange change) {
  return Apply(std::move(change));
}

absl::StatusOr<ControlPlane::Replacement> ControlPlane::PlanReplacement(
    const PreparedSourceChange& c) const {
  Replacement plan;
  plan.kept.assign(c.specs.size(), -1);
  plan.removed.assign(sources_.size(), true);
  std::vector<std::string> names;
  bool have_gpsd = false;
  for (size_t i = 0; i < c.specs.size(); ++i) {
    const std::string key = SourceSpecKey(c.specs[i]);
    for (size_t j = 0; j < sources_.size(); ++j) {
      if (plan.removed[j] && sources_[j].key == key) {
        plan.kept[i] = static_cast<int>(j);
        plan.removed[j] = false;
        break;
      }
    }
    const Source* kept = plan.kept[i] >= 0 ? &sources_[plan.kept[i]] : nullptr;
    if (kept == nullptr && c.built[i].source == nullptr) {
      return absl::AbortedError(
          "the sources in force changed while this change was prepared: "
          "try again");
    }
    const std::string& name =
        kept ? kept->name() : c.built[i].source->info().name;
    for (size_t k = 0; k < names.size(); ++k) {
      if (names[k] == name) {
        return absl::InvalidArgumentError(absl::StrCat(
            "two sources named '", name, "' (--source=", c.specs[k].text,
            " and --source=", c.specs[i].text, "): give one of them name=..."));
      }
    }
    names.push_back(name);
    have_gpsd |= kept ? kept->gpsd != nullptr : c.built[i].gpsd != nullptr;
    plan.changes_anything |=
        kept == nullptr || plan.kept[i] != static_cast<int>(i) ||
        !kept->enabled || kept->priority != SpecPriority(c.specs[i]);
  }
  for (const SourceSpec& spec : c.specs) {
    if (NeedsGpsd(spec) && !have_gpsd) return NoGpsdFor(spec);
  }
  plan.changes_anything |= c.specs.size() != sources_.size();
  plan.names = std::move(names);
  return plan;
}

absl::Status ControlPlane::Validate(const PreparedSourceChange& c) const {
  ZG_RETURN_IF_ERROR(c.status);
  const SourceChangeRequest& r = c.request;
  if (r.action == SourceAction::kReplaceAll) {
    return PlanReplacement(c).status();
  }
  if (r.action == SourceAction::kAdd) {
    const std::string& name = c.built[0].source->info().name;
    if (const Source* s = FindSource(name)) {
      return absl::AlreadyExistsError(absl::StrCat(
          "a source named '", name, "' is already configured (--source=",
          s->spec.text, "): delete it first, or give the new one name=..."));
    }
    if (sources_.size() >= static_cast<size_t>(ClockDiscipline::kMaxSources)) {
      return absl::ResourceExhaustedError(
          absl::StrCat("at most ", ClockDiscipline::kMaxSources,
                       " sources: delete one first"));
    }
    if (NeedsGpsd(c.specs[0]) && gpsd_link_.source == nullptr) {
      return NoGpsdFor(c.specs[0]);
    }
    return absl::OkStatus();
  }
  const Source* s = FindSource(r.name);
  if (s == nullptr) {
    std::vector<std::string> names;
    for (const Source& src : sources_) names.push_back(src.name());
    return absl::NotFoundError(
        absl::StrCat("no source named '", r.name,
                     "' (configured: ", absl::StrJoin(names, ", "), ")"));
  }
  if (r.action != SourceAction::kDelete) return absl::OkStatus();
  if (sources_.size() == 1) {
    return absl::FailedPreconditionError(absl::StrCat(
        "'", r.name,
        "' is the only source: add another before deleting it (zeitgeberd "
        "needs at least one; `disable` stops selecting it)"));
  }
  if (s->gpsd == nullptr) return absl::OkStatus();
  for (const Source& other : sources_) {
    if (&other != s && other.gpsd != nullptr) return absl::OkStatus();
  }
  for (const Source& other : sources_) {
    if (NeedsGpsd(other.spec)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "--source=", other.spec.text, " takes its second from gpsd source '",
          r.name, "' (coarse=gpsd): delete or change it first"));
    }
  }
  return absl::OkStatus();
}

SourceChangeResult ControlPlane::Apply(PreparedSourceChange c) {
  const SourceAction action = c.request.action;
  if (absl::Status s = Validate(c); !s.ok()) {
    RecordRefusal(c, std::string(s.message()));
    return Refused(action, std::string(s.message()));
  }
  SourceChangeResult out;
  out.ok = true;
  out.action = action;
  out.persistent = c.request.from_flagfile;
  if (action == SourceAction::kReplaceAll) {
    ApplyReplaceAll(c, out);
  } else {
    ApplyToOne(c, out);
  }
  SourcesChanged();
  std::vector<std::string> what;
  for (const SourceChangeEntry& e : out.changes) {
    if (e.change != "unchanged") what.push_back(e.change + " " + e.source);
  }
  Log(LogLevel::kInfo,
      absl::StrCat("sources: ", SourceActionName(action), " (",
                   c.request.origin.empty() ? "api" : c.request.origin,
                   c.request.uid ? absl::StrCat(", uid ", *c.request.uid) : "",
                   "): ", what.empty() ? "nothing changed" : "",
                   absl::StrJoin(what, ", ")));
  return out;
}

void ControlPlane::ApplyToOne(PreparedSourceChange& c,
                              SourceChangeResult& out) {
  const SourceChangeRequest& r = c.request;
  if (r.action == SourceAction::kAdd) {
    Source s = MakeSource(c.specs[0], std::move(c.built[0]));
    // Validated: a free slot exists.
    s.index = discipline_->AddSource(s.source->info()).value_or(-1);
    s.next_poll_mono = MonotonicNs(*ops_);  // polled in this very step
    SourceChangeEntry e{s.name(), "added", s.spec.text, s.priority, true};
    sources_.push_back(std::move(s));
    RecordSourceChange(r, e, ConfigState(false, false), {});
    out.changes.push_back(std::move(e));
    return;
  }
  const auto it =
      std::find_if(sources_.begin(), sources_.end(),
                   [&](const Source& s) { return s.name() == r.name; });
  Source& s = *it;  // validated: it exists
  SourceChangeEntry e{s.name(), "unchanged", s.spec.text, s.priority,
                      s.enabled};
  const std::string before = ConfigState(true, s.enabled);
  std::vector<std::pair<std::string, AuditValue>> more;
  switch (r.action) {
    case SourceAction::kDelete:
      discipline_->RemoveSource(s.index).IgnoreError();
      e.change = "removed";
      sources_.erase(it);  // SourcesChanged() follows before any poll
      break;
    case SourceAction::kPriority:
      if (r.priority != s.priority) {
        more.push_back({"old_priority", int64_t{s.priority}});
        discipline_->SetSourcePriority(s.index, r.priority).IgnoreError();
        s.priority = e.priority = r.priority;
        e.change = "priority";
      }
      break;
    case SourceAction::kEnable:
    case SourceAction::kDisable: {
      const bool enable = r.action == SourceAction::kEnable;
      if (enable != s.enabled) {
        discipline_->SetSourceEnabled(s.index, enable).IgnoreError();
        s.enabled = e.enabled = enable;
        e.change = enable ? "enabled" : "disabled";
      }
      break;
    }
    case SourceAction::kAdd:
    case SourceAction::kReplaceAll:
      break;
  }
  if (e.change != "unchanged") {
    RecordSourceChange(r, e, before, std::move(more));
  }
  out.changes.push_back(std::move(e));
}

void ControlPlane::ApplyReplaceAll(PreparedSourceChange& c,
                                   SourceChangeResult& out) {
  const SourceChangeRequest& r = c.request;
  const Replacement plan = *PlanReplacement(c);  // validated
  // Removed first: their names and discipline slots become free.
  std::vector<std::string> new_names;
  for (size_t i = 0; i < c.specs.size(); ++i) {
    new_names.push_back(plan.kept[i] >= 0 ? sources_[plan.kept[i]].name()
                                          : c.built[i].source->info().name);
  }
  std::vector<SourceChangeEntry> removed;
  std::vector<const Source*> replaced;  // parallel to c.specs
  replaced.assign(c.specs.size(), nullptr);
  for (size_t j = 0; j < sources_.size(); ++j) {
    if (!plan.removed[j]) continue;
    const Source& s = sources_[j];
    discipline_->RemoveSource(s.index).IgnoreError();
    const auto same = std::find(new_names.begin(), new_names.end(), s.name());
    if (same != new_names.end() && plan.kept[same - new_names.begin()] < 0) {
      replaced[same - new_names.begin()] = &s;
      continue;
    }
    SourceChangeEntry e{s.name(), "removed", s.spec.text, s.priority,
                        s.enabled};
    RecordSourceChange(r, e, ConfigState(true, s.enabled), {});
    removed.push_back(std::move(e));
  }
  const int64_t now = MonotonicNs(*ops_);
  std::vector<Source> next;
  for (size_t i = 0; i < c.specs.size(); ++i) {
    const SourceSpec& spec = c.specs[i];
    if (plan.kept[i] < 0) {
      Source s = MakeSource(spec, std::move(c.built[i]));
      s.index = discipline_->AddSource(s.source->info()).value_or(-1);
      s.next_poll_mono = now;
      SourceChangeEntry e{s.name(), "added", spec.text, s.priority, true};
      if (const Source* old = replaced[i]) {
        e.change = "replaced";
        RecordSourceChange(r, e, ConfigState(true, old->enabled),
                           {{"old_spec", old->spec.text}});
      } else {
        RecordSourceChange(r, e, ConfigState(false, false), {});
      }
      out.changes.push_back(std::move(e));
      next.push_back(std::move(s));
      continue;
    }
    Source& s = sources_[plan.kept[i]];
    // The flagfile is the truth: its priority, and enabled.
    const int priority = SpecPriority(spec);
    SourceChangeEntry e{s.name(), "unchanged", spec.text, priority, true};
    const std::string before = ConfigState(true, s.enabled);
    std::vector<std::pair<std::string, AuditValue>> more;
    if (!s.enabled) {
      discipline_->SetSourceEnabled(s.index, true).IgnoreError();
      e.change = "enabled";
    }
    if (priority != s.priority) {
      more.push_back({"old_priority", int64_t{s.priority}});
      discipline_->SetSourcePriority(s.index, priority).IgnoreError();
      if (e.change == "unchanged") e.change = "priority";
    }
    s.enabled = true;
    s.priority = priority;
    s.spec = spec;
    if (e.change != "unchanged") {
      RecordSourceChange(r, e, before, std::move(more));
    }
    out.changes.push_back(std::move(e));
    next.push_back(std::move(s));
  }
  for (SourceChangeEntry& e : removed) out.changes.push_back(std::move(e));
  // The removed (and moved-from) ones go when `old` does: after
  // SourcesChanged() has pointed the gpsd link elsewhere, before any poll.
  std::vector<Source> old = std::exchange(sources_, std::move(next));
  SourcesChanged();
}

// ---- Audit ------------------------------------------------------------------

void ControlPlane::RecordSourceChange(
    const SourceChangeRequest& request, const SourceChangeEntry& entry,
    const std::string& old_state,
    std::vector<std::pair<std::string, AuditValue>> more) {
  AuditRecord rec;
  rec.tai = ServedTai(tsc_->NowTicks());
  rec.event = AuditEvent::kSourceChange;
  rec.source = entry.source;
  rec.old_state = old_state;
  rec.new_state = ConfigState(entry.change != "removed", entry.enabled);
  rec.values = RequestValues(request);
  rec.values.push_back({"outcome", std::string("ok")});
  rec.values.push_back({"change", entry.change});
  rec.values.push_back({"spec", entry.spec});
  rec.values.push_back({"priority", int64_t{entry.priority}});
  rec.values.push_back({"persistent", request.from_flagfile});
  for (auto& v : more) rec.values.push_back(std::move(v));
  Record(std::move(rec));
}

void ControlPlane::RecordRefusal(const PreparedSourceChange& c,
                                 const std::string& error) {
  const SourceChangeRequest& r = c.request;
  AuditRecord rec;
  rec.tai = ServedTai(tsc_->NowTicks());
  rec.event = AuditEvent::kSourceChange;
  if (ActsOnOne(r.action)) rec.source = r.name;
  rec.values = RequestValues(r);
  rec.values.push_back({"outcome", std::string("rejected")});
  rec.values.push_back({"error", error});
  if (r.action == SourceAction::kAdd) rec.values.push_back({"spec", r.spec});
  if (r.action == SourceAction::kReplaceAll) {
    rec.values.push_back({"specs", absl::StrJoin(r.specs, " ")});
  }
  if (r.action == SourceAction::kPriority) {
    rec.values.push_back({"priority", int64_t{r.priority}});
  }
  Log(LogLevel::kWarning,
      absl::StrCat("sources: ", SourceActionName(r.action),
                   " refused, the sources in force stay: ", error));
  Record(std::move(rec));
}

}  // namespace zg::servo
