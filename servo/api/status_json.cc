// SPDX-License-Identifier: Apache-2.0
// The JSON of the operator snapshots (status_json.h; schema: doc/zgctl.md).
#include "servo/api/status_json.h"

#include <cstdio>
#include <string>

#include "core/time/time_format.h"
#include "servo/estimation/servo.h"
#include "servo/holdover/holdover.h"
#include "servo/sources/gpsd_messages.h"
#include "servo/sources/source_health.h"
#include "servo/sources/source_spec.h"

namespace zg::servo {
namespace {

using nlohmann::json;

// A UTC instant, or null when unset (0).
json UtcOrNull(core::UtcNs t) {
  if (t.value == 0) return nullptr;
  return core::FormatUtc(t);
}

const char* SelectionName(const SourceSnapshot& s) {
  if (s.discipline.selected) return "selected";
  if (!s.enabled) return "disabled";
  if (!s.discipline.up) return "unusable";
  if (s.discipline.falseticker) return "falseticker";
  if (s.discipline.suspect) return "suspect";
  return "candidate";
}

json SourceBase(const SourceSnapshot& s) {
  return {{"name", s.name},
          {"kind", SourceKindName(s.kind)},
          {"spec", s.spec},
          {"priority", s.priority},
          {"enabled", s.enabled}};
}

// Seconds from the source's latest sample to the snapshot (null: none).
json SampleAge(const ControlPlaneStatus& st, const SourceSnapshot& s) {
  if (s.discipline.last_sample_tai.value == 0) return nullptr;
  return static_cast<double>(st.now_tai - s.discipline.last_sample_tai) * 1e-9;
}

json NamedCounts(const std::vector<NamedCount>& counts) {
  json j = json::object();
  for (const NamedCount& c : counts) j[c.name] = c.value;
  return j;
}

}  // namespace

std::string RefIdText(uint32_t refid) {
  char text[5] = {};
  bool printable = true;
  for (int i = 0; i < 4; ++i) {
    const char c = static_cast<char>((refid >> (24 - 8 * i)) & 0xff);
    text[i] = c;
    if (c == 0) break;
    if (c < 0x20 || c > 0x7e) printable = false;
  }
  if (printable && text[0] != 0) return text;
  char dotted[16];
  std::snprintf(dotted, sizeof(dotted), "%u.%u.%u.%u", (refid >> 24) & 0xff,
                (refid >> 16) & 0xff, (refid >> 8) & 0xff, refid & 0xff);
  return dotted;
}

json TrackingJson(const ControlPlaneStatus& s) {
  const core::ClockModel& m = s.model;
  json selected = nullptr;
  json offset = nullptr;
  for (const SourceSnapshot& src : s.sources) {
    if (!src.discipline.selected) continue;
    selected = src.name;
    offset = src.discipline.last_offset_ns;
  }
  return {
      {"state", SyncStateName(s.discipline.state)},
      {"servo_state", ServoStateName(s.discipline.servo_state)},
      {"selected_source", selected},
      {"reference_id", RefIdText(m.reference_id)},
      {"stratum", m.stratum},
      {"clock_class", m.ptp_quality.clock_class},
      {"clock_accuracy", m.ptp_quality.clock_accuracy},
      {"time_traceable", m.time_traceable},
      {"frequency_traceable", m.frequency_traceable},
      {"offset_ns", offset},
      {"frequency_ppb", s.discipline.frequency_ppb},
      {"frequency_uncertainty_ppb", s.discipline.frequency_uncertainty_ppb},
      {"error_bound_ns", m.error_bound_ns},
      {"error_growth_ns_per_s", m.error_growth_ns_per_s},
      {"error_bound_now_ns", m.ErrorBoundNs(s.now_tai)},
      {"reference_time_utc", UtcOrNull(m.TaiToUtc(m.reference_time))},
      {"leap", core::LeapPendingName(m.LeapAnnouncedAt(s.now_tai))},
      {"utc_offset_s", m.UtcOffsetAt(s.now_tai)},
      {"holdover",
       {{"in_holdover_s", s.discipline.holdover_s},
        {"in_spec_limit_ns", s.holdover_in_spec_limit_ns},
        {"in_spec_left_s", s.holdover_in_spec_left_s < 0
                               ? json(nullptr)
                               : json(s.holdover_in_spec_left_s)}}},
      {"steps", s.discipline.steps},
      {"tsc_hz", s.tsc.hz},
      {"uptime_s", static_cast<double>(s.uptime_ns) * 1e-9},
      {"now_tai_ns", s.now_tai.value},
      {"now_utc", core::FormatUtc(s.now_utc)},
  };
}

json GnssJson(const GnssStatus& g) {
  json constellations = json::object();
  for (size_t i = 0; i < kGnssSystemCount; ++i) {
    const SatelliteCounts& c = g.satellites[i];
    constellations[GnssSystemName(static_cast<GnssSystem>(i))] = {
        {"seen", c.seen}, {"used", c.used}};
  }
  static constexpr const char* kModes[] = {"unknown", "no_fix", "2d", "3d"};
  const auto number = [](const std::optional<double>& v) {
    return v ? json(*v) : json(nullptr);
  };
  json sky = json::array();
  for (const GpsdSatellite& sat : g.sky) {
    sky.push_back({{"system", GnssSystemName(SystemOf(sat))},
                   {"prn", sat.prn},
                   {"svid", sat.svid ? json(*sat.svid) : json(nullptr)},
                   {"used", sat.used},
                   {"ss_dbhz", number(sat.ss_dbhz)},
                   {"elevation_deg", number(sat.elevation_deg)},
                   {"azimuth_deg", number(sat.azimuth_deg)}});
  }
  json position = nullptr;
  if (g.lat_deg && g.lon_deg) {
    position = {{"lat_deg", *g.lat_deg},
                {"lon_deg", *g.lon_deg},
                {"alt_m", number(g.alt_m)}};
  }
  return {
      {"connected", g.connected},
      {"fix_mode", g.fix_mode},
      {"fix", g.fix_mode >= 0 && g.fix_mode <= 3 ? kModes[g.fix_mode] : "?"},
      {"satellites_seen", g.satellites_seen},
      {"satellites_used", g.satellites_used},
      {"satellites_strong", g.satellites_strong},
      {"signal_low", g.signal_low()},
      {"constellations", constellations},
      {"satellites", std::move(sky)},
      {"position", std::move(position)},
      {"time_error_s", g.ept_s ? json(*g.ept_s) : json(nullptr)},
      {"last_fix_utc",
       g.last_fix_time ? UtcOrNull(*g.last_fix_time) : json(nullptr)},
      {"gpsd_release", g.gpsd_release},
      {"device", g.device_path},
      {"driver", g.driver},
      {"last_error", g.last_gpsd_error},
  };
}

json SourcesJson(const ControlPlaneStatus& s) {
  json list = json::array();
  for (const SourceSnapshot& src : s.sources) {
    const SourceStatus& d = src.discipline;
    json j = SourceBase(src);
    j["health"] = std::string(SourceHealthName(src.health));
    j["problem"] = src.problem;
    j["selection"] = SelectionName(src);
    j["up"] = d.up;
    j["selected"] = d.selected;
    j["falseticker"] = d.falseticker;
    j["suspect"] = d.suspect;
    j["last_offset_ns"] =
        d.last_uncertainty_ns < 0 ? json(nullptr) : json(d.last_offset_ns);
    j["last_error_ns"] =
        d.last_uncertainty_ns < 0 ? json(nullptr) : json(d.last_uncertainty_ns);
    j["last_sample_age_s"] = SampleAge(s, src);
    j["jitter_ns"] = d.jitter_ns;
    j["samples"] = d.samples;
    j["accepted"] = d.accepted;
    j["polls"] = src.polls;
    j["poll_errors"] = src.poll_errors;
    j["reach"] = src.reach;
    j["gnss"] = src.gnss ? GnssJson(*src.gnss) : json(nullptr);
    list.push_back(std::move(j));
  }
  return {{"sources", list}};
}

json SourceStatsJson(const ControlPlaneStatus& s) {
  json list = json::array();
  for (const SourceSnapshot& src : s.sources) {
    const SourceStatus& d = src.discipline;
    json j = SourceBase(src);
    j["samples"] = d.samples;
    j["accepted"] = d.accepted;
    j["rejected"] = {
        {"outlier", d.outliers}, {"jump", d.jumps}, {"invalid", d.invalid}};
    j["last_offset_ns"] =
        d.last_uncertainty_ns < 0 ? json(nullptr) : json(d.last_offset_ns);
    j["last_error_ns"] =
        d.last_uncertainty_ns < 0 ? json(nullptr) : json(d.last_uncertainty_ns);
    j["jitter_ns"] = d.jitter_ns;
    j["last_sample_age_s"] = SampleAge(s, src);
    j["gnss"] = src.gnss ? GnssJson(*src.gnss) : json(nullptr);
    list.push_back(std::move(j));
  }
  return {{"sources", list}};
}

json LeapJson(const ControlPlaneStatus& s) {
  const core::ClockModel& m = s.model;
  json pending = nullptr;
  if (m.leap != core::LeapPending::kNone) {
    pending = {{"kind", core::LeapPendingName(m.leap)},
               {"at_tai_ns", m.leap_at.value},
               {"at_tai", core::FormatTai(m.leap_at)},
               {"announced", m.LeapAnnouncedAt(s.now_tai) == m.leap}};
  }
  const int64_t left_ns = s.leap_table_expiry - s.now_utc;
  return {
      {"table", s.leap_table},
      {"expiry_utc", UtcOrNull(s.leap_table_expiry)},
      {"expires_in_days", static_cast<double>(left_ns) / 86400e9},
      {"expired", left_ns <= 0},
      {"utc_offset_s", m.UtcOffsetAt(s.now_tai)},
      {"pending", pending},
  };
}

json ServiceJson(const ServiceStatus& s) {
  const TickStats& t = s.control_tick;
  return {
      {"version", s.version},
      {"pid", s.pid},
      {"uid", s.uid},
      {"started_utc", UtcOrNull(s.started_utc)},
      {"uptime_s", static_cast<double>(s.uptime_ns) * 1e-9},
      {"drain",
       {{"state", DrainStateName(s.drain)},
        {"reason", s.drain_reason},
        {"changed_utc", UtcOrNull(s.drain_changed_utc)},
        {"changed_by_uid", s.drain_changed_by}}},
      {"anycast", s.anycast.empty()
                      ? json(nullptr)
                      : json{{"route", s.anycast},
                             {"why", s.anycast_why},
                             {"bird_reachable", s.bird_reachable}}},
      {"log_level", s.log_level},
      {"control_tick",
       {{"interval_ns", t.interval_ns},
        {"ticks", t.ticks},
        {"late_ticks", t.late_ticks},
        {"missed_slots", t.missed_slots},
        {"max_lateness_ns", t.max_lateness_ns},
        {"last_lateness_ns", t.last_lateness_ns}}},
      {"control_requests", s.control_requests},
      {"control_socket", s.control_socket},
  };
}

json WorkersJson(const DataplaneStatus& d) {
  json list = json::array();
  for (const WorkerStatus& w : d.workers) {
    list.push_back({
        {"index", w.index},
        {"lcore", w.lcore},
        {"port", w.port},
        {"rx_packets", w.rx_packets},
        {"rx_bytes", w.rx_bytes},
        {"tx_packets", w.tx_packets},
        {"tx_bytes", w.tx_bytes},
        {"tx_dropped", w.tx_dropped},
        {"dropped", w.dropped},
        {"bursts", w.bursts},
        {"empty_polls", w.empty_polls},
        {"hw_stamped", w.hw_stamped},
        {"sw_stamped", w.sw_stamped},
        {"model_refresh_failures", w.model_refresh_failures},
        {"rx_pps", w.rx_pps},
        {"tx_pps", w.tx_pps},
        {"drop_pps", w.drop_pps},
        {"last_progress_age_s", w.last_progress_age_s < 0
                                    ? json(nullptr)
                                    : json(w.last_progress_age_s)},
        {"last_progress_utc", UtcOrNull(w.last_progress_utc)},
    });
  }
  return {{"sampled_utc", UtcOrNull(d.sampled_utc)},
          {"interval_s", d.interval_s},
          {"workers", list}};
}

json PortsJson(const DataplaneStatus& d) {
  json list = json::array();
  for (const PortStatus& p : d.ports) {
    json stamping = json::object();
    for (const auto& [what, from] : p.stamping) stamping[what] = from;
    list.push_back({
        {"name", p.name},
        {"driver", p.driver},
        {"link_up", p.link_up},
        {"speed_mbps", p.speed_mbps},
        {"queues", p.queues},
        {"stamping", stamping},
        {"nic_clock", p.nic_clock.empty() ? json(nullptr) : json(p.nic_clock)},
        {"ipackets", p.ipackets},
        {"opackets", p.opackets},
        {"imissed", p.imissed},
        {"ierrors", p.ierrors},
        {"rx_nombuf", p.rx_nombuf},
        {"oerrors", p.oerrors},
        {"rx_pps", p.rx_pps},
        {"tx_pps", p.tx_pps},
    });
  }
  return {{"sampled_utc", UtcOrNull(d.sampled_utc)},
          {"interval_s", d.interval_s},
          {"ports", list}};
}

json ServerStatsJson(const DataplaneStatus& d) {
  const ServerStats& s = d.server;
  json frames = json::object();
  for (const FrameKindCount& f : s.frames) {
    frames[f.kind] = {{"received", f.received}, {"replied", f.replied}};
  }
  json groups = json::object();
  for (const CounterGroup& g : s.groups)
    groups[g.name] = NamedCounts(g.counters);
  return {
      {"sampled_utc", UtcOrNull(d.sampled_utc)},
      {"rx_packets", s.rx_packets},
      {"tx_packets", s.tx_packets},
      {"tx_dropped", s.tx_dropped},
      {"frames", frames},
      {"drops", NamedCounts(s.drops)},
      {"counters", groups},
  };
}

namespace {

// One PTP port's own part: state, BMCA, messages, unicast grants.
json PtpPortJson(const PtpStatus& p) {
  json grants = json::object();
  for (const PtpGrantCounts& g : p.grants) {
    grants[g.type] = {{"granted", g.granted},
                      {"renewals", g.renewals},
                      {"cancels", g.cancels},
                      {"expiries", g.expiries}};
  }
  return {
      {"port", p.port},
      {"interface", p.interface},
      {"port_identity", p.port_identity},
      {"port_state", p.port_state},
      {"decision", p.decision},
      {"state_changes", p.state_changes},
      {"foreign_masters", p.foreign_masters},
      {"announces_received", NamedCounts(p.announces_received)},
      {"messages_sent", NamedCounts(p.messages_sent)},
      {"unicast",
       {{"subscribers", p.subscribers},
        {"committed_rate", p.committed_rate},
        {"tx_budget", p.tx_budget},
        {"grants", grants},
        {"denials", NamedCounts(p.denials)}}},
  };
}

}  // namespace

json PtpJson(const std::vector<PtpStatus>& ports) {
  if (ports.empty()) return {{"enabled", false}};
  // The clock's part: the same on every port.
  const PtpStatus& p = ports.front();
  json list = json::array();
  for (const PtpStatus& port : ports) list.push_back(PtpPortJson(port));
  return {
      {"enabled", true},
      {"profile", p.profile},
      {"domain", p.domain},
      {"grandmaster",
       {{"identity", p.gm_identity},
        {"priority1", p.priority1},
        {"priority2", p.priority2},
        {"clock_class", p.clock_class},
        {"clock_accuracy", p.clock_accuracy},
        {"offset_scaled_log_variance", p.offset_scaled_log_variance},
        {"time_source", p.time_source},
        {"current_utc_offset", p.current_utc_offset},
        {"utc_offset_valid", p.utc_offset_valid},
        {"ptp_timescale", p.ptp_timescale},
        {"time_traceable", p.time_traceable},
        {"frequency_traceable", p.frequency_traceable},
        {"leap61", p.leap61},
        {"leap59", p.leap59}}},
      {"ports", list},
  };
}

json PtpSubscribersJson(const PtpSubscribers& s) {
  json list = json::array();
  for (const PtpSubscriberStatus& p : s.top) {
    json grants = json::object();
    for (const PtpSubscriberGrant& g : p.grants) {
      grants[g.type] = {{"log_interval", g.log_interval},
                        {"expires_in_s", g.expires_in_s}};
    }
    list.push_back({{"port", p.port},
                    {"address", p.address},
                    {"transport", p.transport},
                    {"port_identity", p.port_identity},
                    {"worker", p.worker},
                    {"rate", p.rate},
                    {"grants", grants}});
  }
  return {{"total", s.total}, {"subscribers", list}};
}

}  // namespace zg::servo
