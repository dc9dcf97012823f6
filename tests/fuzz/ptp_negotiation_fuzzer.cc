// SPDX-License-Identifier: Apache-2.0
// Fuzzes the grandmaster's handling of received PTP messages beyond the
// parsers: RX dispatch (core/ptp/ptp_dispatch.h), unicast negotiation
// (core/ptp/ptp_negotiation.h) against a small, persistent subscription table
// and scheduler, and the BMCA port state (core/ptp/ptp_port_state.h) for
// Announce messages. Any bytes: nothing may read or write out of bounds
// (ASan/UBSan); every reply must parse as a Signaling message whose TLVs are
// GRANTs and ACKNOWLEDGE_CANCELs, at most 2 octets per TLV larger than the
// request's; the table and scheduler stay consistent; the admission limits
// hold (the committed rate within the budget and equal to the sum over the
// live grant bits, each source's grant count equal to its bits and within
// the per-source limit).
//
// Input layout: byte 0 selects the client address and flags, bytes 1-2 the
// time step; the rest is the PTP message.
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "core/ptp/ptp_admission.h"
#include "core/ptp/ptp_dispatch.h"
#include "core/ptp/ptp_negotiation.h"
#include "core/ptp/ptp_port_state.h"
#include "core/ptp/ptp_tlv.h"

