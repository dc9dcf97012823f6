// SPDX-License-Identifier: Apache-2.0
#include "core/ptp/ptp_profile.h"

#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "core/base/status_macros.h"

namespace zg::core {
namespace {

constexpr uint8_t kUdp = kPtpTransportUdpIpv4 | kPtpTransportUdpIpv6;
constexpr uint8_t kAllTransports = kUdp | kPtpTransportL2;

// Grants a default-profile port hands out when the operator turns
// negotiation on: any rate a ptp4l client asks for within the scheduler's
// range, no faster than 128/s, for up to an hour (ptp4l asks for 3600 s).
constexpr PtpGrantLimits kDefaultGrantLimits = {
    .per_type = {{
        {true, {-3, 4}},   // Announce
        {true, {-7, 4}},   // Sync
        {true, {-7, 5}},   // Delay_Resp
        {false, {-7, 5}},  // Pdelay_Resp (P2P ports turn this on)
    }},
    .min_duration_s = 10,
    .max_duration_s = 3600,
};

// G.8275.2 (03/2020) clause 6.2/Table A.1: Announce 1..8/s, Sync and
// Delay_Resp 1..128/s, grant duration 60..1000 s (default 300).
constexpr PtpGrantLimits kG8275_2GrantLimits = {
    .per_type = {{
        {true, {-3, 0}},
        {true, {-7, 0}},
        {true, {-7, 0}},
        {false, {-7, 0}},
    }},
    .min_duration_s = 60,
    .max_duration_s = 1000,
};

constexpr PtpGrantLimits WithPdelay(PtpGrantLimits l) {
  l.per_type[static_cast<size_t>(PtpGrantType::kPdelayResp)].allowed = true;
  l.per_type[static_cast<size_t>(PtpGrantType::kDelayResp)].allowed = false;
  return l;
}

constexpr PtpProfile kProfiles[kPtpProfileCount] = {
    // IEEE 1588-2019 I.3 (delay request-response default profile).
    {.id = PtpProfileId::kDefaultE2E,
     .default_domain = 0,
     .min_domain = 0,
     .max_domain = 127,
     .default_priority1 = 128,
     .priority1_settable = true,
     .default_priority2 = 128,
     .default_local_priority = 128,
     .alternate_bmca = false,
     .default_log_announce_interval = 1,
     .log_announce_interval = {0, 4},
     .default_log_sync_interval = 0,
     .log_sync_interval = {-1, 1},
     .default_log_min_delay_req_interval = 0,
     .log_min_delay_req_interval = {0, 5},
     .default_log_min_pdelay_req_interval = 0,
     .log_min_pdelay_req_interval = {0, 5},
     .default_announce_receipt_timeout = 3,
     .min_announce_receipt_timeout = 2,
     .max_announce_receipt_timeout = 10,
     .delay_mechanism = PtpDelayMechanism::kE2E,
     .allowed_transports = kAllTransports,
     .default_transports = kPtpTransportUdpIpv4,
     .multicast_service = true,
     .multicast_delay_resp = true,
     .unicast_delay_resp = true,
     .unicast_negotiation = false,
     .negotiation_settable = true,
     .negotiation_required = false,
     .freerun_clock_class = 248,
     .grant_limits = kDefaultGrantLimits,
     .default_grant_duration_s = 300},
    // IEEE 1588-2019 I.4 (peer-to-peer default profile).
    {.id = PtpProfileId::kDefaultP2P,
     .default_domain = 0,
     .min_domain = 0,
     .max_domain = 127,
     .default_priority1 = 128,
     .priority1_settable = true,
     .default_priority2 = 128,
     .default_local_priority = 128,
     .alternate_bmca = false,
     .default_log_announce_interval = 1,
     .log_announce_interval = {0, 4},
     .default_log_sync_interval = 0,
     .log_sync_interval = {-1, 1},
     .default_log_min_delay_req_interval = 0,
     .log_min_delay_req_interval = {0, 5},
     .default_log_min_pdelay_req_interval = 0,
     .log_min_pdelay_req_interval = {0, 5},
     .default_announce_receipt_timeout = 3,
     .min_announce_receipt_timeout = 2,
     .max_announce_receipt_timeout = 10,
     .delay_mechanism = PtpDelayMechanism::kP2P,
     .allowed_transports = kAllTransports,
     .default_transports = kPtpTransportUdpIpv4,
     .multicast_service = true,
     .multicast_delay_resp = false,
     .unicast_delay_resp = false,
     .unicast_negotiation = false,
     .negotiation_settable = true,
     .negotiation_required = false,
     .freerun_clock_class = 248,
     .grant_limits = WithPdelay(kDefaultGrantLimits),
     .default_grant_duration_s = 300},
    // ITU-T G.8275.2: unicast negotiation over IP, domain 44..63,
    // alternate BMCA with localPriority, priority1 fixed at 128.
    {.id = PtpProfileId::kG8275_2,
     .default_domain = 44,
     .min_domain = 44,
     .max_domain = 63,
     .default_priority1 = 128,
     .priority1_settable = false,
     .default_priority2 = 128,
     .default_local_priority = 128,
     .alternate_bmca = true,
     .default_log_announce_interval = 0,
     .log_announce_interval = {-3, 0},
     .default_log_sync_interval = -4,
     .log_sync_interval = {-7, 0},
     .default_log_min_delay_req_interval = -4,
     .log_min_delay_req_interval = {-7, 0},
     .default_log_min_pdelay_req_interval = 0,
     .log_min_pdelay_req_interval = {0, 5},
     .default_announce_receipt_timeout = 3,
     .min_announce_receipt_timeout = 2,
     .max_announce_receipt_timeout = 10,
     .delay_mechanism = PtpDelayMechanism::kE2E,
     .allowed_transports = kUdp,
     .default_transports = kPtpTransportUdpIpv4,
     .multicast_service = false,
     .multicast_delay_resp = false,
     .unicast_delay_resp = true,
     .unicast_negotiation = true,
     .negotiation_settable = false,
     .negotiation_required = true,
     .freerun_clock_class = 248,
     .grant_limits = kG8275_2GrantLimits,
     .default_grant_duration_s = 300},
    // Enterprise profile (draft-ietf-tictoc-ptp-enterprise-profile): the
    // default profile's multicast Announce/Sync with unicast Delay_Req
    // answered unicast ("hybrid"), and faster rates allowed.
    {.id = PtpProfileId::kEnterpriseHybrid,
     .default_domain = 0,
     .min_domain = 0,
     .max_domain = 127,
     .default_priority1 = 128,
     .priority1_settable = true,
     .default_priority2 = 128,
     .default_local_priority = 128,
     .alternate_bmca = false,
     .default_log_announce_interval = 1,
     .log_announce_interval = {-3, 4},
     .default_log_sync_interval = 0,
     .log_sync_interval = {-7, 1},
     .default_log_min_delay_req_interval = 0,
     .log_min_delay_req_interval = {-7, 5},
     .default_log_min_pdelay_req_interval = 0,
     .log_min_pdelay_req_interval = {0, 5},
     .default_announce_receipt_timeout = 3,
     .min_announce_receipt_timeout = 2,
     .max_announce_receipt_timeout = 10,
     .delay_mechanism = PtpDelayMechanism::kE2E,
     .allowed_transports = kAllTransports,
     .default_transports = kPtpTransportUdpIpv4,
     .multicast_service = true,
     .multicast_delay_resp = true,
     .unicast_delay_resp = true,
     .unicast_negotiation = false,
     .negotiation_settable = true,
     .negotiation_required = false,
     .freerun_clock_class = 248,
     .grant_limits = kDefaultGrantLimits,
     .default_grant_duration_s = 300},
};

absl::Status OutOfRange(const PtpPortConfig& c, const char* field, int value,
                        int min, int max) {
  return absl::InvalidArgumentError(absl::StrCat(
      field, " ", value, " is outside the ", PtpProfileName(c.profile),
      " profile's range [", min, ", ", max, "]"));
}

absl::Status CheckInterval(const PtpPortConfig& c, const char* field, int value,
                           PtpLogIntervalRange range) {
  if (range.Contains(value)) return absl::OkStatus();
  return OutOfRange(c, field, value, range.min, range.max);
}

absl::Status CheckGrantLimits(const PtpGrantLimits& l) {
  for (size_t i = 0; i < kPtpGrantTypeCount; ++i) {
    const PtpGrantLimit& g = l.per_type[i];
    if (!g.allowed) continue;
    const auto type = PtpGrantMessageType(static_cast<PtpGrantType>(i));
    if (g.log_interval.min > g.log_interval.max ||
        g.log_interval.min < kPtpMinLogInterval ||
        g.log_interval.max > kPtpMaxLogInterval) {
      return absl::InvalidArgumentError(absl::StrCat(
          "unicast grant interval range for ", PtpMessageTypeName(type), " [",
          g.log_interval.min, ", ", g.log_interval.max, "] must lie within [",
          kPtpMinLogInterval, ", ", kPtpMaxLogInterval, "] with min <= max"));
    }
  }
  if (l.min_duration_s == 0 || l.min_duration_s > l.max_duration_s) {
    return absl::InvalidArgumentError(
        absl::StrCat("unicast grant durations [", l.min_duration_s, ", ",
                     l.max_duration_s, "] s need 0 < min <= max"));
  }
  return absl::OkStatus();
}

absl::Status CheckService(const PtpPortConfig& c, const PtpProfile& p) {
  if (c.transports == 0 || (c.transports & ~p.allowed_transports) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "transports '", PtpTransportsToString(c.transports),
        "' not allowed by ", PtpProfileName(c.profile),
        " (allowed: ", PtpTransportsToString(p.allowed_transports), ")"));
  }
  if (c.multicast_service && !p.multicast_service) {
    return absl::InvalidArgumentError(
        absl::StrCat(PtpProfileName(c.profile),
                     " is unicast only: turn multicast service off"));
  }
  if (!p.negotiation_settable &&
      c.unicast_negotiation != p.unicast_negotiation) {
    return absl::InvalidArgumentError(absl::StrCat(
        PtpProfileName(c.profile), " requires unicast negotiation ",
        p.unicast_negotiation ? "on" : "off"));
  }
  if (!c.multicast_service && !c.unicast_negotiation) {
    return absl::InvalidArgumentError(
        "neither multicast service nor unicast negotiation is on: the port "
        "would send no Sync");
  }
  if (c.delay_mechanism != p.delay_mechanism) {
    return absl::InvalidArgumentError(absl::StrCat(
        PtpProfileName(c.profile), " uses the ",
        p.delay_mechanism == PtpDelayMechanism::kP2P ? "P2P" : "E2E",
        " delay mechanism"));
  }
  if (c.unicast_sync_batch == 0 || c.unicast_sync_batch > kPtpMaxSyncBatch) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--ptp_sync_batch ", c.unicast_sync_batch, " must be between 1 (each ",
        "unicast Sync in a tx_burst of its own) and ", kPtpMaxSyncBatch));
  }
  if (c.max_unicast_clients == 0 || c.max_unicast_clients > (1u << 24)) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_unicast_clients ", c.max_unicast_clients,
                     " must be between 1 and ", 1u << 24));
  }
  return CheckGrantLimits(c.grant_limits);
}

}  // namespace

