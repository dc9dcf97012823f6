// SPDX-License-Identifier: Apache-2.0
#include "tests/util/netns.h"

#include <unistd.h>

#include <atomic>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/base/status_macros.h"
#include "tests/util/paths.h"

namespace zg::testutil {
namespace {

constexpr absl::Duration kScriptTimeout = absl::Seconds(30);

// Runs `fn args...` from scripts/netns.sh under `set -e`; on success returns
// the ZG_* variables it exported.
absl::StatusOr<std::map<std::string, std::string>> NetnsSh(
    const std::string& fn, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {
      "bash", "-c", absl::StrCat("set -e; . \"$0\"; ", fn, " \"$@\"; env"),
      ScriptPath("netns.sh")};
  argv.insert(argv.end(), args.begin(), args.end());
  ZG_ASSIGN_OR_RETURN(CommandResult r, RunCommand(argv, kScriptTimeout));
  if (!r.ok()) return absl::InternalError(r.Describe());
  std::map<std::string, std::string> vars;
  for (absl::string_view line : absl::StrSplit(r.stdout_text, '\n')) {
    if (!absl::StartsWith(line, "ZG_")) continue;
    std::pair<std::string, std::string> kv =
        absl::StrSplit(line, absl::MaxSplits('=', 1));
    vars.insert(std::move(kv));
  }
  return vars;
}

absl::Status NeedRoot() {
  if (CanCreateNamespaces()) return absl::OkStatus();
  return absl::FailedPreconditionError(
      "network namespaces need root and iproute2 (run the e2e suite as root)");
}

}  // namespace

bool CanCreateNamespaces() { return geteuid() == 0 && ProgramAvailable("ip"); }

std::string UniqueRigName(const std::string& prefix) {
  static std::atomic<int> counter{0};
  return absl::StrCat(prefix, getpid(), counter.fetch_add(1) % 100);
}

absl::StatusOr<CommandResult> RunInNamespace(
    const std::string& ns, const std::vector<std::string>& argv,
    absl::Duration timeout) {
  std::vector<std::string> full = {"ip", "netns", "exec", ns};
  full.insert(full.end(), argv.begin(), argv.end());
  return RunCommand(full, timeout);
}

absl::StatusOr<std::unique_ptr<Subprocess>> StartInNamespace(
    const std::string& ns, const std::vector<std::string>& argv,
    const SubprocessOptions& options) {
  std::vector<std::string> full = {"ip", "netns", "exec", ns};
  full.insert(full.end(), argv.begin(), argv.end());
  return Subprocess::Start(full, options);
}

absl::StatusOr<std::unique_ptr<NetnsRig>> NetnsRig::Create(RigConfig config) {
  ZG_RETURN_IF_ERROR(NeedRoot());
  if (config.name.empty()) config.name = UniqueRigName("zgt");
  std::unique_ptr<NetnsRig> rig(new NetnsRig());
  rig->name_ = config.name;
  rig->up_ = true;  // from here on the destructor cleans up partial rigs
  // Names as zg_rig_up makes them; so does a fatal signal from here on.
  rig->ns_cleanup_ = CleanupRegistration::Netns(config.name);
  rig->link_cleanup_ = CleanupRegistration::Link(config.name + "h");
  ZG_ASSIGN_OR_RETURN(
      auto vars,
      NetnsSh("zg_rig_up", {config.name, config.server_cidr, config.client_cidr,
                            config.server_cidr6, config.client_cidr6,
                            absl::StrCat(config.queues)}));
  rig->ns_ = vars["ZG_RIG_NS"];
  rig->host_if_ = vars["ZG_RIG_HOST_IF"];
  rig->client_if_ = vars["ZG_RIG_CLIENT_IF"];
  rig->server_ip_ = vars["ZG_RIG_SERVER_IP"];
  rig->client_ip_ = vars["ZG_RIG_CLIENT_IP"];
  rig->server_ip6_ = vars["ZG_RIG_SERVER_IP6"];
  rig->client_ip6_ = vars["ZG_RIG_CLIENT_IP6"];
  return rig;
}

NetnsRig::~NetnsRig() { Destroy().IgnoreError(); }

absl::Status NetnsRig::Destroy() {
  if (!up_) return absl::OkStatus();
  up_ = false;
  absl::Status s = NetnsSh("zg_rig_down", {name_}).status();
  ns_cleanup_.Release();
  link_cleanup_.Release();
  return s;
}

absl::StatusOr<std::unique_ptr<NetnsPair>> NetnsPair::Create(
    PairConfig config) {
  ZG_RETURN_IF_ERROR(NeedRoot());
  if (config.name.empty()) config.name = UniqueRigName("zgp");
  std::unique_ptr<NetnsPair> pair(new NetnsPair());
  pair->name_ = config.name;
  pair->up_ = true;
  pair->ns_a_cleanup_ = CleanupRegistration::Netns(config.name + "a");
  pair->ns_b_cleanup_ = CleanupRegistration::Netns(config.name + "b");
  ZG_ASSIGN_OR_RETURN(
      auto vars,
      NetnsSh("zg_pair_up", {config.name, config.cidr_a, config.cidr_b,
                             config.cidr6_a, config.cidr6_b}));
  pair->ns_a_ = vars["ZG_PAIR_NS_A"];
  pair->ns_b_ = vars["ZG_PAIR_NS_B"];
  pair->if_a_ = vars["ZG_PAIR_IF_A"];
  pair->if_b_ = vars["ZG_PAIR_IF_B"];
  pair->ip_a_ = vars["ZG_PAIR_IP_A"];
  pair->ip_b_ = vars["ZG_PAIR_IP_B"];
  pair->ip6_a_ = vars["ZG_PAIR_IP6_A"];
  pair->ip6_b_ = vars["ZG_PAIR_IP6_B"];
  return pair;
}

NetnsPair::~NetnsPair() { Destroy().IgnoreError(); }

absl::Status NetnsPair::Destroy() {
  if (!up_) return absl::OkStatus();
  up_ = false;
  absl::Status s = NetnsSh("zg_pair_down", {name_}).status();
  ns_a_cleanup_.Release();
  ns_b_cleanup_.Release();
  return s;
}

}  // namespace zg::testutil
