// SPDX-License-Identifier: Apache-2.0
// MibView: zeitgeberd's SNMP objects as one OID-ordered map of values, built
// from the snapshots the control thread publishes (status, alarm table,
// data plane) — ZEITGEBER-MIB (doc/ZEITGEBER-MIB.txt, zeitgeber_oids.h) and
// the RFC 5907 NTPv4-MIB objects that map (ntpv4_oids.h). The subagent
// (snmp_agent.h) answers GET and GETNEXT from it; it is pure, so the
// values and the walk order are unit-tested without net-snmp.
//
//   MibView v = BuildMibView(inputs);
//   const MibView::Entry* e = v.Next(request_oid, /*inclusive=*/false);
//
// Also: the varbinds of the alarm, heartbeat and test notifications.
#ifndef ZG_DATAPLANE_SNMP_MIB_VIEW_H_
#define ZG_DATAPLANE_SNMP_MIB_VIEW_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/time/time_types.h"
#include "servo/alarms/alarm_set.h"
#include "servo/api/dataplane_status.h"
#include "servo/control/control_status.h"

namespace zg::dataplane::snmp {

using Oid = std::vector<uint32_t>;

enum class ValueType : uint8_t {
  kInteger,  // INTEGER / Integer32
  kOctets,   // OCTET STRING, DisplayString
  kGauge32,
  kCounter32,
  kCounter64,
  kUnsigned32,
  kTimeTicks,
  kOid,
};

struct Value {
  ValueType type = ValueType::kInteger;
  int64_t integer = 0;     // kInteger
  uint64_t unsigned_ = 0;  // the unsigned types
  std::string octets;      // kOctets
  Oid oid;                 // kOid

  static Value Int(int64_t v) { return {ValueType::kInteger, v}; }
  static Value Str(std::string s) {
    Value v{ValueType::kOctets};
    v.octets = std::move(s);
    return v;
  }
  static Value Unsigned(ValueType t, uint64_t u) {
    Value v{t};
    v.unsigned_ = u;
    return v;
  }
  static Value ObjectId(Oid o) {
    Value v{ValueType::kOid};
    v.oid = std::move(o);
    return v;
  }
};

using VarBind = std::pair<Oid, Value>;

Oid Concat(Oid base, std::initializer_list<uint32_t> tail);
std::string FormatOid(const Oid& oid);  // "1.3.6.1..."

class MibView {
 public:
  using Entry = std::pair<const Oid, Value>;
  void Put(Oid oid, Value v) { values_[std::move(oid)] = std::move(v); }
  const Value* Get(const Oid& oid) const;
  // The first entry after `oid` (at or after it if `inclusive`), or null.
  const Entry* Next(const Oid& oid, bool inclusive) const;
  size_t size() const { return values_.size(); }
  const std::map<Oid, Value>& values() const { return values_; }

 private:
  std::map<Oid, Value> values_;
};

struct MibInputs {
  const servo::ControlPlaneStatus* status = nullptr;  // null: not yet
  const servo::AlarmTable* alarms = nullptr;
  const servo::DataplaneStatus* dataplane = nullptr;
  core::UtcNs now_utc;
  int64_t uptime_centiseconds = 0;
  int heartbeat_interval_s = 0;
  std::string software_version;
};

MibView BuildMibView(const MibInputs& in);

// snmpTrapOID.0 and sysName.0 (SNMPv2-MIB).
inline const Oid kSnmpTrapOid = {1, 3, 6, 1, 6, 3, 1, 1, 4, 1, 0};
inline const Oid kSysName0 = {1, 3, 6, 1, 2, 1, 1, 5, 0};

// zgAlarmRaised / zgAlarmCleared for `e`, instances at its zgAlarmIndex;
// the first varbind is snmpTrapOID.0.
std::vector<VarBind> AlarmNotification(const servo::AlarmEvent& e,
                                       const std::string& sys_name);
// The same for a raised alarm's row (zgResendActiveAlarms).
std::vector<VarBind> AlarmRowNotification(const servo::AlarmRow& r,
                                          const std::string& sys_name);
std::vector<VarBind> HeartbeatNotification(int clock_state, int alarms_active,
                                           const std::string& sys_name);
std::vector<VarBind> TestNotification(const std::string& sys_name);

// RFC 5907's NtpDateTime: the 128-bit NTP date (era, era offset, 64-bit
// fraction), 16 octets, for a UTC instant.
std::string NtpDateTime(core::UtcNs t);

}  // namespace zg::dataplane::snmp

#endif  // ZG_DATAPLANE_SNMP_MIB_VIEW_H_