const char* PtpProfileName(PtpProfileId id) {
  switch (id) {
    case PtpProfileId::kDefaultE2E:
      return "default_e2e";
    case PtpProfileId::kDefaultP2P:
      return "default_p2p";
    case PtpProfileId::kG8275_2:
      return "g8275.2";
    case PtpProfileId::kEnterpriseHybrid:
      return "enterprise_hybrid";
  }
  return "unknown";
}

absl::StatusOr<PtpProfileId> ParsePtpProfileName(std::string_view name) {
  for (size_t i = 0; i < kPtpProfileCount; ++i) {
    const auto id = static_cast<PtpProfileId>(i);
    if (name == PtpProfileName(id)) return id;
  }
  if (name == "g8275_2") return PtpProfileId::kG8275_2;
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown PTP profile '", absl::string_view(name.data(), name.size()),
      "'; valid: default_e2e, default_p2p, g8275.2, enterprise_hybrid"));
}

absl::StatusOr<uint8_t> ParsePtpTransports(std::string_view list) {
  uint8_t mask = 0;
  for (absl::string_view token :
       absl::StrSplit(absl::string_view(list.data(), list.size()), ',')) {
    if (token == "udp4") {
      mask |= kPtpTransportUdpIpv4;
    } else if (token == "udp6") {
      mask |= kPtpTransportUdpIpv6;
    } else if (token == "l2") {
      mask |= kPtpTransportL2;
    } else if (token == "all") {
      mask |= kAllTransports;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown PTP transport '", token,
                       "'; valid: udp4, udp6, l2, all (comma separated)"));
    }
  }
  return mask;
}

