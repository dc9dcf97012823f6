// SPDX-License-Identifier: Apache-2.0
// Every PTP message we serialize, dissected by tshark in each framing we
// send it in (UDP/IPv4, UDP/IPv6, IEEE 802.3; BuildUdpFrame / BuildL2Frame):
// no malformed marker or expert warning, checksums good, and every header,
// body and TLV field shows what we set. Covered: Announce (with PATH_TRACE
// and ALTERNATE_TIME_OFFSET_INDICATOR TLVs), Sync, Follow_Up, Delay_Req,
// Delay_Resp and Pdelay_Resp (built in place from the requests, as the hot
// path builds them), Pdelay_Req, Pdelay_Resp_Follow_Up, Signaling with each
// unicast negotiation TLV, and the management responder's RESPONSE for each
// data set and NULL_MANAGEMENT and its MANAGEMENT_ERROR_STATUS for a SET.
// One tshark run for all of them.
#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/net/frame.h"
#include "core/net/frame_build.h"
#include "core/ptp/ptp_fields.h"
#include "core/ptp/ptp_management.h"
#include "core/ptp/ptp_tlv.h"
#include "core/ptp/ptp_wire.h"
#include "gtest/gtest.h"
#include "tests/core/net/frame_test_util.h"
#include "tests/util/hex.h"
#include "tests/util/tshark.h"

