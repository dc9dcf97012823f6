// SPDX-License-Identifier: Apache-2.0
// Fuzzes zg-loadgen's unicast PTP subscribers (bench/loadgen/
// ptp_subscribers.h PtpSubscriberEngine::OnFrame) on arbitrary frames: the
// first input octet picks the destination subscriber (and one past them)
// and the UDP port, the rest is the PTP payload (exact-size heap copy
// under ASan). Every subscriber has asked for its grants first, so GRANTs,
// Syncs, Follow_Ups and Delay_Resps all reach their state. What it counts
// stays consistent: no more grants or refusals than REQUESTs asked, no
// more paired Syncs than Syncs, no more answered Delay_Reqs than sent.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "bench/loadgen/ptp_subscribers.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

std::unique_ptr<zg::bench::PtpSubscriberEngine> Engine() {
  zg::bench::PtpSubscriberConfig c;
  c.subscribers = 4;
  c.tsc_hz = 1'000'000'000;
  c.reply_timeout_ticks = 1'000'000'000;
  c.retry_ticks = 1'000'000'000;
  auto e = zg::bench::PtpSubscriberEngine::Create(c);
  if (!e.ok()) __builtin_trap();
  uint8_t payload[zg::bench::kPtpSubscriberMaxPayload];
  zg::bench::PtpSubscriberMessage m;
  while ((*e)->Next(1, payload, &m)) (*e)->Sent(&m, 1, 1);
  return std::move(*e);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1 || size > 4096) return 0;
  static std::unique_ptr<zg::bench::PtpSubscriberEngine> e = Engine();
  std::vector<uint8_t> buf(data + 1, data + size);
  buf.shrink_to_fit();
  const uint64_t to = data[0] % 5;
  const uint16_t port = (data[0] & 0x80) != 0 ? 319 : 320;
  e->OnFrame(to, port, buf.data(), static_cast<uint32_t>(buf.size()),
             2 + data[0]);
  uint8_t payload[zg::bench::kPtpSubscriberMaxPayload];
  zg::bench::PtpSubscriberMessage m;
  for (int i = 0; i < 8 && e->Next(3'000'000'000, payload, &m); ++i) {
    ZG_FUZZ_CHECK(m.payload_len > 0 &&
                  m.payload_len <= zg::bench::kPtpSubscriberMaxPayload);
    e->Sent(&m, 1, 3'000'000'000);
  }
  const zg::bench::PtpSubscriberCounts& c = e->counts();
  for (size_t g = 0; g < zg::bench::kPtpSubGrants; ++g) {
    ZG_FUZZ_CHECK(c.granted[g] + c.refused[g] <= c.asked[g]);
  }
  ZG_FUZZ_CHECK(c.syncs_with_follow_up <= c.syncs);
  ZG_FUZZ_CHECK(c.delay_resps_answered <= c.delay_reqs);
  return 0;
}
