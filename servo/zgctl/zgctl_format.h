// SPDX-License-Identifier: Apache-2.0
// zgctl's human output: each command's reply data (the JSON of
// servo/api/status_json.h) as a table laid out like chronyc's — labels
// padded to a column and a colon for single records (tracking, leap,
// status), a header, a rule of '=' and one row per item for lists
// (sources, sourcestats, workers, ports, clients, alarms).
//
// The formatters read only the JSON, so `zgctl X` and `zgctl --json X` can
// never disagree, and tolerate missing fields (an older or newer server):
// a missing value prints as "-".
//
//   std::cout << FormatTracking(reply.data);
#ifndef ZG_SERVO_ZGCTL_ZGCTL_FORMAT_H_
#define ZG_SERVO_ZGCTL_ZGCTL_FORMAT_H_

#include <nlohmann/json.hpp>
#include <string>

namespace zg::zgctl {

std::string FormatTracking(const nlohmann::json& data);
std::string FormatSources(const nlohmann::json& data, bool verbose);
std::string FormatSourceStats(const nlohmann::json& data);
std::string FormatLeap(const nlohmann::json& data);
std::string FormatStatus(const nlohmann::json& data);
std::string FormatWorkers(const nlohmann::json& data);
std::string FormatPorts(const nlohmann::json& data);
std::string FormatServerStats(const nlohmann::json& data);
std::string FormatPtp(const nlohmann::json& data);
std::string FormatPtpSubscribers(const nlohmann::json& data);
// One line per record: "<utc> <event> [source] [old -> new] key=value ...".
std::string FormatAuditRecords(const nlohmann::json& records);
std::string FormatReload(const nlohmann::json& data);
std::string FormatSourceChange(const nlohmann::json& data);
std::string FormatClients(const nlohmann::json& data);
std::string FormatAlarms(const nlohmann::json& data);
std::string FormatDrain(const nlohmann::json& data);
std::string FormatLogLevel(const nlohmann::json& data);
std::string FormatHelp(const nlohmann::json& data);

// A signed duration in nanoseconds as chronyc prints offsets: "+123ns",
// "-1.234us", "+12.345ms", "+1.234567s".
std::string FormatOffsetNs(double ns);
// The same without a sign (errors, jitter).
std::string FormatDurationNs(double ns);

}  // namespace zg::zgctl

#endif  // ZG_SERVO_ZGCTL_ZGCTL_FORMAT_H_
