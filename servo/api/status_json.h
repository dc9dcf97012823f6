// SPDX-License-Identifier: Apache-2.0
// The JSON of every operator snapshot (nlohmann-json): one shape per
// snapshot, shared by zgctl --json, the control socket's replies, the
// status page's endpoints and the tests. doc/zgctl.md is the schema.
//
// Conventions: names are snake_case; every time says its scale and unit in
// its name (`_ns`, `_s`, `_ppb`, `_tai_ns`, `_utc` for an RFC 3339 UTC
// string); counters are unsigned integers since start; absent data is null
// (never 0 pretending to be a value).
//
//   std::shared_ptr<const ControlPlaneStatus> c = board.control->Status();
//   nlohmann::json j = TrackingJson(*c);
//   j["state"] == "LOCKED"
#ifndef ZG_SERVO_API_STATUS_JSON_H_
#define ZG_SERVO_API_STATUS_JSON_H_

#include <nlohmann/json.hpp>

#include "servo/api/dataplane_status.h"
#include "servo/api/service_status.h"
#include "servo/control/control_status.h"
#include "servo/sources/gpsd_source.h"

namespace zg::servo {

// zgctl tracking: state, selected source, offset and frequency, error
// bound and growth, stratum and clock class, leap, holdover, uptime.
nlohmann::json TrackingJson(const ControlPlaneStatus& s);
// zgctl sources: {"sources": [...]}, every reference with its selection
// state, last offset, jitter, samples, reach (and GNSS for gpsd).
nlohmann::json SourcesJson(const ControlPlaneStatus& s);
// zgctl sourcestats: {"sources": [...]}, sample statistics per source and,
// for gpsd, the fix and satellites per constellation.
nlohmann::json SourceStatsJson(const ControlPlaneStatus& s);
// zgctl leap: the table in use, its expiry, TAI-UTC, a pending leap.
nlohmann::json LeapJson(const ControlPlaneStatus& s);
// A gpsd source: fix, position, satellites per constellation and each
// satellite of the last SKY report (C/N0, used, elevation, azimuth), signal
// low (fewer than 4 at or above 37 dB-Hz).
nlohmann::json GnssJson(const GnssStatus& g);

// zgctl status (and the drain commands' replies).
nlohmann::json ServiceJson(const ServiceStatus& s);

// zgctl workers / ports / serverstats / ptp.
nlohmann::json WorkersJson(const DataplaneStatus& d);
nlohmann::json PortsJson(const DataplaneStatus& d);
nlohmann::json ServerStatsJson(const DataplaneStatus& d);
// {"enabled": false} without PTP ports; else the clock's part (profile,
// domain, grandmaster) and "ports", one object per PTP port.
nlohmann::json PtpJson(const std::vector<PtpStatus>& ports);
nlohmann::json PtpSubscribersJson(const PtpSubscribers& s);

// "GPS" for a printable stratum-1 refid, else dotted IPv4-style text.
std::string RefIdText(uint32_t refid);

}  // namespace zg::servo

#endif  // ZG_SERVO_API_STATUS_JSON_H_
