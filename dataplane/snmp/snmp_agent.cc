// SPDX-License-Identifier: Apache-2.0
// SnmpAgent (snmp_agent.h): the net-snmp AgentX subagent thread.
#include "dataplane/snmp/snmp_agent.h"

// clang-format off
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>
// clang-format on
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

#include <mutex>
#include <vector>

#include "absl/strings/str_cat.h"
#include "dataplane/snmp/mib_view.h"
#include "dataplane/snmp/ntpv4_oids.h"
#include "dataplane/snmp/zeitgeber_oids.h"

// net-snmp's subagent session to the master (agent/mibgroup/agentx/
// subagent.c): null while the master is unreachable. Not in its headers.
extern "C" netsnmp_session* main_session;

namespace zg::dataplane::snmp {
namespace {

constexpr char kAppName[] = "zeitgeberd";

int64_t MonoNs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

core::UtcNs NowUtc() {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return {int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec};
}

std::vector<oid> ToNetSnmp(const Oid& o) { return {o.begin(), o.end()}; }

Oid FromNetSnmp(const oid* name, size_t len) { return Oid(name, name + len); }

bool HasPrefix(const Oid& o, const Oid& prefix) {
  return o.size() >= prefix.size() &&
         std::equal(prefix.begin(), prefix.end(), o.begin());
}

// Sets `vb`'s type and value. The OID is the caller's.
void SetValue(netsnmp_variable_list* vb, const Value& v) {
  switch (v.type) {
    case ValueType::kInteger: {
      const long i = static_cast<long>(v.integer);
      snmp_set_var_typed_value(vb, ASN_INTEGER, &i, sizeof(i));
      return;
    }
    case ValueType::kOctets:
      snmp_set_var_typed_value(vb, ASN_OCTET_STR, v.octets.data(),
                               v.octets.size());
      return;
    case ValueType::kGauge32:
    case ValueType::kUnsigned32:
    case ValueType::kCounter32:
    case ValueType::kTimeTicks: {
      const u_long u = static_cast<u_long>(v.unsigned_ & 0xffffffffu);
      const u_char type = v.type == ValueType::kCounter32   ? ASN_COUNTER
                          : v.type == ValueType::kTimeTicks ? ASN_TIMETICKS
                          : v.type == ValueType::kGauge32   ? ASN_GAUGE
                                                            : ASN_UNSIGNED;
      snmp_set_var_typed_value(vb, type, &u, sizeof(u));
      return;
    }
    case ValueType::kCounter64: {
      struct counter64 c;
      c.high = static_cast<u_long>(v.unsigned_ >> 32);
      c.low = static_cast<u_long>(v.unsigned_ & 0xffffffffu);
      snmp_set_var_typed_value(vb, ASN_COUNTER64, &c, sizeof(c));
      return;
    }
    case ValueType::kOid: {
      const std::vector<oid> o = ToNetSnmp(v.oid);
      snmp_set_var_typed_value(vb, ASN_OBJECT_ID, o.data(),
                               o.size() * sizeof(oid));
      return;
    }
  }
}

}  // namespace

struct SnmpAgent::Impl {
  SnmpAgent* agent = nullptr;
  std::string sys_name;
  uint64_t last_seq = 0;  // of the newest alarm event notified
  int64_t next_heartbeat_mono = 0;
  int64_t start_mono = 0;
  bool resend_requested = false;  // by a SET, done after the PDU
  bool test_requested = false;

  MibView View() const {
    const SnmpAgent::Options& o = agent->options_;
    std::shared_ptr<const servo::ControlPlaneStatus> st = o.snapshots->Status();
    std::shared_ptr<const servo::AlarmTable> alarms = o.snapshots->Alarms();
    std::shared_ptr<const servo::DataplaneStatus> dp =
        o.dataplane != nullptr ? o.dataplane->Read() : nullptr;
    MibInputs in;
    in.status = st.get();
    in.alarms = alarms.get();
    in.dataplane = dp.get();
    in.now_utc = NowUtc();
    in.uptime_centiseconds = (MonoNs() - start_mono) / 10'000'000;
    in.heartbeat_interval_s =
        static_cast<int>(absl::ToInt64Seconds(o.heartbeat_interval));
    in.software_version = o.software_version;
    return BuildMibView(in);
  }

  void Send(const std::vector<VarBind>& vbs) {
    netsnmp_variable_list* list = nullptr;
    for (const VarBind& vb : vbs) {
      const std::vector<oid> name = ToNetSnmp(vb.first);
      netsnmp_variable_list* v = snmp_varlist_add_variable(
          &list, name.data(), name.size(), ASN_NULL, nullptr, 0);
      if (v != nullptr) SetValue(v, vb.second);
    }
    send_v2trap(list);
    snmp_free_varbind(list);
    agent->stats_.notifications.fetch_add(1, std::memory_order_relaxed);
  }

