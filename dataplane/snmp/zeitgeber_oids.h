// SPDX-License-Identifier: Apache-2.0
// The OIDs of ZEITGEBER-MIB (doc/ZEITGEBER-MIB.txt) that zeitgeberd's SNMP
// subagent serves: its scalars (served with instance .0), its table columns
// (served with the row's index), its notifications. tests/snmp/mib_check.py
// compiles the MIB and checks that every constant here is the MIB's OID of
// the object it is named after, and that every object the MIB defines is
// here.
//
// 1.3.6.1.4.1.32473 is the PLACEHOLDER enterprise number (RFC 5612's, for
// documentation): change it here and in the MIB together.
#ifndef ZG_DATAPLANE_SNMP_ZEITGEBER_OIDS_H_
#define ZG_DATAPLANE_SNMP_ZEITGEBER_OIDS_H_

#include "dataplane/snmp/mib_view.h"

namespace zg::dataplane::snmp {

// clang-format off
inline const Oid kZeitgeberMIB = {1, 3, 6, 1, 4, 1, 32473, 7};
inline const Oid kZgAlarmRaised = {1, 3, 6, 1, 4, 1, 32473, 7, 0, 1};
inline const Oid kZgAlarmCleared = {1, 3, 6, 1, 4, 1, 32473, 7, 0, 2};
inline const Oid kZgHeartbeat = {1, 3, 6, 1, 4, 1, 32473, 7, 0, 3};
inline const Oid kZgTestNotification = {1, 3, 6, 1, 4, 1, 32473, 7, 0, 4};
inline const Oid kZgClockState = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 1, 1};
inline const Oid kZgClockSynchronized = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 1, 2};
inline const Oid kZgClockErrorBound = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 1, 3};
inline const Oid kZgClockStratum = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 1, 4};
inline const Oid kZgClockClass = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 1, 5};
inline const Oid kZgClockAccuracy = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 1, 6};
inline const Oid kZgClockUtcOffset = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 1, 7};
inline const Oid kZgClockLeapPending = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 1, 8};
inline const Oid kZgClockFrequencyOffset = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 1, 9};
inline const Oid kZgClockHoldoverTime = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 1, 10};
inline const Oid kZgClockSelectedSource = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 1, 11};
inline const Oid kZgClockSteps = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 1, 12};
inline const Oid kZgSourceName = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 2, 1, 2};
inline const Oid kZgSourceKind = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 2, 1, 3};
inline const Oid kZgSourcePriority = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 2, 1, 4};
inline const Oid kZgSourceHealth = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 2, 1, 5};
inline const Oid kZgSourceUp = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 2, 1, 6};
inline const Oid kZgSourceSelected = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 2, 1, 7};
inline const Oid kZgSourceOffset = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 2, 1, 8};
inline const Oid kZgSourceSamples = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 2, 1, 9};
inline const Oid kZgSourceProblem = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 2, 1, 10};
inline const Oid kZgSourceGnssFixMode = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 2, 1, 11};
inline const Oid kZgGnssInView = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 3, 1, 2};
inline const Oid kZgGnssUsed = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 3, 1, 3};
inline const Oid kZgGnssStrong = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 3, 1, 4};
inline const Oid kZgPortName = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 4, 1, 2};
inline const Oid kZgPortLinkUp = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 4, 1, 3};
inline const Oid kZgPortSpeed = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 4, 1, 4};
inline const Oid kZgPortHardwareTimestamps = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 4, 1, 5};
inline const Oid kZgPortRxPackets = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 4, 1, 6};
inline const Oid kZgPortTxPackets = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 4, 1, 7};
inline const Oid kZgPtpPortName = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 5, 1, 2};
inline const Oid kZgPtpPortState = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 5, 1, 3};
inline const Oid kZgPtpPortClockClass = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 5, 1, 4};
inline const Oid kZgPtpPortSubscribers = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 5, 1, 5};
inline const Oid kZgAlarmId = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 6, 1, 2};
inline const Oid kZgAlarmName = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 6, 1, 3};
inline const Oid kZgAlarmResource = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 6, 1, 4};
inline const Oid kZgAlarmSeverity = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 6, 1, 5};
inline const Oid kZgAlarmState = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 6, 1, 6};
inline const Oid kZgAlarmTime = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 6, 1, 7};
inline const Oid kZgAlarmMessage = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 6, 1, 8};
inline const Oid kZgAlarmsActive = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 7};
inline const Oid kZgResendActiveAlarms = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 8, 1};
inline const Oid kZgSendTestNotification = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 8, 2};
inline const Oid kZgHeartbeatInterval = {1, 3, 6, 1, 4, 1, 32473, 7, 1, 8, 3};
// clang-format on

}  // namespace zg::dataplane::snmp

#endif  // ZG_DATAPLANE_SNMP_ZEITGEBER_OIDS_H_
