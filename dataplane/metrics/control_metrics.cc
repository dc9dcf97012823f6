// SPDX-License-Identifier: Apache-2.0
#include "dataplane/metrics/control_metrics.h"

#include <cstddef>

#include "servo/holdover/holdover.h"
#include "servo/sources/gpsd_messages.h"
#include "servo/sources/source_health.h"
#include "servo/sources/source_spec.h"

namespace zg::dataplane {
namespace {

struct Def {
  const char* name;
  const char* help;
  bool counter;
};

constexpr Def kDefs[] = {
    {"zeitgeber_source_up",
     "1 while the source delivers samples within the source timeout.", false},
    {"zeitgeber_source_selected", "1 for the source the clock follows.", false},
    {"zeitgeber_source_enabled",
     "0 while the source is disabled (zgctl source disable): measured, never "
     "selected.",
     false},
    {"zeitgeber_source_health",
     "1 for the source's own health (unknown, up, degraded, down).", false},
    {"zeitgeber_source_priority", "Configured priority (lower preferred).",
     false},
    {"zeitgeber_source_offset_seconds",
     "Latest sample of the source minus the served clock.", false},
    {"zeitgeber_source_falseticker",
     "1 if the source was out-voted at the last selection.", false},
    {"zeitgeber_source_suspect",
     "1 if the source's recent samples all failed the jump gate.", false},
    {"zeitgeber_source_samples_total", "Samples offered by the source.", true},
    {"zeitgeber_source_samples_accepted_total", "Samples fed to the servo.",
     true},
    {"zeitgeber_source_samples_rejected_total",
     "Samples rejected, by reason (outlier, jump, invalid).", true},
    {"zeitgeber_source_poll_errors_total", "Polls that failed.", true},
    {"zeitgeber_gnss_connected", "1 while connected to gpsd.", false},
    {"zeitgeber_gnss_fix_mode", "gpsd TPV mode: 0/1 no fix, 2 2D, 3 3D.",
     false},
    {"zeitgeber_gnss_satellites_seen", "Satellites in view per constellation.",
     false},
    {"zeitgeber_gnss_satellites_used",
     "Satellites used in the fix per constellation.", false},
    {"zeitgeber_gnss_time_error_seconds",
     "gpsd's estimated time error (TPV ept).", false},
    {"zeitgeber_gnss_messages_total", "gpsd messages by class.", true},
    {"zeitgeber_discipline_state",
     "1 for the discipline's state (freerun, locking, locked, "
     "holdover_in_spec, holdover_out_of_spec).",
     false},
    {"zeitgeber_discipline_error_bound_seconds",
     "Predicted error bound of the served clock at the last update.", false},
    {"zeitgeber_discipline_frequency_offset_ppb",
     "Raw clock (TSC) frequency vs its nominal rate, as modelled.", false},
    {"zeitgeber_discipline_frequency_uncertainty_ppb",
     "Uncertainty of the learned frequency (holdover runs on it).", false},
    {"zeitgeber_discipline_holdover_seconds",
     "Time since the reference was lost (0 while tracking).", false},
    {"zeitgeber_discipline_steps_total", "Phase steps of the served clock.",
     true},
    {"zeitgeber_tsc_frequency_hz",
     "TSC frequency measured against CLOCK_MONOTONIC_RAW.", false},
    {"zeitgeber_tsc_frequency_uncertainty_ppb",
     "Uncertainty of the TSC frequency (3 sigma).", false},
    {"zeitgeber_tsc_frequency_drift_ppb_per_second",
     "Change of the TSC frequency estimate between windows.", false},
    {"zeitgeber_tsc_calibration_steps_total",
     "TSC vs MONOTONIC_RAW discontinuities (TSC reset, VM migration).", true},
    {"zeitgeber_nic_clock_frequency_hz", "NIC clock ticks per TSC second.",
     false},
    {"zeitgeber_nic_clock_correlation_uncertainty_ppb",
     "Uncertainty of the NIC/TSC rate.", false},
    {"zeitgeber_nic_clock_drift_ppb_per_second",
     "Change of the NIC/TSC rate between segments.", false},
    {"zeitgeber_nic_clock_mapping_error_seconds",
     "Correlation error added to the NIC model's bound.", false},
    {"zeitgeber_nic_clock_bracket_half_width_seconds",
     "Widest half-width of the TSC bracket around a NIC clock read.", false},
    {"zeitgeber_nic_clock_residual_rms_seconds",
     "Scatter of the NIC/TSC correlation points about the fitted line.", false},
    {"zeitgeber_nic_clock_steps_total", "NIC clock steps detected.", true},
    {"zeitgeber_nic_clock_read_errors_total", "Failed NIC clock reads.", true},
    {"zeitgeber_audit_records_total", "Audit log records written.", true},
    {"zeitgeber_audit_write_errors_total", "Audit log writes that failed.",
     true},
    {"zeitgeber_audit_rotations_total", "Audit log rotations.", true},
    {"zeitgeber_audit_suppressed_total",
     "Rejected-sample records not written (rate limit).", true},
    {"zeitgeber_leap_table_expiry_timestamp_seconds",
     "When the leap-second table expires (Unix time, UTC).", false},
};

constexpr const char* kStates[] = {"freerun", "locking", "locked",
                                   "holdover_in_spec", "holdover_out_of_spec"};
constexpr servo::SourceHealth kHealths[] = {
    servo::SourceHealth::kUnknown, servo::SourceHealth::kUp,
    servo::SourceHealth::kDegraded, servo::SourceHealth::kDown};

}  // namespace

ControlMetrics::ControlMetrics(prometheus::Registry& registry)
    : registry_(registry) {
  for (const Def& d : kDefs) {
    if (d.counter) {
      counters_[d.name] =
          &prometheus::BuildCounter().Name(d.name).Help(d.help).Register(
              registry_);
    } else {
      gauges_[d.name] =
          &prometheus::BuildGauge().Name(d.name).Help(d.help).Register(
              registry_);
    }
  }
}

prometheus::Gauge& ControlMetrics::G(const std::string& name,
                                     const Labels& labels) {
  if (recording_ != nullptr) recording_->series.insert({name, labels});
  return gauges_.at(name)->Add(labels);
}

void ControlMetrics::C(const std::string& name, const Labels& labels,
                       double total) {
  if (recording_ != nullptr) recording_->series.insert({name, labels});
  prometheus::Counter& c = counters_.at(name)->Add(labels);
  if (total > c.Value()) c.Increment(total - c.Value());
}

void ControlMetrics::RemoveSourceSeries(const std::string& source) {
  const auto it = sources_.find(source);
  if (it == sources_.end()) return;
  for (const auto& [name, labels] : it->second.series) {
    if (const auto g = gauges_.find(name); g != gauges_.end()) {
      g->second->Remove(&g->second->Add(labels));
    } else if (const auto c = counters_.find(name); c != counters_.end()) {
      c->second->Remove(&c->second->Add(labels));
    }
  }
  sources_.erase(it);
}

void ControlMetrics::Update(const servo::ControlPlaneStatus& st) {
  std::set<std::string> current;
  for (const servo::SourceSnapshot& s : st.sources) {
    current.insert(s.name);
    if (const auto it = sources_.find(s.name);
        it != sources_.end() && it->second.spec != s.spec) {
      RemoveSourceSeries(s.name);  // rebuilt: its counters start again
    }
    recording_ = &sources_[s.name];
    recording_->spec = s.spec;
    UpdateSource(s);
    recording_ = nullptr;
  }
  for (auto it = sources_.begin(); it != sources_.end();) {
    const std::string name = (it++)->first;
    if (current.count(name) == 0) RemoveSourceSeries(name);
  }
  UpdateDiscipline(st);
  for (const servo::NicClockStatus& n : st.nics) UpdateNic(n);
  G("zeitgeber_tsc_frequency_hz", {}).Set(st.tsc.hz);
  G("zeitgeber_tsc_frequency_uncertainty_ppb", {}).Set(st.tsc.uncertainty_ppb);
  G("zeitgeber_tsc_frequency_drift_ppb_per_second", {})
      .Set(st.tsc.drift_ppb_per_s.value_or(0));
  C("zeitgeber_tsc_calibration_steps_total", {},
    static_cast<double>(st.tsc.steps));
  if (st.audit_enabled) {
    C("zeitgeber_audit_records_total", {},
      static_cast<double>(st.audit.records));
    C("zeitgeber_audit_write_errors_total", {},
      static_cast<double>(st.audit.write_errors));
    C("zeitgeber_audit_rotations_total", {},
      static_cast<double>(st.audit.rotations));
    C("zeitgeber_audit_suppressed_total", {},
      static_cast<double>(st.audit_suppressed));
  }
  G("zeitgeber_leap_table_expiry_timestamp_seconds", {})
      .Set(static_cast<double>(st.leap_table_expiry.value / 1'000'000'000));
}

void ControlMetrics::UpdateSource(const servo::SourceSnapshot& s) {
  const Labels l = {{"source", s.name},
                    {"kind", servo::SourceKindName(s.kind)}};
  const servo::SourceStatus& d = s.discipline;
  G("zeitgeber_source_up", l).Set(d.up ? 1 : 0);
  G("zeitgeber_source_selected", l).Set(d.selected ? 1 : 0);
  G("zeitgeber_source_enabled", l).Set(s.enabled ? 1 : 0);
  G("zeitgeber_source_falseticker", l).Set(d.falseticker ? 1 : 0);
  G("zeitgeber_source_suspect", l).Set(d.suspect ? 1 : 0);
  G("zeitgeber_source_priority", l).Set(s.priority);
  G("zeitgeber_source_offset_seconds", l).Set(d.last_offset_ns * 1e-9);
  for (servo::SourceHealth h : kHealths) {
    Labels hl = l;
    hl["health"] = std::string(servo::SourceHealthName(h));
    G("zeitgeber_source_health", hl).Set(s.health == h ? 1 : 0);
  }
  C("zeitgeber_source_samples_total", l, static_cast<double>(d.samples));
  C("zeitgeber_source_samples_accepted_total", l,
    static_cast<double>(d.accepted));
  const std::pair<const char*, uint64_t> rejected[] = {
      {"outlier", d.outliers}, {"jump", d.jumps}, {"invalid", d.invalid}};
  for (const auto& [reason, n] : rejected) {
    Labels rl = l;
    rl["reason"] = reason;
    C("zeitgeber_source_samples_rejected_total", rl, static_cast<double>(n));
  }
  C("zeitgeber_source_poll_errors_total", l,
    static_cast<double>(s.poll_errors));
  if (s.gnss) UpdateGnss(s.name, *s.gnss);
}

void ControlMetrics::UpdateGnss(const std::string& source,
                                const servo::GnssStatus& g) {
  const Labels l = {{"source", source}};
  G("zeitgeber_gnss_connected", l).Set(g.connected ? 1 : 0);
  G("zeitgeber_gnss_fix_mode", l).Set(g.fix_mode);
  G("zeitgeber_gnss_time_error_seconds", l).Set(g.ept_s.value_or(0));
  for (size_t i = 0; i < servo::kGnssSystemCount; ++i) {
    Labels cl = l;
    cl["constellation"] =
        servo::GnssSystemName(static_cast<servo::GnssSystem>(i));
    G("zeitgeber_gnss_satellites_seen", cl).Set(g.satellites[i].seen);
    G("zeitgeber_gnss_satellites_used", cl).Set(g.satellites[i].used);
  }
  const std::pair<const char*, uint64_t> messages[] = {
      {"tpv", g.tpv_messages},
      {"sky", g.sky_messages},
      {"pps", g.pps_messages},
      {"toff", g.toff_messages}};
  for (const auto& [cls, n] : messages) {
    Labels ml = l;
    ml["class"] = cls;
    C("zeitgeber_gnss_messages_total", ml, static_cast<double>(n));
  }
}

void ControlMetrics::UpdateDiscipline(const servo::ControlPlaneStatus& st) {
  const servo::DisciplineStatus& d = st.discipline;
  for (size_t i = 0; i < std::size(kStates); ++i) {
    G("zeitgeber_discipline_state", {{"state", kStates[i]}})
        .Set(static_cast<size_t>(d.state) == i ? 1 : 0);
  }
  G("zeitgeber_discipline_error_bound_seconds", {})
      .Set(d.bound_ns < 0 ? -1.0 : static_cast<double>(d.bound_ns) * 1e-9);
  G("zeitgeber_discipline_frequency_offset_ppb", {}).Set(d.frequency_ppb);
  G("zeitgeber_discipline_frequency_uncertainty_ppb", {})
      .Set(d.frequency_uncertainty_ppb);
  G("zeitgeber_discipline_holdover_seconds", {}).Set(d.holdover_s);
  C("zeitgeber_discipline_steps_total", {}, static_cast<double>(d.steps));
}

void ControlMetrics::UpdateNic(const servo::NicClockStatus& n) {
  const Labels l = {{"clock", "nic:" + n.name}};
  G("zeitgeber_nic_clock_frequency_hz", l).Set(n.ticks_per_second);
  G("zeitgeber_nic_clock_correlation_uncertainty_ppb", l)
      .Set(n.rate_uncertainty_ppb);
  G("zeitgeber_nic_clock_drift_ppb_per_second", l)
      .Set(n.drift_ppb_per_s.value_or(0));
  G("zeitgeber_nic_clock_mapping_error_seconds", l)
      .Set(n.mapping_error_ns * 1e-9);
  G("zeitgeber_nic_clock_bracket_half_width_seconds", l)
      .Set(n.bracket_half_width_ns * 1e-9);
  G("zeitgeber_nic_clock_residual_rms_seconds", l)
      .Set(n.residual_rms_ns * 1e-9);
  C("zeitgeber_nic_clock_steps_total", l, static_cast<double>(n.steps));
  C("zeitgeber_nic_clock_read_errors_total", l,
    static_cast<double>(n.read_errors));
}

}  // namespace zg::dataplane
