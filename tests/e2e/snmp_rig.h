// SPDX-License-Identifier: Apache-2.0
// A real SNMP management side for the e2e tests: snmpd as the AgentX master
// agent (its AgentX socket in a temporary directory, SNMP on a free
// loopback UDP port, notifications sent to) snmptrapd (logging every trap
// with numeric OIDs to a file), started by the test and stopped with it;
// snmpwalk/snmpset/snmpget against it; the trap log parsed.
//
//   ZG_ASSIGN_OR_RETURN(auto snmp, SnmpRig::Start(dir));
//   ... zeitgeberd --snmp_agentx=snmp->agentx_socket() ...
//   std::map<std::string, std::string> v = snmp->Walk("1.3.6.1.4.1.32473.7");
//   std::vector<Trap> traps = snmp->Traps();
//
// The net-snmp tools run with no MIB files (MIBS= MIBDIRS=/nonexistent):
// Debian ships none of the IETF base MIBs, so OIDs are numeric throughout.
#ifndef ZG_TESTS_E2E_SNMP_RIG_H_
#define ZG_TESTS_E2E_SNMP_RIG_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tests/util/subprocess.h"
#include "tests/util/temp_dir.h"

namespace zg::e2e {

struct Trap {
  std::string oid;  // snmpTrapOID.0's value, numeric without a leading dot
  std::map<std::string, std::string> vars;  // OID -> value as snmptrapd
                                            // prints it (quotes stripped)
  // The variable whose OID starts with `column` (a column OID + "."), or "".
  std::string Column(const std::string& column) const;
};

class SnmpRig {
 public:
  static absl::StatusOr<std::unique_ptr<SnmpRig>> Start(
      const testutil::TempDir& dir);
  ~SnmpRig();

  const std::string& agentx_socket() const { return agentx_; }
  // OID (no leading dot) -> "TYPE: value" with the type dropped and string
  // quotes removed.
  absl::StatusOr<std::map<std::string, std::string>> Walk(
      const std::string& oid) const;
  // snmpset OID TYPE VALUE with the read-write community.
  absl::StatusOr<testutil::CommandResult> Set(const std::string& oid,
                                              const std::string& type,
                                              const std::string& value) const;
  // Every trap snmptrapd logged so far, in arrival order.
  std::vector<Trap> Traps() const;
  std::string TrapLog() const;
  std::string Log() const;  // snmpd's and snmptrapd's output

 private:
  SnmpRig() = default;
  std::string agentx_, trap_log_, address_;
  std::unique_ptr<testutil::Subprocess> snmpd_, trapd_;
};

}  // namespace zg::e2e

#endif  // ZG_TESTS_E2E_SNMP_RIG_H_
