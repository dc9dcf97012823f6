// SPDX-License-Identifier: Apache-2.0
// Micro-benchmarks of the NTP hot path: validating a request, building the
// reply in place and stamping T3, per packet. BM_CopyRequest (restoring the
// 48-byte request, which every reply benchmark also does) is the baseline:
// compare the others against it in the same run.
//
//   ninja -C build bench/ntp_benchmark && build/bench/ntp_benchmark
#include <cstdint>
#include <cstring>

#include "benchmark/benchmark.h"
#include "core/ntp/ntp_client.h"
#include "core/ntp/ntp_reply.h"
#include "core/ntp/ntp_wire.h"
#include "core/time/clock_model.h"

namespace zg::bench {
namespace {

using namespace zg::core;
constexpr int64_t kS = kNanosPerSecond;

// `ntpdig 127.0.0.1`, captured on loopback.
constexpr uint8_t kNtpdigRequest[48] = {
    0xe3, 0, 0, 0, 0, 0, 0, 0, 0,    0,    0,    0,    0,    0,    0,    0,
    0,    0, 0, 0, 0, 0, 0, 0, 0,    0,    0,    0,    0,    0,    0,    0,
    0,    0, 0, 0, 0, 0, 0, 0, 0xee, 0xb6, 0xe1, 0x22, 0x9b, 0x5c, 0x80, 0x00};

ClockModel Model() {
  ClockModel m;
  m.tai_anchor = TaiNs{1'700'000'037 * kS};
  m.ns_per_tick_q32 = NsPerTickQ32FromHz(3e9);
  m.error_bound_ns = 1000;
  m.error_growth_ns_per_s = 50;
  m.max_extrapolation_ns = 3600 * kS;
  m.state = SyncState::kLocked;
  m.stratum = 1;
  m.precision_log2 = -24;
  m.reference_id = NtpRefId("GPS\0");
  m.reference_time = m.tai_anchor;
  m.leap = LeapPending::kInsert;  // exercise the leap path
  m.leap_at = m.tai_anchor + 12 * 3600 * kS;
  return m;
}

void BM_CopyRequest(benchmark::State& state) {
  alignas(64) uint8_t buf[128];
  for (auto _ : state) {
    std::memcpy(buf, kNtpdigRequest, 48);
    benchmark::DoNotOptimize(buf);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_CopyRequest);

void BM_ValidateNtpRequest(benchmark::State& state) {
  alignas(64) uint8_t buf[48];
  std::memcpy(buf, kNtpdigRequest, 48);
  for (auto _ : state) {
    benchmark::DoNotOptimize(buf);
    const NtpRequestCheck c = ValidateNtpRequest(buf, 48);
    benchmark::DoNotOptimize(c);
  }
}
BENCHMARK(BM_ValidateNtpRequest);

void BM_ParseNtpHeader(benchmark::State& state) {
  alignas(64) uint8_t buf[48];
  std::memcpy(buf, kNtpdigRequest, 48);
  NtpHeader h;
  for (auto _ : state) {
    benchmark::DoNotOptimize(buf);
    ParseNtpHeader(buf, 48, &h);
    benchmark::DoNotOptimize(h);
  }
}
BENCHMARK(BM_ParseNtpHeader);

// The per-packet server path: restore the request, validate + build the reply
// in place, stamp T3 from a raw tick count through the model.
void BM_BuildNtpReplyAndStamp(benchmark::State& state) {
  const ClockModel model = Model();
  alignas(64) uint8_t buf[128];
  uint64_t raw = 1'000'000;
  for (auto _ : state) {
    std::memcpy(buf, kNtpdigRequest, 48);
    uint32_t reply_len;
    const NtpDrop drop =
        BuildNtpReply(buf, 48, model.RawToTai(raw), model, &reply_len);
    StampNtpTransmit(buf, model.RawToTai(raw + 3000), model);
    benchmark::DoNotOptimize(drop);
    benchmark::DoNotOptimize(buf);
    benchmark::ClobberMemory();
    raw += 3'000'017;
  }
}
BENCHMARK(BM_BuildNtpReplyAndStamp);

// The same with a 28-byte extension field to walk (and strip).
void BM_BuildNtpReplyWithExtensionField(benchmark::State& state) {
  const ClockModel model = Model();
  alignas(64) uint8_t buf[128] = {};
  std::memcpy(buf, kNtpdigRequest, 48);
  buf[48] = 0x12;
  buf[49] = 0x34;
  buf[51] = 28;
  uint64_t raw = 1'000'000;
  for (auto _ : state) {
    std::memcpy(buf, kNtpdigRequest, 48);
    uint32_t reply_len;
    const NtpDrop drop =
        BuildNtpReply(buf, 76, model.RawToTai(raw), model, &reply_len);
    StampNtpTransmit(buf, model.RawToTai(raw + 3000), model);
    benchmark::DoNotOptimize(drop);
    benchmark::DoNotOptimize(buf);
    benchmark::ClobberMemory();
    raw += 3'000'017;
  }
}
BENCHMARK(BM_BuildNtpReplyWithExtensionField);

// A burst of 32 requests, as a worker sees them after rx_burst.
void BM_BuildNtpReplyBurst32(benchmark::State& state) {
  const ClockModel model = Model();
  alignas(64) uint8_t bufs[32][128];
  uint64_t raw = 1'000'000;
  for (auto _ : state) {
    for (auto& b : bufs) std::memcpy(b, kNtpdigRequest, 48);
    const TaiNs rx = model.RawToTai(raw);
    for (auto& b : bufs) {
      uint32_t reply_len;
      benchmark::DoNotOptimize(BuildNtpReply(b, 48, rx, model, &reply_len));
    }
    const TaiNs tx = model.RawToTai(raw + 3000);
    for (auto& b : bufs) StampNtpTransmit(b, tx, model);
    benchmark::DoNotOptimize(bufs);
    benchmark::ClobberMemory();
    raw += 3'000'017;
  }
  state.SetItemsProcessed(state.iterations() * 32);
}
BENCHMARK(BM_BuildNtpReplyBurst32);

// Pieces of the reply, to see where the time goes: the model's error bound
// (root dispersion) and one TAI -> NTP timestamp conversion.
void BM_ModelErrorBound(benchmark::State& state) {
  const ClockModel model = Model();
  TaiNs t = model.tai_anchor;
  for (auto _ : state) {
    benchmark::DoNotOptimize(t);
    benchmark::DoNotOptimize(model.ErrorBoundNs(t));
    t = t + 1'234'567;
  }
}
BENCHMARK(BM_ModelErrorBound);

void BM_TaiToNtpTimestamp(benchmark::State& state) {
  const ClockModel model = Model();
  TaiNs t = model.tai_anchor;
  for (auto _ : state) {
    benchmark::DoNotOptimize(t);
    benchmark::DoNotOptimize(UtcToNtp(model.TaiToUtc(t)));
    t = t + 1'234'567;
  }
}
BENCHMARK(BM_TaiToNtpTimestamp);

void BM_KissOfDeath(benchmark::State& state) {
  alignas(64) uint8_t buf[128];
  for (auto _ : state) {
    std::memcpy(buf, kNtpdigRequest, 48);
    const NtpRequestCheck c = ValidateNtpRequest(buf, 48);
    benchmark::DoNotOptimize(WriteNtpKissOfDeath(buf, c, kNtpKissRate, 6));
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_KissOfDeath);

// The load generator's side: parse a reply and compute offset and delay.
void BM_ParseNtpServerReply(benchmark::State& state) {
  const ClockModel model = Model();
  uint8_t req[48];
  const NtpTimestamp t1{0xe8fe6f80u, 0x12345678u};
  BuildNtpClientRequest(req, 4, 6, t1);
  const TaiNs rx = model.tai_anchor + 1000;
  const NtpReplyPacket reply = BuildNtpReply(req, rx, rx + 1000, model);
  const UtcNs t4{1'700'000'000 * kS + 5000};
  NtpClientSample s;
  for (auto _ : state) {
    benchmark::DoNotOptimize(reply);
    benchmark::DoNotOptimize(
        ParseNtpServerReply(reply.bytes.data(), 48, t1, t4, &s));
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_ParseNtpServerReply);

}  // namespace
}  // namespace zg::bench

BENCHMARK_MAIN();
