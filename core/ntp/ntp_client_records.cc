// SPDX-License-Identifier: Apache-2.0
#include "core/ntp/ntp_client_records.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include "absl/strings/str_cat.h"

namespace zg::core {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;
constexpr int64_t kStampNs = kNanosPerSecond >> NtpClientRecords::kStampFracBits;

}  // namespace

const char* NtpClientAuthName(NtpClientAuth a) {
  switch (a) {
    case NtpClientAuth::kNone:
      return "none";
    case NtpClientAuth::kSymmetricKey:
      return "key";
    case NtpClientAuth::kNts:
      return "nts";
  }
  return "none";
}

std::optional<double> NtpClientRecord::MeanIntervalSeconds() const {
  if (requests < 2) return std::nullopt;
  return static_cast<double>(last_seen.value - first_seen.value) / 1e9 /
         static_cast<double>(requests - 1);
}

IpAddress NtpClientRecord::address() const {
  if (!key.ipv6) return IpAddress::V4(Ipv4Addr{static_cast<uint32_t>(key.lo)});
  Ipv6Addr a;
  std::memcpy(a.b.data(), &key.hi, 8);
  std::memcpy(a.b.data() + 8, &key.lo, 8);
  return IpAddress::V6(a);
}

absl::StatusOr<std::unique_ptr<NtpClientRecords>> NtpClientRecords::Create(
    const Options& options) {
  if (options.capacity == 0 || options.capacity > kMaxCapacity) {
    return absl::InvalidArgumentError(
        absl::StrCat("NTP client record capacity ", options.capacity,
                     " is out of range [1, ", kMaxCapacity, "]"));
  }
  static_assert(sizeof(HotWay) == kHotBytes);
  static_assert(sizeof(HotBucket) == 64);
  static_assert(sizeof(Cold) == kColdBytes);
  static_assert(std::atomic<uint64_t>::is_always_lock_free);
  std::unique_ptr<NtpClientRecords> t(new NtpClientRecords());
  t->num_buckets_ = (options.capacity + kWays - 1) / kWays;
  const size_t hot_bytes = t->num_buckets_ * sizeof(HotBucket);
  const size_t bytes = hot_bytes + t->num_buckets_ * kWays * sizeof(Cold);
  t->alloc_bytes_ = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  t->mem_ = std::aligned_alloc(kHugePage, t->alloc_bytes_);
  if (t->mem_ == nullptr) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "cannot allocate ", t->alloc_bytes_ >> 20, " MiB for the records of ",
        options.capacity, " NTP clients; lower --ntp_clients_max"));
  }
  // As the rate limiter's table: a random client costs a cache miss but
  // rarely a TLB miss where the kernel gives huge pages. Advisory only.
  (void)madvise(t->mem_, t->alloc_bytes_, MADV_HUGEPAGE);
  // Constructing zeroes every record and faults every page in now.
  t->hot_ = new (t->mem_) HotBucket[t->num_buckets_];
  t->cold_ = new (static_cast<char*>(t->mem_) + hot_bytes)
      Cold[t->num_buckets_ * kWays];
  t->seed_ = options.seed != 0 ? options.seed : 0x6A09E667F3BCC909ull;
  return t;
}

// The records hold only atomics of trivially destructible types.
NtpClientRecords::~NtpClientRecords() { std::free(mem_); }

