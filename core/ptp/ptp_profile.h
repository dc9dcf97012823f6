// SPDX-License-Identifier: Apache-2.0
// PTP profiles the grandmaster serves and the per-port configuration checked
// against them: domain, priorities, message intervals, delay mechanism,
// transports, multicast/unicast service and the limits on unicast grants.
//
// A profile (IEEE 1588-2019 clause 20 / Annex I, ITU-T G.8275.2, the
// enterprise profile of draft-ietf-tictoc-ptp-enterprise-profile) fixes the
// defaults and allowed ranges; the operator's flags fill a PtpPortConfig that
// ValidatePtpPortConfig checks before anything starts:
//
//   PtpPortConfig config = DefaultPtpPortConfig(PtpProfileId::kG8275_2);
//   config.log_sync_interval = -5;
//   ZG_RETURN_IF_ERROR(ValidatePtpPortConfig(config));
//   const PtpProfile& profile = GetPtpProfile(config.profile);
//
// Setup code only: nothing here runs per packet except the small constexpr
// helpers (PtpGrantIndexOf, PtpLogIntervalNs).
#ifndef ZG_CORE_PTP_PTP_PROFILE_H_
#define ZG_CORE_PTP_PTP_PROFILE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/ptp/ptp_management.h"
#include "core/ptp/ptp_wire.h"
#include "core/time/time_types.h"

