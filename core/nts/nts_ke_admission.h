// SPDX-License-Identifier: Apache-2.0
// Which NTS-KE connections a KE server takes (RFC 8915 section 4, TLS on
// TCP), so that no single source can starve the others of key exchange.
// Pure logic, no sockets: dataplane/nts/nts_ke_server.h applies it at
// every accept, before any TLS work.
//
// A source is an IPv4 address or an IPv6 /64 (one host or one subnet
// behind a router: an IPv6 host has a /64 of addresses to rotate through).
// For each new connection, in this order:
//   1. rate limit, chrony's `ntsratelimit` (clientlog.c
//      CLG_LimitServiceRate(CLG_NTSKE)): a token bucket per source, one
//      connection per 2^interval s on average (default interval 6: one per
//      64 s), bursts of `burst` (8), and 1 in 2^leak of the connections past
//      the bucket let through anyway (2: a quarter), as chrony does;
//      refused: kRateLimited. (chrony's inversion of the leak for NTP
//      clients that speed up when unanswered is NTP's alone.)
//   2. slots shared fairly: while fewer than max_connections are open, any
//      source gets one. When all are taken, the source holding the most
//      (the heaviest) gives one up, its connection that has been idle the
//      longest, if it holds at least two more than the newcomer would
//      after this one; otherwise refused: kFull. A flood from one source
//      then holds at most what the other sources leave, and a new source is
//      refused only when every source holds about as many as it would.
// Refusals and cuts are counted by reason, per source for the busiest
// (TakeTopRefused: the log names who is being refused).
//
// Memory: a record per source seen (its bucket and connection count),
// at most max_sources; at that size the records of sources with no open
// connection are dropped (their buckets start full again), so a sprayer
// of addresses cannot grow the table without bound.
//
//   NtsKeAdmission admission({.rate = {6, 8, 2}, .max_connections = 256});
//   NtsKeAdmission::Decision d = admission.Admit(source, mono_ns);
//   if (d.refusal != kNone) close, count d.refusal;
//   else { if (d.cut) close the idlest connection of d.cut_source;
//          admission.Opened(source); ... later admission.Closed(source); }
#ifndef ZG_CORE_NTS_NTS_KE_ADMISSION_H_
#define ZG_CORE_NTS_NTS_KE_ADMISSION_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "core/net/net_headers.h"
#include "core/ntp/ntp_rate_limit.h"

namespace zg::core {

// An IPv4 address, or the /64 of an IPv6 address.
struct NtsKeSource {
  uint64_t hi = 0;  // IPv6: the /64's first 8 bytes (big-endian); IPv4: 0
  uint32_t v4 = 0;  // IPv4: the address (host order)
  bool ipv6 = false;

  static NtsKeSource V4(Ipv4Addr a) { return {0, a.value, false}; }
  static NtsKeSource V6(const Ipv6Addr& a);
  // "192.0.2.7", "2001:db8:1:2::/64".
  std::string ToString() const;

  friend bool operator==(const NtsKeSource&, const NtsKeSource&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const NtsKeSource& s) {
    return H::combine(std::move(h), s.hi, s.v4, s.ipv6);
  }
};

enum class NtsKeRefusal : uint8_t {
  kNone = 0,
  kRateLimited,  // the source's bucket is empty (ntsratelimit)
  kFull,         // every slot taken, none to reclaim fairly
  kCount
};
inline constexpr size_t kNtsKeRefusalCount =
    static_cast<size_t>(NtsKeRefusal::kCount);
// "none", "rate_limited", "full": metric labels.
const char* NtsKeRefusalName(NtsKeRefusal r);

class NtsKeAdmission {
 public:
  struct Config {
    // chrony's ntsratelimit defaults: one connection per 64 s, burst 8,
    // leak 2. nullopt-like: rate_limit false turns step 1 off.
    NtpRateLimitConfig rate{6, 8, 2};
    bool rate_limit = true;
    uint32_t max_connections = 256;
    size_t max_sources = 65536;
    uint64_t seed = 0;  // the leak's PRNG; 0: a fixed default
  };
  struct Decision {
    NtsKeRefusal refusal = NtsKeRefusal::kNone;
    // Admitted by cutting one connection of cut_source (the heaviest).
    bool cut = false;
    NtsKeSource cut_source;
  };

  explicit NtsKeAdmission(const Config& config);

  // A new connection from `source` at `mono_ns` (a monotonic clock, in
  // ns). Admitted (kNone): the caller cuts one connection of cut_source
  // first when `cut`, and calls Opened(source).
  Decision Admit(const NtsKeSource& source, int64_t mono_ns);
  void Opened(const NtsKeSource& source);
  void Closed(const NtsKeSource& source);

  uint32_t connections() const { return connections_; }
  size_t sources() const { return sources_.size(); }
  // Open connections of `source` (0 if unknown).
  uint32_t ConnectionsOf(const NtsKeSource& source) const;

  // The source refused most since the last call, and how often (0: none),
  // then forgets the per-source refusal counts.
  struct TopRefused {
    NtsKeSource source;
    uint64_t refused = 0;
  };
  TopRefused TakeTopRefused();

 private:
  struct Record {
    uint32_t last = 0;  // NtpClientTable::Stamp-like 2^-4 s stamp
    uint16_t tokens = 0;
    uint32_t connections = 0;
    uint64_t refused = 0;  // since TakeTopRefused
  };
  Record& Find(const NtsKeSource& source, uint32_t now);
  bool RateLimited(Record& r, uint32_t now);

  Config config_;
  NtpTokenBucket bucket_;
  absl::flat_hash_map<NtsKeSource, Record> sources_;
  uint32_t connections_ = 0;
  NtpLeakRandom leak_;
};

}  // namespace zg::core

#endif  // ZG_CORE_NTS_NTS_KE_ADMISSION_H_
