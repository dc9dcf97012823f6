// SPDX-License-Identifier: Apache-2.0
// SnmpRig (snmp_rig.h): snmpd + snmptrapd for the e2e tests.
#include "tests/e2e/snmp_rig.h"

#include <sys/stat.h>

#include <fstream>
#include <iterator>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "tests/util/deadline.h"
#include "tests/util/ports.h"

namespace zg::e2e {
namespace {

const testutil::SubprocessOptions kNoMibs{
    .env = {"MIBS=", "MIBDIRS=/nonexistent"}};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
}

// "STRING: \"x\"" -> "x", "INTEGER: 3" -> "3", "OID: .1.3" -> "1.3".
std::string BareValue(absl::string_view v) {
  v = absl::StripAsciiWhitespace(v);
  const size_t colon = v.find(": ");
  if (colon != absl::string_view::npos &&
      v.substr(0, colon).find(' ') == absl::string_view::npos &&
      v.substr(0, colon).find('"') == absl::string_view::npos) {
    v = v.substr(colon + 2);
  }
  if (v.size() >= 2 && v.front() == '"' && v.back() == '"') {
    v = v.substr(1, v.size() - 2);
  }
  absl::ConsumePrefix(&v, ".");
  return std::string(v);
}

}  // namespace

std::string Trap::Column(const std::string& column) const {
  for (const auto& [oid, value] : vars) {
    if (absl::StartsWith(oid, column + ".")) return value;
  }
  return "";
}

absl::StatusOr<std::unique_ptr<SnmpRig>> SnmpRig::Start(
    const testutil::TempDir& dir) {
  std::unique_ptr<SnmpRig> r(new SnmpRig());
  r->agentx_ = dir.File("agentx.sock");
  r->trap_log_ = dir.File("traps.log");
  const uint16_t snmp_port = testutil::FreeLoopbackPort();
  const uint16_t trap_port = testutil::FreeLoopbackPort();
  r->address_ = absl::StrCat("127.0.0.1:", snmp_port);
  const std::string snmpd_conf = dir.File("snmpd.conf");
  std::ofstream(snmpd_conf)
      << "master agentx\n"
      << "agentXSocket " << r->agentx_ << "\n"
      << "agentXPerms 0660 0770\n"
      << "rocommunity public 127.0.0.1\n"
      << "rwcommunity private 127.0.0.1\n"
      << "trap2sink 127.0.0.1:" << trap_port << " public\n";
  const std::string trapd_conf = dir.File("snmptrapd.conf");
  std::ofstream(trapd_conf) << "disableAuthorization yes\n";
  auto trapd = testutil::Subprocess::Start(
      {"snmptrapd", "-f", "-Lf", r->trap_log_, "-On", "-C", "-c", trapd_conf,
       "-p", dir.File("snmptrapd.pid"),
       absl::StrCat("udp:127.0.0.1:", trap_port)},
      kNoMibs);
  if (!trapd.ok()) return trapd.status();
  r->trapd_ = *std::move(trapd);
  auto snmpd = testutil::Subprocess::Start(
      {"snmpd", "-f", "-Lo", "-C", "-c", snmpd_conf, "-p",
       dir.File("snmpd.pid"), absl::StrCat("udp:", r->address_)},
      kNoMibs);
  if (!snmpd.ok()) return snmpd.status();
  r->snmpd_ = *std::move(snmpd);
  const bool ready =
      testutil::PollUntil(testutil::DeadlineIn(absl::Seconds(10)), [&] {
        struct stat st;
        return (stat(r->agentx_.c_str(), &st) == 0 &&
                absl::StrContains(ReadFile(r->trap_log_), "NET-SNMP")) ||
               !r->snmpd_->Running() || !r->trapd_->Running();
      });
  if (!ready || !r->snmpd_->Running() || !r->trapd_->Running()) {
    return absl::UnavailableError(
        absl::StrCat("snmpd/snmptrapd did not start: ", r->Log()));
  }
  return r;
}

SnmpRig::~SnmpRig() {
  if (snmpd_ != nullptr) snmpd_->Stop();
  if (trapd_ != nullptr) trapd_->Stop();
}

absl::StatusOr<std::map<std::string, std::string>> SnmpRig::Walk(
    const std::string& oid) const {
  absl::StatusOr<testutil::CommandResult> r =
      testutil::RunCommand({"snmpwalk", "-v2c", "-c", "public", "-On", "-t",
                            "2", "-r", "1", address_, oid},
                           absl::Seconds(15), kNoMibs);
  if (!r.ok()) return r.status();
  if (!r->ok()) return absl::InternalError(r->Describe());
  std::map<std::string, std::string> out;
  for (absl::string_view line : absl::StrSplit(r->stdout_text, '\n')) {
    const size_t eq = line.find(" = ");
    if (eq == absl::string_view::npos) continue;
    absl::string_view name = line.substr(0, eq);
    absl::ConsumePrefix(&name, ".");
    out[std::string(name)] = BareValue(line.substr(eq + 3));
  }
  return out;
}

absl::StatusOr<testutil::CommandResult> SnmpRig::Set(
    const std::string& oid, const std::string& type,
    const std::string& value) const {
  return testutil::RunCommand({"snmpset", "-v2c", "-c", "private", "-On", "-t",
                               "2", "-r", "1", address_, oid, type, value},
                              absl::Seconds(15), kNoMibs);
}

std::vector<Trap> SnmpRig::Traps() const {
  // snmptrapd -On -Lf: a header line per trap, then its varbinds on one
  // line, tab-separated: ".1.3.6.1.2.1.1.3.0 = Timeticks: ...\t.1.3... = ..."
  std::vector<Trap> out;
  for (absl::string_view line : absl::StrSplit(TrapLog(), '\n')) {
    if (!absl::StartsWith(line, ".1.3.6.1.2.1.1.3.0 = ")) continue;
    Trap t;
    for (absl::string_view vb : absl::StrSplit(line, '\t')) {
      const size_t eq = vb.find(" = ");
      if (eq == absl::string_view::npos) continue;
      absl::string_view name = vb.substr(0, eq);
      absl::ConsumePrefix(&name, ".");
      const std::string value = BareValue(vb.substr(eq + 3));
      if (name == "1.3.6.1.6.3.1.1.4.1.0") {
        t.oid = value;
      } else {
        t.vars[std::string(name)] = value;
      }
    }
    out.push_back(std::move(t));
  }
  return out;
}

std::string SnmpRig::TrapLog() const { return ReadFile(trap_log_); }

std::string SnmpRig::Log() const {
  return absl::StrCat("snmpd: ", snmpd_ ? snmpd_->Stderr() : "",
                      snmpd_ ? snmpd_->Stdout() : "",
                      "\nsnmptrapd: ", trapd_ ? trapd_->Stderr() : "",
                      "\ntrap log: ", TrapLog());
}

}  // namespace zg::e2e
