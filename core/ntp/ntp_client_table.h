// SPDX-License-Identifier: Apache-2.0
// The per-client NTP rate limiter: a fixed-size, set-associative table of
// client addresses (IPv4 or IPv6), each with chrony's token bucket and
// request-rate estimates (core/ntp/ntp_rate_limit.h), deciding per request
// whether to answer, drop or send a Kiss-o'-Death RATE.
//
// Memory is allocated once by Create (16 bytes per client, 4 clients per
// 64-byte bucket: one cache line, aligned); Check and Prefetch never
// allocate, lock or make syscalls. A client's address is kept as a 32-bit
// fingerprint: the hash (keyed by a per-table seed) picks the bucket and
// the fingerprint the way, so two clients share one record only when both
// collide, about 4 in 2^32 per lookup of a new client, and a client cannot
// predict which addresses share its bucket. A bucket that is full evicts its
// least recently seen client (counted in stats().evictions), as chrony replaces
// the oldest record of a full slot (clientlog.c get_record). One table per
// worker, used by that worker alone.
//
// Decisions (chrony clientlog.c CLG_LimitServiceRate):
//   bucket has a token                 -> kAnswer
//   else 1 in 2^leak, by the PRNG       -> kAnswerLeak (bucket emptied)
//   else, if the client's request rate while not answered is above twice
//     its rate while answered           -> kAnswerFlood: rate limiting makes
//     this client send more, not less (a naive client retrying on timeout),
//     so it is answered (chrony inverts the leak: most are answered)
//   else, with kod and no KoD sent to this client for max(2^interval, 1) s
//                                       -> kKiss (RATE)
//   else                                -> kDrop
// Every verdict carries the poll the client should use: at least interval
// (chrony ntp_core.c: poll = MAX(CLG_GetNtpMinPoll(), request poll)).
//
//   ZG_ASSIGN_OR_RETURN(auto table, NtpClientTable::Create(
//       {.capacity = 1 << 20, .limit = config, .kod = true}));
//   for (i in burst) table->Prefetch(hash[i] = table->HashOf(key[i]));
//   for (i in burst) verdict[i] = table->Check(hash[i], rx_time[i]);
// (The hash is computed once per request: Prefetch and Check take it.)
#ifndef ZG_CORE_NTP_NTP_CLIENT_TABLE_H_
#define ZG_CORE_NTP_NTP_CLIENT_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "absl/status/statusor.h"
#include "core/net/net_headers.h"
#include "core/ntp/ntp_rate_limit.h"
#include "core/time/time_types.h"

namespace zg::core {

// The client tables (this one and NtpClientRecords) align their memory to a
// 2 MiB huge page, so that transparent huge pages can back it.
inline constexpr size_t kClientTableHugePageBytes = size_t{2} << 20;

// A client address as a table key: IPv4 and IPv6 never collide (an IPv4
// client and the IPv6 client ::ffff:a.b.c.d are different keys).
struct NtpClientKey {
  uint64_t hi = 0;
  uint64_t lo = 0;
  bool ipv6 = false;

  static NtpClientKey V4(Ipv4Addr a) { return {0, a.value, false}; }
  static NtpClientKey V6(const Ipv6Addr& a) {
    NtpClientKey k;
    std::memcpy(&k.hi, a.b.data(), 8);
    std::memcpy(&k.lo, a.b.data() + 8, 8);
    k.ipv6 = true;
    return k;
  }
  friend bool operator==(const NtpClientKey&, const NtpClientKey&) = default;
};

// Where a client lives in a table of 4-way buckets: its bucket (low 32
// bits, scaled to the table's size) and its fingerprint (high 32 bits).
struct NtpClientHash {
  uint64_t value = 0;
};

// The client's hash keyed by `seed` (a per-start secret, so a client cannot
// aim at a bucket). The rate limiter's table and the client records
// (core/ntp/ntp_client_records.h) both place clients by it: given one seed,
// a request's hash is computed once for both.
inline NtpClientHash HashNtpClient(const NtpClientKey& key, uint64_t seed) {
  uint64_t h = (key.lo ^ seed) * 0x9E3779B97F4A7C15ull;
  h ^= (key.hi + (key.ipv6 ? 0x5bd1e995u : 0u)) * 0xC2B2AE3D27D4EB4Full;
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 32;
  return {h};
}

enum class NtpRateDecision : uint8_t {
  kAnswer,       // within the bucket
  kAnswerLeak,   // past the bucket, answered by the leak
  kAnswerFlood,  // past the bucket, answered: dropping would raise traffic
  kDrop,
  kKiss,  // send KoD RATE
};

struct NtpRateVerdict {
  NtpRateDecision decision = NtpRateDecision::kAnswer;
  int8_t min_poll_log2 = 0;  // the reply's / KoD's poll is at least this
};

// Counters of one table. Written by: the table's owner (one worker thread).
// Read by: the same thread (a dataplane owner copies them into its
// single-writer counters for the exporter).
struct NtpClientTableStats {
  uint64_t tracked = 0;    // clients in the table now
  uint64_t inserted = 0;   // clients added
  uint64_t evictions = 0;  // clients replaced because their bucket was full
  uint64_t answered_leak = 0;
  uint64_t answered_flood = 0;
  uint64_t dropped = 0;
  uint64_t kissed = 0;
};

class NtpClientTable {
 public:
  struct Options {
    size_t capacity = 1 << 20;  // clients tracked at most (rounded up to 4)
    NtpRateLimitConfig limit;
    bool kod = false;   // answer some excess requests with KoD RATE
    uint64_t seed = 0;  // hash and PRNG seed; 0: a fixed default
  };
  static constexpr size_t kWays = 4;
  static constexpr size_t kBytesPerClient = 16;
  static constexpr size_t kBucketBytes = kWays * kBytesPerClient;  // a line
  static constexpr size_t kMaxCapacity = size_t{1} << 32;