namespace zg::core {

enum class PtpProfileId : uint8_t {
  kDefaultE2E = 0,        // 1588-2019 I.3: multicast, Delay_Req/Delay_Resp
  kDefaultP2P = 1,        // 1588-2019 I.4: multicast, Pdelay
  kG8275_2 = 2,           // ITU-T G.8275.2: unicast negotiation, domain 44
  kEnterpriseHybrid = 3,  // multicast Announce/Sync, unicast Delay_Req
};
inline constexpr size_t kPtpProfileCount = 4;

// "default_e2e", "default_p2p", "g8275.2", "enterprise_hybrid".
const char* PtpProfileName(PtpProfileId id);
// Accepts the names above (and "g8275_2"); the error lists the valid names.
absl::StatusOr<PtpProfileId> ParsePtpProfileName(std::string_view name);

// Transports a port serves (IEEE 1588-2019 Annex C, D, E). A bit mask.
enum PtpTransportBit : uint8_t {
  kPtpTransportUdpIpv4 = 1 << 0,  // 224.0.1.129 (pdelay 224.0.0.107)
  kPtpTransportUdpIpv6 = 1 << 1,  // ff0e::181 (pdelay ff02::6b)
  kPtpTransportL2 = 1 << 2,  // 01-1B-19-00-00-00 (pdelay 01-80-C2-00-00-0E)
};
// "udp4", "udp6", "l2", comma separated (e.g. "udp4,l2"); "all" for every
// transport. Errors name the bad token.
absl::StatusOr<uint8_t> ParsePtpTransports(std::string_view list);
std::string PtpTransportsToString(uint8_t mask);

// Unicast grants are kept per message type: Announce, Sync, Delay_Resp,
// Pdelay_Resp (16.1.4.1.3).
enum class PtpGrantType : uint8_t {
  kAnnounce = 0,
  kSync = 1,
  kDelayResp = 2,
  kPdelayResp = 3,
};
inline constexpr size_t kPtpGrantTypeCount = 4;
// The grant slot of a negotiable message type; false for the others.
constexpr bool PtpGrantIndexOf(PtpMessageType type, PtpGrantType* out) {
  switch (type) {
    case PtpMessageType::kAnnounce:
      *out = PtpGrantType::kAnnounce;
      return true;
    case PtpMessageType::kSync:
      *out = PtpGrantType::kSync;
      return true;
    case PtpMessageType::kDelayResp:
      *out = PtpGrantType::kDelayResp;
      return true;
    case PtpMessageType::kPdelayResp:
      *out = PtpGrantType::kPdelayResp;
      return true;
    default:
      return false;
  }
}
constexpr PtpMessageType PtpGrantMessageType(PtpGrantType g) {
  constexpr PtpMessageType kTypes[] = {
      PtpMessageType::kAnnounce, PtpMessageType::kSync,
      PtpMessageType::kDelayResp, PtpMessageType::kPdelayResp};
  return kTypes[static_cast<size_t>(g)];
}

// A range of log2-second message intervals, inclusive.
struct PtpLogIntervalRange {
  int8_t min = 0;
  int8_t max = 0;
  constexpr bool Contains(int v) const { return v >= min && v <= max; }
};

// The longest and shortest message interval a grant or a port may use: the
// unicast scheduler's wheel spans 2^kPtpMaxLogInterval seconds.
inline constexpr int8_t kPtpMinLogInterval = -10;
inline constexpr int8_t kPtpMaxLogInterval = 5;
// The most unicast Syncs in one tx_burst (PtpPortConfig::unicast_sync_batch):
// a worker's burst size.
inline constexpr uint8_t kPtpMaxSyncBatch = 32;

// 2^log2 seconds in nanoseconds, for log2 in [kPtpMinLogInterval,
// kPtpMaxLogInterval] (exact: 2^-10 s = 976562.5 ns rounds to 976563).
constexpr int64_t PtpLogIntervalNs(int log2) {
  return log2 >= 0 ? kNanosPerSecond << log2
                   : (kNanosPerSecond + (int64_t{1} << (-log2 - 1))) >> -log2;
}

// What a grantor accepts for one message type.
struct PtpGrantLimit {
  bool allowed = false;              // grants of this type at all
  PtpLogIntervalRange log_interval;  // requests outside are denied
};

// Limits on unicast negotiation (16.1; G.8265.1 / G.8275.2 clause 6/7).
struct PtpGrantLimits {
  std::array<PtpGrantLimit, kPtpGrantTypeCount> per_type;
  uint32_t min_duration_s = 10;    // shorter requests are granted this long
  uint32_t max_duration_s = 1000;  // longer requests are granted this long
  const PtpGrantLimit& For(PtpGrantType g) const {
    return per_type[static_cast<size_t>(g)];
  }
};

// A profile's fixed rules and defaults. Immutable; GetPtpProfile() returns
// one of four static instances.
struct PtpProfile {
  PtpProfileId id;
  uint8_t default_domain;
  uint8_t min_domain;
  uint8_t max_domain;
  uint8_t default_priority1;
  bool priority1_settable;  // G.8275.2: priority1 is always 128
  uint8_t default_priority2;
  uint8_t default_local_priority;  // G.8275.x localPriority (1..255)
  bool alternate_bmca;             // G.8275.x dataset comparison
  int8_t default_log_announce_interval;
  PtpLogIntervalRange log_announce_interval;
  int8_t default_log_sync_interval;
  PtpLogIntervalRange log_sync_interval;
  int8_t default_log_min_delay_req_interval;
  PtpLogIntervalRange log_min_delay_req_interval;
  int8_t default_log_min_pdelay_req_interval;
  PtpLogIntervalRange log_min_pdelay_req_interval;
  uint8_t default_announce_receipt_timeout;
  uint8_t min_announce_receipt_timeout;
  uint8_t max_announce_receipt_timeout;
  PtpDelayMechanism delay_mechanism;
  uint8_t allowed_transports;  // PtpTransportBit mask
  uint8_t default_transports;
  bool multicast_service;       // multicast Announce/Sync (Follow_Up)
  bool multicast_delay_resp;    // multicast Delay_Req answered
  bool unicast_delay_resp;      // unicast Delay_Req answered unicast
  bool unicast_negotiation;     // REQUEST/GRANT/CANCEL served by default
  bool negotiation_settable;    // the operator may turn negotiation on/off
  bool negotiation_required;    // unicast Delay_Req only with a grant
  uint8_t freerun_clock_class;  // served when the ClockModel is stale
  PtpGrantLimits grant_limits;  // defaults for unicast negotiation
  uint32_t default_grant_duration_s;
};
const PtpProfile& GetPtpProfile(PtpProfileId id);

// One PTP port's configuration, filled from flags by setup code.
// Written by: control thread at startup. Read by: workers (copied).
struct PtpPortConfig {
  PtpProfileId profile = PtpProfileId::kDefaultE2E;
  uint8_t domain_number = 0;
  uint8_t priority1 = 128;
  uint8_t priority2 = 128;
  uint8_t local_priority = 128;       // G.8275.x defaultDS.localPriority
  uint8_t port_local_priority = 128;  // G.8275.x portDS.localPriority, given
                                      // to foreign masters heard here
  int8_t log_announce_interval = 1;
  int8_t log_sync_interval = 0;
  int8_t log_min_delay_req_interval = 0;
  int8_t log_min_pdelay_req_interval = 0;
  uint8_t announce_receipt_timeout = 3;
  PtpDelayMechanism delay_mechanism = PtpDelayMechanism::kE2E;
  uint8_t transports = kPtpTransportUdpIpv4;
  bool multicast_service = true;     // send multicast Announce/Sync
  bool unicast_negotiation = false;  // answer REQUEST_UNICAST_TRANSMISSION
  bool two_step = true;  // false: one-step Sync (needs a NIC that inserts)
  // Unicast Syncs one tx_burst may carry (--ptp_sync_batch, 1..
  // kPtpMaxSyncBatch). With software TX stamps each Sync's t1 is the
  // burst's stamp moved by the wire time of the frames before it; 1 sends
  // each Sync in a burst of its own (every Sync bracketed alone, but a
  // tx_burst, on AF_XDP a syscall, per Sync). Multicast Syncs always go
  // alone; a hardware-stamped (timesync) port has one latch per Sync.
  uint8_t unicast_sync_batch = 32;
  uint8_t minor_version = 1;  // minorVersionPTP sent (0: 1588-2008 peers)
  PtpGrantLimits grant_limits;
  uint32_t max_unicast_clients = 1'000'000;
};

// The profile's defaults (and its default grant limits).
PtpPortConfig DefaultPtpPortConfig(PtpProfileId id);

// Checks every field against its profile; the message names the field, the
// value, and the allowed range, e.g. "log_sync_interval -8 is outside the
// g8275.2 profile's range [-7, 0]".
absl::Status ValidatePtpPortConfig(const PtpPortConfig& config);

}  // namespace zg::core

#endif  // ZG_CORE_PTP_PTP_PROFILE_H_