std::string PtpTransportsToString(uint8_t mask) {
  std::vector<std::string> names;
  if (mask & kPtpTransportUdpIpv4) names.push_back("udp4");
  if (mask & kPtpTransportUdpIpv6) names.push_back("udp6");
  if (mask & kPtpTransportL2) names.push_back("l2");
  return absl::StrJoin(names, ",");
}

const PtpProfile& GetPtpProfile(PtpProfileId id) {
  const auto i = static_cast<size_t>(id);
  return kProfiles[i < kPtpProfileCount ? i : 0];
}

PtpPortConfig DefaultPtpPortConfig(PtpProfileId id) {
  const PtpProfile& p = GetPtpProfile(id);
  PtpPortConfig c;
  c.profile = p.id;
  c.domain_number = p.default_domain;
  c.priority1 = p.default_priority1;
  c.priority2 = p.default_priority2;
  c.local_priority = p.default_local_priority;
  c.port_local_priority = p.default_local_priority;
  c.log_announce_interval = p.default_log_announce_interval;
  c.log_sync_interval = p.default_log_sync_interval;
  c.log_min_delay_req_interval = p.default_log_min_delay_req_interval;
  c.log_min_pdelay_req_interval = p.default_log_min_pdelay_req_interval;
  c.announce_receipt_timeout = p.default_announce_receipt_timeout;
  c.delay_mechanism = p.delay_mechanism;
  c.transports = p.default_transports;
  c.multicast_service = p.multicast_service;
  c.unicast_negotiation = p.unicast_negotiation;
  c.grant_limits = p.grant_limits;
  return c;
}

