// SPDX-License-Identifier: Apache-2.0
// NTP interleaved mode on the server side (RFC 9769, chrony's `xleave`): a
// per-worker table that maps the receive timestamp (T2) we sent in a reply
// to that reply's exact transmit time, so the client's next request, whose
// origin timestamp is that T2, can be answered with it as T3.
//
// The exchange (chrony ntp_core.c NCR_ProcessRxUnknown/transmit_packet):
//   reply n     T2 = rx(n), tagged: lowest fraction bit 1; saved as a key
//               T3 = software/scheduled stamp, lowest fraction bit 0
//   after TX    the table learns tx(n), the time reply n really left
//   request n+1 origin = rx(n) (a low bit of 1 marks our T2, so only such
//               requests are looked up), receive = the client's T4 of n
//   reply n+1   interleaved: origin = the request's receive timestamp,
//               T2 = rx(n+1) (saved again), T3 = tx(n), exact
// Requests that look interleaved (NtpInterleavedLookup: NTPv4, origin with
// the tag bit, receive != transmit) and whose origin is not in the table,
// was already answered once (replay), or has no transmit time get a basic
// reply, as chrony does; a new client's third reply is its first
// interleaved one. Requests that do not look interleaved cost nothing here.
//
// The table: 4-way set-associative, one 64-byte bucket (4 entries of 16
// bytes) per set, indexed by a hash of the key. Chosen over chrony's
// ordered ring (clientlog.c: binary search with interpolation over RX
// stamps kept in time order) because
//  - a lookup reads one cache line; the ring's search reads several;
//  - a worker's RX stamps need not arrive in order (several queues or ports
//    per worker, NIC stamps), and the ring must insert in place for those;
//  - a pending entry keeps its slot from Save (in Handle) to SetTx (after
//    tx_burst), so the worker's note carries the slot, not the key.
// Eviction is per bucket: an answered or empty entry first, then the
// oldest (by RX time); an entry still waiting for its transmit time is
// never evicted unless more than a second old (its TX was lost). Memory is
// `slots` x 16 bytes, allocated by Create and never afterwards.
//
// Replay protection as chrony's: an entry answers one interleaved request
// (then it is disabled), and a key saved twice is disabled (two replies
// with one T2 would be ambiguous). Keys are NTP 64-bit values compared with
// wrap-around, so the era 2036 rollover is a timestamp like any other.
// Unique keys: software RX stamps are one TSC read per burst, so two
// requests of one burst would share a T2; UniqueRx moves a key that is not
// after the previous saved key by up to kNtpInterleaveMaxBump to just past
// it (2^-31 s, 0.47 ns, per request of the burst: a few ns at most).
//
// Single-threaded: one table per worker. No allocation after Create, no
// locks, syscalls or exceptions.
//
//   ZG_ASSIGN_OR_RETURN(NtpInterleaveTable t, NtpInterleaveTable::Create(n));
//   // Handle: a request that NtpInterleavedLookup() says looks interleaved
//   NtpInterleaveTable::Taken old = t.Take(request_origin);   // T3 if kHit
//   NtpTimestamp rx = t.UniqueRx(TagNtpRx(t2));               // our T2
//   NtpInterleaveTable::Saved s = t.Save(rx);                 // s.slot
//   // after tx_burst
//   t.SetTx(s.slot, tx);   // or t.ClearTx(s.slot) if it was not sent
#ifndef ZG_CORE_NTP_NTP_INTERLEAVE_H_
#define ZG_CORE_NTP_NTP_INTERLEAVE_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "core/ntp/ntp_wire.h"
#include "core/time/time_types.h"

namespace zg::core {

// Bounds of the table size (entries; rounded up to a power of two).
inline constexpr uint32_t kNtpInterleaveMinSlots = 64;
inline constexpr uint32_t kNtpInterleaveMaxSlots = uint32_t{1} << 24;
// How far (2^-32 s units) UniqueRx moves a key at most: 64 requests of a
// burst sharing one stamp (~15 ns). A key further behind keeps its value.
inline constexpr uint64_t kNtpInterleaveMaxBump = 128;
// No slot (Saved::slot when nothing was saved).
inline constexpr uint32_t kNtpInterleaveNoSlot = 0xffffffff;

// T2 with the lowest fraction bit set, T3 with it cleared (chrony's tags:
// a request's origin with the bit set was one of our T2s). 2^-32 s.
constexpr NtpTimestamp TagNtpRx(NtpTimestamp t) {
  return NtpTimestamp::FromU64(t.ToU64() | 1);
}
constexpr NtpTimestamp TagNtpTx(NtpTimestamp t) {
  return NtpTimestamp::FromU64(t.ToU64() & ~uint64_t{1});
}

// What a request says about interleaved mode, read before the reply
// overwrites it: its origin, receive and transmit timestamps.
struct NtpInterleavedRequest {
  bool looks_interleaved = false;  // worth a lookup
  NtpTimestamp origin;             // our previous T2, if interleaved
  NtpTimestamp receive;            // the client's T4 of our previous reply
};
// Reads a validated request (check.drop == kNone) in payload[0..48).
NtpInterleavedRequest NtpInterleavedLookup(const uint8_t* payload,
                                           const NtpRequestCheck& check);

class NtpInterleaveTable {
 public:
  // `slots` in [kNtpInterleaveMinSlots, kNtpInterleaveMaxSlots], rounded up
  // to a power of two. Allocates slots x 16 bytes (control thread).
  static absl::StatusOr<NtpInterleaveTable> Create(uint32_t slots);

