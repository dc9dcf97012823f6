// SPDX-License-Identifier: Apache-2.0
// SnmpAgent: zeitgeberd's AgentX subagent (net-snmp, RFC 2741), on a thread
// of its own. It connects to the host's snmpd (the master agent) at
// --snmp_agentx, registers ZEITGEBER-MIB's subtree and the NTPv4-MIB
// objects it serves (mib_view.h), and answers GET, GETNEXT (walks) and the
// two command SETs from the snapshots the control thread publishes
// (servo::ControlSnapshots, servo::DataplaneView): it never calls into the
// control thread, so a slow or hostile manager cannot delay the servo.
//
// Notifications, sent through the master (which forwards them to its
// trap2sink/informsink destinations):
//   zgAlarmRaised/zgAlarmCleared  for every alarm event in the published
//                                 table, in order, once (held while the
//                                 master is unreachable)
//   zgHeartbeat                   every --snmp_heartbeat_interval
//   zgTestNotification            on SET zgSendTestNotification.0 = 1
//   zgAlarmRaised for each raised alarm, on SET zgResendActiveAlarms.0 = 1
//
//   SnmpAgent::Options o;
//   o.agentx_socket = "/var/agentx/master";
//   o.snapshots = &control->snapshots();
//   ZG_ASSIGN_OR_RETURN(auto agent, SnmpAgent::Start(std::move(o)));
//
// One per process (net-snmp's agent library is process-global).
#ifndef ZG_DATAPLANE_SNMP_SNMP_AGENT_H_
#define ZG_DATAPLANE_SNMP_SNMP_AGENT_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "servo/api/status_board.h"
#include "servo/control/control_snapshots.h"

namespace zg::dataplane::snmp {

class SnmpAgent {
 public:
  struct Options {
    // The master agent's AgentX socket: a path (unix domain) or
    // "tcp:HOST:PORT", as snmpd's agentXSocket.
    std::string agentx_socket;
    absl::Duration heartbeat_interval = absl::Seconds(60);  // 0: none
    std::string software_version;
    const servo::ControlSnapshots* snapshots = nullptr;  // required
    // The data plane's snapshot (servo/api/status_board.h); may be null.
    const servo::DataplaneView* dataplane = nullptr;
    std::function<void(const std::string&)> log;  // may be empty
  };

  // Written by: the agent thread. Read by: anyone (tests, the final log).
  struct Stats {
    std::atomic<uint64_t> requests{0};       // varbinds answered
    std::atomic<uint64_t> notifications{0};  // sent to the master
    std::atomic<uint64_t> sets_refused{0};   // wrong object, type or value
    std::atomic<bool> connected{false};      // to the master, now
  };

  static absl::StatusOr<std::unique_ptr<SnmpAgent>> Start(Options options);
  ~SnmpAgent();  // Stop()
  SnmpAgent(const SnmpAgent&) = delete;
  SnmpAgent& operator=(const SnmpAgent&) = delete;

  void Stop();
  const Stats& stats() const { return stats_; }

  // The agent thread's own (public for the net-snmp handler trampoline).
  struct Impl;

 private:
  explicit SnmpAgent(Options options);
  void Run();

  Options options_;
  Stats stats_;
  std::atomic<bool> stop_{false};
  std::unique_ptr<Impl> impl_;
  std::thread thread_;
};

}  // namespace zg::dataplane::snmp

#endif  // ZG_DATAPLANE_SNMP_SNMP_AGENT_H_
