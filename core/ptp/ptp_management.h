// SPDX-License-Identifier: Apache-2.0
// IEEE 1588-2019 management messages (clause 15) as `pmc` uses them with a
// grandmaster: GET of DEFAULT_DATA_SET, CURRENT_DATA_SET, PARENT_DATA_SET,
// TIME_PROPERTIES_DATA_SET, PORT_DATA_SET and NULL_MANAGEMENT answered with
// RESPONSE; everything else answered with MANAGEMENT_ERROR_STATUS.
//
// Data sets are laid out exactly as 1588 (15.5.3) and linuxptp's pmc
// (ds.h: defaultDS 20 octets, currentDS 18, parentDS 32, timePropertiesDS 4,
// portDS 26), so pmc prints what we send and our client parses what ptp4l
// sends. Parsers require the exact data-set length (as pmc does).
//
// The responder is a pure function of the request, a configuration and a
// snapshot of the data sets (built by the control plane from its ClockModel);
// it writes the whole reply message into a caller buffer. No allocation.
//
//   PtpManagementAnswer a =
//       AnswerPtpManagement(payload, config, data_sets, reply_buffer);
//   if (a.length > 0) send(reply_buffer.first(a.length));
//   ++answers[static_cast<size_t>(a.result)];
#ifndef ZG_CORE_PTP_PTP_MANAGEMENT_H_
#define ZG_CORE_PTP_PTP_MANAGEMENT_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "core/ptp/ptp_wire.h"
#include "core/time/clock_model.h"
#include "core/time/time_types.h"

