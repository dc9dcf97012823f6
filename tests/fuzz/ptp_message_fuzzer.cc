// SPDX-License-Identifier: Apache-2.0
// Fuzzes the PTP parsers (core/ptp/ptp_wire.h, ptp_tlv.h, ptp_management.h)
// with any bytes as a PTP message: nothing may read out of bounds or overflow
// (ASan/UBSan), and what parses must re-serialise to something that parses
// back equal. Also drives the in-place Delay_Resp/Pdelay_Resp rewrites and
// the management responder, and checks their replies parse.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "core/ptp/ptp_management.h"
#include "core/ptp/ptp_tlv.h"
#include "core/ptp/ptp_wire.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using namespace zg::core;

// The whole TLV, from its header, given its parsed value span.
std::span<const uint8_t> Whole(const PtpTlv& tlv) {
  return {tlv.value.data() - kPtpTlvHeaderLength,
          tlv.value.size() + kPtpTlvHeaderLength};
}

// Writes `x` with `write`, then parses it back with `parse` and checks it.
template <class T, class Write, class Parse>
void RoundTrip(const T& x, Write write, Parse parse) {
  std::array<uint8_t, 70000> buf;
  const size_t n = write(x, std::span(buf));
  ZG_FUZZ_CHECK(n >= kPtpTlvHeaderLength);
  PtpTlvReader reader(std::span<const uint8_t>(buf.data(), n));
  PtpTlv tlv;
  ZG_FUZZ_CHECK(reader.Next(&tlv));
  T back;
  ZG_FUZZ_CHECK(parse(tlv, &back));
  ZG_FUZZ_CHECK(back == x);
}

void CheckTlvs(std::span<const uint8_t> area) {
  PtpTlvReader reader(area);
  PtpTlv tlv;
  while (reader.Next(&tlv)) {
    ZG_FUZZ_CHECK(tlv.value.data() >= area.data() &&
                  tlv.value.data() + tlv.value.size() <=
                      area.data() + area.size());
    PtpUnicastRequest req;
    PtpUnicastGrant grant;
    PtpUnicastCancel cancel;
    PtpPathTrace path;
    PtpAlternateTimeOffset ato;
    PtpOrganizationExtension org;
    PtpManagementTlv mgmt;
    PtpManagementErrorStatusTlv err;
    if (ParsePtpUnicastRequestTlv(tlv, &req)) {
      RoundTrip(req, WritePtpUnicastRequestTlv, ParsePtpUnicastRequestTlv);
    } else if (ParsePtpUnicastGrantTlv(tlv, &grant)) {
      RoundTrip(grant, WritePtpUnicastGrantTlv, ParsePtpUnicastGrantTlv);
    } else if (ParsePtpUnicastCancelTlv(tlv, &cancel)) {
      RoundTrip(
          cancel,
          [&](const PtpUnicastCancel& c, std::span<uint8_t> out) {
            return WritePtpUnicastCancelTlv(tlv.type, c, out);
          },
          ParsePtpUnicastCancelTlv);
    } else if (ParsePtpPathTraceTlv(tlv, &path)) {
      for (size_t i = 0; i < path.size(); ++i) (void)path.at(i);
      std::array<uint8_t, 70000> buf;
      std::vector<PtpClockIdentity> ids(path.size());
      for (size_t i = 0; i < ids.size(); ++i) ids[i] = path.at(i);
      const size_t n = WritePtpPathTraceTlv(ids, buf);
      ZG_FUZZ_CHECK(n == Whole(tlv).size() &&
                    std::memcmp(buf.data(), Whole(tlv).data(), n) == 0);
    } else if (ParsePtpAlternateTimeOffsetTlv(tlv, &ato)) {
      RoundTrip(ato, WritePtpAlternateTimeOffsetTlv,
                ParsePtpAlternateTimeOffsetTlv);
    } else if (ParsePtpOrganizationExtensionTlv(tlv, &org)) {
      std::array<uint8_t, 70000> buf;
      const size_t n = WritePtpOrganizationExtensionTlv(org, buf);
      ZG_FUZZ_CHECK(n == Whole(tlv).size() &&
                    std::memcmp(buf.data(), Whole(tlv).data(), n) == 0);
    } else if (ParsePtpManagementTlv(tlv, &mgmt)) {
      std::array<uint8_t, 70000> buf;
      const size_t n =
          WritePtpManagementTlv(mgmt.management_id, mgmt.data, buf);
      ZG_FUZZ_CHECK(n == Whole(tlv).size() &&
                    std::memcmp(buf.data(), Whole(tlv).data(), n) == 0);
    } else if (ParsePtpManagementErrorStatusTlv(tlv, &err)) {
      std::array<uint8_t, 300> buf;
      const size_t n = WritePtpManagementErrorStatusTlv(err, buf);
      PtpTlvReader r(std::span<const uint8_t>(buf.data(), n));
      PtpTlv t;
      PtpManagementErrorStatusTlv back;
      ZG_FUZZ_CHECK(r.Next(&t) && ParsePtpManagementErrorStatusTlv(t, &back));
      ZG_FUZZ_CHECK(back.management_error_id == err.management_error_id &&
                    back.management_id == err.management_id &&
                    back.display_data == err.display_data);
    }
  }
  ZG_FUZZ_CHECK(!reader.malformed());  // the message parser checked it
}

// Parses a data set of the management id, and re-writes it byte for byte
// (reserved bits aside).
template <class DataSet>
void CheckDataSet(std::span<const uint8_t> data) {
  DataSet ds;
  if (!ParsePtpDataSet(data, &ds)) return;
  std::array<uint8_t, 64> buf;
  const size_t n = WritePtpDataSet(ds, buf);
  ZG_FUZZ_CHECK(n == data.size());
  DataSet back;
  ZG_FUZZ_CHECK(ParsePtpDataSet(std::span(buf).first(n), &back) && back == ds);
}