  // Allocates and zeroes capacity * 16 bytes (huge pages advised).
  static absl::StatusOr<std::unique_ptr<NtpClientTable>> Create(
      const Options& options);
  ~NtpClientTable();
  NtpClientTable(const NtpClientTable&) = delete;
  NtpClientTable& operator=(const NtpClientTable&) = delete;

  // The client's place in this table (the hash is keyed by the table's
  // seed): what Prefetch and Check take, so a burst computes it once.
  NtpClientHash HashOf(const NtpClientKey& key) const {
    return HashNtpClient(key, seed_);
  }
  uint64_t seed() const { return seed_; }
  // Starts loading the client's bucket into the cache (no effect on
  // state): a prefetch instruction, no load, so a burst's misses overlap
  // and Prefetch does not wait for any. An asm statement, not
  // __builtin_prefetch: GCC 12 at -O3 dropped the builtin from a hint-only
  // loop (seen with objdump), which is why a hint once measured no better
  // than none. At 10M clients: 86 ns per Check without, 63 with a load, 43
  // with this (doc/performance.md).
  void Prefetch(NtpClientHash hash) const {
    const char* line = reinterpret_cast<const char*>(buckets_) +
                       BucketOf(hash.value) * kBucketBytes;
#if defined(__x86_64__)
    asm volatile("prefetcht0 %0" : : "m"(*line));
#else
    __builtin_prefetch(line, 1, 3);
#endif
  }
  void Prefetch(const NtpClientKey& key) const { Prefetch(HashOf(key)); }
  // Records a request from the client received at `rx_time` and decides.
  NtpRateVerdict Check(NtpClientHash hash, TaiNs rx_time);
  NtpRateVerdict Check(const NtpClientKey& key, TaiNs rx_time) {
    return Check(HashOf(key), rx_time);
  }

  // New limits (a reload): tracked clients keep their records; their
  // tokens are capped to the new bucket at their next request.
  void SetLimit(const NtpRateLimitConfig& limit, bool kod);

  size_t capacity() const { return num_buckets_ * kWays; }
  size_t memory_bytes() const { return alloc_bytes_; }
  // Of memory_bytes(), those the kernel put on transparent huge pages when
  // Create ran (/proc/self/smaps; 0: none, or unreadable). A random client
  // on 4 KiB pages costs a TLB miss too (doc/performance.md).
  size_t huge_page_bytes() const { return huge_bytes_; }
  const NtpClientTableStats& stats() const { return stats_; }
  const NtpRateLimitConfig& limit() const { return limit_; }

  // The 2^-4 s stamp Check keeps for `t` (modulo 2^32: wraps every 2^28 s,
  // about 8.5 years; only differences are used). Exposed for tests.
  static uint32_t Stamp(TaiNs t) {
    return static_cast<uint32_t>(static_cast<uint64_t>(t.value) /
                                 (kNanosPerSecond >> 4));
  }

 private:
  struct Entry;
  struct Bucket;
  NtpClientTable() = default;
  size_t BucketOf(uint64_t h) const {
    return static_cast<size_t>(((h & 0xffffffffu) * num_buckets_) >> 32);
  }
  Entry& Lookup(NtpClientHash hash, uint32_t now, bool& fresh);
  void Refill(Entry& e, uint32_t now) const;
  NtpRateVerdict Limit(Entry& e, uint32_t now);

  Bucket* buckets_ = nullptr;
  size_t num_buckets_ = 0;
  size_t alloc_bytes_ = 0;
  size_t huge_bytes_ = 0;
  uint64_t seed_ = 0;
  NtpLeakRandom leak_;
  NtpRateLimitConfig limit_;
  NtpTokenBucket bucket_;
  bool kod_ = false;
  uint32_t kod_gap_ = 16;  // 2^-4 s units between KoDs to one client (<2^16)
  NtpClientTableStats stats_;
};

}  // namespace zg::core

#endif  // ZG_CORE_NTP_NTP_CLIENT_TABLE_H_
