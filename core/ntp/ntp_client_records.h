// SPDX-License-Identifier: Apache-2.0
// One worker's traceable record of its NTP clients (zgctl clients): per
// client address, the requests it sent, those dropped by reason (rate limit,
// access list, authentication), the Kiss-o'-Death replies it got, how its
// latest request was authenticated (none, a symmetric key and its id, NTS),
// whether its latest reply was interleaved, and when it was first and last
// seen (so the mean interval between its requests). The query that merges
// the workers' tables for zgctl is core/ntp/ntp_client_query.h.
//
// Layout: a set-associative table of `capacity` clients in buckets of 4, as
// the rate limiter's (core/ntp/ntp_client_table.h), placed by the same keyed
// hash (HashNtpClient: with one seed, a request's hash serves both); each
// client in two parts:
//   hot  16 bytes, 4 to a 64-byte line per bucket: the address's 32-bit
//        fingerprint, the last-seen stamp (2^-4 s), the request count (56
//        bits) and the latest request's auth kind, interleave and family
//        bits. Every request reads and writes only this line, which Prefetch
//        loads with the burst.
//   cold 64 bytes, one line per client: the address, first seen (TAI ns),
//        the drop and KoD counters and the key id. Written only when a
//        client is (re)inserted, dropped, kissed or changes its key id.
// A new client's cold line is not written by the Request that inserts it
// (a cache miss per new client: at a full table, about one request in six):
// the owner's Flush, once per burst after the replies left, writes the
// burst's new cold lines whole, with non-temporal stores on x86-64 (no
// read of a line it overwrites). Until then the record reads as busy.
// 80 bytes a client (chrony's record is about 128). A full bucket replaces
// its least recently seen client (stats().evictions). Two clients share a
// record only when bucket and fingerprint both collide (about 4 in 2^32
// lookups of a new client); the record then keeps the first one's address.
//
// Concurrency: one writer, the worker that owns the table (Request, Drop,
// Kiss, Answered, Flush: no locks, no allocation, no syscalls; every shared
// field is a std::atomic stored with a plain store, never a locked RMW, but
// for a new client's cold line, Flush's fenced non-temporal stores).
// Readers on any thread (the control socket's, the client log's) call Read/
// ForEach/Find and never make the worker wait:
//   - a client's identity (address, first seen, family) is guarded by a
//     per-record seqlock in the hot word that the writer takes only while
//     it (re)inserts a client: an "odd" bit (set by Request, cleared by
//     Flush) and a 3-bit count of inserts, checked with first_seen (which
//     only grows from one client of a slot to the next). A reader never
//     mixes two clients' fields, unless it is stalled between two loads of
//     one record for 8 replacements of that slot that leave its first_seen
//     as it read it; a record being replaced while read is retried, then
//     skipped (`busy`);
//   - the counters are read field by field with relaxed/acquire loads, so a
//     reader may see one request half recorded: its count but not yet its
//     drop, KoD, auth or interleave bits. Counters are read before the
//     request count (drops with release stores, read with acquire), so a
//     reader always sees requests >= drops + KoD.
//
//   ZG_ASSIGN_OR_RETURN(auto records, NtpClientRecords::Create({1 << 20}));
//   for (i in burst) records->Prefetch(key[i]);
//   const uint32_t slot = records->Request(key, rx_time, auth);
//   if (dropped) records->Drop(slot, NtpClientDrop::kRateLimit);
//   ...
//   records->Flush();  // at the end of the burst
//   records->ForEach([](const NtpClientRecord& r) { ... });  // any thread
#ifndef ZG_CORE_NTP_NTP_CLIENT_RECORDS_H_
#define ZG_CORE_NTP_NTP_CLIENT_RECORDS_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

#include "absl/status/statusor.h"
#include "core/net/net_headers.h"
#include "core/ntp/ntp_client_table.h"
#include "core/time/time_types.h"

namespace zg::core {

// How a request was authenticated (by its form: a MAC trailer, NTS fields);
// whether it passed is counted in drops_auth.
enum class NtpClientAuth : uint8_t { kNone = 0, kSymmetricKey = 1, kNts = 2 };
const char* NtpClientAuthName(NtpClientAuth a);  // "none", "key", "nts"

enum class NtpClientDrop : uint8_t {
  kRateLimit,  // no reply: over the client's rate (KoD RATE is in kod)
  kAcl,        // no reply: denied by the access list (KoD DENY is in kod)
  kAuth,       // failed authentication: dropped, or an NTS NAK
};

// One client as a reader sees it (a copy).
struct NtpClientRecord {
  NtpClientKey key;
  TaiNs first_seen;  // its first request since it entered the table
  // Its latest request, to 2^-4 s: the start of that 1/16 s, but never
  // before first_seen.
  TaiNs last_seen;
  uint64_t requests = 0;  // valid NTP requests, however they were answered
  uint64_t drops_rate_limit = 0;
  uint64_t drops_acl = 0;
  uint64_t drops_auth = 0;
  uint64_t kod = 0;  // Kiss-o'-Death RATE and DENY sent
  NtpClientAuth auth = NtpClientAuth::kNone;  // of the latest request
  uint32_t key_id = 0;       // the latest symmetric key id (auth == kKey)
  bool interleaved = false;  // the latest reply was interleaved

