// SPDX-License-Identifier: Apache-2.0
// MibView (mib_view.h): the values of ZEITGEBER-MIB and NTPv4-MIB.
#include "dataplane/snmp/mib_view.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/time/time_format.h"
#include "dataplane/snmp/ntpv4_oids.h"
#include "dataplane/snmp/zeitgeber_oids.h"
#include "servo/sources/gpsd_messages.h"

namespace zg::dataplane::snmp {
namespace {

constexpr int kTrue = 1, kFalse = 2;  // TruthValue

int Truth(bool b) { return b ? kTrue : kFalse; }

int64_t ClampInt32(double v) {
  return static_cast<int64_t>(
      std::clamp(v, double{std::numeric_limits<int32_t>::min()},
                 double{std::numeric_limits<int32_t>::max()}));
}

uint64_t ClampGauge(int64_t v) {
  return static_cast<uint64_t>(
      std::clamp<int64_t>(v, 0, std::numeric_limits<uint32_t>::max()));
}

Value Gauge(int64_t v) {
  return Value::Unsigned(ValueType::kGauge32, ClampGauge(v));
}
Value Counter64(uint64_t v) {
  return Value::Unsigned(ValueType::kCounter64, v);
}

const char* KindName(servo::SourceKind k) {
  switch (k) {
    case servo::SourceKind::kSystemClock:
      return "system";
    case servo::SourceKind::kPhc:
      return "phc";
    case servo::SourceKind::kPps:
      return "pps";
    case servo::SourceKind::kGpsd:
      return "gpsd";
    case servo::SourceKind::kSimulated:
      return "sim";
  }
  return "unknown";
}

std::string Ms(double ns) { return absl::StrFormat("%.6f ms", ns * 1e-6); }

void PutClock(MibView& v, const servo::ControlPlaneStatus& st) {
  const core::ClockModel& m = st.model;
  auto put = [&](const Oid& col, Value val) {
    v.Put(Concat(col, {0}), std::move(val));
  };
  put(kZgClockState, Value::Int(static_cast<int>(st.discipline.state)));
  const bool synced = st.discipline.state == core::SyncState::kLocked ||
                      st.discipline.state == core::SyncState::kHoldoverInSpec;
  put(kZgClockSynchronized, Value::Int(Truth(synced)));
  put(kZgClockErrorBound,
      Gauge(st.discipline.bound_ns < 0 ? std::numeric_limits<uint32_t>::max()
                                       : st.discipline.bound_ns));
  put(kZgClockStratum, Value::Int(m.stratum));
  put(kZgClockClass, Value::Int(m.ptp_quality.clock_class));
  put(kZgClockAccuracy, Value::Int(m.ptp_quality.clock_accuracy));
  put(kZgClockUtcOffset, Value::Int(m.utc_offset_s));
  put(kZgClockLeapPending, Value::Int(static_cast<int>(m.leap)));
  put(kZgClockFrequencyOffset,
      Value::Int(ClampInt32(st.discipline.frequency_ppb * 1000)));
  put(kZgClockHoldoverTime,
      Gauge(static_cast<int64_t>(st.discipline.holdover_s)));
  std::string selected;
  for (const servo::SourceSnapshot& s : st.sources) {
    if (s.discipline.selected) selected = s.name;
  }
  put(kZgClockSelectedSource, Value::Str(selected));
  put(kZgClockSteps, Counter64(st.discipline.steps));
}

void PutSources(MibView& v, const servo::ControlPlaneStatus& st) {
  for (size_t i = 0; i < st.sources.size(); ++i) {
    const servo::SourceSnapshot& s = st.sources[i];
    const uint32_t row = static_cast<uint32_t>(i + 1);
    auto put = [&](const Oid& col, Value val) {
      v.Put(Concat(col, {row}), std::move(val));
    };
    put(kZgSourceName, Value::Str(s.name));
    put(kZgSourceKind, Value::Str(KindName(s.kind)));
    put(kZgSourcePriority, Value::Int(s.priority));
    put(kZgSourceHealth, Value::Int(static_cast<int>(s.health)));
    put(kZgSourceUp, Value::Int(Truth(s.discipline.up)));
    put(kZgSourceSelected, Value::Int(Truth(s.discipline.selected)));
    put(kZgSourceOffset, Value::Int(ClampInt32(s.discipline.last_offset_ns)));
    put(kZgSourceSamples, Counter64(s.discipline.samples));
    put(kZgSourceProblem, Value::Str(s.problem));
    put(kZgSourceGnssFixMode, Value::Int(s.gnss ? s.gnss->fix_mode : 0));
    if (!s.gnss) continue;
    for (size_t c = 0; c < servo::kGnssSystemCount; ++c) {
      const servo::SatelliteCounts& n = s.gnss->satellites[c];
      const uint32_t constellation = static_cast<uint32_t>(c + 1);
      v.Put(Concat(kZgGnssInView, {row, constellation}), Gauge(n.seen));
      v.Put(Concat(kZgGnssUsed, {row, constellation}), Gauge(n.used));
      v.Put(Concat(kZgGnssStrong, {row, constellation}), Gauge(n.strong));
    }
  }
}

void PutDataplane(MibView& v, const servo::DataplaneStatus& d) {
  for (size_t i = 0; i < d.ports.size(); ++i) {
    const servo::PortStatus& p = d.ports[i];
    const uint32_t row = static_cast<uint32_t>(i + 1);
    // Frames the workers received and sent on it.
    uint64_t rx = 0, tx = 0;
    for (const servo::WorkerStatus& w : d.workers) {
      if (w.port != p.name) continue;
      rx += w.rx_packets;
      tx += w.tx_packets;
    }
    v.Put(Concat(kZgPortName, {row}), Value::Str(p.name));
    v.Put(Concat(kZgPortLinkUp, {row}), Value::Int(Truth(p.link_up)));
    v.Put(Concat(kZgPortSpeed, {row}), Gauge(p.speed_mbps));
    v.Put(Concat(kZgPortHardwareTimestamps, {row}),
          Value::Int(Truth(p.hardware_timestamps)));
    v.Put(Concat(kZgPortRxPackets, {row}), Counter64(rx));
    v.Put(Concat(kZgPortTxPackets, {row}), Counter64(tx));
  }
  for (size_t i = 0; i < d.ptp.size(); ++i) {
    const servo::PtpStatus& p = d.ptp[i];
    const uint32_t row = static_cast<uint32_t>(i + 1);
    v.Put(Concat(kZgPtpPortName, {row}), Value::Str(p.port));
    v.Put(Concat(kZgPtpPortState, {row}), Value::Int(p.port_state_value));
    v.Put(Concat(kZgPtpPortClockClass, {row}), Value::Int(p.clock_class));
    v.Put(Concat(kZgPtpPortSubscribers, {row}),
          Gauge(static_cast<int64_t>(p.subscribers)));
  }
}

// One alarm's columns at `row`: what the table and the notifications share.
std::vector<VarBind> AlarmColumns(uint32_t row, servo::AlarmId id,
                                  const std::string& instance,
                                  servo::AlarmSeverity severity, bool raised,
                                  core::UtcNs when, const std::string& msg) {
  return {
      {Concat(kZgAlarmId, {row}), Value::Int(static_cast<int>(id))},
      {Concat(kZgAlarmName, {row}), Value::Str(servo::AlarmDefOf(id).name)},
      {Concat(kZgAlarmResource, {row}), Value::Str(instance)},
      {Concat(kZgAlarmSeverity, {row}), Value::Int(static_cast<int>(severity))},
      {Concat(kZgAlarmState, {row}), Value::Int(raised ? 1 : 2)},
      {Concat(kZgAlarmTime, {row}), Value::Str(core::FormatUtc(when))},
      {Concat(kZgAlarmMessage, {row}), Value::Str(msg)},
  };
}

void PutAlarms(MibView& v, const servo::AlarmTable& t) {
  for (const servo::AlarmRow& r : t.rows) {
    if (!r.active) continue;
    for (VarBind& vb :
         AlarmColumns(static_cast<uint32_t>(r.slot + 1), r.id, r.instance,
                      r.severity, true, r.since_utc, r.message)) {
      v.Put(std::move(vb.first), std::move(vb.second));
    }
  }
  v.Put(Concat(kZgAlarmsActive, {0}), Gauge(t.ActiveCount()));
}

void PutNtpv4(MibView& v, const MibInputs& in) {
  auto info = [&](uint32_t n, Value val) {
    v.Put(Concat(ntpv4::kEntInfo, {n, 0}), std::move(val));
  };
  auto status = [&](uint32_t n, Value val) {
    v.Put(Concat(ntpv4::kEntStatus, {n, 0}), std::move(val));
  };
  info(ntpv4::kSoftwareName, Value::Str("zeitgeberd"));
  info(ntpv4::kSoftwareVersion, Value::Str(in.software_version));
  info(ntpv4::kSoftwareVendor, Value::Str("zeitgeber"));
  info(ntpv4::kSystemType, Value::Str("Linux"));
  // Raw stamps are nanoseconds (TSC or NIC clock ticks converted).
  info(ntpv4::kTimeResolution,
       Value::Unsigned(ValueType::kUnsigned32, 1'000'000'000));
  status(ntpv4::kEntityUptime,
         Value::Unsigned(
             ValueType::kTimeTicks,
             static_cast<uint64_t>(in.uptime_centiseconds) & 0xffffffffu));
  status(ntpv4::kDateTime, Value::Str(NtpDateTime(in.now_utc)));
  if (in.status != nullptr) {
    const servo::ControlPlaneStatus& st = *in.status;
    const core::ClockModel& m = st.model;
    info(ntpv4::kTimePrecision, Value::Int(m.precision_log2));
    info(ntpv4::kTimeDistance,
         Value::Str(Ms(static_cast<double>(
             std::max<int64_t>(st.discipline.bound_ns, 0)))));
    int mode = ntpv4::kNotSynchronized;
    if (st.sources.empty()) mode = ntpv4::kNoneConfigured;
    if (st.discipline.state == core::SyncState::kLocked) {
      mode = ntpv4::kSyncToRefclock;
    } else if (st.discipline.state == core::SyncState::kHoldoverInSpec) {
      mode = ntpv4::kSyncToLocal;
    }
    status(ntpv4::kCurrentMode, Value::Int(mode));
    status(ntpv4::kStratum,
           Value::Unsigned(ValueType::kUnsigned32,
                           m.stratum == 0 ? 16 : std::min<int>(m.stratum, 16)));
    uint64_t selected_id = 0;
    std::string selected_name;
    double offset_ns = 0;
    for (size_t i = 0; i < st.sources.size(); ++i) {
      if (!st.sources[i].discipline.selected) continue;
      selected_id = i + 1;
      selected_name = st.sources[i].name;
      offset_ns = st.sources[i].discipline.last_offset_ns;
    }
    status(ntpv4::kActiveRefSourceId,
           Value::Unsigned(ValueType::kUnsigned32, selected_id));
    status(ntpv4::kActiveRefSourceName, Value::Str(selected_name));
    status(ntpv4::kActiveOffset, Value::Str(Ms(offset_ns)));
    status(ntpv4::kNumberOfRefSources,
           Value::Unsigned(ValueType::kUnsigned32,
                           std::min<size_t>(st.sources.size(), 99)));
    status(ntpv4::kDispersion,
           Value::Str(Ms(static_cast<double>(
               std::max<int64_t>(st.discipline.bound_ns, 0)))));
    if (m.leap != core::LeapPending::kNone) {
      status(ntpv4::kLeapSecond,
             Value::Str(NtpDateTime(core::UtcNs{
                 m.leap_at.value - int64_t{m.utc_offset_s} * 1'000'000'000})));
    } else {
      status(ntpv4::kLeapSecond, Value::Str(""));
    }
    status(ntpv4::kLeapSecDirection,
           Value::Int(m.leap == core::LeapPending::kInsert   ? 1
                      : m.leap == core::LeapPending::kDelete ? -1
                                                             : 0));
  }
  if (in.dataplane != nullptr) {
    const servo::FrameKindCount ntp = in.dataplane->server.Frames("ntp");
    status(ntpv4::kInPkts,
           Value::Unsigned(ValueType::kCounter32, ntp.received & 0xffffffffu));
    status(ntpv4::kOutPkts,
           Value::Unsigned(ValueType::kCounter32, ntp.replied & 0xffffffffu));
  }
}

}  // namespace

Oid Concat(Oid base, std::initializer_list<uint32_t> tail) {
  base.insert(base.end(), tail.begin(), tail.end());
  return base;
}

std::string FormatOid(const Oid& oid) { return absl::StrJoin(oid, "."); }

const Value* MibView::Get(const Oid& oid) const {
  auto it = values_.find(oid);
  return it == values_.end() ? nullptr : &it->second;
}

const MibView::Entry* MibView::Next(const Oid& oid, bool inclusive) const {
  auto it = inclusive ? values_.lower_bound(oid) : values_.upper_bound(oid);
  return it == values_.end() ? nullptr : &*it;
}

MibView BuildMibView(const MibInputs& in) {
  MibView v;
  if (in.status != nullptr) {
    PutClock(v, *in.status);
    PutSources(v, *in.status);
  }
  if (in.dataplane != nullptr) PutDataplane(v, *in.dataplane);
  if (in.alarms != nullptr) PutAlarms(v, *in.alarms);
  v.Put(Concat(kZgResendActiveAlarms, {0}), Value::Int(0));
  v.Put(Concat(kZgSendTestNotification, {0}), Value::Int(0));
  v.Put(Concat(kZgHeartbeatInterval, {0}), Value::Int(in.heartbeat_interval_s));
  PutNtpv4(v, in);
  return v;
}

namespace {

std::vector<VarBind> Notification(const Oid& trap, std::vector<VarBind> body,
                                  const std::string& sys_name) {
  std::vector<VarBind> out;
  out.push_back({kSnmpTrapOid, Value::ObjectId(trap)});
  for (VarBind& vb : body) out.push_back(std::move(vb));
  out.push_back({kSysName0, Value::Str(sys_name)});
  return out;
}

}  // namespace

std::vector<VarBind> AlarmNotification(const servo::AlarmEvent& e,
                                       const std::string& sys_name) {
  return Notification(
      e.raised ? kZgAlarmRaised : kZgAlarmCleared,
      AlarmColumns(static_cast<uint32_t>(e.slot + 1), e.id, e.instance,
                   e.severity, e.raised, e.utc, e.message),
      sys_name);
}

std::vector<VarBind> AlarmRowNotification(const servo::AlarmRow& r,
                                          const std::string& sys_name) {
  return Notification(
      r.active ? kZgAlarmRaised : kZgAlarmCleared,
      AlarmColumns(static_cast<uint32_t>(r.slot + 1), r.id, r.instance,
                   r.severity, r.active, r.since_utc, r.message),
      sys_name);
}

std::vector<VarBind> HeartbeatNotification(int clock_state, int alarms_active,
                                           const std::string& sys_name) {
  return Notification(kZgHeartbeat,
                      {{Concat(kZgClockState, {0}), Value::Int(clock_state)},
                       {Concat(kZgAlarmsActive, {0}), Gauge(alarms_active)}},
                      sys_name);
}

std::vector<VarBind> TestNotification(const std::string& sys_name) {
  return Notification(kZgTestNotification, {}, sys_name);
}

std::string NtpDateTime(core::UtcNs t) {
  constexpr int64_t kNtpUnixOffsetS = 2'208'988'800;
  int64_t s = t.value / 1'000'000'000;
  int64_t ns = t.value % 1'000'000'000;
  if (ns < 0) {
    ns += 1'000'000'000;
    --s;
  }
  const int64_t ntp_s = s + kNtpUnixOffsetS;
  const int32_t era = static_cast<int32_t>(ntp_s >> 32);
  const uint32_t offset = static_cast<uint32_t>(ntp_s & 0xffffffff);
  const uint64_t fraction = static_cast<uint64_t>(
      (static_cast<unsigned __int128>(ns) << 64) / 1'000'000'000);
  std::string out(16, '\0');
  auto put = [&](size_t at, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) {
      out[at + i] = static_cast<char>(v >> (8 * (bytes - 1 - i)));
    }
  };
  put(0, static_cast<uint32_t>(era), 4);
  put(4, offset, 4);
  put(8, fraction, 8);
  return out;
}

}  // namespace zg::dataplane::snmp