namespace zg::core {

// managementId values (Table 59) this module knows by name.
enum class PtpManagementId : uint16_t {
  kNullManagement = 0x0000,
  kClockDescription = 0x0001,
  kUserDescription = 0x0002,
  kDefaultDataSet = 0x2000,
  kCurrentDataSet = 0x2001,
  kParentDataSet = 0x2002,
  kTimePropertiesDataSet = 0x2003,
  kPortDataSet = 0x2004,
};

// managementErrorId values (Table 109).
enum class PtpManagementErrorId : uint16_t {
  kResponseTooBig = 0x0001,
  kNoSuchId = 0x0002,
  kWrongLength = 0x0003,
  kWrongValue = 0x0004,
  kNotSetable = 0x0005,
  kNotSupported = 0x0006,
  kGeneralError = 0xFFFE,
};

// ---- Data sets --------------------------------------------------------------

// DEFAULT_DATA_SET (15.5.3.3.1), 20 octets.
struct PtpDefaultDataSet {
  bool two_step = false;    // TSC
  bool slave_only = false;  // SO
  uint16_t number_ports = 1;
  uint8_t priority1 = 128;
  PtpClockQuality clock_quality;
  uint8_t priority2 = 128;
  PtpClockIdentity clock_identity;
  uint8_t domain_number = 0;
  friend constexpr bool operator==(const PtpDefaultDataSet&,
                                   const PtpDefaultDataSet&) = default;
};
inline constexpr size_t kPtpDefaultDataSetLength = 20;

// CURRENT_DATA_SET (15.5.3.4.1), 18 octets. TimeIntervals as PtpCorrection.
struct PtpCurrentDataSet {
  uint16_t steps_removed = 0;
  PtpCorrection offset_from_master;
  PtpCorrection mean_path_delay;
  friend constexpr bool operator==(const PtpCurrentDataSet&,
                                   const PtpCurrentDataSet&) = default;
};
inline constexpr size_t kPtpCurrentDataSetLength = 18;

// PARENT_DATA_SET (15.5.3.5.1), 32 octets.
struct PtpParentDataSet {
  PtpPortIdentity parent_port_identity;
  bool parent_stats = false;  // PS
  uint16_t observed_parent_offset_scaled_log_variance = 0xFFFF;
  int32_t observed_parent_clock_phase_change_rate = 0x7FFFFFFF;
  uint8_t grandmaster_priority1 = 128;
  PtpClockQuality grandmaster_clock_quality;
  uint8_t grandmaster_priority2 = 128;
  PtpClockIdentity grandmaster_identity;
  friend constexpr bool operator==(const PtpParentDataSet&,
                                   const PtpParentDataSet&) = default;
};
inline constexpr size_t kPtpParentDataSetLength = 32;

// TIME_PROPERTIES_DATA_SET (15.5.3.6.1), 4 octets. The flag bits are those of
// flagField octet 1 (LI-61 bit 0 ... FTRA bit 5).
struct PtpTimePropertiesDataSet {
  int16_t current_utc_offset = 37;  // seconds, TAI - UTC
  bool leap61 = false;
  bool leap59 = false;
  bool current_utc_offset_valid = false;
  bool ptp_timescale = true;
  bool time_traceable = false;
  bool frequency_traceable = false;
  PtpTimeSource time_source = PtpTimeSource::kInternalOscillator;
  friend constexpr bool operator==(const PtpTimePropertiesDataSet&,
                                   const PtpTimePropertiesDataSet&) = default;
};
inline constexpr size_t kPtpTimePropertiesDataSetLength = 4;

// portState (Table 20).
enum class PtpPortState : uint8_t {
  kInitializing = 1,
  kFaulty = 2,
  kDisabled = 3,
  kListening = 4,
  kPreMaster = 5,
  kMaster = 6,
  kPassive = 7,
  kUncalibrated = 8,
  kSlave = 9,
};

// delayMechanism (Table 21).
enum class PtpDelayMechanism : uint8_t {
  kE2E = 0x01,
  kP2P = 0x02,
  kCommonP2P = 0x03,
  kSpecial = 0x04,
  kNoMechanism = 0xFE,
};

// PORT_DATA_SET (15.5.3.7.1), 26 octets. The last octet holds versionNumber
// in its low nibble; the high nibble is reserved in 1588-2008 and carries
// minorVersionNumber for peers that read it. Leave minor_version_number 0
// for linuxptp 3.1's pmc, which prints the whole octet as versionNumber.
struct PtpPortDataSet {
  PtpPortIdentity port_identity;
  PtpPortState port_state = PtpPortState::kInitializing;
  int8_t log_min_delay_req_interval = 0;
  PtpCorrection peer_mean_path_delay;
  int8_t log_announce_interval = 1;
  uint8_t announce_receipt_timeout = 3;
  int8_t log_sync_interval = 0;
  PtpDelayMechanism delay_mechanism = PtpDelayMechanism::kE2E;
  int8_t log_min_pdelay_req_interval = 0;
  uint8_t version_number = 2;        // 4 bits
  uint8_t minor_version_number = 0;  // 4 bits
  friend constexpr bool operator==(const PtpPortDataSet&,
                                   const PtpPortDataSet&) = default;
};
inline constexpr size_t kPtpPortDataSetLength = 26;

// Parse: false unless `data` is exactly the data set's length.
// Write: the octets written (the data set's length) or 0 if `out` is short
// (or, for the port data set, a version nibble is out of range).
bool ParsePtpDataSet(std::span<const uint8_t> data, PtpDefaultDataSet* out);
bool ParsePtpDataSet(std::span<const uint8_t> data, PtpCurrentDataSet* out);
bool ParsePtpDataSet(std::span<const uint8_t> data, PtpParentDataSet* out);
bool ParsePtpDataSet(std::span<const uint8_t> data,
                     PtpTimePropertiesDataSet* out);
bool ParsePtpDataSet(std::span<const uint8_t> data, PtpPortDataSet* out);
size_t WritePtpDataSet(const PtpDefaultDataSet& ds, std::span<uint8_t> out);
size_t WritePtpDataSet(const PtpCurrentDataSet& ds, std::span<uint8_t> out);
size_t WritePtpDataSet(const PtpParentDataSet& ds, std::span<uint8_t> out);
size_t WritePtpDataSet(const PtpTimePropertiesDataSet& ds,
                       std::span<uint8_t> out);
size_t WritePtpDataSet(const PtpPortDataSet& ds, std::span<uint8_t> out);

// ---- Management messages ----------------------------------------------------

// A management message and its (first) TLV, which is either MANAGEMENT or
// MANAGEMENT_ERROR_STATUS. Spans and views point into the parsed buffer.
struct PtpManagementMessage {
  PtpHeader header;
  PtpManagement fields;
  bool is_error_status = false;
  uint16_t management_id = 0;
  std::span<const uint8_t> data;     // MANAGEMENT dataField (empty for errors)
  uint16_t management_error_id = 0;  // MANAGEMENT_ERROR_STATUS only
  std::string_view display_data;     // MANAGEMENT_ERROR_STATUS only
};

// ParsePtpMessage, then: a Management message (else kWrongType) whose first
// TLV is a well-formed MANAGEMENT or MANAGEMENT_ERROR_STATUS (else kBadTlv).
// Later TLVs (authentication, say) are allowed and not interpreted.
PtpDrop ParsePtpManagementMessage(std::span<const uint8_t> buf,
                                  PtpManagementMessage* out);

// Writes a Management message with one MANAGEMENT TLV carrying `data` (a GET
// request for a client, or a RESPONSE). messageType, messageLength and
// controlField are set here; the rest of `header` is used as given. Returns
// the length, or 0 if `out` is too small or a field cannot be encoded.
size_t WritePtpManagementMessage(const PtpHeader& header,
                                 const PtpManagement& fields,
                                 uint16_t management_id,
                                 std::span<const uint8_t> data,
                                 std::span<uint8_t> out);
// The same with one MANAGEMENT_ERROR_STATUS TLV.
size_t WritePtpManagementErrorMessage(const PtpHeader& header,
                                      const PtpManagement& fields,
                                      PtpManagementErrorId error,
                                      uint16_t management_id,
                                      std::span<uint8_t> out);

// ---- Responder --------------------------------------------------------------

// Who answers. Written by the control thread; read by whoever answers.
struct PtpManagementConfig {
  PtpPortIdentity port_identity;  // our port: sourcePortIdentity of replies
  uint8_t domain_number = 0;      // requests for other domains are ignored
  uint16_t sdo_id = 0;            // 12-bit sdoId served
  uint8_t minor_version = 1;      // minorVersionPTP of replies
  // pmc pads each GET to the size of the response (linuxptp's default), so
  // answers are no larger than requests. `pmc -z` sends empty GETs whose
  // answers are larger: they are refused (kReplyTooLarge) unless this is set,
  // so that a forged request cannot make us amplify traffic.
  bool allow_reply_larger_than_request = false;
};

// What a GET is answered with. A snapshot the caller fills in.
struct PtpDataSets {
  PtpDefaultDataSet default_ds;
  PtpCurrentDataSet current_ds;
  PtpParentDataSet parent_ds;
  PtpTimePropertiesDataSet time_properties_ds;
  PtpPortDataSet port_ds;
};

enum class PtpManagementResult : uint8_t {
  kResponse = 0,   // answered with RESPONSE (or ACKNOWLEDGE) and data
  kErrorStatus,    // answered with MANAGEMENT_ERROR_STATUS
  kMalformed,      // not a valid management message (see drop)
  kNotForUs,       // other domain/sdoId, or targetPortIdentity not ours
  kNotARequest,    // RESPONSE, ACKNOWLEDGE, or an error status
  kReplyTooLarge,  // answer would be larger than the request
  kNoRoom,         // `out` too small for the answer
  kCount,
};
const char* PtpManagementResultName(PtpManagementResult r);

struct PtpManagementAnswer {
  PtpManagementResult result = PtpManagementResult::kMalformed;
  PtpDrop drop = PtpDrop::kOk;  // why, for kMalformed
  size_t length = 0;            // octets of reply in `out`; 0 = send nothing
};

// Answers one management request (15.3). GET of a supported data set: a
// RESPONSE with it. NULL_MANAGEMENT: RESPONSE (GET, SET) or ACKNOWLEDGE
// (COMMAND) with no data. SET of a data set: NOT_SETABLE. Anything else:
// NOT_SUPPORTED. The reply goes to the requester (targetPortIdentity = its
// sourcePortIdentity), with its sequenceId, startingBoundaryHops =
// boundaryHops = the request's startingBoundaryHops - boundaryHops, its
// unicastFlag, controlField 4 and logMessageInterval 0x7F.
PtpManagementAnswer AnswerPtpManagement(std::span<const uint8_t> request,
                                        const PtpManagementConfig& config,
                                        const PtpDataSets& data_sets,
                                        std::span<uint8_t> out);

}  // namespace zg::core

#endif  // ZG_CORE_PTP_PTP_MANAGEMENT_H_