uint32_t NtpClientRecords::Insert(size_t bucket, uint32_t tag,
                                  const NtpClientKey& key, TaiNs rx_time,
                                  uint32_t now, uint64_t flags) {
  HotBucket& b = hot_[bucket];
  // Empty ways first, else the one seen longest ago.
  size_t victim = 0;
  uint32_t victim_age = 0;
  for (size_t i = 0; i < kWays; ++i) {
    const HotWay& w = b.way[i];
    const uint32_t age = w.word.load(std::memory_order_relaxed) != 0
                             ? now - w.last.load(std::memory_order_relaxed)
                             : UINT32_MAX;
    if (i == 0 || age > victim_age) {
      victim = i;
      victim_age = age;
    }
  }
  HotWay& w = b.way[victim];
  const uint32_t slot = static_cast<uint32_t>(bucket * kWays + victim);
  Cold& c = cold_[slot];
  std::atomic<uint64_t>& counter =
      w.word.load(std::memory_order_relaxed) != 0 ? evictions_ : tracked_;
  counter.store(counter.load(std::memory_order_relaxed) + 1,
                std::memory_order_relaxed);
  inserted_.store(inserted_.load(std::memory_order_relaxed) + 1,
                  std::memory_order_relaxed);
  // A per-record seqlock around the identity (core/base/seqlock.h's order).
  const uint32_t s = c.seq.load(std::memory_order_relaxed);
  c.seq.store(s + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  w.tag.store(tag, std::memory_order_relaxed);
  w.last.store(now, std::memory_order_relaxed);
  w.word.store(1 | flags, std::memory_order_relaxed);
  c.key_id.store(0, std::memory_order_relaxed);
  c.addr_hi.store(key.hi, std::memory_order_relaxed);
  c.addr_lo.store(key.lo, std::memory_order_relaxed);
  c.first_seen_ns.store(rx_time.value, std::memory_order_relaxed);
  c.drops_rate_limit.store(0, std::memory_order_relaxed);
  c.drops_acl.store(0, std::memory_order_relaxed);
  c.drops_auth.store(0, std::memory_order_relaxed);
  c.kod.store(0, std::memory_order_relaxed);
  c.seq.store(s + 2, std::memory_order_release);
  return slot;
}

uint32_t NtpClientRecords::Request(const NtpClientKey& key, TaiNs rx_time,
                                   NtpClientAuth auth) {
  const uint64_t h = Hash(key);
  const size_t bucket = BucketOf(h);
  const uint32_t tag = static_cast<uint32_t>(h >> 32);
  const uint32_t now = Stamp(rx_time);
  HotBucket& b = hot_[bucket];
  // The client's way without a branch per way (as the rate limiter's).
  unsigned hits = 0;
  for (size_t i = 0; i < kWays; ++i) {
    const HotWay& w = b.way[i];
    hits |= static_cast<unsigned>(
                (w.tag.load(std::memory_order_relaxed) == tag) &
                (w.word.load(std::memory_order_relaxed) != 0))
            << i;
  }
  const uint64_t auth_bits = uint64_t{static_cast<uint8_t>(auth)} << kAuthShift;
  uint32_t slot;
  if (hits == 0) {
    slot = Insert(bucket, tag, key, rx_time, now,
                  auth_bits | (key.ipv6 ? kIpv6 : 0));
  } else {
    const unsigned way = static_cast<unsigned>(__builtin_ctz(hits));
    HotWay& w = b.way[way];
    const uint64_t word = w.word.load(std::memory_order_relaxed);
    w.word.store(((word + 1) & ~kAuthMask) | auth_bits,
                 std::memory_order_relaxed);
    w.last.store(now, std::memory_order_relaxed);
    slot = static_cast<uint32_t>(bucket * kWays + way);
  }
  if (auth == NtpClientAuth::kSymmetricKey) {
    // Answered compares the key id after the MAC check, which hides this.
#if defined(__x86_64__)
    asm volatile("prefetcht0 %0"
                 :
                 : "m"(*reinterpret_cast<const char*>(&cold_[slot])));
#else
    __builtin_prefetch(&cold_[slot], 1, 3);
#endif
  }
  return slot;
}

void NtpClientRecords::Drop(uint32_t slot, NtpClientDrop reason) {
  Cold& c = cold_[slot];
  switch (reason) {
    case NtpClientDrop::kRateLimit:
      Bump(c.drops_rate_limit);
      break;
    case NtpClientDrop::kAcl:
      Bump(c.drops_acl);
      break;
    case NtpClientDrop::kAuth:
      Bump(c.drops_auth);
      break;
  }
}

void NtpClientRecords::Kiss(uint32_t slot) { Bump(cold_[slot].kod); }

void NtpClientRecords::Answered(uint32_t slot, uint32_t key_id,
                                bool interleaved) {
  HotWay& w = HotOf(slot);
  const uint64_t word = w.word.load(std::memory_order_relaxed);
  const uint64_t next = interleaved ? word | kInterleaved : word & ~kInterleaved;
  if (next != word) w.word.store(next, std::memory_order_relaxed);
  if ((word & kAuthMask) ==
      uint64_t{static_cast<uint8_t>(NtpClientAuth::kSymmetricKey)}
          << kAuthShift) {
    Cold& c = cold_[slot];
    if (c.key_id.load(std::memory_order_relaxed) != key_id) {
      c.key_id.store(key_id, std::memory_order_relaxed);
    }
  }
}

NtpClientRecords::ReadResult NtpClientRecords::Read(
    size_t slot, NtpClientRecord* out) const {
  const HotWay& w = HotOf(slot);
  const Cold& c = cold_[slot];
  for (int attempt = 0; attempt < kReadTries; ++attempt) {
    const uint32_t s1 = c.seq.load(std::memory_order_acquire);
    if (s1 & 1) continue;  // being replaced
    // The counters with acquire, before the request count: every drop and
    // KoD seen was recorded after its request was counted.
    out->drops_rate_limit = c.drops_rate_limit.load(std::memory_order_acquire);
    out->drops_acl = c.drops_acl.load(std::memory_order_acquire);
    out->drops_auth = c.drops_auth.load(std::memory_order_acquire);
    out->kod = c.kod.load(std::memory_order_acquire);
    const uint64_t word = w.word.load(std::memory_order_relaxed);
    const uint32_t last = w.last.load(std::memory_order_relaxed);
    out->key_id = c.key_id.load(std::memory_order_relaxed);
    out->key.hi = c.addr_hi.load(std::memory_order_relaxed);
    out->key.lo = c.addr_lo.load(std::memory_order_relaxed);
    const int64_t first = c.first_seen_ns.load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (c.seq.load(std::memory_order_relaxed) != s1) continue;
    if (word == 0) return ReadResult::kEmpty;
    out->requests = word & kCountMask;
    out->auth = static_cast<NtpClientAuth>((word & kAuthMask) >> kAuthShift);
    out->interleaved = (word & kInterleaved) != 0;
    out->key.ipv6 = (word & kIpv6) != 0;
    out->first_seen = TaiNs{first};
    // The last stamp counted from the first one's 1/16 s (unambiguous for
    // 8.5 years after first_seen).
    const int64_t first_unit = first - first % kStampNs;
    const uint32_t since = last - Stamp(TaiNs{first});
    out->last_seen =
        TaiNs{std::max(first, first_unit + int64_t{since} * kStampNs)};
    return ReadResult::kOk;
  }
  return ReadResult::kBusy;
}

std::optional<NtpClientRecord> NtpClientRecords::Find(
    const NtpClientKey& key) const {
  const uint64_t h = Hash(key);
  const size_t bucket = BucketOf(h);
  const uint32_t tag = static_cast<uint32_t>(h >> 32);
  for (size_t i = 0; i < kWays; ++i) {
    const HotWay& w = hot_[bucket].way[i];
    if (w.tag.load(std::memory_order_relaxed) != tag) continue;
    NtpClientRecord r;
    if (Read(bucket * kWays + i, &r) == ReadResult::kOk && r.key == key) {
      return r;
    }
  }
  return std::nullopt;
}

}  // namespace zg::core
