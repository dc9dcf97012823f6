// SPDX-License-Identifier: Apache-2.0
// The alarm table as JSON (nlohmann-json): one shape for `zgctl alarms
// --json`, the status page's /api/alarms and the tests.
//
//   {"active": 1, "last_seq": 7,
//    "alarms": [{"slot": 5, "id": 6, "name": "holdover", "instance": "",
//                "severity": "major", "active": true, "raises": 1,
//                "since_tai_ns": 1710072037000000000,
//                "since_utc": "2024-03-10T12:00:00.000000000Z",
//                "message": "holdover entered: holdover_in_spec, ..."}, ...],
//    "events": [{"seq": 7, "slot": 5, "name": "holdover", "state": "raised",
//                ...}, ...]}
//
// AlarmTableJson(table, /*active_only=*/true) lists only raised alarms.
#ifndef ZG_SERVO_ALARMS_ALARM_JSON_H_
#define ZG_SERVO_ALARMS_ALARM_JSON_H_

#include "nlohmann/json.hpp"
#include "servo/alarms/alarm_set.h"

namespace zg::servo {

nlohmann::json AlarmRowJson(const AlarmRow& row);
nlohmann::json AlarmEventJson(const AlarmEvent& event);
nlohmann::json AlarmTableJson(const AlarmTable& table,
                              bool active_only = false);

}  // namespace zg::servo

#endif  // ZG_SERVO_ALARMS_ALARM_JSON_H_
