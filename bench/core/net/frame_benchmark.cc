// SPDX-License-Identifier: Apache-2.0
// Per-packet cost of the network layer: ClassifyFrame on NTP over IPv4 and
// IPv6 (with and without the NIC's checksum hints), PrepareUdpReply with
// FinaliseUdpChecksum, and the whole NTP path (classify, address the reply,
// checksum, rewrite the transmit timestamp incrementally). Reply benchmarks
// restore the 90/110-byte request each iteration; BM_CopyRequest measures
// that copy alone, to subtract.
//   build/bench/frame_benchmark
#include <cstdint>
#include <cstring>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/net/frame.h"
#include "core/net/frame_build.h"
#include "core/net/local_addresses.h"
#include "core/net/net_headers.h"

namespace zg::bench {
namespace {

using namespace zg::core;

constexpr MacAddr kServerMac{{0x02, 0, 0, 0, 0, 0x01}};
constexpr MacAddr kClientMac{{0x02, 0, 0, 0, 0, 0x02}};

LocalAddresses Server() {
  LocalAddresses l = LocalAddresses::Create(kServerMac).value();
  (void)l.AddIpv4(Ipv4Addr::FromOctets(10, 99, 0, 1));
  (void)l.AddIpv6(ParseIpv6Addr("2001:db8::1").value());
  (void)l.AddIpv6(ParseIpv6Addr("fe80::1").value());
  return l;
}

// An NTP client request from the client to the server, checksummed.
std::vector<uint8_t> NtpRequest(bool v6) {
  UdpFrameSpec spec;
  spec.src_mac = kClientMac;
  spec.dst_mac = kServerMac;
  spec.src_ip = v6 ? IpAddress::V6(ParseIpv6Addr("2001:db8::2").value())
                   : IpAddress::V4(Ipv4Addr::FromOctets(10, 99, 0, 2));
  spec.dst_ip = v6 ? IpAddress::V6(ParseIpv6Addr("2001:db8::1").value())
                   : IpAddress::V4(Ipv4Addr::FromOctets(10, 99, 0, 1));
  spec.src_port = 40000;
  spec.dst_port = kNtpPort;
  std::vector<uint8_t> f(256);
  FrameInfo info;
  const uint32_t n = BuildUdpFrame(f.data(), 256, spec, 48, &info);
  f[info.payload_offset] = 0x23;  // LI 0, v4, mode 3
  for (int i = 40; i < 48; ++i) f[info.payload_offset + i] = uint8_t(i * 7);
  FinaliseUdpChecksum(f.data(), info);
  f.resize(n);
  return f;
}

void BM_ClassifyNtp(benchmark::State& state, bool v6, uint32_t flags) {
  const LocalAddresses local = Server();
  const std::vector<uint8_t> f = NtpRequest(v6);
  if (ClassifyFrame(f.data(), f.size(), local).kind != FrameKind::kNtp) {
    state.SkipWithError("not classified as NTP");
    return;
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(f.data());
    FrameInfo info =
        ClassifyFrame(f.data(), static_cast<uint32_t>(f.size()), local, flags);
    benchmark::DoNotOptimize(info);
  }
}
BENCHMARK_CAPTURE(BM_ClassifyNtp, ipv4, false, 0);
BENCHMARK_CAPTURE(BM_ClassifyNtp, ipv6, true, 0);
BENCHMARK_CAPTURE(BM_ClassifyNtp, ipv4_nic_csum, false,
                  kRxIpv4ChecksumGood | kRxL4ChecksumGood);
BENCHMARK_CAPTURE(BM_ClassifyNtp, ipv6_nic_csum, true, kRxL4ChecksumGood);

void BM_CopyRequest(benchmark::State& state, bool v6) {
  const std::vector<uint8_t> req = NtpRequest(v6);
  std::vector<uint8_t> f(req.size());
  for (auto _ : state) {
    std::memcpy(f.data(), req.data(), req.size());
    benchmark::DoNotOptimize(f.data());
    benchmark::ClobberMemory();
  }
}
BENCHMARK_CAPTURE(BM_CopyRequest, ipv4, false);
BENCHMARK_CAPTURE(BM_CopyRequest, ipv6, true);

// PrepareUdpReply + FinaliseUdpChecksum (plus the request copy).
void BM_PrepareUdpReply(benchmark::State& state, bool v6) {
  const LocalAddresses local = Server();
  const std::vector<uint8_t> req = NtpRequest(v6);
  const FrameInfo info = ClassifyFrame(req.data(), req.size(), local);
  std::vector<uint8_t> f(req.size());
  for (auto _ : state) {
    std::memcpy(f.data(), req.data(), req.size());
    FrameInfo reply;
    benchmark::DoNotOptimize(
        PrepareUdpReply(f.data(), info, local, 48, &reply));
    FinaliseUdpChecksum(f.data(), reply);
    benchmark::DoNotOptimize(f.data());
    benchmark::ClobberMemory();
  }
}
BENCHMARK_CAPTURE(BM_PrepareUdpReply, ipv4, false);
BENCHMARK_CAPTURE(BM_PrepareUdpReply, ipv6, true);

// Classify + PrepareUdpReply + FinaliseUdpChecksum + an incremental update
// for the 8-byte transmit timestamp (plus the request copy): the network
// layer's whole share of one NTP answer.
void BM_NtpReplyPath(benchmark::State& state, bool v6) {
  const LocalAddresses local = Server();
  const std::vector<uint8_t> req = NtpRequest(v6);
  std::vector<uint8_t> f(req.size());
  uint64_t t3 = 0x1234567890abcdefull;
  for (auto _ : state) {
    std::memcpy(f.data(), req.data(), req.size());
    const FrameInfo info =
        ClassifyFrame(f.data(), static_cast<uint32_t>(f.size()), local);
    FrameInfo reply;
    PrepareUdpReply(f.data(), info, local, 48, &reply);
    FinaliseUdpChecksum(f.data(), reply);
    uint8_t* ts = f.data() + reply.payload_offset + 40;
    uint8_t old_ts[8];
    std::memcpy(old_ts, ts, 8);
    ++t3;
    std::memcpy(ts, &t3, 8);
    UpdateUdpChecksum(f.data(), reply, 40, old_ts, ts, 8);
    benchmark::DoNotOptimize(f.data());
    benchmark::ClobberMemory();
  }
}
BENCHMARK_CAPTURE(BM_NtpReplyPath, ipv4, false);
BENCHMARK_CAPTURE(BM_NtpReplyPath, ipv6, true);

}  // namespace
}  // namespace zg::bench

BENCHMARK_MAIN();
