// SPDX-License-Identifier: Apache-2.0
// The alarm table's JSON shape (alarm_json.h).
#include "servo/alarms/alarm_json.h"

#include "core/time/time_format.h"

namespace zg::servo {
namespace {

void Common(nlohmann::json& j, int slot, AlarmId id,
            const std::string& instance, AlarmSeverity severity) {
  j["slot"] = slot;
  j["id"] = static_cast<int>(id);
  j["name"] = AlarmDefOf(id).name;
  j["instance"] = instance;
  j["severity"] = AlarmSeverityName(severity);
}

}  // namespace

nlohmann::json AlarmRowJson(const AlarmRow& row) {
  nlohmann::json j;
  Common(j, row.slot, row.id, row.instance, row.severity);
  j["active"] = row.active;
  j["raises"] = row.raises;
  j["since_tai_ns"] = row.since_tai.value;
  j["since_utc"] =
      row.since_tai.value == 0 ? "" : core::FormatUtc(row.since_utc);
  j["message"] = row.message;
  return j;
}

nlohmann::json AlarmEventJson(const AlarmEvent& e) {
  nlohmann::json j;
  j["seq"] = e.seq;
  Common(j, e.slot, e.id, e.instance, e.severity);
  j["state"] = e.raised ? "raised" : "cleared";
  j["tai_ns"] = e.tai.value;
  j["utc"] = core::FormatUtc(e.utc);
  j["message"] = e.message;
  return j;
}

nlohmann::json AlarmTableJson(const AlarmTable& table, bool active_only) {
  nlohmann::json j;
  j["active"] = table.ActiveCount();
  j["last_seq"] = table.last_seq;
  nlohmann::json rows = nlohmann::json::array();
  for (const AlarmRow& r : table.rows) {
    if (r.retired) continue;
    if (!active_only || r.active) rows.push_back(AlarmRowJson(r));
  }
  j["alarms"] = std::move(rows);
  nlohmann::json events = nlohmann::json::array();
  for (const AlarmEvent& e : table.recent) events.push_back(AlarmEventJson(e));
  j["events"] = std::move(events);
  return j;
}

}  // namespace zg::servo
