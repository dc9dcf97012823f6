// SPDX-License-Identifier: Apache-2.0
// Micro-benchmarks of the PTP wire format (core/ptp/ptp_wire.h): the
// grandmaster's per-packet work for a Delay_Req (check it, turn it into the
// Delay_Resp in place), next to a baseline that only copies the request into
// the buffer, as every iteration must. Report ratios against the baseline.
//
//   build/bench/ptp_benchmark --benchmark_repetitions=5
#include <array>
#include <cstdint>
#include <cstring>

#include "benchmark/benchmark.h"
#include "core/ptp/ptp_management.h"
#include "core/ptp/ptp_tlv.h"
#include "core/ptp/ptp_wire.h"

namespace zg::bench {
namespace {

using namespace zg::core;

constexpr PtpPortIdentity kClient{
    {{0x00, 0x11, 0x22, 0xFF, 0xFE, 0x33, 0x44, 0x55}}, 1};
constexpr PtpPortIdentity kServer{
    {{0xAA, 0xBB, 0xCC, 0xFF, 0xFE, 0xDD, 0xEE, 0xFF}}, 1};

template <class Body>
size_t Build(const Body& body, std::span<uint8_t> out,
             std::span<const uint8_t> tlvs = {}) {
  PtpMessage m;
  m.header.source_port_identity = kClient;
  m.header.sequence_id = 0x1234;
  m.header.correction = PtpCorrection::FromNanos(12);
  m.body = body;
  m.header.control_field = PtpControlFieldFor(PtpBodyType(m.body));
  m.tlvs = tlvs;
  return SerializePtpMessage(m, out);
}

PtpReplyConfig ServerConfig() {
  PtpReplyConfig c;
  c.port_identity = kServer;
  return c;
}

// Baseline: copy the 44-octet request into the (mbuf-sized) buffer.
void BM_CopyDelayReq(benchmark::State& state) {
  std::array<uint8_t, 64> req{}, buf{};
  const size_t len = Build(PtpDelayReq{}, req);
  for (auto _ : state) {
    std::memcpy(buf.data(), req.data(), len);
    benchmark::DoNotOptimize(buf.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CopyDelayReq);

// The copy, then the checks and the in-place Delay_Resp.
void BM_DelayReqToDelayResp(benchmark::State& state) {
  std::array<uint8_t, 64> req{}, buf{};
  const size_t len = Build(PtpDelayReq{}, req);
  const PtpReplyConfig config = ServerConfig();
  TaiNs t4{1'700'000'000'000'000'000};
  for (auto _ : state) {
    std::memcpy(buf.data(), req.data(), len);
    benchmark::DoNotOptimize(buf.data());
    const PtpDrop drop = PtpDelayReqToDelayResp(buf, len, config, t4);
    benchmark::DoNotOptimize(drop);
    benchmark::ClobberMemory();
    t4 = t4 + 1;
  }
  PtpMessage resp;
  if (ParsePtpMessage(std::span(buf).first(kPtpDelayRespLength), &resp) !=
          PtpDrop::kOk ||
      !std::holds_alternative<PtpDelayResp>(resp.body)) {
    state.SkipWithError("buffer is not a Delay_Resp");
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_DelayReqToDelayResp);

void BM_PdelayReqToPdelayResp(benchmark::State& state) {
  std::array<uint8_t, 64> req{}, buf{};
  const size_t len = Build(PtpPdelayReq{}, req);
  const PtpReplyConfig config = ServerConfig();
  TaiNs t2{1'700'000'000'000'000'000};
  PtpCorrection c;
  for (auto _ : state) {
    std::memcpy(buf.data(), req.data(), len);
    benchmark::DoNotOptimize(buf.data());
    const PtpDrop drop = PtpPdelayReqToPdelayResp(buf, len, config, t2, &c);
    benchmark::DoNotOptimize(drop);
    benchmark::ClobberMemory();
    t2 = t2 + 1;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PdelayReqToPdelayResp);

void BM_ParsePtpHeader(benchmark::State& state) {
  std::array<uint8_t, 64> req{};
  const size_t len = Build(PtpDelayReq{}, req);
  PtpHeader h;
  for (auto _ : state) {
    benchmark::DoNotOptimize(req.data());
    const PtpDrop drop = ParsePtpHeader(std::span(req).first(len), &h);
    benchmark::DoNotOptimize(drop);
    benchmark::DoNotOptimize(h);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ParsePtpHeader);

void BM_ParsePtpMessageDelayReq(benchmark::State& state) {
  std::array<uint8_t, 64> req{};
  const size_t len = Build(PtpDelayReq{}, req);
  PtpMessage m;
  for (auto _ : state) {
    benchmark::DoNotOptimize(req.data());
    const PtpDrop drop = ParsePtpMessage(std::span(req).first(len), &m);
    benchmark::DoNotOptimize(drop);
    benchmark::DoNotOptimize(m);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ParsePtpMessageDelayReq);

// An Announce with a one-entry PATH_TRACE, walked.
void BM_ParseAnnounceWithPathTrace(benchmark::State& state) {
  std::array<uint8_t, 12> tlv{};
  const PtpClockIdentity path[] = {kServer.clock_identity};
  WritePtpPathTraceTlv(path, tlv);
  std::array<uint8_t, 128> msg{};
  const size_t len = Build(PtpAnnounce{}, msg, tlv);
  PtpMessage m;
  for (auto _ : state) {
    benchmark::DoNotOptimize(msg.data());
    const PtpDrop drop = ParsePtpMessage(std::span(msg).first(len), &m);
    PtpTlv t;
    PtpPathTrace pt;
    const bool ok = FindPtpTlv(m.tlvs, PtpTlvType::kPathTrace, &t) &&
                    ParsePtpPathTraceTlv(t, &pt);
    benchmark::DoNotOptimize(drop);
    benchmark::DoNotOptimize(ok);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ParseAnnounceWithPathTrace);

// Building a Sync per unicast client per interval.
void BM_SerializeSync(benchmark::State& state) {
  std::array<uint8_t, 64> out{};
  PtpMessage m;
  m.header.source_port_identity = kServer;
  m.header.flags.Set(PtpFlag::kTwoStep).Set(PtpFlag::kUnicast);
  m.body = PtpSync{};
  uint16_t seq = 0;
  for (auto _ : state) {
    m.header.sequence_id = seq++;
    const size_t n = SerializePtpMessage(m, out);
    benchmark::DoNotOptimize(n);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SerializeSync);

void BM_AnswerManagementGetDefaultDataSet(benchmark::State& state) {
  PtpHeader h;
  h.message_type = PtpMessageType::kManagement;
  h.source_port_identity = kClient;
  std::array<uint8_t, 128> req{}, out{};
  const std::array<uint8_t, kPtpDefaultDataSetLength> pad{};
  const size_t len = WritePtpManagementMessage(
      h, {PtpPortIdentity::All(), 1, 1, PtpManagementAction::kGet},
      static_cast<uint16_t>(PtpManagementId::kDefaultDataSet), pad, req);
  PtpManagementConfig config;
  config.port_identity = kServer;
  const PtpDataSets ds;
  for (auto _ : state) {
    const PtpManagementAnswer a =
        AnswerPtpManagement(std::span(req).first(len), config, ds, out);
    benchmark::DoNotOptimize(a);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AnswerManagementGetDefaultDataSet);

}  // namespace
}  // namespace zg::bench

BENCHMARK_MAIN();