namespace {

using namespace zg::core;

#define ZG_FUZZ_CHECK(cond)        \
  do {                             \
    if (!(cond)) __builtin_trap(); \
  } while (false)

constexpr PtpPortIdentity kUs{{{0x02, 0, 0x5E, 0xFF, 0xFE, 0, 1, 0x29}}, 1};

struct World {
  std::unique_ptr<PtpUnicastService> service;
  PtpPortConfig config;
  std::unique_ptr<PtpPortStateMachine> port;
  int64_t now = 1'000'000'000'000;
  uint16_t seq = 0;
  World() {
    config = DefaultPtpPortConfig(PtpProfileId::kDefaultE2E);
    config.unicast_negotiation = true;
    config.transports = kPtpTransportUdpIpv4 | kPtpTransportL2;
    PtpUnicastService::Config c;
    c.limits = config.grant_limits;
    c.capacity = 8;
    c.seed = 1;
    c.admission.max_grants_per_source = 3;
    c.admission.min_log_interval_per_source = -4;
    c.admission.tx_budget_per_s = 100;
    service = std::move(PtpUnicastService::Create(c)).value();
    service->Start(now);
    port = std::make_unique<PtpPortStateMachine>(config, kUs);
    port->Start(now);
  }
};

void CheckReply(std::span<const uint8_t> reply, size_t request_tlv_bytes,
                const PtpSignalingAnswer& a) {
  PtpMessage m;
  ZG_FUZZ_CHECK(ParsePtpMessage(reply, &m) == PtpDrop::kOk);
  ZG_FUZZ_CHECK(m.header.message_type == PtpMessageType::kSignaling);
  ZG_FUZZ_CHECK(m.header.source_port_identity == kUs);
  PtpTlvReader r(m.tlvs);
  PtpTlv tlv;
  size_t n = 0;
  while (r.Next(&tlv)) {
    PtpUnicastGrant g;
    PtpUnicastCancel c;
    ZG_FUZZ_CHECK(
        ParsePtpUnicastGrantTlv(tlv, &g) ||
        (tlv.type == PtpTlvType::kAcknowledgeCancelUnicastTransmission &&
         ParsePtpUnicastCancelTlv(tlv, &c)));
    ++n;
  }
  ZG_FUZZ_CHECK(!r.malformed());
  ZG_FUZZ_CHECK(n == size_t{a.granted} + a.denied + a.cancelled);
  ZG_FUZZ_CHECK(n <= kPtpMaxNegotiationTlvs);
  ZG_FUZZ_CHECK(m.tlvs.size() <= request_tlv_bytes + 2 * n);
}

void CheckService(World& w) {
  const PtpUnicastTable& t = w.service->table();
  uint32_t used = 0;
  for (uint32_t i = 0; i < t.capacity(); ++i) {
    if (!t.in_use(i)) continue;
    ++used;
    ZG_FUZZ_CHECK(t.Find(t.at(i).key) == i);
    ZG_FUZZ_CHECK(t.at(i).granted != 0);
    for (PtpTimerKind k : {PtpTimerKind::kAnnounce, PtpTimerKind::kSync}) {
      ZG_FUZZ_CHECK(w.service->scheduler().armed(i, k) ==
                    t.at(i).Has(PtpGrantTypeOf(k)));
    }
  }
  ZG_FUZZ_CHECK(used == t.size());
  // Admission: what is committed is what the grant bits say, within the
  // budget; every source's count is its bits, within the limit.
  const PtpAdmissionConfig& adm = w.service->config().admission;
  uint64_t units = 0;
  for (uint32_t i = 0; i < t.capacity(); ++i) {
    if (!t.in_use(i)) continue;
    uint32_t bits = 0;
    for (uint32_t j = 0; j < t.capacity(); ++j) {
      if (!t.in_use(j) || !(t.at(j).key.address == t.at(i).key.address)) {
        continue;
      }
      bits += static_cast<uint32_t>(std::popcount(t.at(j).granted));
    }
    ZG_FUZZ_CHECK(w.service->sources().Grants(t.at(i).key.address) == bits);
    ZG_FUZZ_CHECK(bits <= adm.max_grants_per_source);
    for (size_t g = 0; g < kPtpGrantTypeCount; ++g) {
      const auto type = static_cast<PtpGrantType>(g);
      if (!t.at(i).Has(type)) continue;
      ZG_FUZZ_CHECK(t.at(i).log_interval[g] >= adm.min_log_interval_per_source);
      units += PtpGrantRateUnits(type, t.at(i).log_interval[g], adm.two_step);
    }
  }
  ZG_FUZZ_CHECK(units == w.service->committed_units());
  ZG_FUZZ_CHECK(units <= w.service->budget_units());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static World w;
  if (size < 3) return 0;
  const uint8_t sel = data[0];
  w.now += (int64_t{data[1]} << 8 | data[2]) * 1'000'000;  // up to 65 s
  const std::span<const uint8_t> msg(data + 3, size - 3);
  const uint8_t ip[4] = {10, 0, 0, static_cast<uint8_t>(sel & 0x07)};

  PtpRxContext ctx;
  ctx.config = &w.config;
  ctx.state = w.port->state();
  ctx.self = kUs.clock_identity;
  ctx.unicast = (sel & 0x08) != 0;
  ctx.transport =
      (sel & 0x10) ? PtpUnicastTransport::kL2 : PtpUnicastTransport::kUdpIpv4;
  ctx.event_port = (sel & 0x20) != 0;
  const PtpRxDecision d = DecidePtpRx(msg, ctx);
  ZG_FUZZ_CHECK((d.action == PtpRxAction::kDrop) ==
                (d.drop != PtpPortDrop::kNone));

  // Negotiation on every input (not only what dispatch lets through), in
  // place when bit 6 is set.
  PtpSignalingContext sc;
  sc.port.port_identity = kUs;
  sc.from = PtpUnicastAddress::Ipv4(ip);
  sc.from_port = (data[1] & 1) ? 320 : 40000;
  sc.serving = (sel & 0x80) == 0;
  sc.now_mono_ns = w.now;
  std::array<uint8_t, 2048> buf{};
  const size_t len = std::min(msg.size(), buf.size());
  std::copy_n(msg.begin(), len, buf.begin());
  PtpSignalingAnswer a;
  if (sel & 0x40) {
    a = AnswerPtpSignaling(std::span(buf).first(len), sc, *w.service, &w.seq,
                           buf);
  } else {
    std::array<uint8_t, 512> out{};
    a = AnswerPtpSignaling(std::span(buf).first(len), sc, *w.service, &w.seq,
                           out);
    std::copy_n(out.begin(), a.length, buf.begin());
  }
  if (a.length > 0) {
    ZG_FUZZ_CHECK(a.result == PtpSignalingResult::kReplied);
    ZG_FUZZ_CHECK(len >= kPtpSignalingLength);
    CheckReply(std::span(buf).first(a.length), len - kPtpSignalingLength, a);
  }
  w.service->Poll(w.now, 16, true,
                  [](const PtpUnicastSubscriber&, PtpTimerKind, uint16_t,
                     int8_t) { return true; });
  w.service->SweepExpired(w.now, 8);
  CheckService(w);

  if (d.action == PtpRxAction::kAnnounce) {
    PtpMessage m;
    if (ParsePtpMessage(msg, &m) == PtpDrop::kOk) {
      w.port->OnAnnounce(m.header, std::get<PtpAnnounce>(m.body), w.now);
    }
  }
  PtpGrandmasterView gm;
  gm.identity = kUs.clock_identity;
  gm.quality = {static_cast<uint8_t>(sel), 0xFE, 0xFFFF};
  const PtpStateDecision s = w.port->Update(gm, w.now);
  ZG_FUZZ_CHECK(s.state == PtpPortState::kListening ||
                s.state == PtpPortState::kMaster ||
                s.state == PtpPortState::kPassive);
  ZG_FUZZ_CHECK(w.port->foreign_masters() <= kPtpMaxForeignMasters);
  return 0;
}