  uint64_t drops() const { return drops_rate_limit + drops_acl + drops_auth; }
  // (last_seen - first_seen) / (requests - 1); nullopt below 2 requests.
  std::optional<double> MeanIntervalSeconds() const;
  IpAddress address() const;
};

// Counters of one table. Written by: the owner. Read by: anyone.
struct NtpClientRecordStats {
  uint64_t tracked = 0;    // clients in the table now
  uint64_t inserted = 0;   // clients added
  uint64_t evictions = 0;  // replaced because their bucket was full
};

class NtpClientRecords {
 public:
  struct Options {
    size_t capacity = 1 << 20;  // clients at most (rounded up to 4)
    uint64_t seed = 0;          // hash seed; 0: a fixed default
  };
  static constexpr size_t kWays = 4;
  static constexpr size_t kHotBytes = 16;
  static constexpr size_t kColdBytes = 64;
  static constexpr size_t kBytesPerClient = kHotBytes + kColdBytes;
  static constexpr size_t kMaxCapacity = size_t{1} << 31;
  static constexpr uint32_t kNoSlot = UINT32_MAX;
  // Attempts of a reader at a record being replaced (then it is skipped).
  static constexpr int kReadTries = 8;

  // Allocates and zeroes capacity * 80 bytes (huge pages advised).
  static absl::StatusOr<std::unique_ptr<NtpClientRecords>> Create(
      const Options& options);
  ~NtpClientRecords();
  NtpClientRecords(const NtpClientRecords&) = delete;
  NtpClientRecords& operator=(const NtpClientRecords&) = delete;

  // ---- Writer: the owning worker only --------------------------------------

  // The client's hash in this table (HashNtpClient with its seed).
  NtpClientHash HashOf(const NtpClientKey& key) const {
    return HashNtpClient(key, seed_);
  }
  uint64_t seed() const { return seed_; }
  // Starts loading the client's hot line (a prefetch instruction; no state).
  void Prefetch(const NtpClientKey& key) const { Prefetch(HashOf(key)); }
  void Prefetch(NtpClientHash hash) const {
    const char* line =
        reinterpret_cast<const char*>(hot_ + BucketOf(hash.value));
#if defined(__x86_64__)
    asm volatile("prefetcht0 %0" : : "m"(*line));
#else
    __builtin_prefetch(line, 1, 3);
#endif
  }
  // Records one request from `key` (whose HashOf is `hash`) received at
  // `rx_time` (inserting the client if new) and returns its slot for the
  // calls below. The slot is the client's until a later Request inserts
  // another client in its place: a caller that holds slots across Requests
  // (a burst's) keeps FingerprintOf(slot) and checks it is unchanged. A
  // symmetric-key request also starts loading the cold line, which
  // Answered reads after the MAC check.
  uint32_t Request(const NtpClientKey& key, NtpClientHash hash, TaiNs rx_time,
                   NtpClientAuth auth);
  uint32_t Request(const NtpClientKey& key, TaiNs rx_time, NtpClientAuth auth) {
    return Request(key, HashOf(key), rx_time, auth);
  }
  // The fingerprint of the client in `slot` now (the writer's view).
  uint32_t FingerprintOf(uint32_t slot) const {
    return HotOf(slot).tag.load(std::memory_order_relaxed);
  }
  // Writes the cold lines of the clients inserted since the last Flush:
  // after every burst. Request flushes by itself when kMaxPending are
  // waiting; Drop, Kiss and Answered complete their client's insert first.
  void Flush();
  void Drop(uint32_t slot, NtpClientDrop reason);
  void Kiss(uint32_t slot);
  // The request was answered (or kissed) after authentication: its key id
  // (auth kSymmetricKey) and whether the reply was interleaved.
  void Answered(uint32_t slot, uint32_t key_id, bool interleaved);

  // ---- Readers: any thread -------------------------------------------------

  enum class ReadResult : uint8_t { kOk, kEmpty, kBusy };
  // The record in `slot` (0 .. capacity()-1).
  ReadResult Read(size_t slot, NtpClientRecord* out) const;
  // Calls f(const NtpClientRecord&) for every client; returns the records
  // skipped because they were being replaced throughout kReadTries reads.
  template <typename F>
  size_t ForEach(F&& f) const {
    size_t busy = 0;
    NtpClientRecord r;
    for (size_t slot = 0; slot < capacity(); ++slot) {
      if (!Used(slot)) continue;
      const ReadResult res = Read(slot, &r);
      if (res == ReadResult::kOk) f(r);
      busy += res == ReadResult::kBusy ? 1 : 0;
    }
    return busy;
  }
  // The record of exactly `key` (its fingerprint and full address).
  std::optional<NtpClientRecord> Find(const NtpClientKey& key) const;
  // Whether `slot` holds a client now (one load of its hot line), and its
  // request count: a cheap pre-filter before Read.
  bool Used(size_t slot) const { return Requests(slot) != 0; }
  uint64_t Requests(size_t slot) const {
    return HotOf(slot).word.load(std::memory_order_relaxed) & kCountMask;
  }