  // What is due after each wake-up: alarm events not yet notified, the
  // heartbeat, and the commands a SET asked for.
  void Poll() {
    const bool connected = main_session != nullptr;
    agent->stats_.connected.store(connected, std::memory_order_relaxed);
    if (!connected) return;  // hold everything until the master is back
    std::shared_ptr<const servo::AlarmTable> t =
        agent->options_.snapshots->Alarms();
    if (t != nullptr) {
      for (const servo::AlarmEvent& e : t->recent) {
        if (e.seq <= last_seq) continue;
        Send(AlarmNotification(e, sys_name));
        last_seq = e.seq;
      }
    }
    if (resend_requested && t != nullptr) {
      for (const servo::AlarmRow& r : t->rows) {
        if (r.active) Send(AlarmRowNotification(r, sys_name));
      }
    }
    resend_requested = false;
    if (test_requested) Send(TestNotification(sys_name));
    test_requested = false;
    const int64_t interval =
        absl::ToInt64Nanoseconds(agent->options_.heartbeat_interval);
    const int64_t now = MonoNs();
    if (interval > 0 && now >= next_heartbeat_mono) {
      next_heartbeat_mono = now + interval;
      std::shared_ptr<const servo::ControlPlaneStatus> st =
          agent->options_.snapshots->Status();
      Send(HeartbeatNotification(
          st == nullptr ? 0 : static_cast<int>(st->discipline.state),
          t == nullptr ? 0 : t->ActiveCount(), sys_name));
    }
  }

  // Validates a SET varbind (RESERVE1): only the two commands, INTEGER 0/1.
  int CheckSet(const Oid& name, const netsnmp_variable_list* vb) const {
    if (name != Concat(kZgResendActiveAlarms, {0}) &&
        name != Concat(kZgSendTestNotification, {0})) {
      return SNMP_ERR_NOTWRITABLE;
    }
    if (vb->type != ASN_INTEGER) return SNMP_ERR_WRONGTYPE;
    if (*vb->val.integer != 0 && *vb->val.integer != 1) {
      return SNMP_ERR_WRONGVALUE;
    }
    return SNMP_ERR_NOERROR;
  }

  int Handle(netsnmp_handler_registration* reg,
             netsnmp_agent_request_info* reqinfo,
             netsnmp_request_info* requests) {
    const Oid root = FromNetSnmp(reg->rootoid, reg->rootoid_len);
    if (reqinfo->mode == MODE_GET || reqinfo->mode == MODE_GETNEXT) {
      const MibView view = View();
      for (netsnmp_request_info* r = requests; r != nullptr; r = r->next) {
        if (r->processed) continue;
        const Oid name =
            FromNetSnmp(r->requestvb->name, r->requestvb->name_length);
        if (reqinfo->mode == MODE_GET) {
          const Value* v = view.Get(name);
          if (v == nullptr) {
            netsnmp_set_request_error(reqinfo, r, SNMP_NOSUCHINSTANCE);
          } else {
            SetValue(r->requestvb, *v);
          }
        } else {
          const MibView::Entry* e = view.Next(name, r->inclusive != 0);
          // Past this registration's subtree: left unanswered, so the
          // master asks the next registration.
          if (e == nullptr || !HasPrefix(e->first, root)) continue;
          const std::vector<oid> o = ToNetSnmp(e->first);
          snmp_set_var_objid(r->requestvb, o.data(), o.size());
          SetValue(r->requestvb, e->second);
        }
        agent->stats_.requests.fetch_add(1, std::memory_order_relaxed);
      }
      return SNMP_ERR_NOERROR;
    }
    for (netsnmp_request_info* r = requests; r != nullptr; r = r->next) {
      const Oid name =
          FromNetSnmp(r->requestvb->name, r->requestvb->name_length);
      switch (reqinfo->mode) {
        case MODE_SET_RESERVE1:
          if (const int err = CheckSet(name, r->requestvb);
              err != SNMP_ERR_NOERROR) {
            agent->stats_.sets_refused.fetch_add(1, std::memory_order_relaxed);
            netsnmp_set_request_error(reqinfo, r, err);
          }
          break;
        case MODE_SET_COMMIT:
          if (*r->requestvb->val.integer == 1) {
            if (name == Concat(kZgResendActiveAlarms, {0})) {
              resend_requested = true;
            } else {
              test_requested = true;
            }
          }
          break;
        default:  // RESERVE2, ACTION, FREE, UNDO: nothing held, nothing to undo
          break;
      }
    }
    return SNMP_ERR_NOERROR;
  }
};

namespace {

int HandlerTrampoline(netsnmp_mib_handler* /*handler*/,
                      netsnmp_handler_registration* reg,
                      netsnmp_agent_request_info* reqinfo,
                      netsnmp_request_info* requests) {
  auto* impl = static_cast<SnmpAgent::Impl*>(reg->my_reg_void);
  return impl->Handle(reg, reqinfo, requests);
}

void Register(SnmpAgent::Impl* impl, const char* name, const Oid& root,
              int modes) {
  const std::vector<oid> o = ToNetSnmp(root);
  netsnmp_handler_registration* reg = netsnmp_create_handler_registration(
      name, &HandlerTrampoline, o.data(), o.size(), modes);
  reg->my_reg_void = impl;
  netsnmp_register_handler(reg);
}

}  // namespace

SnmpAgent::SnmpAgent(Options options) : options_(std::move(options)) {}

absl::StatusOr<std::unique_ptr<SnmpAgent>> SnmpAgent::Start(Options options) {
  if (options.agentx_socket.empty()) {
    return absl::InvalidArgumentError(
        "--snmp_agentx: give the master agent's AgentX socket (snmpd's "
        "agentXSocket, e.g. /var/agentx/master or tcp:127.0.0.1:705)");
  }
  if (options.snapshots == nullptr) {
    return absl::InvalidArgumentError("SNMP agent: no snapshots to serve");
  }
  std::unique_ptr<SnmpAgent> a(new SnmpAgent(std::move(options)));
  a->impl_ = std::make_unique<Impl>();
  a->impl_->agent = a.get();
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  a->impl_->sys_name = host;
  a->thread_ = std::thread([p = a.get()] { p->Run(); });
  return a;
}

SnmpAgent::~SnmpAgent() { Stop(); }

void SnmpAgent::Stop() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
}

