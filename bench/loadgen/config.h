// SPDX-License-Identifier: Apache-2.0
// zg-loadgen's command line: the value types behind its abseil flags and the
// validation that turns raw flag values into a run plan.
//
//   zg-loadgen [EAL options] -- --target=10.99.0.1[:123] --rate=1.5M
//       --duration=10s --clients=1000 --mix=ntp4:90,ptp:10 --json=out.json
//
// Rate, Target and TrafficMix parse themselves as abseil flags
// (AbslParseFlag), so a bad value stops the program at flag parsing with a
// message that says what was expected. ValidateOptions checks what single
// flags cannot (combinations, ranges, what fits in memory) and picks the
// request-table depth.
//
// Pure: no DPDK, no I/O. The application (zg_loadgen_main.cc) defines the
// flags and resolves addresses (core/net/net_headers.h) on top of this.
#ifndef ZG_BENCH_LOADGEN_CONFIG_H_
#define ZG_BENCH_LOADGEN_CONFIG_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace zg::bench {

// --rate: packets per second offered by all lanes together, or "max".
// Accepts 250000, 2.5e5, 250k, 1.5M (k = 1e3, M = 1e6, G = 1e9).
struct Rate {
  double pps = 0;  // 0: max (as fast as the lanes can send)
  bool IsMax() const { return pps == 0; }
};
bool AbslParseFlag(absl::string_view text, Rate* rate, std::string* error);
std::string AbslUnparseFlag(const Rate& rate);

// --target: IPv4 "10.99.0.1", "10.99.0.1:123", IPv6 "fd99::1",
// "[fd99::1]:123". The host is an address (no DNS); port 123 by default.
// The port applies to NTP; PTP always goes to 319 (event messages). Empty
// text is the unset target (the flag's default; abseil must parse it).
// ValidateOptions then says --target is required.
struct Target {
  std::string host;  // the address text, brackets removed
  uint16_t port = 123;
  bool IsIpv6() const { return host.find(':') != std::string::npos; }
};
bool AbslParseFlag(absl::string_view text, Target* target, std::string* error);
std::string AbslUnparseFlag(const Target& target);

// What one simulated client speaks.
enum class TrafficKind : uint8_t {
  kNtp4 = 0,         // NTPv4 client request (mode 3)
  kNtp3 = 1,         // NTPv3 client request
  kPtpDelayReq = 2,  // PTP Delay_Req (one-step E2E, UDP port 319)
  kNts = 3,          // NTPv4 with NTS (RFC 8915): needs --nts_master_key
                     // or --nts_ke for its keys and cookies
  kCount
};
const char* TrafficKindName(TrafficKind kind);  // "ntp4", "ntp3", "ptp", "nts"

// --mix: a weighted list of kinds, "ntp4" or "ntp4:90,ptp:10". Each client
// speaks one kind; clients are given kinds in proportion to the weights.
struct TrafficMix {
  std::vector<std::pair<TrafficKind, uint32_t>> weights{
      {TrafficKind::kNtp4, 1}};
  // The kind of client i of n: clients [0, n) are cut into consecutive
  // blocks in proportion to the weights (lanes take every lanes-th client,
  // so each lane gets the same mix).
  // --mix=ptp_unicast (alone): unicast PTP subscribers
  // (bench/loadgen/ptp_subscribers.h, --ptp_subscribers) instead of
  // request/reply clients.
  bool ptp_unicast = false;
  TrafficKind KindOf(uint32_t client, uint32_t clients) const;
  bool Has(TrafficKind kind) const;
};
bool AbslParseFlag(absl::string_view text, TrafficMix* mix, std::string* error);
std::string AbslUnparseFlag(const TrafficMix& mix);

// Raw flag values, as zg_loadgen_main.cc reads them.
struct LoadgenOptions {
  Target target;
  std::string target_mac;  // empty: resolve with ARP
  Rate rate;
  absl::Duration duration = absl::Seconds(10);
  uint64_t count = 0;  // requests in all; 0: bounded by duration only
  uint32_t clients = 256;
  std::string source_ip;  // first client address; empty: target + 1
  uint32_t source_addresses = 1;
  uint32_t source_port = 10000;  // first client port (NTP)
  TrafficMix mix;
  absl::Duration timeout = absl::Milliseconds(200);  // reply deadline
  uint32_t burst = 32;
  bool sweep = false;
  absl::Duration sweep_trial = absl::Seconds(2);
  double sweep_loss = 1e-4;
  double sweep_resolution = 0.01;
  double sweep_min_rate = 1000;
  uint32_t sweep_max_trials = 20;
  std::string json;  // summary file; empty: none
  absl::Duration arp_timeout = absl::Seconds(3);
};

// Limits that keep a run bounded and its memory sane.
inline constexpr absl::Duration kMaxDuration = absl::Hours(24);
inline constexpr uint32_t kMaxClients = 1u << 24;
inline constexpr uint32_t kMaxBurst = 512;

// Checks `o` for a run on `lanes` lanes. Errors name the flag to change.
absl::Status ValidateOptions(const LoadgenOptions& o, uint32_t lanes);

// The RequestTable depth for a lane with `lane_clients` clients sending
// `lane_rate_pps` (0: unknown, assume kAssumedMaxLanePps) with reply
// deadline `timeout`: the smallest power of two whose window (depth *
// lane_clients / lane_rate) covers twice the timeout, within
// [1, RequestTable::kMaxDepth] and RequestTable::kMaxSlots.
inline constexpr double kAssumedMaxLanePps = 20e6;
uint32_t ChooseDepth(double lane_rate_pps, uint32_t lane_clients,
                     absl::Duration timeout);

// How long a request stays tracked before its slot is reused: depth *
// lane_clients / lane_rate. Replies after this are "unknown", not late.
absl::Duration TrackingWindow(uint32_t depth, double lane_rate_pps,
                              uint32_t lane_clients);

}  // namespace zg::bench

#endif  // ZG_BENCH_LOADGEN_CONFIG_H_
