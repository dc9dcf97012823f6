// SPDX-License-Identifier: Apache-2.0
#include "core/ntp/ntp_client_table.h"

#include <sys/mman.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"

namespace zg::core {

// One tracked client: 16 bytes (chrony's Record is about 128).
struct NtpClientTable::Entry {
  uint32_t tag;       // the address's fingerprint (HashOf().value >> 32)
  uint32_t last_hit;  // Stamp() of the latest request
  uint16_t tokens;
  // Low 16 bits of the Stamp() of the latest KoD (valid with kKodSent):
  // wraps every 4096 s, so after a wrap one KoD may come a gap late.
  uint16_t last_kod;
  int8_t rate;          // log2 request interval * kRateScale, answered
  int8_t timeout_rate;  // the same while the client was not answered
  uint8_t flags;
  uint8_t pad;
};

struct alignas(64) NtpClientTable::Bucket {
  Entry way[kWays];
};

namespace {

constexpr uint8_t kUsed = 1 << 0;
constexpr uint8_t kDropped = 1 << 2;  // the latest request got no reply
constexpr uint8_t kKodSent = 1 << 3;

// chrony clientlog.c: request rates as scaled log2 values.
constexpr int kRateScale = 4;
constexpr int kMinRate = -14 * kRateScale;
constexpr int8_t kInvalidRate = -128;
constexpr int kFrac = NtpTokenBucket::kTimeFracBits;

// chrony update_record: the interval since the previous request (in 2^-4 s
// units) as a rounded, scaled, negated log2 ...
// chrony halves (interval * 1.5) until it is <= 1, at most 18 times; the
// number of halvings is floor(log2) of it.
int ScaledLog2Interval(uint32_t interval) {
  if (interval == 0) return -kRateScale * (kFrac + 1);
  const uint64_t x = uint64_t{interval} + (interval >> 1);
  const int halvings = 63 - __builtin_clzll(x);
  constexpr int kMaxHalvings = (-kMinRate + kRateScale * kFrac) / kRateScale;
  return -kRateScale * kFrac + kRateScale * std::min(halvings, kMaxHalvings);
}

// ... folded into a rough exponential moving average of the rate.
void UpdateRate(int8_t& rate, int interval2) {
  if (rate == kInvalidRate) {
    rate = static_cast<int8_t>(-interval2);
  } else if (rate < -interval2) {
    ++rate;
  } else if (rate > -interval2) {
    rate = static_cast<int8_t>(rate > kRateScale * 5 / 2 - interval2
                                   ? kRateScale * 5 / 2 - interval2
                                   : (rate - interval2 - 1) / 2);
  }
}

// Bytes of the mapping holding `p` that are on transparent huge pages
// (AnonHugePages in /proc/self/smaps); 0 where that cannot be read.
size_t HugePageBytes(const void* p) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool in = false;
  while (std::getline(smaps, line)) {
    uintptr_t lo = 0, hi = 0;
    size_t kb = 0;
    if (std::sscanf(line.c_str(), "%" SCNxPTR "-%" SCNxPTR, &lo, &hi) == 2) {
      in = lo <= a && a < hi;
    } else if (in &&
               std::sscanf(line.c_str(), "AnonHugePages: %zu", &kb) == 1) {
      return kb << 10;
    }
  }
  return 0;
}

}  // namespace

absl::StatusOr<std::unique_ptr<NtpClientTable>> NtpClientTable::Create(
    const Options& options) {
  if (options.capacity == 0 || options.capacity > kMaxCapacity) {
    return absl::InvalidArgumentError(
        absl::StrCat("NTP client table capacity ", options.capacity,
                     " is out of range [1, ", kMaxCapacity, "]"));
  }
  static_assert(sizeof(Entry) == kBytesPerClient);
  static_assert(sizeof(Bucket) == kBucketBytes);
  std::unique_ptr<NtpClientTable> t(new NtpClientTable());
  t->num_buckets_ = (options.capacity + kWays - 1) / kWays;
  const size_t bytes = t->num_buckets_ * sizeof(Bucket);
  t->alloc_bytes_ = (bytes + kClientTableHugePageBytes - 1) /
                    kClientTableHugePageBytes * kClientTableHugePageBytes;
  void* mem = std::aligned_alloc(kClientTableHugePageBytes, t->alloc_bytes_);
  if (mem == nullptr) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "cannot allocate ", t->alloc_bytes_ >> 20, " MiB for ",
        options.capacity, " NTP clients; lower --ntp_clients_max"));
  }
  // Transparent huge pages where the kernel offers them: a random client
  // then costs a cache miss but rarely a TLB miss. Advisory only.
  (void)madvise(mem, t->alloc_bytes_, MADV_HUGEPAGE);
  std::memset(mem, 0, t->alloc_bytes_);     // also faults every page in now
  t->buckets_ = static_cast<Bucket*>(mem);  // trivial type, zeroed
  t->huge_bytes_ = std::min(HugePageBytes(mem), t->alloc_bytes_);
  t->SetLimit(options.limit, options.kod);
  t->seed_ = options.seed != 0 ? options.seed : 0x2545F4914F6CDD1Dull;
  t->leak_.state = t->seed_ * 0x9E3779B97F4A7C15ull | 1;
  return t;
}