  size_t capacity() const { return num_buckets_ * kWays; }
  size_t memory_bytes() const { return alloc_bytes_; }
  NtpClientRecordStats stats() const {
    return {tracked_.load(std::memory_order_relaxed),
            inserted_.load(std::memory_order_relaxed),
            evictions_.load(std::memory_order_relaxed)};
  }

  // The 2^-4 s stamp kept for `t` (as the rate limiter's: modulo 2^32, it
  // wraps every 8.5 years; a reader counts it from first_seen).
  static uint32_t Stamp(TaiNs t) {
    return static_cast<uint32_t>(static_cast<uint64_t>(t.value) /
                                 (kNanosPerSecond >> kStampFracBits));
  }
  static constexpr int kStampFracBits = 4;

 private:
  // requests in the low 56 bits of the hot word, flags in the top 8.
  static constexpr uint64_t kCountMask = (uint64_t{1} << 56) - 1;
  static constexpr int kAuthShift = 56;  // 2 bits: NtpClientAuth
  static constexpr uint64_t kAuthMask = uint64_t{3} << kAuthShift;
  static constexpr uint64_t kInterleaved = uint64_t{1} << 58;
  static constexpr uint64_t kIpv6 = uint64_t{1} << 59;
  // The per-record seqlock: kInserting while a client is (re)inserted (its
  // cold line is the previous client's until Flush), and a 3-bit count of
  // completed inserts.
  static constexpr uint64_t kInserting = uint64_t{1} << 60;
  static constexpr int kGenShift = 61;
  static constexpr uint64_t kGenMask = uint64_t{7} << kGenShift;

  // Shared fields: written by the owning worker, read by any reader.
  struct HotWay {
    std::atomic<uint32_t> tag{0};   // the address's fingerprint
    std::atomic<uint32_t> last{0};  // Stamp() of the latest request
    std::atomic<uint64_t> word{0};  // requests | flags; 0: unused
  };
  struct alignas(64) HotBucket {
    HotWay way[kWays];
  };
  struct alignas(64) Cold {
    std::atomic<uint32_t> key_id{0};
    std::atomic<uint32_t> reserved{0};
    std::atomic<uint64_t> addr_hi{0};
    std::atomic<uint64_t> addr_lo{0};
    std::atomic<int64_t> first_seen_ns{0};  // TAI
    std::atomic<uint64_t> drops_rate_limit{0};
    std::atomic<uint64_t> drops_acl{0};
    std::atomic<uint64_t> drops_auth{0};
    std::atomic<uint64_t> kod{0};
  };

  NtpClientRecords() = default;
  size_t BucketOf(uint64_t h) const {
    return static_cast<size_t>(((h & 0xffffffffu) * num_buckets_) >> 32);
  }
  HotWay& HotOf(size_t slot) { return hot_[slot / kWays].way[slot % kWays]; }
  const HotWay& HotOf(size_t slot) const {
    return hot_[slot / kWays].way[slot % kWays];
  }
  // A new client's record, its cold line waiting for Flush.
  struct Pending {
    uint32_t slot = kNoSlot;  // kNoSlot: replaced again before Flush
    NtpClientKey key;
    TaiNs rx_time;
  };
  static constexpr size_t kMaxPending = 64;

  uint32_t Insert(size_t bucket, uint32_t tag, const NtpClientKey& key,
                  TaiNs rx_time, uint32_t now, uint64_t flags);
  static void StoreFence();
  void WriteCold(const Pending& p);
  void Publish(Pending& p);
  // Completes `slot`'s insert if it is still waiting for Flush.
  void CompleteIfPending(uint32_t slot) {
    if (HotOf(slot).word.load(std::memory_order_relaxed) & kInserting) {
      CompletePending(slot);
    }
  }
  void CompletePending(uint32_t slot);
  static void Bump(std::atomic<uint64_t>& counter) {
    counter.store(counter.load(std::memory_order_relaxed) + 1,
                  std::memory_order_release);
  }

  HotBucket* hot_ = nullptr;
  Cold* cold_ = nullptr;
  void* mem_ = nullptr;
  size_t num_buckets_ = 0;
  size_t alloc_bytes_ = 0;
  uint64_t seed_ = 0;
  std::atomic<uint64_t> tracked_{0};
  std::atomic<uint64_t> inserted_{0};
  std::atomic<uint64_t> evictions_{0};
  Pending pending_[kMaxPending];  // the writer's alone
  size_t n_pending_ = 0;
};

}  // namespace zg::core

#endif  // ZG_CORE_NTP_NTP_CLIENT_RECORDS_H_
