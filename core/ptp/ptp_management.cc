// SPDX-License-Identifier: Apache-2.0
#include "core/ptp/ptp_management.h"

#include <array>
#include <cstring>

#include "core/ptp/ptp_fields.h"
#include "core/ptp/ptp_tlv.h"

namespace zg::core {
namespace {

// defaultDS flags octet.
constexpr uint8_t kDdsTwoStep = 0x01;
constexpr uint8_t kDdsSlaveOnly = 0x02;

// timePropertiesDS flags octet (flagField octet 1 bits).
constexpr uint8_t Octet1(PtpFlag f) { return static_cast<uint16_t>(f) & 0xFF; }
constexpr uint8_t kTpLeap61 = Octet1(PtpFlag::kLeap61);
constexpr uint8_t kTpLeap59 = Octet1(PtpFlag::kLeap59);
constexpr uint8_t kTpUtcOffsetValid = Octet1(PtpFlag::kCurrentUtcOffsetValid);
constexpr uint8_t kTpPtpTimescale = Octet1(PtpFlag::kPtpTimescale);
constexpr uint8_t kTpTimeTraceable = Octet1(PtpFlag::kTimeTraceable);
constexpr uint8_t kTpFrequencyTraceable = Octet1(PtpFlag::kFrequencyTraceable);
static_assert(kTpLeap61 == 0x01 && kTpFrequencyTraceable == 0x20);

uint8_t Bit(bool on, uint8_t bit) { return on ? bit : 0; }

// Largest data set answered; sizes the responder's scratch buffer.
constexpr size_t kMaxDataSetLength = kPtpParentDataSetLength;

bool IsClockDataSet(uint16_t id) {
  return id == static_cast<uint16_t>(PtpManagementId::kDefaultDataSet) ||
         id == static_cast<uint16_t>(PtpManagementId::kCurrentDataSet) ||
         id == static_cast<uint16_t>(PtpManagementId::kParentDataSet) ||
         id == static_cast<uint16_t>(PtpManagementId::kTimePropertiesDataSet);
}

bool IsDataSet(uint16_t id) {
  return IsClockDataSet(id) ||
         id == static_cast<uint16_t>(PtpManagementId::kPortDataSet);
}

// Whether the request is addressed to us (15.3.1; as linuxptp: clock data
// sets need only the clockIdentity to match, port-level ids the portNumber
// too). All-ones are wildcards.
bool AddressedToUs(const PtpManagementMessage& req,
                   const PtpManagementConfig& config) {
  const PtpPortIdentity& target = req.fields.target_port_identity;
  if (target.clock_identity != PtpClockIdentity::All() &&
      target.clock_identity != config.port_identity.clock_identity) {
    return false;
  }
  if (IsClockDataSet(req.management_id)) return true;
  return target.port_number == kPtpAllPorts ||
         target.port_number == config.port_identity.port_number;
}

// Writes the data set `id` into `out`; returns its length (0: not one).
size_t WriteDataSetById(uint16_t id, const PtpDataSets& ds,
                        std::span<uint8_t> out) {
  switch (static_cast<PtpManagementId>(id)) {
    case PtpManagementId::kDefaultDataSet:
      return WritePtpDataSet(ds.default_ds, out);
    case PtpManagementId::kCurrentDataSet:
      return WritePtpDataSet(ds.current_ds, out);
    case PtpManagementId::kParentDataSet:
      return WritePtpDataSet(ds.parent_ds, out);
    case PtpManagementId::kTimePropertiesDataSet:
      return WritePtpDataSet(ds.time_properties_ds, out);
    case PtpManagementId::kPortDataSet:
      return WritePtpDataSet(ds.port_ds, out);
    default:
      return 0;
  }
}

// Writes the Management header and body; returns the TLV area.
std::span<uint8_t> BeginManagement(const PtpHeader& header,
                                   const PtpManagement& fields,
                                   std::span<uint8_t> out) {
  PtpMessage msg;
  msg.header = header;
  msg.header.control_field = PtpControlFieldFor(PtpMessageType::kManagement);
  msg.body = fields;
  if (SerializePtpMessage(msg, out) != kPtpManagementLength) return {};
  return out.subspan(kPtpManagementLength);
}

// Sets messageLength after a TLV of `tlv_length` octets was appended.
size_t FinishManagement(std::span<uint8_t> out, size_t tlv_length) {
  if (tlv_length == 0) return 0;
  const size_t length = kPtpManagementLength + tlv_length;
  if (length > kPtpMaxMessageLength) return 0;
  StoreBe16(out.data() + 2, static_cast<uint16_t>(length));
  return length;
}

// The header and management fields of the reply to `req` (15.3.3).
void ReplyHeader(const PtpManagementMessage& req,
                 const PtpManagementConfig& config, PtpHeader* h,
                 PtpManagement* f) {
  *h = PtpHeader{};
  h->major_sdo_id = req.header.major_sdo_id;
  h->message_type = PtpMessageType::kManagement;
  h->minor_version = config.minor_version & 0x0F;
  h->domain_number = req.header.domain_number;
  h->minor_sdo_id = req.header.minor_sdo_id;
  h->flags.Set(PtpFlag::kUnicast, req.header.flags.Has(PtpFlag::kUnicast));
  h->source_port_identity = config.port_identity;
  h->sequence_id = req.header.sequence_id;
  h->log_message_interval = kPtpLogIntervalUnspecified;
  f->target_port_identity = req.header.source_port_identity;
  const uint8_t hops = static_cast<uint8_t>(req.fields.starting_boundary_hops -
                                            req.fields.boundary_hops);
  f->starting_boundary_hops = hops;
  f->boundary_hops = hops;
  f->action = req.fields.action == PtpManagementAction::kCommand
                  ? PtpManagementAction::kAcknowledge
                  : PtpManagementAction::kResponse;
}

// The error a request for `id` with `action` gets, or false when it is
// answered with data.
bool ErrorFor(uint16_t id, PtpManagementAction action,
              PtpManagementErrorId* error) {
  if (id == static_cast<uint16_t>(PtpManagementId::kNullManagement)) {
    return false;
  }
  if (IsDataSet(id)) {
    if (action == PtpManagementAction::kGet) return false;
    *error = action == PtpManagementAction::kSet
                 ? PtpManagementErrorId::kNotSetable
                 : PtpManagementErrorId::kNotSupported;
    return true;
  }
  *error = PtpManagementErrorId::kNotSupported;
  return true;
}

PtpManagementAnswer Answer(PtpManagementResult result, size_t length) {
  return {result, PtpDrop::kOk, length};
}

}  // namespace

// ---- Data sets --------------------------------------------------------------

bool ParsePtpDataSet(std::span<const uint8_t> d, PtpDefaultDataSet* out) {
  if (d.size() != kPtpDefaultDataSetLength) return false;
  const uint8_t* p = d.data();
  out->two_step = (p[0] & kDdsTwoStep) != 0;
  out->slave_only = (p[0] & kDdsSlaveOnly) != 0;
  // p[1] reserved.
  out->number_ports = LoadBe16(p + 2);
  out->priority1 = p[4];
  out->clock_quality = LoadPtpClockQuality(p + 5);
  out->priority2 = p[9];
  out->clock_identity = LoadPtpClockIdentity(p + 10);
  out->domain_number = p[18];
  // p[19] reserved.
  return true;
}

size_t WritePtpDataSet(const PtpDefaultDataSet& ds, std::span<uint8_t> out) {
  if (out.size() < kPtpDefaultDataSetLength) return 0;
  uint8_t* p = out.data();
  p[0] = Bit(ds.two_step, kDdsTwoStep) | Bit(ds.slave_only, kDdsSlaveOnly);
  p[1] = 0;
  StoreBe16(p + 2, ds.number_ports);
  p[4] = ds.priority1;
  StorePtpClockQuality(p + 5, ds.clock_quality);
  p[9] = ds.priority2;
  StorePtpClockIdentity(p + 10, ds.clock_identity);
  p[18] = ds.domain_number;
  p[19] = 0;
  return kPtpDefaultDataSetLength;
}

bool ParsePtpDataSet(std::span<const uint8_t> d, PtpCurrentDataSet* out) {
  if (d.size() != kPtpCurrentDataSetLength) return false;
  out->steps_removed = LoadBe16(d.data());
  out->offset_from_master = LoadPtpCorrection(d.data() + 2);
  out->mean_path_delay = LoadPtpCorrection(d.data() + 10);
  return true;
}

size_t WritePtpDataSet(const PtpCurrentDataSet& ds, std::span<uint8_t> out) {
  if (out.size() < kPtpCurrentDataSetLength) return 0;
  StoreBe16(out.data(), ds.steps_removed);
  StorePtpCorrection(out.data() + 2, ds.offset_from_master);
  StorePtpCorrection(out.data() + 10, ds.mean_path_delay);
  return kPtpCurrentDataSetLength;
}

bool ParsePtpDataSet(std::span<const uint8_t> d, PtpParentDataSet* out) {
  if (d.size() != kPtpParentDataSetLength) return false;
  const uint8_t* p = d.data();
  out->parent_port_identity = LoadPtpPortIdentity(p);
  out->parent_stats = (p[10] & 0x01) != 0;
  // p[11] reserved.
  out->observed_parent_offset_scaled_log_variance = LoadBe16(p + 12);
  out->observed_parent_clock_phase_change_rate =
      static_cast<int32_t>(LoadBe32(p + 14));
  out->grandmaster_priority1 = p[18];
  out->grandmaster_clock_quality = LoadPtpClockQuality(p + 19);
  out->grandmaster_priority2 = p[23];
  out->grandmaster_identity = LoadPtpClockIdentity(p + 24);
  return true;
}

size_t WritePtpDataSet(const PtpParentDataSet& ds, std::span<uint8_t> out) {
  if (out.size() < kPtpParentDataSetLength) return 0;
  uint8_t* p = out.data();
  StorePtpPortIdentity(p, ds.parent_port_identity);
  p[10] = Bit(ds.parent_stats, 0x01);
  p[11] = 0;
  StoreBe16(p + 12, ds.observed_parent_offset_scaled_log_variance);
  StoreBe32(p + 14,
            static_cast<uint32_t>(ds.observed_parent_clock_phase_change_rate));
  p[18] = ds.grandmaster_priority1;
  StorePtpClockQuality(p + 19, ds.grandmaster_clock_quality);
  p[23] = ds.grandmaster_priority2;
  StorePtpClockIdentity(p + 24, ds.grandmaster_identity);
  return kPtpParentDataSetLength;
}

bool ParsePtpDataSet(std::span<const uint8_t> d,
                     PtpTimePropertiesDataSet* out) {
  if (d.size() != kPtpTimePropertiesDataSetLength) return false;
  const uint8_t f = d[2];
  out->current_utc_offset = static_cast<int16_t>(LoadBe16(d.data()));
  out->leap61 = (f & kTpLeap61) != 0;
  out->leap59 = (f & kTpLeap59) != 0;
  out->current_utc_offset_valid = (f & kTpUtcOffsetValid) != 0;
  out->ptp_timescale = (f & kTpPtpTimescale) != 0;
  out->time_traceable = (f & kTpTimeTraceable) != 0;
  out->frequency_traceable = (f & kTpFrequencyTraceable) != 0;
  out->time_source = static_cast<PtpTimeSource>(d[3]);
  return true;
}

size_t WritePtpDataSet(const PtpTimePropertiesDataSet& ds,
                       std::span<uint8_t> out) {
  if (out.size() < kPtpTimePropertiesDataSetLength) return 0;
  StoreBe16(out.data(), static_cast<uint16_t>(ds.current_utc_offset));
  out[2] = Bit(ds.leap61, kTpLeap61) | Bit(ds.leap59, kTpLeap59) |
           Bit(ds.current_utc_offset_valid, kTpUtcOffsetValid) |
           Bit(ds.ptp_timescale, kTpPtpTimescale) |
           Bit(ds.time_traceable, kTpTimeTraceable) |
           Bit(ds.frequency_traceable, kTpFrequencyTraceable);
  out[3] = static_cast<uint8_t>(ds.time_source);
  return kPtpTimePropertiesDataSetLength;
}

bool ParsePtpDataSet(std::span<const uint8_t> d, PtpPortDataSet* out) {
  if (d.size() != kPtpPortDataSetLength) return false;
  const uint8_t* p = d.data();
  out->port_identity = LoadPtpPortIdentity(p);
  out->port_state = static_cast<PtpPortState>(p[10]);
  out->log_min_delay_req_interval = static_cast<int8_t>(p[11]);
  out->peer_mean_path_delay = LoadPtpCorrection(p + 12);
  out->log_announce_interval = static_cast<int8_t>(p[20]);
  out->announce_receipt_timeout = p[21];
  out->log_sync_interval = static_cast<int8_t>(p[22]);
  out->delay_mechanism = static_cast<PtpDelayMechanism>(p[23]);
  out->log_min_pdelay_req_interval = static_cast<int8_t>(p[24]);
  out->version_number = p[25] & 0x0F;
  out->minor_version_number = p[25] >> 4;
  return true;
}

size_t WritePtpDataSet(const PtpPortDataSet& ds, std::span<uint8_t> out) {
  if (out.size() < kPtpPortDataSetLength || ds.version_number > 0x0F ||
      ds.minor_version_number > 0x0F) {
    return 0;
  }
  uint8_t* p = out.data();
  StorePtpPortIdentity(p, ds.port_identity);
  p[10] = static_cast<uint8_t>(ds.port_state);
  p[11] = static_cast<uint8_t>(ds.log_min_delay_req_interval);
  StorePtpCorrection(p + 12, ds.peer_mean_path_delay);
  p[20] = static_cast<uint8_t>(ds.log_announce_interval);
  p[21] = ds.announce_receipt_timeout;
  p[22] = static_cast<uint8_t>(ds.log_sync_interval);
  p[23] = static_cast<uint8_t>(ds.delay_mechanism);
  p[24] = static_cast<uint8_t>(ds.log_min_pdelay_req_interval);
  p[25] =
      static_cast<uint8_t>((ds.minor_version_number << 4) | ds.version_number);
  return kPtpPortDataSetLength;
}

// ---- Management messages ----------------------------------------------------

PtpDrop ParsePtpManagementMessage(std::span<const uint8_t> buf,
                                  PtpManagementMessage* out) {
  PtpMessage msg;
  const PtpDrop drop = ParsePtpMessage(buf, &msg);
  if (drop != PtpDrop::kOk) return drop;
  const auto* fields = std::get_if<PtpManagement>(&msg.body);
  if (fields == nullptr) return PtpDrop::kWrongType;
  PtpTlvReader reader(msg.tlvs);
  PtpTlv tlv;
  if (!reader.Next(&tlv)) return PtpDrop::kBadTlv;
  out->header = msg.header;
  out->fields = *fields;
  out->is_error_status = tlv.type == PtpTlvType::kManagementErrorStatus;
  if (out->is_error_status) {
    PtpManagementErrorStatusTlv e;
    if (!ParsePtpManagementErrorStatusTlv(tlv, &e)) return PtpDrop::kBadTlv;
    out->management_id = e.management_id;
    out->management_error_id = e.management_error_id;
    out->display_data = e.display_data;
    out->data = {};
    return PtpDrop::kOk;
  }
  PtpManagementTlv m;
  if (!ParsePtpManagementTlv(tlv, &m)) return PtpDrop::kBadTlv;
  out->management_id = m.management_id;
  out->data = m.data;
  out->management_error_id = 0;
  out->display_data = {};
  return PtpDrop::kOk;
}

size_t WritePtpManagementMessage(const PtpHeader& header,
                                 const PtpManagement& fields,
                                 uint16_t management_id,
                                 std::span<const uint8_t> data,
                                 std::span<uint8_t> out) {
  const std::span<uint8_t> tlv_area = BeginManagement(header, fields, out);
  if (tlv_area.empty()) return 0;
  return FinishManagement(out,
                          WritePtpManagementTlv(management_id, data, tlv_area));
}

size_t WritePtpManagementErrorMessage(const PtpHeader& header,
                                      const PtpManagement& fields,
                                      PtpManagementErrorId error,
                                      uint16_t management_id,
                                      std::span<uint8_t> out) {
  const std::span<uint8_t> tlv_area = BeginManagement(header, fields, out);
  if (tlv_area.empty()) return 0;
  PtpManagementErrorStatusTlv e;
  e.management_error_id = static_cast<uint16_t>(error);
  e.management_id = management_id;
  return FinishManagement(out, WritePtpManagementErrorStatusTlv(e, tlv_area));
}

// ---- Responder --------------------------------------------------------------

const char* PtpManagementResultName(PtpManagementResult r) {
  switch (r) {
    case PtpManagementResult::kResponse:
      return "response";
    case PtpManagementResult::kErrorStatus:
      return "error_status";
    case PtpManagementResult::kMalformed:
      return "malformed";
    case PtpManagementResult::kNotForUs:
      return "not_for_us";
    case PtpManagementResult::kNotARequest:
      return "not_a_request";
    case PtpManagementResult::kReplyTooLarge:
      return "reply_too_large";
    case PtpManagementResult::kNoRoom:
      return "no_room";
    case PtpManagementResult::kCount:
      break;
  }
  return "unknown";
}

PtpManagementAnswer AnswerPtpManagement(std::span<const uint8_t> request,
                                        const PtpManagementConfig& config,
                                        const PtpDataSets& data_sets,
                                        std::span<uint8_t> out) {
  PtpManagementMessage req;
  const PtpDrop drop = ParsePtpManagementMessage(request, &req);
  if (drop != PtpDrop::kOk) {
    return {PtpManagementResult::kMalformed, drop, 0};
  }
  if (req.header.domain_number != config.domain_number ||
      req.header.sdo_id() != (config.sdo_id & 0x0FFF) ||
      !AddressedToUs(req, config)) {
    return Answer(PtpManagementResult::kNotForUs, 0);
  }
  const PtpManagementAction action = req.fields.action;
  if (req.is_error_status || action == PtpManagementAction::kResponse ||
      action == PtpManagementAction::kAcknowledge) {
    return Answer(PtpManagementResult::kNotARequest, 0);
  }
  PtpHeader h;
  PtpManagement f;
  ReplyHeader(req, config, &h, &f);
  // Build into a scratch buffer sized for the largest answer, then check it
  // against the request and `out`.
  std::array<uint8_t,
             kPtpManagementLength + kPtpTlvHeaderLength + 2 + kMaxDataSetLength>
      reply;
  PtpManagementErrorId error;
  size_t length;
  PtpManagementResult result;
  if (ErrorFor(req.management_id, action, &error)) {
    result = PtpManagementResult::kErrorStatus;
    length =
        WritePtpManagementErrorMessage(h, f, error, req.management_id, reply);
  } else {
    result = PtpManagementResult::kResponse;
    std::array<uint8_t, kMaxDataSetLength> data;
    const size_t n = WriteDataSetById(req.management_id, data_sets, data);
    length = WritePtpManagementMessage(h, f, req.management_id,
                                       std::span(data).first(n), reply);
  }
  if (length == 0) return Answer(PtpManagementResult::kNoRoom, 0);
  if (length > req.header.message_length &&
      !config.allow_reply_larger_than_request) {
    return Answer(PtpManagementResult::kReplyTooLarge, 0);
  }
  if (length > out.size()) return Answer(PtpManagementResult::kNoRoom, 0);
  std::memcpy(out.data(), reply.data(), length);
  return Answer(result, length);
}

}  // namespace zg::core
