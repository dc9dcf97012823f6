// SPDX-License-Identifier: Apache-2.0
#include "dataplane/daemon/flags/ptp.h"

#include <cstdint>
#include <string>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"
#include "core/ptp/ptp_admission.h"

// An int flag left at kProfileDefault takes the profile's value.
constexpr int kProfileDefault = -1000;

ABSL_FLAG(bool, ptp, false,
          "Serve PTP (IEEE 1588) as a grandmaster (see doc/ptp.md).");
ABSL_FLAG(std::string, ptp_profile, "default_e2e",
          "PTP profile: default_e2e, default_p2p, g8275.2, enterprise_hybrid.");
ABSL_FLAG(int, ptp_domain, kProfileDefault,
          "PTP domainNumber (default: the profile's).");
ABSL_FLAG(std::string, ptp_transport, "",
          "PTP transports, comma separated: udp4, udp6, l2, or all "
          "(default: the profile's, udp4).");
ABSL_FLAG(int, ptp_priority1, kProfileDefault,
          "BMCA priority1 (0..255; default: the profile's).");
ABSL_FLAG(int, ptp_priority2, kProfileDefault,
          "BMCA priority2 (0..255; default: the profile's).");
ABSL_FLAG(int, ptp_local_priority, kProfileDefault,
          "G.8275 localPriority of this clock (1..255; default: the "
          "profile's).");
ABSL_FLAG(int, ptp_log_announce_interval, kProfileDefault,
          "log2 seconds between Announce messages (default: the profile's).");
ABSL_FLAG(int, ptp_log_sync_interval, kProfileDefault,
          "log2 seconds between Sync messages (default: the profile's).");
ABSL_FLAG(int, ptp_log_min_delay_req_interval, kProfileDefault,
          "log2 seconds, the Delay_Req interval announced to slaves (default: "
          "the profile's).");
ABSL_FLAG(int, ptp_log_min_pdelay_req_interval, kProfileDefault,
          "log2 seconds, the Pdelay_Req interval (default: the profile's).");
ABSL_FLAG(int, ptp_announce_receipt_timeout, kProfileDefault,
          "Announce intervals without a better master's Announce before a "
          "PASSIVE port serves again (default: the profile's).");
ABSL_FLAG(std::string, ptp_unicast_negotiation, "",
          "on/off: answer unicast negotiation REQUESTs (default: profile).");
ABSL_FLAG(std::string, ptp_multicast, "",
          "on/off: multicast Announce and Sync (default: profile).");
ABSL_FLAG(bool, ptp_two_step, true,
          "Two-step Sync with Follow_Up; false: one-step, the Sync's "
          "originTimestamp written just before transmission.");
ABSL_FLAG(int, ptp_sync_batch, 32,
          "Unicast Syncs per tx_burst, 1..32. With software TX stamps each "
          "Sync's t1 is the burst's stamp moved by the wire time of the "
          "frames before it at the link speed; 1: each Sync in a burst of "
          "its own (exact bracket, one tx_burst per Sync).");
ABSL_FLAG(int, ptp_max_unicast_clients, 1'000'000,
          "Unicast subscribers each worker can hold (fixed memory, ~160 B "
          "each).");
ABSL_FLAG(int, ptp_grant_max_duration, 0,
          "Longest unicast grant in seconds (0: the profile's).");
// Admission control of unicast negotiation (doc/ptp.md, "Admission
// control"); defaults from core::kPtpAdmissionDefaults.
ABSL_FLAG(int, ptp_max_grants_per_source,
          zg::core::kPtpAdmissionDefaults.max_grants_per_source,
          "Unicast grants (one per message type and portIdentity) one source "
          "address may hold across all its portIdentities; 0: no limit. A "
          "ptp4l slave holds 3.");
ABSL_FLAG(int, ptp_min_log_interval_per_source,
          zg::core::kPtpAdmissionDefaults.min_log_interval_per_source,
          "log2 seconds: the shortest message interval granted to any source; "
          "faster requests are granted at this interval.");
ABSL_FLAG(int64_t, ptp_tx_budget, zg::core::kPtpAdmissionDefaults.tx_budget,
          "Messages per second all unicast grants of one PTP port together "
          "may commit (Sync and its Follow_Up, Announce, Delay_Resp, "
          "Pdelay_Resp and its follow-up), split evenly across workers; with "
          "several --port, each port has this budget; 0: no limit.");
ABSL_FLAG(int64_t, ptp_refusal_rate,
          zg::core::kPtpAdmissionDefaults.refusal_rate,
          "Negotiation replies per second that grant nothing (refusals, "
          "CANCEL acknowledgements), split evenly across workers; past it "
          "such requests go unanswered. 0: no limit.");
ABSL_FLAG(bool, ptp_cancel_requires_auth, false,
          "Honour CANCEL_UNICAST_TRANSMISSION only when authenticated. "
          "zeitgeber has no PTP authentication yet, so true is refused at "
          "start-up.");

namespace zg::dataplane {
namespace {

absl::Status IntFlag(const char* name, int value, int min, int max,
                     uint8_t* out) {
  if (value == kProfileDefault) return absl::OkStatus();
  if (value < min || value > max) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--", name, "=", value, " must be between ", min, " and ", max));
  }
  *out = static_cast<uint8_t>(value);
  return absl::OkStatus();
}

absl::Status LogFlag(const char* name, int value, int8_t* out) {
  if (value == kProfileDefault) return absl::OkStatus();
  if (value < -128 || value > 127) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", name, "=", value, " is not a log2 interval"));
  }
  *out = static_cast<int8_t>(value);
  return absl::OkStatus();
}