namespace zg::core::testing {
namespace ptp_tshark_test {
namespace {

using testutil::FieldValues;
using testutil::FrameCheck;
using Bytes = std::vector<uint8_t>;

std::string Dec(int64_t v) { return absl::StrCat(v); }
std::string Hex8(uint8_t v) { return absl::StrFormat("0x%02x", v); }
std::string Hex16(uint16_t v) { return absl::StrFormat("0x%04x", v); }
std::string Id(const PtpClockIdentity& id) {
  return "0x" + testutil::ToHex(id.octets);
}
// tshark 4.0 shows the (signed) nanoseconds of a TimeInterval as an
// unsigned 64-bit number: -7 ns is 18446744073709551609.
std::string IntervalNs(PtpCorrection c) {
  return absl::StrCat(static_cast<uint64_t>(c.Nanos()));
}
// A 48-bit field tshark shows as bytes: "00:00:66:08:b5:90".
std::string Bytes48(uint64_t v) {
  uint8_t b[6];
  StoreBe48(b, v);
  return testutil::ToHex(b, ":");
}
void Add(FieldValues& to, const FieldValues& more) {
  to.insert(to.end(), more.begin(), more.end());
}

const PtpPortIdentity kOurPort{PtpClockIdentity::FromMac(kOurMac.b), 1};
const PtpPortIdentity kPeerPort{PtpClockIdentity::FromMac(kPeerMac.b), 2};
constexpr uint8_t kDomain = 24;

enum class Transport { kUdp4, kUdp6, kL2 };
const char* Name(Transport t) {
  switch (t) {
    case Transport::kUdp4:
      return "UDPv4";
    case Transport::kUdp6:
      return "UDPv6";
    case Transport::kL2:
      return "802.3";
  }
  return "?";
}

// Where a message goes: the PTP primary or peer-delay group, or the peer.
enum class Dest { kPrimary, kPdelay, kPeer };

// Frames `msg` for `t`, from us (or from the peer when `from_peer`), and
// returns the frame with the framing fields tshark must show.
Bytes Frame(Transport t, Dest d, bool from_peer, const Bytes& msg,
            FieldValues* want) {
  const bool event =
      PtpIsEventMessage(static_cast<PtpMessageType>(msg[0] & 0x0F));
  const MacAddr& src_mac = from_peer ? kPeerMac : kOurMac;
  Bytes f(msg.size() + 100);
  FrameInfo info;
  uint32_t n = 0;
  if (t == Transport::kL2) {
    const MacAddr dst = d == Dest::kPeer     ? (from_peer ? kOurMac : kPeerMac)
                        : d == Dest::kPdelay ? kPtpPdelayMac
                                             : kPtpPrimaryMac;
    n = BuildL2Frame(f.data(), f.size(), src_mac, dst, std::nullopt, 0,
                     kEtherTypePtp, static_cast<uint16_t>(msg.size()), &info);
    Add(*want, {{"eth.dst", dst.ToString()}, {"eth.type", "0x88f7"}});
  } else {
    const bool v6 = t == Transport::kUdp6;
    UdpFrameSpec spec;
    spec.src_mac = src_mac;
    spec.src_port = spec.dst_port = event ? kPtpEventPort : kPtpGeneralPort;
    if (d == Dest::kPeer) {
      spec.dst_mac = from_peer ? kOurMac : kPeerMac;
      spec.src_ip = v6 ? IpAddress::V6(from_peer ? kPeer6 : kOur6)
                       : IpAddress::V4(from_peer ? kPeer4 : kOur4);
      spec.dst_ip = v6 ? IpAddress::V6(from_peer ? kOur6 : kPeer6)
                       : IpAddress::V4(from_peer ? kOur4 : kPeer4);
    } else {
      const bool pd = d == Dest::kPdelay;
      spec.ttl = 1;
      spec.src_ip =
          v6 ? IpAddress::V6(from_peer ? kPeerLinkLocal : kOurLinkLocal)
             : IpAddress::V4(from_peer ? kPeer4 : kOur4);
      spec.dst_ip = v6 ? IpAddress::V6(pd ? kPtpPdelayIpv6 : kPtpPrimaryIpv6)
                       : IpAddress::V4(pd ? kPtpPdelayIpv4 : kPtpPrimaryIpv4);
      spec.dst_mac =
          v6 ? spec.dst_ip.v6.MulticastMac() : Ipv4MulticastMac(spec.dst_ip.v4);
    }
    n = BuildUdpFrame(f.data(), f.size(), spec,
                      static_cast<uint16_t>(msg.size()), &info);
    Add(*want, {{"eth.dst", spec.dst_mac.ToString()},
                {"udp.srcport", Dec(spec.src_port)},
                {"udp.dstport", Dec(spec.dst_port)},
                {"udp.checksum.status", "1"}});
    if (v6) {
      Add(*want, {{"ipv6.src", spec.src_ip.ToString()},
                  {"ipv6.dst", spec.dst_ip.ToString()}});
    } else {
      Add(*want, {{"ip.src", spec.src_ip.ToString()},
                  {"ip.dst", spec.dst_ip.ToString()},
                  {"ip.checksum.status", "1"}});
    }
  }
  EXPECT_NE(n, 0u);
  std::memcpy(f.data() + info.payload_offset, msg.data(), msg.size());
  if (t != Transport::kL2) FinaliseUdpChecksum(f.data(), info);
  f.resize(n);
  return f;
}

// The common header as tshark shows it.
FieldValues HeaderFields(const PtpHeader& h, PtpMessageType type,
                         size_t length) {
  return {{"ptp.v2.majorsdoid", Hex8(h.major_sdo_id)},
          {"ptp.v2.messagetype", Hex8(static_cast<uint8_t>(type))},
          {"ptp.v2.minorversionptp", Dec(h.minor_version)},
          {"ptp.v2.versionptp", "2"},
          {"ptp.v2.messagelength", Dec(length)},
          {"ptp.v2.domainnumber", Dec(h.domain_number)},
          {"ptp.v2.minorsdoid", Dec(h.minor_sdo_id)},
          {"ptp.v2.flags", Hex16(h.flags.bits)},
          {"ptp.v2.correction.ns", IntervalNs(h.correction)},
          {"ptp.v2.messagetypespecific", Dec(h.message_type_specific)},
          {"ptp.v2.clockidentity", Id(h.source_port_identity.clock_identity)},
          {"ptp.v2.sourceportid", Dec(h.source_port_identity.port_number)},
          {"ptp.v2.sequenceid", Dec(h.sequence_id)},
          {"ptp.v2.controlfield", Dec(h.control_field)},
          {"ptp.v2.logmessageperiod", Dec(h.log_message_interval)}};
}

FieldValues Stamp(const std::string& prefix, PtpTimestamp t) {
  return {{prefix + ".seconds", Dec(static_cast<int64_t>(t.seconds))},
          {prefix + ".nanoseconds", Dec(t.nanoseconds)}};
}

// Serializes `msg`; false on failure.
Bytes Serialize(const PtpMessage& msg) {
  Bytes out(1500);
  const size_t n = SerializePtpMessage(msg, out);
  EXPECT_NE(n, 0u) << PtpMessageTypeName(PtpBodyType(msg.body));
  out.resize(n);
  return out;
}

PtpHeader Header(const PtpPortIdentity& from, uint16_t seq,
                 PtpMessageType type) {
  PtpHeader h;
  h.domain_number = kDomain;
  h.minor_version = 1;
  h.source_port_identity = from;
  h.sequence_id = seq;
  h.control_field = PtpControlFieldFor(type);
  h.log_message_interval = -3;
  return h;
}

const PtpTimestamp kT1{1'700'000'037, 123'456'789};
const PtpTimestamp kT2{1'700'000'037, 123'500'000};
const PtpTimestamp kT3{1'700'000'037, 123'600'000};

struct Builder {
  Transport t;
  uint16_t seq;  // per transport, so tshark's Sync/Follow_Up and Pdelay
                 // matching never pairs messages of different transports
  std::vector<FrameCheck>* out;

  void Push(const std::string& what, Dest d, bool from_peer, const Bytes& msg,
            FieldValues want) {
    Bytes f = Frame(t, d, from_peer, msg, &want);
    out->push_back({absl::StrCat(Name(t), " ", what), f, std::move(want)});
  }

  void Announce() {
    PtpMessage m;
    m.header = Header(kOurPort, seq, PtpMessageType::kAnnounce);
    m.header.flags.Set(PtpFlag::kPtpTimescale)
        .Set(PtpFlag::kCurrentUtcOffsetValid)
        .Set(PtpFlag::kTimeTraceable)
        .Set(PtpFlag::kLeap61);
    m.header.log_message_interval = 1;
    PtpAnnounce a;
    a.origin_timestamp = kT1;
    a.current_utc_offset = 37;
    a.grandmaster_priority1 = 100;
    a.grandmaster_clock_quality = {6, 0x21, 0x4E5D};
    a.grandmaster_priority2 = 101;
    a.grandmaster_identity = kOurPort.clock_identity;
    a.steps_removed = 0;
    a.time_source = PtpTimeSource::kGnss;
    m.body = a;
    // PATH_TRACE (ourselves) and an alternate timescale (CET, +1 h).
    std::array<uint8_t, 64> tlvs;
    const PtpClockIdentity path[] = {kOurPort.clock_identity};
    size_t n = WritePtpPathTraceTlv(path, tlvs);
    PtpAlternateTimeOffset ato;
    ato.key_field = 1;
    ato.current_offset_s = 3600;
    ato.jump_seconds_s = -3600;
    ato.time_of_next_jump_s = 1'711'846'800;
    ato.display_name = "CET";
    n += WritePtpAlternateTimeOffsetTlv(ato, std::span(tlvs).subspan(n));
    m.tlvs = std::span(tlvs).first(n);
    const Bytes msg = Serialize(m);
    FieldValues w =
        HeaderFields(m.header, PtpMessageType::kAnnounce, msg.size());
    Add(w, Stamp("ptp.v2.an.origintimestamp", kT1));
    Add(w, {{"ptp.v2.flags.timescale", "1"},
            {"ptp.v2.flags.utcreasonable", "1"},
            {"ptp.v2.flags.timetraceable", "1"},
            {"ptp.v2.flags.li61", "1"},
            {"ptp.v2.flags.li59", "0"},
            {"ptp.v2.an.origincurrentutcoffset", "37"},
            {"ptp.v2.an.priority1", "100"},
            {"ptp.v2.an.grandmasterclockclass", "6"},
            {"ptp.v2.an.grandmasterclockaccuracy", "0x21"},
            {"ptp.v2.an.grandmasterclockvariance", Dec(0x4E5D)},
            {"ptp.v2.an.priority2", "101"},
            {"ptp.v2.an.grandmasterclockidentity", Id(a.grandmaster_identity)},
            {"ptp.v2.an.localstepsremoved", "0"},
            {"ptp.v2.timesource", "0x20"},
            {"ptp.v2.an.tlvType", "8"},
            {"ptp.v2.an.tlvType", "9"},
            {"ptp.v2.an.lengthField", "8"},
            {"ptp.v2.an.lengthField", "20"},
            {"ptp.v2.an.pathsequence", Id(kOurPort.clock_identity)},
            {"ptp.v2.an.atoi.keyField", "1"},
            {"ptp.v2.an.atoi.currentOffset", "3600"},
            {"ptp.v2.an.atoi.jumpSeconds", "-3600"},
            {"ptp.v2.an.atoi.timeOfNextJump", Bytes48(1'711'846'800)},
            {"ptp.v2.an.atoi.displayName", "CET"}});
    Push("Announce", Dest::kPrimary, false, msg, w);
  }

  // Two-step Sync and its Follow_Up (with a sub-nanosecond correction).
  void SyncFollowUp() {
    PtpMessage m;
    m.header = Header(kOurPort, seq, PtpMessageType::kSync);
    m.header.flags.Set(PtpFlag::kTwoStep);
    m.body = PtpSync{};
    Bytes msg = Serialize(m);
    FieldValues w = HeaderFields(m.header, PtpMessageType::kSync, msg.size());
    Add(w, Stamp("ptp.v2.sdr.origintimestamp", {}));
    Add(w, {{"ptp.v2.flags.twostep", "1"}});
    Push("Sync", Dest::kPrimary, false, msg, w);

    m.header = Header(kOurPort, seq, PtpMessageType::kFollowUp);
    m.header.correction.scaled_ns = (int64_t{1234} << 16) | 0x8000;
    m.body = PtpFollowUp{kT1};
    msg = Serialize(m);
    w = HeaderFields(m.header, PtpMessageType::kFollowUp, msg.size());
    Add(w, Stamp("ptp.v2.fu.preciseorigintimestamp", kT1));
    Push("Follow_Up", Dest::kPrimary, false, msg, w);
  }

  // The peer's Delay_Req, and our Delay_Resp built from it in place.
  void DelayReqResp() {
    PtpMessage m;
    m.header = Header(kPeerPort, seq, PtpMessageType::kDelayReq);
    m.header.log_message_interval = kPtpLogIntervalUnspecified;
    m.header.correction = PtpCorrection::FromNanos(-7);
    m.body = PtpDelayReq{kT2};
    const Bytes req = Serialize(m);
    FieldValues w =
        HeaderFields(m.header, PtpMessageType::kDelayReq, req.size());
    Add(w, Stamp("ptp.v2.sdr.origintimestamp", kT2));
    Push("Delay_Req", Dest::kPrimary, true, req, w);

    PtpReplyConfig config;
    config.port_identity = kOurPort;
    config.domain_number = kDomain;
    config.log_min_delay_req_interval = -4;
    Bytes resp = req;
    resp.resize(kPtpDelayRespLength);
    ASSERT_EQ(PtpDelayReqToDelayResp(resp, req.size(), config, PtpToTai(kT3)),
              PtpDrop::kOk);
    PtpHeader h = m.header;
    h.source_port_identity = kOurPort;
    h.control_field = 3;
    h.log_message_interval = -4;
    w = HeaderFields(h, PtpMessageType::kDelayResp, kPtpDelayRespLength);
    Add(w, Stamp("ptp.v2.dr.receivetimestamp", kT3));
    Add(w, {{"ptp.v2.dr.requestingsourceportidentity",
             Id(kPeerPort.clock_identity)},
            {"ptp.v2.dr.requestingsourceportid", Dec(kPeerPort.port_number)}});
    Push("Delay_Resp (in place)", Dest::kPrimary, false, resp, w);
  }

  // The peer's Pdelay_Req, our in-place Pdelay_Resp and our
  // Pdelay_Resp_Follow_Up carrying the request's correction.
  void Pdelay() {
    PtpMessage m;
    m.header = Header(kPeerPort, seq, PtpMessageType::kPdelayReq);
    m.header.log_message_interval = kPtpLogIntervalUnspecified;
    m.header.correction = PtpCorrection::FromNanos(3);
    m.body = PtpPdelayReq{kT1};
    const Bytes req = Serialize(m);
    FieldValues w =
        HeaderFields(m.header, PtpMessageType::kPdelayReq, req.size());
    Add(w, Stamp("ptp.v2.pdrq.origintimestamp", kT1));
    Push("Pdelay_Req", Dest::kPdelay, true, req, w);

    PtpReplyConfig config;
    config.port_identity = kOurPort;
    config.domain_number = kDomain;
    Bytes resp = req;
    PtpCorrection request_correction;
    ASSERT_EQ(PtpPdelayReqToPdelayResp(resp, req.size(), config, PtpToTai(kT2),
                                       &request_correction),
              PtpDrop::kOk);
    PtpHeader h = m.header;
    h.source_port_identity = kOurPort;
    h.flags.Set(PtpFlag::kTwoStep);
    h.correction = {};
    h.control_field = 5;
    w = HeaderFields(h, PtpMessageType::kPdelayResp, resp.size());
    Add(w, Stamp("ptp.v2.pdrs.requestreceipttimestamp", kT2));
    Add(w,
        {{"ptp.v2.pdrs.requestingportidentity", Id(kPeerPort.clock_identity)},
         {"ptp.v2.pdrs.requestingsourceportid", Dec(kPeerPort.port_number)},
         {"ptp.v2.flags.twostep", "1"}});
    Push("Pdelay_Resp (in place)", Dest::kPdelay, false, resp, w);

    m.header = Header(kOurPort, seq, PtpMessageType::kPdelayRespFollowUp);
    m.header.log_message_interval = kPtpLogIntervalUnspecified;
    m.header.correction = request_correction;
    m.body = PtpPdelayRespFollowUp{kT3, kPeerPort};
    const Bytes fup = Serialize(m);
    w = HeaderFields(m.header, PtpMessageType::kPdelayRespFollowUp, fup.size());
    Add(w, Stamp("ptp.v2.pdfu.responseorigintimestamp", kT3));
    Add(w,
        {{"ptp.v2.pdfu.requestingportidentity", Id(kPeerPort.clock_identity)},
         {"ptp.v2.pdfu.requestingsourceportid", Dec(kPeerPort.port_number)}});
    Push("Pdelay_Resp_Follow_Up", Dest::kPdelay, false, fup, w);
  }

  // Unicast negotiation: the peer's REQUEST, our GRANT, a CANCEL and its
  // ACKNOWLEDGE_CANCEL, each a unicast Signaling message with one TLV.
  void Signaling() {
    struct Tlv {
      const char* what;
      bool from_peer;
      Bytes bytes;
      FieldValues want;
    };
    std::array<uint8_t, 16> b;
    std::vector<Tlv> tlvs;
    size_t n = WritePtpUnicastRequestTlv({PtpMessageType::kSync, -3, 300}, b);
    tlvs.push_back({"REQUEST_UNICAST_TRANSMISSION",
                    true,
                    Bytes(b.begin(), b.begin() + n),
                    {{"ptp.v2.sig.tlv.tlvType", "4"},
                     {"ptp.v2.sig.tlv.lengthField", "6"},
                     {"ptp.v2.sig.tlv.messageType", "0x00"},
                     {"ptp.v2.sig.tlv.logInterMessagePeriod", "-3"},
                     {"ptp.v2.sig.tlv.durationField", "300"}}});
    n = WritePtpUnicastGrantTlv({PtpMessageType::kAnnounce, 1, 300, true}, b);
    tlvs.push_back({"GRANT_UNICAST_TRANSMISSION",
                    false,
                    Bytes(b.begin(), b.begin() + n),
                    {{"ptp.v2.sig.tlv.tlvType", "5"},
                     {"ptp.v2.sig.tlv.lengthField", "8"},
                     {"ptp.v2.sig.tlv.messageType", "0x0b"},
                     {"ptp.v2.sig.tlv.logInterMessagePeriod", "1"},
                     {"ptp.v2.sig.tlv.durationField", "300"},
                     {"ptp.v2.sig.tlv.renewalInvited", "1"}}});
    n = WritePtpUnicastCancelTlv(PtpTlvType::kCancelUnicastTransmission,
                                 {PtpMessageType::kDelayResp, 0}, b);
    tlvs.push_back({"CANCEL_UNICAST_TRANSMISSION",
                    true,
                    Bytes(b.begin(), b.begin() + n),
                    {{"ptp.v2.sig.tlv.tlvType", "6"},
                     {"ptp.v2.sig.tlv.lengthField", "2"},
                     {"ptp.v2.sig.tlv.messageType", "0x09"}}});
    n = WritePtpUnicastCancelTlv(
        PtpTlvType::kAcknowledgeCancelUnicastTransmission,
        {PtpMessageType::kDelayResp, 0}, b);
    tlvs.push_back({"ACKNOWLEDGE_CANCEL_UNICAST_TRANSMISSION",
                    false,
                    Bytes(b.begin(), b.begin() + n),
                    {{"ptp.v2.sig.tlv.tlvType", "7"},
                     {"ptp.v2.sig.tlv.lengthField", "2"},
                     {"ptp.v2.sig.tlv.messageType", "0x09"}}});
    for (const Tlv& tlv : tlvs) {
      const PtpPortIdentity& from = tlv.from_peer ? kPeerPort : kOurPort;
      const PtpPortIdentity& to = tlv.from_peer ? kOurPort : kPeerPort;
      PtpMessage m;
      m.header = Header(from, seq, PtpMessageType::kSignaling);
      m.header.flags.Set(PtpFlag::kUnicast);
      m.header.log_message_interval = kPtpLogIntervalUnspecified;
      m.body = PtpSignaling{to};
      m.tlvs = tlv.bytes;
      const Bytes msg = Serialize(m);
      FieldValues w =
          HeaderFields(m.header, PtpMessageType::kSignaling, msg.size());
      Add(w, {{"ptp.v2.flags.unicast", "1"},
              {"ptp.v2.sig.targetportidentity", Id(to.clock_identity)},
              {"ptp.v2.sig.targetportid", Dec(to.port_number)}});
      Add(w, tlv.want);
      Push(absl::StrCat("Signaling ", tlv.what), Dest::kPeer, tlv.from_peer,
           msg, w);
    }
  }

  // The management responder's answers to the peer's GET of each data set
  // and NULL_MANAGEMENT, and to a SET.
  void Management() {
    PtpManagementConfig config;
    config.port_identity = kOurPort;
    config.domain_number = kDomain;
    config.allow_reply_larger_than_request = true;  // pmc -z style GETs
    PtpDataSets ds;
    ds.default_ds = {
        true,   false, 1, 100, {6, 0x21, 0x4E5D}, 101, kOurPort.clock_identity,
        kDomain};
    ds.current_ds = {0, PtpCorrection::FromNanos(-25),
                     PtpCorrection::FromNanos(1500)};
    ds.parent_ds.parent_port_identity = {kOurPort.clock_identity, 0};
    ds.parent_ds.grandmaster_priority1 = 100;
    ds.parent_ds.grandmaster_clock_quality = {6, 0x21, 0x4E5D};
    ds.parent_ds.grandmaster_priority2 = 101;
    ds.parent_ds.grandmaster_identity = kOurPort.clock_identity;
    ds.time_properties_ds = {37,   true, false, true,
                             true, true, false, PtpTimeSource::kGnss};
    ds.port_ds.port_identity = kOurPort;
    ds.port_ds.port_state = PtpPortState::kMaster;
    ds.port_ds.log_min_delay_req_interval = -4;
    ds.port_ds.log_announce_interval = 1;
    ds.port_ds.log_sync_interval = -3;
    ds.port_ds.log_min_pdelay_req_interval = -2;

    const FieldValues kDefault = {
        {"ptp.v2.mm.twoStep", "1"},
        {"ptp.v2.mm.SlavOnly", "0"},
        {"ptp.v2.mm.numberPorts", "1"},
        {"ptp.v2.mm.priority1", "100"},
        {"ptp.v2.mm.clockclass", "6"},
        {"ptp.v2.mm.clockaccuracy", "0x21"},
        {"ptp.v2.mm.clockvariance", "20061"},
        {"ptp.v2.mm.priority2", "101"},
        {"ptp.v2.mm.clockidentity", Id(kOurPort.clock_identity)},
        {"ptp.v2.mm.domainNumber", Dec(kDomain)}};
    const FieldValues kCurrent = {
        {"ptp.v2.mm.stepsRemoved", "0"},
        {"ptp.v2.mm.offset.ns", IntervalNs(ds.current_ds.offset_from_master)},
        {"ptp.v2.mm.pathDelay.ns", "1500"}};
    const FieldValues kParent = {
        {"ptp.v2.mm.parentclockidentity", Id(kOurPort.clock_identity)},
        {"ptp.v2.mm.parentsourceportid", "0"},
        {"ptp.v2.mm.parentstats", "0"},
        {"ptp.v2.mm.observedParentOffsetScaledLogVariance", "65535"},
        {"ptp.v2.mm.observedParentClockPhaseChangeRate", "2147483647"},
        {"ptp.v2.mm.grandmasterPriority1", "100"},
        {"ptp.v2.mm.grandmasterclockclass", "6"},
        {"ptp.v2.mm.grandmasterclockaccuracy", "0x21"},
        {"ptp.v2.mm.grandmasterclockvariance", "20061"},
        {"ptp.v2.mm.grandmasterPriority2", "101"},
        {"ptp.v2.mm.grandmasterclockidentity", Id(kOurPort.clock_identity)}};
    const FieldValues kTimeProperties = {
        {"ptp.v2.mm.currentutcoffset", "37"},
        {"ptp.v2.mm.li61", "1"},
        {"ptp.v2.mm.li59", "0"},
        {"ptp.v2.mm.CurrentUTCOffsetValid", "1"},
        {"ptp.v2.mm.ptptimescale", "1"},
        {"ptp.v2.mm.timeTraceable", "1"},
        {"ptp.v2.mm.frequencyTraceable", "0"},
        {"ptp.v2.mm.timesource", "0x20"}};
    const FieldValues kPort = {
        {"ptp.v2.mm.clockidentity", Id(kOurPort.clock_identity)},
        {"ptp.v2.mm.PortNumber", "1"},
        {"ptp.v2.mm.portState", "6"},
        {"ptp.v2.mm.logMinDelayReqInterval", "-4"},
        {"ptp.v2.mm.peerMeanPathDelay.ns", "0"},
        {"ptp.v2.mm.logAnnounceInterval", "1"},
        {"ptp.v2.mm.announceReceiptTimeout", "3"},
        {"ptp.v2.mm.logSyncInterval", "-3"},
        {"ptp.v2.mm.delayMechanism", "1"},
        {"ptp.v2.mm.logMinPdelayReqInterval", "-2"},
        {"ptp.v2.mm.versionNumber", "2"}};
    struct Query {
      const char* what;
      PtpManagementAction action;
      PtpManagementId id;
      size_t data_length;
      FieldValues want;
    };
    const Query queries[] = {
        {"DEFAULT_DATA_SET", PtpManagementAction::kGet,
         PtpManagementId::kDefaultDataSet, kPtpDefaultDataSetLength, kDefault},
        {"CURRENT_DATA_SET", PtpManagementAction::kGet,
         PtpManagementId::kCurrentDataSet, kPtpCurrentDataSetLength, kCurrent},
        {"PARENT_DATA_SET", PtpManagementAction::kGet,
         PtpManagementId::kParentDataSet, kPtpParentDataSetLength, kParent},
        {"TIME_PROPERTIES_DATA_SET", PtpManagementAction::kGet,
         PtpManagementId::kTimePropertiesDataSet,
         kPtpTimePropertiesDataSetLength, kTimeProperties},
        {"PORT_DATA_SET", PtpManagementAction::kGet,
         PtpManagementId::kPortDataSet, kPtpPortDataSetLength, kPort},
        {"NULL_MANAGEMENT",
         PtpManagementAction::kGet,
         PtpManagementId::kNullManagement,
         0,
         {}},
        {"SET DEFAULT_DATA_SET (refused)",
         PtpManagementAction::kSet,
         PtpManagementId::kDefaultDataSet,
         0,
         {{"ptp.v2.mm.managementErrorId", "5"}}},  // NOT_SETABLE
    };
    for (const Query& q : queries) {
      PtpHeader h = Header(kPeerPort, seq, PtpMessageType::kManagement);
      h.log_message_interval = kPtpLogIntervalUnspecified;
      PtpManagement fields{PtpPortIdentity::All(), 1, 1, q.action};
      std::array<uint8_t, 128> req;
      const size_t req_len = WritePtpManagementMessage(
          h, fields, static_cast<uint16_t>(q.id), {}, req);
      ASSERT_NE(req_len, 0u);
      Bytes reply(300);
      const PtpManagementAnswer a =
          AnswerPtpManagement(std::span(req).first(req_len), config, ds, reply);
      ASSERT_GT(a.length, 0u) << PtpManagementResultName(a.result);
      reply.resize(a.length);
      const bool error = q.action == PtpManagementAction::kSet;
      PtpHeader rh = Header(kOurPort, seq, PtpMessageType::kManagement);
      rh.log_message_interval = kPtpLogIntervalUnspecified;
      FieldValues w = HeaderFields(rh, PtpMessageType::kManagement, a.length);
      Add(w, {{"ptp.v2.mm.targetportidentity", Id(kPeerPort.clock_identity)},
              {"ptp.v2.mm.targetportid", Dec(kPeerPort.port_number)},
              {"ptp.v2.mm.startingboundaryhops", "0"},
              {"ptp.v2.mm.boundaryhops", "0"},
              {"ptp.v2.mm.action", "2"},
              {"ptp.v2.mm.tlvType", error ? "2" : "1"},
              {"ptp.v2.mm.lengthField", Dec(error ? 8 : 2 + q.data_length)},
              {"ptp.v2.mm.managementId", Dec(static_cast<uint16_t>(q.id))}});
      Add(w, q.want);
      Push(absl::StrCat("Management ", q.what), Dest::kPrimary, false, reply,
           w);
    }
  }
};

TEST(PtpTsharkTest, EveryMessageInEveryFramingDissectsCleanAsSet) {
  if (!testutil::TsharkAvailable()) GTEST_SKIP() << "tshark not installed";
  std::vector<FrameCheck> checks;
  uint16_t seq = 100;
  for (Transport t : {Transport::kUdp4, Transport::kUdp6, Transport::kL2}) {
    Builder b{t, seq, &checks};
    b.Announce();
    b.SyncFollowUp();
    b.DelayReqResp();
    b.Pdelay();
    b.Signaling();
    b.Management();
    seq += 100;
  }
  ASSERT_EQ(checks.size(), 3u * 19);
  const absl::Status s = testutil::DissectAndCheck(checks);
  EXPECT_TRUE(s.ok()) << s;
}

}  // namespace
}  // namespace ptp_tshark_test
}  // namespace zg::core::testing
