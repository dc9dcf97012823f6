// SPDX-License-Identifier: Apache-2.0
// MibView: the values zeitgeberd's subagent serves, from snapshots: clock
// scalars, the source and GNSS tables, ports and PTP ports, only the raised
// alarms, the NTPv4-MIB objects; a walk (GETNEXT from the root) visits them
// in OID order and ends; the notifications carry the alarm's columns at its
// index, its UTC time as the audit log writes it, and sysName.
#include "dataplane/snmp/mib_view.h"

#include <string>

#include "dataplane/snmp/ntpv4_oids.h"
#include "dataplane/snmp/zeitgeber_oids.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "servo/alarms/alarm_set.h"

namespace zg::dataplane::snmp {
namespace mib_view_test {
namespace {

constexpr int64_t kS = 1'000'000'000;

servo::ControlPlaneStatus Status() {
  servo::ControlPlaneStatus st;
  st.discipline.state = core::SyncState::kLocked;
  st.discipline.bound_ns = 1500;
  st.discipline.frequency_ppb = -12.5;
  st.discipline.steps = 1;
  st.model.stratum = 1;
  st.model.ptp_quality.clock_class = 6;
  st.model.utc_offset_s = 37;
  servo::SourceSnapshot gps;
  gps.name = "gpsd:127.0.0.1:2947";
  gps.kind = servo::SourceKind::kGpsd;
  gps.health = servo::SourceHealth::kUp;
  gps.discipline.up = true;
  gps.discipline.selected = true;
  gps.discipline.last_offset_ns = -250;
  gps.discipline.samples = 42;
  servo::GnssStatus g;
  g.fix_mode = 3;
  g.satellites[static_cast<size_t>(servo::GnssSystem::kBeidou)] = {6, 4, 4};
  gps.gnss = g;
  servo::SourceSnapshot sys;
  sys.name = "system";
  sys.priority = 2;
  sys.health = servo::SourceHealth::kDown;
  sys.problem = "not synchronised";
  st.sources = {gps, sys};
  return st;
}

const Value& At(const MibView& v, const Oid& oid) {
  const Value* p = v.Get(oid);
  static const Value kMissing = Value::Str("<missing>");
  EXPECT_NE(p, nullptr) << FormatOid(oid);
  return p == nullptr ? kMissing : *p;
}

TEST(MibViewTest, ClockSourcesGnssPortsAndNtpv4) {
  const servo::ControlPlaneStatus st = Status();
  servo::DataplaneStatus d;
  servo::PortStatus port;
  port.name = "net_ring0";
  port.link_up = true;
  port.speed_mbps = 10000;
  d.ports.push_back(port);
  // The port's counters are its workers' sums.
  for (uint64_t rx : {60, 40}) {
    servo::WorkerStatus w;
    w.port = "net_ring0";
    w.rx_packets = rx;
    w.tx_packets = rx == 60 ? 59 : 40;
    d.workers.push_back(w);
  }
  d.workers.push_back({});  // on another port: not summed
  d.workers.back().port = "net_ring1";
  d.workers.back().tx_packets = 1000;
  d.ptp.resize(2);
  d.ptp[0].enabled = true;
  d.ptp[0].port = "ptp0";
  d.ptp[0].port_state_value = 6;
  d.ptp[0].clock_class = 6;
  d.ptp[0].subscribers = 3;
  d.ptp[1] = d.ptp[0];
  d.ptp[1].port = "ptp1";
  d.ptp[1].port_state_value = 7;
  d.server.frames.push_back({"arp", 2, 2});
  d.server.frames.push_back({"ntp", 7, 6});
  MibInputs in;
  in.status = &st;
  in.dataplane = &d;
  in.software_version = "0.1.0";
  in.uptime_centiseconds = 12345;
  const MibView v = BuildMibView(in);
  EXPECT_EQ(At(v, Concat(kZgClockState, {0})).integer, 2);
  EXPECT_EQ(At(v, Concat(kZgClockSynchronized, {0})).integer, 1);
  EXPECT_EQ(At(v, Concat(kZgClockErrorBound, {0})).unsigned_, 1500u);
  EXPECT_EQ(At(v, Concat(kZgClockClass, {0})).integer, 6);
  EXPECT_EQ(At(v, Concat(kZgClockFrequencyOffset, {0})).integer, -12500);
  EXPECT_EQ(At(v, Concat(kZgClockSelectedSource, {0})).octets,
            "gpsd:127.0.0.1:2947");
  EXPECT_EQ(At(v, Concat(kZgSourceName, {2})).octets, "system");
  EXPECT_EQ(At(v, Concat(kZgSourceHealth, {2})).integer, 3);
  EXPECT_EQ(At(v, Concat(kZgSourceUp, {2})).integer, 2);
  EXPECT_EQ(At(v, Concat(kZgSourceOffset, {1})).integer, -250);
  EXPECT_EQ(At(v, Concat(kZgSourceSamples, {1})).type, ValueType::kCounter64);
  EXPECT_EQ(At(v, Concat(kZgSourceGnssFixMode, {1})).integer, 3);
  // beidou is gnssid 3: constellation 4.
  EXPECT_EQ(At(v, Concat(kZgGnssInView, {1, 4})).unsigned_, 6u);
  EXPECT_EQ(At(v, Concat(kZgGnssUsed, {1, 4})).unsigned_, 4u);
  EXPECT_EQ(v.Get(Concat(kZgGnssInView, {2, 4})), nullptr) << "not gpsd";
  EXPECT_EQ(At(v, Concat(kZgPortName, {1})).octets, "net_ring0");
  EXPECT_EQ(At(v, Concat(kZgPortRxPackets, {1})).unsigned_, 100u);
  EXPECT_EQ(At(v, Concat(kZgPortTxPackets, {1})).unsigned_, 99u);
  EXPECT_EQ(At(v, Concat(kZgPtpPortName, {1})).octets, "ptp0");
  EXPECT_EQ(At(v, Concat(kZgPtpPortState, {1})).integer, 6);
  EXPECT_EQ(At(v, Concat(kZgPtpPortSubscribers, {1})).unsigned_, 3u);
  // One row per PTP port.
  EXPECT_EQ(At(v, Concat(kZgPtpPortName, {2})).octets, "ptp1");
  EXPECT_EQ(At(v, Concat(kZgPtpPortState, {2})).integer, 7);
  EXPECT_EQ(At(v, Concat(ntpv4::kEntStatus, {ntpv4::kCurrentMode, 0})).integer,
            ntpv4::kSyncToRefclock);
  EXPECT_EQ(At(v, Concat(ntpv4::kEntStatus, {ntpv4::kStratum, 0})).unsigned_,
            1u);
  EXPECT_EQ(
      At(v, Concat(ntpv4::kEntStatus, {ntpv4::kActiveRefSourceName, 0})).octets,
      "gpsd:127.0.0.1:2947");
  EXPECT_EQ(At(v, Concat(ntpv4::kEntStatus, {ntpv4::kInPkts, 0})).unsigned_,
            7u);
  EXPECT_EQ(At(v, Concat(ntpv4::kEntStatus, {ntpv4::kOutPkts, 0})).unsigned_,
            6u);
  EXPECT_EQ(
      At(v, Concat(ntpv4::kEntStatus, {ntpv4::kEntityUptime, 0})).unsigned_,
      12345u);
  EXPECT_EQ(At(v, Concat(ntpv4::kEntInfo, {ntpv4::kSoftwareName, 0})).octets,
            "zeitgeberd");
}

TEST(MibViewTest, AWalkVisitsEveryObjectInOrderAndEnds) {
  const servo::ControlPlaneStatus st = Status();
  MibInputs in;
  in.status = &st;
  const MibView v = BuildMibView(in);
  Oid at;  // from the start: NTPv4-MIB (mib-2) sorts first
  size_t n = 0;
  for (const MibView::Entry* e = v.Next(at, false); e != nullptr;
       e = v.Next(at, false)) {
    EXPECT_LT(at, e->first);
    at = e->first;
    ++n;
  }
  EXPECT_EQ(n, v.size());
  // GETNEXT's "inclusive" (AgentX ranges) returns the OID itself.
  const Oid state0 = Concat(kZgClockState, {0});
  EXPECT_EQ(v.Next(state0, true)->first, state0);
  EXPECT_NE(v.Next(state0, false)->first, state0);
}

TEST(MibViewTest, OnlyRaisedAlarmsAreRowsAndNotificationsMatchThem) {
  servo::AlarmSet alarms({});
  alarms.Set(servo::AlarmId::kReferenceLost, "", true, "reference lost", 0);
  alarms.Set(servo::AlarmId::kLinkDown, "p0", false, "up", 0);
  const core::TaiNs tai{1'800'000'000 * kS + 5};
  const core::UtcNs utc{tai.value - 37 * kS};
  const std::vector<servo::AlarmEvent> e = alarms.Evaluate(0, tai, utc);
  ASSERT_EQ(e.size(), 1u);
  const servo::AlarmTable t = alarms.Table();
  MibInputs in;
  in.alarms = &t;
  const MibView v = BuildMibView(in);
  const uint32_t row = static_cast<uint32_t>(e[0].slot + 1);
  EXPECT_EQ(At(v, Concat(kZgAlarmId, {row})).integer, 2);
  EXPECT_EQ(At(v, Concat(kZgAlarmName, {row})).octets, "reference_lost");
  EXPECT_EQ(At(v, Concat(kZgAlarmSeverity, {row})).integer, 4);
  EXPECT_EQ(At(v, Concat(kZgAlarmTime, {row})).octets,
            "2027-01-15T07:59:23.000000005Z");
  EXPECT_EQ(At(v, Concat(kZgAlarmsActive, {0})).unsigned_, 1u);
  const uint32_t link_row =
      static_cast<uint32_t>(t.rows.back().slot + 1);  // p0, cleared
  EXPECT_EQ(v.Get(Concat(kZgAlarmId, {link_row})), nullptr);

  const std::vector<VarBind> n = AlarmNotification(e[0], "host1");
  ASSERT_EQ(n.size(), 9u);
  EXPECT_EQ(n[0].first, kSnmpTrapOid);
  EXPECT_EQ(n[0].second.oid, kZgAlarmRaised);
  for (size_t i = 1; i < 8; ++i) {
    const Value* in_table = v.Get(n[i].first);
    ASSERT_NE(in_table, nullptr) << FormatOid(n[i].first);
    EXPECT_EQ(in_table->integer, n[i].second.integer);
    EXPECT_EQ(in_table->octets, n[i].second.octets);
  }
  EXPECT_EQ(n.back().first, kSysName0);
  EXPECT_EQ(n.back().second.octets, "host1");
  EXPECT_EQ(TestNotification("h")[0].second.oid, kZgTestNotification);
  EXPECT_EQ(HeartbeatNotification(2, 1, "h")[0].second.oid, kZgHeartbeat);
}

TEST(MibViewTest, NtpDateTimeIsTheNtp128BitDate) {
  // 2036-02-07T06:28:16Z is NTP era 1, offset 0.
  const std::string d = NtpDateTime(core::UtcNs{2'085'978'496 * kS + kS / 2});
  ASSERT_EQ(d.size(), 16u);
  EXPECT_EQ(d.substr(0, 8), std::string("\0\0\0\1\0\0\0\0", 8));
  EXPECT_EQ(static_cast<uint8_t>(d[8]), 0x80) << "half a second";
}

}  // namespace
}  // namespace mib_view_test
}  // namespace zg::dataplane::snmp