absl::Status OnOffFlag(const char* name, const std::string& value, bool* out) {
  if (value.empty()) return absl::OkStatus();
  if (value == "on" || value == "true" || value == "1") {
    *out = true;
  } else if (value == "off" || value == "false" || value == "0") {
    *out = false;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("--", name, "=", value, ": use on or off"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<PtpFlagsConfig> PtpConfigFromFlags() {
  PtpFlagsConfig out;
  out.enabled = absl::GetFlag(FLAGS_ptp);
  ZG_ASSIGN_OR_RETURN(
      const core::PtpProfileId profile,
      core::ParsePtpProfileName(absl::GetFlag(FLAGS_ptp_profile)));
  core::PtpPortConfig& c = out.port;
  c = core::DefaultPtpPortConfig(profile);
  ZG_RETURN_IF_ERROR(IntFlag("ptp_domain", absl::GetFlag(FLAGS_ptp_domain), 0,
                             255, &c.domain_number));
  if (const std::string t = absl::GetFlag(FLAGS_ptp_transport); !t.empty()) {
    ZG_ASSIGN_OR_RETURN(c.transports, core::ParsePtpTransports(t));
    out.transports_explicit = true;
  }
  ZG_RETURN_IF_ERROR(IntFlag("ptp_priority1",
                             absl::GetFlag(FLAGS_ptp_priority1), 0, 255,
                             &c.priority1));
  ZG_RETURN_IF_ERROR(IntFlag("ptp_priority2",
                             absl::GetFlag(FLAGS_ptp_priority2), 0, 255,
                             &c.priority2));
  ZG_RETURN_IF_ERROR(IntFlag("ptp_local_priority",
                             absl::GetFlag(FLAGS_ptp_local_priority), 1, 255,
                             &c.local_priority));
  ZG_RETURN_IF_ERROR(LogFlag("ptp_log_announce_interval",
                             absl::GetFlag(FLAGS_ptp_log_announce_interval),
                             &c.log_announce_interval));
  ZG_RETURN_IF_ERROR(LogFlag("ptp_log_sync_interval",
                             absl::GetFlag(FLAGS_ptp_log_sync_interval),
                             &c.log_sync_interval));
  ZG_RETURN_IF_ERROR(
      LogFlag("ptp_log_min_delay_req_interval",
              absl::GetFlag(FLAGS_ptp_log_min_delay_req_interval),
              &c.log_min_delay_req_interval));
  ZG_RETURN_IF_ERROR(
      LogFlag("ptp_log_min_pdelay_req_interval",
              absl::GetFlag(FLAGS_ptp_log_min_pdelay_req_interval),
              &c.log_min_pdelay_req_interval));
  ZG_RETURN_IF_ERROR(IntFlag("ptp_announce_receipt_timeout",
                             absl::GetFlag(FLAGS_ptp_announce_receipt_timeout),
                             1, 255, &c.announce_receipt_timeout));
  ZG_RETURN_IF_ERROR(OnOffFlag("ptp_unicast_negotiation",
                               absl::GetFlag(FLAGS_ptp_unicast_negotiation),
                               &c.unicast_negotiation));
  ZG_RETURN_IF_ERROR(OnOffFlag("ptp_multicast",
                               absl::GetFlag(FLAGS_ptp_multicast),
                               &c.multicast_service));
  c.two_step = absl::GetFlag(FLAGS_ptp_two_step);
  ZG_RETURN_IF_ERROR(IntFlag("ptp_sync_batch",
                             absl::GetFlag(FLAGS_ptp_sync_batch), 1,
                             core::kPtpMaxSyncBatch, &c.unicast_sync_batch));
  const int clients = absl::GetFlag(FLAGS_ptp_max_unicast_clients);
  if (clients < 1 || clients > (1 << 24) - 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--ptp_max_unicast_clients=", clients,
                     " must be between 1 and ", (1 << 24) - 1));
  }
  c.max_unicast_clients = static_cast<uint32_t>(clients);
  if (const int d = absl::GetFlag(FLAGS_ptp_grant_max_duration); d != 0) {
    if (d < 1) {
      return absl::InvalidArgumentError(
          "--ptp_grant_max_duration must be positive");
    }
    c.grant_limits.max_duration_s = static_cast<uint32_t>(d);
    if (c.grant_limits.min_duration_s > c.grant_limits.max_duration_s) {
      c.grant_limits.min_duration_s = c.grant_limits.max_duration_s;
    }
  }
  if (absl::Status s = core::ValidatePtpPortConfig(c); !s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("PTP configuration: ", s.message()));
  }
  ZG_ASSIGN_OR_RETURN(out.admission, PtpAdmissionConfigFromFlags(c.two_step));
  return out;
}

absl::StatusOr<core::PtpAdmissionConfig> PtpAdmissionConfigFromFlags(
    bool two_step) {
  core::PtpAdmissionFlagValues v;
  v.max_grants_per_source = absl::GetFlag(FLAGS_ptp_max_grants_per_source);
  v.min_log_interval_per_source =
      absl::GetFlag(FLAGS_ptp_min_log_interval_per_source);
  v.tx_budget = absl::GetFlag(FLAGS_ptp_tx_budget);
  v.refusal_rate = absl::GetFlag(FLAGS_ptp_refusal_rate);
  v.cancel_requires_auth = absl::GetFlag(FLAGS_ptp_cancel_requires_auth);
  v.two_step = two_step;
  return core::MakePtpAdmissionConfig(v);
}

}  // namespace zg::dataplane
