// zeitgeberd: the kernel-bypass NTP/PTP time server.
//
//   zeitgeberd [EAL options] -- [zeitgeberd flags]
//   zeitgeberd -l 0-2 -a 0000:3b:00.0 -- --address=192.0.2.10/24
//
// See doc/deployment.md for deployment modes, flags and exit codes, and
// doc/ptp.md for the PTP grandmaster (--ptp and the --ptp_* flags).
#include "dataplane/daemon/daemon.h"
#include "dataplane/ntp/ntp_auth.h"
#include "dataplane/ntp/ntp_trust_policy.h"
#include "dataplane/ptp/ptp_plugin.h"
#include "dataplane/worker/protocol_pipeline.h"

int main(int argc, char** argv) {
  // ARP/ICMP/ND and NTP; PTP (with --ptp) as a plugin. NTP requests pass
  // the trust policy (--ntp_ratelimit*), whose flags and metrics come as a
  // plugin of its own, and, with --ntp_keys, symmetric-key authentication.
  zg::dataplane::PtpPlugin ptp;
  zg::dataplane::NtpTrustPolicyFactory ntp_trust;
  zg::dataplane::NtpAuthFactory ntp_auth;  // --ntp_keys
  zg::dataplane::ProtocolPipelineFactory::Options options;
  options.ntp_policy = &ntp_trust;
  options.plugins.push_back(ntp_trust.plugin());
  options.plugins.push_back(&ptp);
  options.ntp_auth = &ntp_auth;
  zg::dataplane::ProtocolPipelineFactory factory(std::move(options));
  // --- NTS-KE keystore wiring (w5/ke; for the lead to complete) ---------
  // The NTS-KE server (--nts_ke_address) seals its cookies with the
  // keystore the NTS worker factory derives from --nts_master_key
  // (w5/ntsworker: `NtsFactory nts;` above, dataplane/ntp/nts_auth.h).
  // Once that is on main, replace the empty source with:
  //   [&nts] { return nts.CurrentKeystore(); }
  // (null without --nts_master_key: RunDaemon refuses --nts_ke_address).
  // Until then --nts_ke_address exits with "needs --nts_master_key".
  zg::dataplane::NtsKeystoreSource nts_keystore;
  // --- end of NTS-KE keystore wiring ------------------------------------
  return zg::dataplane::RunDaemon(argc, argv, factory, nts_keystore);
}