NtpClientTable::~NtpClientTable() { std::free(buckets_); }

void NtpClientTable::SetLimit(const NtpRateLimitConfig& limit, bool kod) {
  limit_ = limit;
  bucket_ = NtpTokenBucket::For(limit);
  kod_ = kod;
  // (at most 4095 s: the KoD stamp has 16 bits)
  kod_gap_ =
      std::min(1u << (kFrac + std::max(limit.interval_log2, 0)), 0xffffu);
}

// Lookup, Refill and Limit are forced inline into Check: GCC kept them as
// calls, which cost about 10 ns a request in BM_RandomClients.
[[gnu::always_inline]] inline NtpClientTable::Entry& NtpClientTable::Lookup(
    NtpClientHash hash, uint32_t now, bool& fresh) {
  const uint64_t h = hash.value;
  Bucket& b = buckets_[BucketOf(h)];
  const uint32_t tag = static_cast<uint32_t>(h >> 32);
  // The client's way, found without a branch per way: which way holds a
  // client is random, so such a branch is mispredicted about once a lookup.
  unsigned hits = 0;
  for (size_t i = 0; i < kWays; ++i) {
    const Entry& e = b.way[i];
    hits |= static_cast<unsigned>((e.tag == tag) & ((e.flags & kUsed) != 0))
            << i;
  }
  if (hits != 0) {
    fresh = false;
    return b.way[__builtin_ctz(hits)];
  }
  Entry* victim = nullptr;
  uint32_t victim_age = 0;
  for (Entry& e : b.way) {
    // Empty ways first, else the one seen longest ago.
    const uint32_t age = (e.flags & kUsed) ? now - e.last_hit : UINT32_MAX;
    if (victim == nullptr || age > victim_age) {
      victim = &e;
      victim_age = age;
    }
  }
  if (victim->flags & kUsed) {
    ++stats_.evictions;
  } else {
    ++stats_.tracked;
  }
  ++stats_.inserted;
  *victim = Entry{tag,   now, bucket_.max_tokens, 0, kInvalidRate, kInvalidRate,
                  kUsed, 0};
  fresh = true;
  return *victim;
}

// chrony update_record: tokens for the time since the previous request,
// and the request rate (of answered or unanswered requests).
[[gnu::always_inline]] inline void NtpClientTable::Refill(Entry& e,
                                                          uint32_t now) const {
  const uint32_t prev = e.last_hit;
  e.last_hit = now;
  const uint32_t interval = now - prev;
  if (static_cast<int32_t>(interval) < 0) return;  // reordered stamps
  e.tokens = bucket_.Refill(e.tokens, prev, now);
  UpdateRate((e.flags & kDropped) ? e.timeout_rate : e.rate,
             ScaledLog2Interval(interval));
}

[[gnu::always_inline]] inline NtpRateVerdict NtpClientTable::Limit(
    Entry& e, uint32_t now) {
  const int8_t poll = static_cast<int8_t>(limit_.interval_log2);
  e.flags &= static_cast<uint8_t>(~kDropped);
  if (e.tokens >= bucket_.tokens_per_hit) {
    e.tokens = static_cast<uint16_t>(e.tokens - bucket_.tokens_per_hit);
    return {NtpRateDecision::kAnswer, poll};
  }
  const bool leak = leak_.Leak(limit_.leak_log2);
  // The anti-amplification rule, as chrony's CLG_LimitServiceRate has it:
  // "Poorly implemented NTP clients can send requests at a higher rate when
  // they are not getting replies. If the request rate seems to be more than
  // twice as much as when replies are sent, give up on rate limiting to
  // reduce the amount of traffic. Invert the sense of the leak to respond to
  // most of the requests, but still keep the estimated rate updated."
  const bool flood =
      e.timeout_rate != kInvalidRate && e.timeout_rate > e.rate + kRateScale;
  if (leak != flood) {
    e.tokens = 0;
    if (flood) {
      ++stats_.answered_flood;
      return {NtpRateDecision::kAnswerFlood, poll};
    }
    ++stats_.answered_leak;
    return {NtpRateDecision::kAnswerLeak, poll};
  }
  // A KoD is a reply: as in chrony, it does not count as unanswered. At
  // most one per client per max(2^interval, 1) s, as ntpd limits its KoDs.
  if (kod_ && (!(e.flags & kKodSent) ||
               static_cast<uint16_t>(now - e.last_kod) >= kod_gap_)) {
    e.flags |= kKodSent;
    e.last_kod = static_cast<uint16_t>(now);
    ++stats_.kissed;
    return {NtpRateDecision::kKiss, poll};
  }
  e.flags |= kDropped;
  ++stats_.dropped;
  return {NtpRateDecision::kDrop, poll};
}

NtpRateVerdict NtpClientTable::Check(NtpClientHash hash, TaiNs rx_time) {
  const uint32_t now = Stamp(rx_time);
  bool fresh = false;
  Entry& e = Lookup(hash, now, fresh);
  if (!fresh) Refill(e, now);
  return Limit(e, now);
}

}  // namespace zg::core