  NtpInterleaveTable(NtpInterleaveTable&&) = default;
  NtpInterleaveTable& operator=(NtpInterleaveTable&&) = default;

  uint32_t slots() const {
    return static_cast<uint32_t>(buckets_.size()) * kWays;
  }

  enum class TakeResult : uint8_t {
    kHit,      // `tx` is the transmit time of the reply whose T2 was `rx`
    kUnknown,  // never saved, or evicted
    kReplay,   // already answered an interleaved request, or ambiguous
    kNoTx,     // saved, but its transmit time is not known (not sent)
  };
  struct Taken {
    TakeResult result = TakeResult::kUnknown;
    NtpTimestamp tx;  // kHit: tagged as TagNtpTx
  };
  // Looks `rx` up and disables the entry (at most one interleaved reply
  // per entry).
  Taken Take(NtpTimestamp rx);

  // `rx` (tagged), moved past the previous saved key if it is at most
  // kNtpInterleaveMaxBump before or equal to it; otherwise unchanged. Call
  // once per key to save, then write the result as T2 and Save it.
  NtpTimestamp UniqueRx(NtpTimestamp rx);

  enum class SaveResult : uint8_t {
    kSaved,
    kSavedEvicting,  // an unanswered entry was dropped to make room
    kDuplicate,      // the key was there: both disabled, nothing saved
    kBusy,           // every entry of its bucket waits for its TX time
  };
  struct Saved {
    SaveResult result = SaveResult::kBusy;
    uint32_t slot = kNtpInterleaveNoSlot;  // for SetTx / ClearTx
  };
  // Adds `rx` with its transmit time still to come.
  Saved Save(NtpTimestamp rx);
  // The transmit time of the reply saved in `slot` (tagged as TagNtpTx
  // here). A time more than +-0.5 s from its RX time is not kept (kNoTx).
  void SetTx(uint32_t slot, NtpTimestamp tx);
  // That reply was not sent (also after SetTx).
  void ClearTx(uint32_t slot);

 private:
  // kPending: saved, its TX time to come (the slot stays its own until
  // then, unless stale); kPendingUsed: the same, already disabled.
  enum class State : uint16_t {
    kEmpty = 0,
    kPending,
    kPendingUsed,
    kReady,
    kNoTx,
    kUsed
  };
  static bool IsPending(State s) {
    return s == State::kPending || s == State::kPendingUsed;
  }
  struct Entry {
    uint64_t rx = 0;          // the key: our T2 as sent
    int32_t tx_minus_rx = 0;  // kReady: T3 - T2 in 2^-32 s units
    State state = State::kEmpty;
    uint16_t reserved = 0;
  };
  static_assert(sizeof(Entry) == 16);
  // Disables an entry (at most one answer); a pending one keeps its slot.
  static void Disable(Entry& e) {
    e.state = IsPending(e.state) ? State::kPendingUsed : State::kUsed;
  }
  static constexpr uint32_t kWays = 4;
  struct alignas(64) Bucket {  // one cache line
    Entry way[kWays];
  };

  explicit NtpInterleaveTable(uint32_t slots) : buckets_(slots / kWays) {}
  Entry& At(uint32_t slot) { return buckets_[slot / kWays].way[slot % kWays]; }
  uint32_t BucketOf(uint64_t rx) const;
  // The way of bucket `b` a new key `rx` replaces, or kWays if none may be.
  uint32_t Victim(uint32_t b, uint64_t rx) const;

  std::vector<Bucket> buckets_;  // a power of two of them
  uint32_t hash_shift_ = 64;     // 64 - log2(buckets)
  uint64_t last_rx_ = 0;         // the last key UniqueRx returned
  bool have_last_ = false;
};

}  // namespace zg::core

#endif  // ZG_CORE_NTP_NTP_INTERLEAVE_H_