absl::Status ValidatePtpPortConfig(const PtpPortConfig& c) {
  if (static_cast<size_t>(c.profile) >= kPtpProfileCount) {
    return absl::InvalidArgumentError("unknown PTP profile");
  }
  const PtpProfile& p = GetPtpProfile(c.profile);
  if (c.domain_number < p.min_domain || c.domain_number > p.max_domain) {
    return OutOfRange(c, "domain", c.domain_number, p.min_domain, p.max_domain);
  }
  if (!p.priority1_settable && c.priority1 != p.default_priority1) {
    return absl::InvalidArgumentError(absl::StrCat(PtpProfileName(c.profile),
                                                   " fixes priority1 at ",
                                                   p.default_priority1));
  }
  if (c.local_priority == 0 || c.port_local_priority == 0) {
    return absl::InvalidArgumentError(
        "local_priority and port_local_priority must be 1..255");
  }
  ZG_RETURN_IF_ERROR(CheckInterval(c, "log_announce_interval",
                                   c.log_announce_interval,
                                   p.log_announce_interval));
  ZG_RETURN_IF_ERROR(CheckInterval(c, "log_sync_interval", c.log_sync_interval,
                                   p.log_sync_interval));
  ZG_RETURN_IF_ERROR(CheckInterval(c, "log_min_delay_req_interval",
                                   c.log_min_delay_req_interval,
                                   p.log_min_delay_req_interval));
  ZG_RETURN_IF_ERROR(CheckInterval(c, "log_min_pdelay_req_interval",
                                   c.log_min_pdelay_req_interval,
                                   p.log_min_pdelay_req_interval));
  if (c.announce_receipt_timeout < p.min_announce_receipt_timeout ||
      c.announce_receipt_timeout > p.max_announce_receipt_timeout) {
    return OutOfRange(c, "announce_receipt_timeout", c.announce_receipt_timeout,
                      p.min_announce_receipt_timeout,
                      p.max_announce_receipt_timeout);
  }
  if (c.minor_version > 15) {
    return absl::InvalidArgumentError(
        absl::StrCat("minor_version ", c.minor_version, " must be 0..15"));
  }
  return CheckService(c, p);
}

}  // namespace zg::core