void SnmpAgent::Run() {
  netsnmp_ds_set_boolean(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_ROLE, 1);
  netsnmp_ds_set_string(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_X_SOCKET,
                        options_.agentx_socket.c_str());
  // Reconnect within a second or two of a master restart.
  netsnmp_ds_set_int(NETSNMP_DS_APPLICATION_ID,
                     NETSNMP_DS_AGENT_AGENTX_PING_INTERVAL, 1);
  // No snmp.conf, no persistent state under /var/lib/snmp: the daemon's
  // flags are its whole configuration.
  netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID,
                         NETSNMP_DS_LIB_DONT_READ_CONFIGS, 1);
  netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID,
                         NETSNMP_DS_LIB_DONT_PERSIST_STATE, 1);
  netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID,
                         NETSNMP_DS_LIB_DISABLE_PERSISTENT_LOAD, 1);
  netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID,
                         NETSNMP_DS_LIB_DISABLE_PERSISTENT_SAVE, 1);
  snmp_disable_log();
  snmp_enable_stderrlog();
  impl_->start_mono = MonoNs();
  impl_->next_heartbeat_mono = impl_->start_mono;
  init_agent(kAppName);
  Register(impl_.get(), "zeitgeber", kZeitgeberMIB, HANDLER_CAN_RWRITE);
  Register(impl_.get(), "zeitgeber-ntpv4", ntpv4::kNtpSnmpMIB,
           HANDLER_CAN_RONLY);
  init_snmp(kAppName);
  if (options_.log) {
    options_.log(absl::StrCat(
        "SNMP: AgentX subagent for ", FormatOid(kZeitgeberMIB), " and ",
        FormatOid(ntpv4::kNtpSnmpMIB), " via ", options_.agentx_socket));
  }
  bool was_connected = false;
  while (!stop_.load(std::memory_order_relaxed)) {
    int fds = 0, block = 0;
    fd_set read_fds;
    FD_ZERO(&read_fds);
    struct timeval timeout = {0, 100'000};  // at most 100 ms asleep
    struct timeval snmp_wait = timeout;
    snmp_select_info(&fds, &read_fds, &snmp_wait, &block);
    if (!block && timercmp(&snmp_wait, &timeout, <)) timeout = snmp_wait;
    const int n = select(fds, &read_fds, nullptr, nullptr, &timeout);
    if (n > 0) {
      snmp_read(&read_fds);
    } else if (n == 0) {
      snmp_timeout();
    }
    run_alarms();
    netsnmp_check_outstanding_agent_requests();
    impl_->Poll();
    const bool connected = stats_.connected.load(std::memory_order_relaxed);
    if (connected != was_connected && options_.log) {
      options_.log(connected ? "SNMP: connected to the AgentX master"
                             : "SNMP: AgentX master unreachable; retrying");
    }
    was_connected = connected;
  }
  snmp_shutdown(kAppName);
  shutdown_agent();
}

}  // namespace zg::dataplane::snmp
