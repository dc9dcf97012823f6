// SPDX-License-Identifier: Apache-2.0
#include "core/ntp/ntp_client_records.h"

#include <sys/mman.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>

#include "absl/strings/str_cat.h"

namespace zg::core {
namespace {

constexpr int64_t kStampNs =
    kNanosPerSecond >> NtpClientRecords::kStampFracBits;

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
  // Huge-page aligned where it can use them; small tables (tests) not.
  const size_t align =
      bytes >= kClientTableHugePageBytes ? kClientTableHugePageBytes : 64;
  t->alloc_bytes_ = (bytes + align - 1) / align * align;
  t->mem_ = std::aligned_alloc(align, t->alloc_bytes_);
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
  const uint64_t old = w.word.load(std::memory_order_relaxed);
  if (old & kInserting) {  // replaced before its Flush: forget that insert
    for (size_t i = 0; i < n_pending_; ++i) {
      if (pending_[i].slot == slot) pending_[i].slot = kNoSlot;
    }
  }
  std::atomic<uint64_t>& counter = old != 0 ? evictions_ : tracked_;
  counter.store(counter.load(std::memory_order_relaxed) + 1,
                std::memory_order_relaxed);
  inserted_.store(inserted_.load(std::memory_order_relaxed) + 1,
                  std::memory_order_relaxed);
  // The seqlock's "odd" state, before anything of the new client is
  // written (core/base/seqlock.h's order); Flush ends it (Publish).
  w.word.store(1 | flags | kInserting | (old & kGenMask),
               std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  w.tag.store(tag, std::memory_order_relaxed);
  w.last.store(now, std::memory_order_relaxed);
  // Its cold line is written by Flush. (Not prefetched here: mid-burst the
  // miss buffers hold the burst's hot lines, and a prefetch stalls until
  // one frees: measured as most of Insert's time in worker_benchmark.)
  if (n_pending_ == kMaxPending) Flush();
  pending_[n_pending_++] = {slot, key, rx_time};
  return slot;
}

// A new client's cold line is written whole: on x86-64 with non-temporal
// stores (no read for ownership of a line we overwrite entirely, and no
// stall on a store buffer full of misses: ordinary stores measured as 7% of
// the worker's time at 1M clients), fenced on both sides so a reader who
// sees any of it sees the record's kInserting bit, and sees the bit cleared
// only after all of it. Elsewhere, and under TSan (which does not see
// non-temporal stores), relaxed atomic stores.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define ZG_RECORDS_TSAN 1
#endif
#endif
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__) && \
    !defined(ZG_RECORDS_TSAN)
#define ZG_RECORDS_STREAM 1
#endif

void NtpClientRecords::StoreFence() {
#ifdef ZG_RECORDS_STREAM
  _mm_sfence();
#else
  std::atomic_thread_fence(std::memory_order_release);
#endif
}

void NtpClientRecords::WriteCold(const Pending& p) {
  Cold& c = cold_[p.slot];
#ifdef ZG_RECORDS_STREAM
  static_assert(offsetof(Cold, key_id) == 0 && offsetof(Cold, reserved) == 4 &&
                offsetof(Cold, addr_hi) == 8 && offsetof(Cold, addr_lo) == 16 &&
                offsetof(Cold, first_seen_ns) == 24 &&
                offsetof(Cold, drops_rate_limit) == 32 &&
                offsetof(Cold, kod) == 56);
  long long* line = reinterpret_cast<long long*>(&c);
  _mm_stream_si64(line + 0, 0);  // key_id, reserved
  _mm_stream_si64(line + 1, static_cast<long long>(p.key.hi));
  _mm_stream_si64(line + 2, static_cast<long long>(p.key.lo));
  _mm_stream_si64(line + 3, p.rx_time.value);
  for (int i = 4; i < 8; ++i) _mm_stream_si64(line + i, 0);  // counters
#else
  c.key_id.store(0, std::memory_order_relaxed);
  c.addr_hi.store(p.key.hi, std::memory_order_relaxed);
  c.addr_lo.store(p.key.lo, std::memory_order_relaxed);
  c.first_seen_ns.store(p.rx_time.value, std::memory_order_relaxed);
  c.drops_rate_limit.store(0, std::memory_order_relaxed);
  c.drops_acl.store(0, std::memory_order_relaxed);
  c.drops_auth.store(0, std::memory_order_relaxed);
  c.kod.store(0, std::memory_order_relaxed);
#endif
}

// Ends the seqlock's "odd" state: the bit cleared, the count advanced.
void NtpClientRecords::Publish(Pending& p) {
  HotWay& w = HotOf(p.slot);
  const uint64_t word = w.word.load(std::memory_order_relaxed);
  const uint64_t gen = (word + (uint64_t{1} << kGenShift)) & kGenMask;
  w.word.store((word & ~(kInserting | kGenMask)) | gen,
               std::memory_order_release);
  p.slot = kNoSlot;
}

void NtpClientRecords::Flush() {
  if (n_pending_ == 0) return;
  StoreFence();  // every kInserting bit before any new cold line
  for (size_t i = 0; i < n_pending_; ++i) {
    if (pending_[i].slot != kNoSlot) WriteCold(pending_[i]);
  }
  StoreFence();  // the cold lines before the words that publish them
  for (size_t i = 0; i < n_pending_; ++i) {
    if (pending_[i].slot != kNoSlot) Publish(pending_[i]);
  }
  n_pending_ = 0;
}

void NtpClientRecords::CompletePending(uint32_t slot) {
  for (size_t i = n_pending_; i-- > 0;) {  // most likely the latest
    if (pending_[i].slot == slot) {
      StoreFence();
      WriteCold(pending_[i]);
      StoreFence();
      Publish(pending_[i]);
      return;
    }
  }
}

uint32_t NtpClientRecords::Request(const NtpClientKey& key, NtpClientHash hash,
                                   TaiNs rx_time, NtpClientAuth auth) {
  const uint64_t h = hash.value;
  const size_t bucket = BucketOf(h);
  const uint32_t tag = static_cast<uint32_t>(h >> 32);
  const uint32_t now = Stamp(rx_time);
  HotBucket& b = hot_[bucket];
  // The client's way without a branch per way (as the rate limiter's).
  unsigned hits = 0;
  for (size_t i = 0; i < kWays; ++i) {
    const HotWay& w = b.way[i];
    const unsigned match = w.tag.load(std::memory_order_relaxed) == tag;
    const unsigned used = w.word.load(std::memory_order_relaxed) != 0;
    hits |= (match & used) << i;
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
  CompleteIfPending(slot);
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

void NtpClientRecords::Kiss(uint32_t slot) {
  CompleteIfPending(slot);
  Bump(cold_[slot].kod);
}

void NtpClientRecords::Answered(uint32_t slot, uint32_t key_id,
                                bool interleaved) {
  HotWay& w = HotOf(slot);
  const uint64_t word = w.word.load(std::memory_order_relaxed);
  const uint64_t next =
      interleaved ? word | kInterleaved : word & ~kInterleaved;
  if (next != word) w.word.store(next, std::memory_order_relaxed);
  if ((word & kAuthMask) ==
      uint64_t{static_cast<uint8_t>(NtpClientAuth::kSymmetricKey)}
          << kAuthShift) {
    CompleteIfPending(slot);
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
    // The seqlock: the hot word's kInserting bit is "odd", its generation
    // bits the count (Insert sets the bit, Publish clears it and counts),
    // and first_seen, which grows from one client of a slot to the next.
    const uint64_t begin = w.word.load(std::memory_order_acquire);
    if (begin == 0) return ReadResult::kEmpty;
    if (begin & kInserting) continue;
    const int64_t first = c.first_seen_ns.load(std::memory_order_relaxed);
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
    std::atomic_thread_fence(std::memory_order_acquire);
    const uint64_t end = w.word.load(std::memory_order_acquire);
    if ((end & kInserting) || end == 0 ||
        (end & kGenMask) != (begin & kGenMask) ||
        c.first_seen_ns.load(std::memory_order_relaxed) != first) {
      continue;
    }
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
  const uint64_t h = HashOf(key).value;
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
