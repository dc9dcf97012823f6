// SPDX-License-Identifier: Apache-2.0
// Network-namespace rigs for e2e tests, and running real peers inside them.
//
// The rigs themselves are made by scripts/netns.sh (one implementation for
// shell rigs and C++ tests); this wraps it with RAII so a failed ASSERT still
// removes every namespace, link and process the test created:
//
//   NetnsRig   zg_rig_up:   veth <name>h stays in the root namespace (for
//              zeitgeberd's net_af_xdp), <name>c sits in namespace <name>
//              where clients (ntpdig, chronyd -Q, ptp4l) run.
//   NetnsPair  zg_pair_up:  namespaces <name>a and <name>b joined by a veth
//              pair, for two real peers (chronyd server vs. ntpdig).
//
// Commands run through `ip netns exec` under tests/util/subprocess.h: a
// timeout kills the whole process group; Start() keeps a peer running in the
// background until its Subprocess is stopped or destroyed. Needs root.
//
// Killed by SIGTERM or SIGINT (meson's timeout), the test process runs no
// destructor: rigs and pairs register their namespaces and links with
// tests/util/signal_cleanup.h on creation, and its handler kills what runs
// in them and removes them before the process exits.
//
//   if (!CanCreateNamespaces()) GTEST_SKIP() << "needs root";
//   ZG_ASSIGN_OR_RETURN(auto rig, NetnsRig::Create({}));
//   ... start zeitgeberd on rig->host_if() ...
//   ZG_ASSIGN_OR_RETURN(CommandResult r,
//       rig->Run({"ntpdig", "-t", "2", rig->server_ip()}, absl::Seconds(10)));
#ifndef ZG_TESTS_UTIL_NETNS_H_
#define ZG_TESTS_UTIL_NETNS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "tests/util/signal_cleanup.h"
#include "tests/util/subprocess.h"

namespace zg::testutil {

// True when this process may create namespaces (root, `ip` installed).
bool CanCreateNamespaces();

// A rig name unique to this process: "<prefix><pid>" (<= 13 characters).
std::string UniqueRigName(const std::string& prefix);

// Runs argv in network namespace `ns` (`ip netns exec`), bounded by timeout.
absl::StatusOr<CommandResult> RunInNamespace(
    const std::string& ns, const std::vector<std::string>& argv,
    absl::Duration timeout);

// Starts argv in the background in namespace `ns`.
absl::StatusOr<std::unique_ptr<Subprocess>> StartInNamespace(
    const std::string& ns, const std::vector<std::string>& argv,
    const SubprocessOptions& options = {});

struct RigConfig {
  std::string name;                          // empty: UniqueRigName("zgt")
  std::string server_cidr = "10.99.0.1/24";  // the address zeitgeberd answers
  std::string client_cidr = "10.99.0.2/24";
  std::string server_cidr6 = "fd99::1/64";  // empty: no IPv6
  std::string client_cidr6 = "fd99::2/64";
  int queues = 1;
};

class NetnsRig {
 public:
  static absl::StatusOr<std::unique_ptr<NetnsRig>> Create(RigConfig config);
  NetnsRig(const NetnsRig&) = delete;
  NetnsRig& operator=(const NetnsRig&) = delete;
  ~NetnsRig();  // Destroy(), errors ignored

  const std::string& ns() const { return ns_; }  // the client namespace
  const std::string& host_if() const { return host_if_; }
  const std::string& client_if() const { return client_if_; }
  const std::string& server_ip() const { return server_ip_; }
  const std::string& client_ip() const { return client_ip_; }
  const std::string& server_ip6() const { return server_ip6_; }
  const std::string& client_ip6() const { return client_ip6_; }

  absl::StatusOr<CommandResult> Run(const std::vector<std::string>& argv,
                                    absl::Duration timeout) const {
    return RunInNamespace(ns_, argv, timeout);
  }
  absl::StatusOr<std::unique_ptr<Subprocess>> Start(
      const std::vector<std::string>& argv) const {
    return StartInNamespace(ns_, argv);
  }
  // zg_rig_down: kills what runs in the namespace, removes it and the links.
  // Idempotent.
  absl::Status Destroy();

 private:
  NetnsRig() = default;
  std::string name_, ns_, host_if_, client_if_;
  std::string server_ip_, client_ip_, server_ip6_, client_ip6_;
  bool up_ = false;
  CleanupRegistration ns_cleanup_, link_cleanup_;  // on a fatal signal
};

struct PairConfig {
  std::string name;  // empty: UniqueRigName("zgp")
  std::string cidr_a = "10.97.0.1/24";
  std::string cidr_b = "10.97.0.2/24";
  std::string cidr6_a = "fd97::1/64";  // empty: no IPv6
  std::string cidr6_b = "fd97::2/64";
};

class NetnsPair {
 public:
  static absl::StatusOr<std::unique_ptr<NetnsPair>> Create(PairConfig config);
  NetnsPair(const NetnsPair&) = delete;
  NetnsPair& operator=(const NetnsPair&) = delete;
  ~NetnsPair();

  const std::string& ns_a() const { return ns_a_; }
  const std::string& ns_b() const { return ns_b_; }
  const std::string& if_a() const { return if_a_; }
  const std::string& if_b() const { return if_b_; }
  const std::string& ip_a() const { return ip_a_; }
  const std::string& ip_b() const { return ip_b_; }
  const std::string& ip6_a() const { return ip6_a_; }
  const std::string& ip6_b() const { return ip6_b_; }
  absl::Status Destroy();  // zg_pair_down; idempotent

 private:
  NetnsPair() = default;
  std::string name_, ns_a_, ns_b_, if_a_, if_b_, ip_a_, ip_b_, ip6_a_, ip6_b_;
  bool up_ = false;
  // On a fatal signal; the veth pair goes with the namespaces.
  CleanupRegistration ns_a_cleanup_, ns_b_cleanup_;
};

}  // namespace zg::testutil

#endif  // ZG_TESTS_UTIL_NETNS_H_
