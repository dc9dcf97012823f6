// SPDX-License-Identifier: Apache-2.0
// zeitgeberd: the kernel-bypass NTP/PTP time server.
//
//   zeitgeberd [EAL options] -- [zeitgeberd flags]
//   zeitgeberd -l 0-2 -a 0000:3b:00.0 -- --address=192.0.2.10/24
//
// See doc/deployment.md for deployment modes, flags and exit codes, and
// doc/ptp.md for the PTP grandmaster (--ptp and the --ptp_* flags).
#include "dataplane/daemon/daemon.h"
#include "dataplane/ntp/ntp_auth.h"
#include "dataplane/ntp/ntp_interleave.h"
#include "dataplane/ntp/ntp_trust_policy.h"
#include "dataplane/ntp/nts_auth.h"
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
  zg::dataplane::NtsFactory nts;  // --nts_master_key
  options.nts = &nts;
  zg::dataplane::NtpInterleaveFactory ntp_interleave;  // --ntp_interleave
  options.ntp_interleave = &ntp_interleave;
  zg::dataplane::ProtocolPipelineFactory factory(std::move(options));
  // The NTS-KE server (--nts_ke_address) seals its cookies with the
  // keystore `nts` derives from --nts_master_key (null without it: RunDaemon
  // then refuses --nts_ke_address).
  zg::dataplane::NtsKeystoreSource nts_keystore = [&nts] {
    return nts.CurrentKeystore();
  };
  return zg::dataplane::RunDaemon(argc, argv, factory, nts_keystore);
}
