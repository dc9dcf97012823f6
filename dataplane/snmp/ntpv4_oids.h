// SPDX-License-Identifier: Apache-2.0
// The RFC 5907 NTPv4-MIB objects zeitgeberd serves read-only (mib-2 197):
// ntpEntInfo (1.3.6.1.2.1.197.1.1) and ntpEntStatus (.1.2), scalars with
// instance .0. The association table, the control objects and the NTPv4
// notifications are not served (doc/snmp.md says why).
#ifndef ZG_DATAPLANE_SNMP_NTPV4_OIDS_H_
#define ZG_DATAPLANE_SNMP_NTPV4_OIDS_H_

#include "dataplane/snmp/mib_view.h"

namespace zg::dataplane::snmp::ntpv4 {

inline const Oid kNtpSnmpMIB = {1, 3, 6, 1, 2, 1, 197};
inline const Oid kEntInfo = {1, 3, 6, 1, 2, 1, 197, 1, 1};
inline const Oid kEntStatus = {1, 3, 6, 1, 2, 1, 197, 1, 2};
// Under kEntInfo.
enum EntInfo : uint32_t {
  kSoftwareName = 1,
  kSoftwareVersion = 2,
  kSoftwareVendor = 3,
  kSystemType = 4,
  kTimeResolution = 5,
  kTimePrecision = 6,
  kTimeDistance = 7,
};
// Under kEntStatus.
enum EntStatus : uint32_t {
  kCurrentMode = 1,
  kStratum = 2,
  kActiveRefSourceId = 3,
  kActiveRefSourceName = 4,
  kActiveOffset = 5,
  kNumberOfRefSources = 6,
  kDispersion = 7,
  kEntityUptime = 8,
  kDateTime = 9,
  kLeapSecond = 10,
  kLeapSecDirection = 11,
  kInPkts = 12,
  kOutPkts = 13,
};
// ntpEntStatusCurrentMode values.
enum CurrentMode : int {
  kNotRunning = 1,
  kNotSynchronized = 2,
  kNoneConfigured = 3,
  kSyncToLocal = 4,
  kSyncToRefclock = 5,
  kSyncToRemoteServer = 6,
};

}  // namespace zg::dataplane::snmp::ntpv4

#endif  // ZG_DATAPLANE_SNMP_NTPV4_OIDS_H_
