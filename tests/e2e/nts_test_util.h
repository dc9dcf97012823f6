// SPDX-License-Identifier: Apache-2.0
// Shared set-up of the NTS e2e tests (nts_peers_test.cc, nts_fleet_test.cc):
// a test CA and server certificate made with the openssl CLI, a hosts file
// for a namespace (`ip netns exec NS` bind-mounts /etc/netns/NS/hosts over
// /etc/hosts, so clients there resolve the certificate's names), a master
// key file, the zeitgeberd flags that turn NTS on, and nts_query.
//
//   ZG_ASSIGN_OR_RETURN(TestPki pki, MakeTestPki(dir, {"nts4.zg.test"}));
//   ZG_ASSIGN_OR_RETURN(auto hosts, NamespaceHosts::Create(rig->ns(),
//       {{"10.99.0.1", "nts4.zg.test"}}));
//   options.extra_flags = NtsServerFlags(pki, key_file, {"10.99.0.1:4460"});
#ifndef ZG_TESTS_E2E_NTS_TEST_UTIL_H_
#define ZG_TESTS_E2E_NTS_TEST_UTIL_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "tests/util/netns.h"
#include "tests/util/signal_cleanup.h"
#include "tests/util/subprocess.h"
#include "tests/util/temp_dir.h"

namespace zg::e2e {

// The names the test certificate carries; the hosts files map them.
inline constexpr char kNtsName4[] = "nts4.zg.test";
inline constexpr char kNtsName6[] = "nts6.zg.test";

struct TestPki {
  std::string ca_pem;    // the trust anchor clients get
  std::string cert_pem;  // server certificate (SAN = the names)
  std::string key_pem;   // its private key
};
// A P-256 CA and a server certificate for `names`, valid for 2 days, in
// dir (openssl req / x509).
absl::StatusOr<TestPki> MakeTestPki(const testutil::TempDir& dir,
                                    const std::vector<std::string>& names);

// /etc/netns/<ns>/hosts for the life of the object (removed after, also
// on a fatal signal: tests/util/signal_cleanup.h).
class NamespaceHosts {
 public:
  static absl::StatusOr<std::unique_ptr<NamespaceHosts>> Create(
      const std::string& ns,
      const std::vector<std::pair<std::string, std::string>>& ip_names);
  ~NamespaceHosts();

 private:
  std::string dir_;
  testutil::CleanupRegistration cleanup_;
};

// `bytes` random bytes into dir/name, mode 0600.
absl::StatusOr<std::string> WriteMasterKey(const testutil::TempDir& dir,
                                           const std::string& name,
                                           size_t bytes = 32);

// Whether $ZG_ZEITGEBERD knows the NTS flags (the server pieces merged).
bool ZeitgeberdHasNts();

// zeitgeberd's NTS flags: KE on each of `ke_addresses` (IP:PORT,
// [V6]:PORT; --nts_ke_address repeats).
std::vector<std::string> NtsServerFlags(
    const TestPki& pki, const std::string& master_key,
    const std::vector<std::string>& ke_addresses);

// nts_query (tests/e2e/nts_query.cc) in `ns` with `args`; its one line.
// A non-empty `keylog` is passed as SSLKEYLOGFILE (TLS secrets for tshark).
absl::StatusOr<testutil::CommandResult> NtsQuery(
    const std::string& ns, const std::vector<std::string>& args,
    const std::string& keylog = "");

}  // namespace zg::e2e

#endif  // ZG_TESTS_E2E_NTS_TEST_UTIL_H_
