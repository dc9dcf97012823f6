// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's PTP flags, the "PTP" group of `zeitgeberd -- --help`,
// validated into a core::PtpPortConfig (dataplane/ptp/ptp_plugin.h reads
// them). Each flag left at its default takes the profile's value, so
//
//   --ptp_profile=g8275.2
//
// alone gives domain 44, unicast negotiation, Sync at 16/s. Read after
// ParseDaemonFlags has parsed the command line (the pipeline factory's
// Configure hook); errors name the flag.
//
//   --ptp                      serve PTP (default false)
//   --ptp_profile              default_e2e | default_p2p | g8275.2 |
//                              enterprise_hybrid
//   --ptp_domain               domainNumber
//   --ptp_transport            udp4,udp6,l2 (comma separated) | all
//   --ptp_priority1/2          BMCA priorities
//   --ptp_local_priority       G.8275 localPriority of this clock
//   --ptp_log_announce_interval, --ptp_log_sync_interval,
//   --ptp_log_min_delay_req_interval, --ptp_log_min_pdelay_req_interval
//   --ptp_announce_receipt_timeout
//   --ptp_unicast_negotiation  on | off | (empty: profile)
//   --ptp_multicast            on | off | (empty: profile)
//   --ptp_two_step             two-step Sync + Follow_Up (default); false:
//                              one-step, originTimestamp written at TX
//   --ptp_max_unicast_clients  subscription table size per worker
//   --ptp_grant_max_duration   longest grant in seconds (0: profile)
//   --ptp_max_grants_per_source, --ptp_min_log_interval_per_source,
//   --ptp_tx_budget, --ptp_refusal_rate, --ptp_cancel_requires_auth
//                              admission control of unicast negotiation
//                              (core/ptp/ptp_admission.h)
#ifndef ZG_DATAPLANE_DAEMON_FLAGS_PTP_H_
#define ZG_DATAPLANE_DAEMON_FLAGS_PTP_H_

#include "absl/status/statusor.h"
#include "core/ptp/ptp_admission.h"
#include "core/ptp/ptp_profile.h"

namespace zg::dataplane {

struct PtpFlagsConfig {
  bool enabled = true;
  core::PtpPortConfig port;
  bool transports_explicit = false;  // --ptp_transport was given
  // Runtime policy: the one part a reload may rebuild (with
  // PtpAdmissionConfigFromFlags) and swap in whole.
  core::PtpAdmissionConfig admission;
};

// Reads the --ptp_* flags (after absl::ParseCommandLine).
absl::StatusOr<PtpFlagsConfig> PtpConfigFromFlags();

// The admission limits alone, validated (errors name the flag); `two_step`
// is the port's (a Sync grant then costs Sync + Follow_Up). Shards are set
// by the worker setup.
absl::StatusOr<core::PtpAdmissionConfig> PtpAdmissionConfigFromFlags(
    bool two_step);

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_FLAGS_PTP_H_