void CheckManagement(std::span<const uint8_t> in) {
  PtpManagementMessage m;
  if (ParsePtpManagementMessage(in, &m) == PtpDrop::kOk) {
    CheckDataSet<PtpDefaultDataSet>(m.data);
    CheckDataSet<PtpCurrentDataSet>(m.data);
    CheckDataSet<PtpParentDataSet>(m.data);
    CheckDataSet<PtpTimePropertiesDataSet>(m.data);
    CheckDataSet<PtpPortDataSet>(m.data);
  }
  // Answer as a grandmaster in the request's own domain, so that the
  // responder's deeper paths are reached.
  PtpManagementConfig config;
  if (in.size() >= 6) {
    config.domain_number = in[4];
    config.sdo_id = static_cast<uint16_t>(((in[0] >> 4) << 8) | in[5]);
    config.allow_reply_larger_than_request = (in[2] & 1) != 0;
  }
  static std::array<uint8_t, 200> out;
  const PtpManagementAnswer a =
      AnswerPtpManagement(in, config, PtpDataSets{}, out);
  if (a.length == 0) return;
  ZG_FUZZ_CHECK(a.length <= out.size());
  ZG_FUZZ_CHECK(config.allow_reply_larger_than_request ||
                a.length <= m.header.message_length);
  PtpManagementMessage reply;
  ZG_FUZZ_CHECK(ParsePtpManagementMessage(std::span(out).first(a.length),
                                          &reply) == PtpDrop::kOk);
  ZG_FUZZ_CHECK(reply.header.sequence_id == m.header.sequence_id);
  ZG_FUZZ_CHECK(reply.fields.target_port_identity ==
                m.header.source_port_identity);
}

void CheckInPlace(std::span<const uint8_t> in, const PtpMessage* parsed) {
  PtpReplyConfig config;
  if (in.size() >= 6) {
    config.domain_number = in[4];
    config.sdo_id = static_cast<uint16_t>(((in[0] >> 4) << 8) | in[5]);
  }
  const TaiNs t{1'700'000'000'000'000'000};
  static std::vector<uint8_t> buf;
  // Sometimes exactly the request, sometimes with mbuf room.
  const size_t room = (in.size() >= 3 && (in[2] & 2)) ? 64 : 0;
  buf.assign(in.begin(), in.end());
  buf.resize(in.size() + room);
  PtpDrop drop = PtpDelayReqToDelayResp(buf, in.size(), config, t);
  if (drop == PtpDrop::kOk) {
    ZG_FUZZ_CHECK(parsed != nullptr);
    PtpMessage resp;
    ZG_FUZZ_CHECK(ParsePtpMessage(std::span(buf).first(kPtpDelayRespLength),
                                  &resp) == PtpDrop::kOk);
    const auto* body = std::get_if<PtpDelayResp>(&resp.body);
    ZG_FUZZ_CHECK(body != nullptr);
    ZG_FUZZ_CHECK(body->requesting_port_identity ==
                  parsed->header.source_port_identity);
    ZG_FUZZ_CHECK(resp.header.sequence_id == parsed->header.sequence_id);
    ZG_FUZZ_CHECK(resp.header.correction == parsed->header.correction);
  } else {
    ZG_FUZZ_CHECK(std::equal(in.begin(), in.end(), buf.begin()));
  }
  buf.assign(in.begin(), in.end());
  PtpCorrection c;
  drop = PtpPdelayReqToPdelayResp(buf, in.size(), config, t, &c);
  if (drop == PtpDrop::kOk) {
    ZG_FUZZ_CHECK(parsed != nullptr && c == parsed->header.correction);
    PtpMessage resp;
    ZG_FUZZ_CHECK(ParsePtpMessage(std::span(buf).first(kPtpPdelayRespLength),
                                  &resp) == PtpDrop::kOk);
    ZG_FUZZ_CHECK(std::holds_alternative<PtpPdelayResp>(resp.body));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> in(data, size);
  PtpHeader header;
  const PtpDrop header_drop = ParsePtpHeader(in, &header);
  PtpMessage m;
  const PtpDrop drop = ParsePtpMessage(in, &m);
  ZG_FUZZ_CHECK(drop < PtpDrop::kCount);
  (void)PtpDropName(drop);
  // The header checks come first and are the same.
  if (header_drop != PtpDrop::kOk) ZG_FUZZ_CHECK(drop == header_drop);
  const PtpMessageClass cls = PtpClassifyMessage(in);
  if (drop == PtpDrop::kOk) {
    ZG_FUZZ_CHECK(header_drop == PtpDrop::kOk && m.header == header);
    ZG_FUZZ_CHECK(cls == (PtpIsEventMessage(m.header.message_type)
                              ? PtpMessageClass::kEvent
                              : PtpMessageClass::kGeneral));
    ZG_FUZZ_CHECK(PtpBodyType(m.body) == m.header.message_type);
    CheckTlvs(m.tlvs);
    static std::array<uint8_t, 65536> out;
    const size_t n = SerializePtpMessage(m, out);
    ZG_FUZZ_CHECK(n == m.header.message_length);
    PtpMessage back;
    ZG_FUZZ_CHECK(ParsePtpMessage(std::span(out).first(n), &back) ==
                  PtpDrop::kOk);
    ZG_FUZZ_CHECK(back == m);
    // Only reserved octets may differ from the input.
    ZG_FUZZ_CHECK(std::memcmp(out.data(), data, kPtpHeaderLength) == 0);
  }
  CheckManagement(in);
  CheckInPlace(in, drop == PtpDrop::kOk ? &m : nullptr);
  return 0;
}
