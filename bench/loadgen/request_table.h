// SPDX-License-Identifier: Apache-2.0
// The requests one zg-loadgen lane has in flight, and the matching of replies
// to them.
//
// A lane (one lcore, one RX/TX queue pair) simulates `clients` clients. Each
// client numbers its requests with a sequence number; the table keeps the
// last `depth` requests of every client in slot
//
//   client * depth + (sequence mod depth)
//
// with the 64-bit key the request carried (NTP: the transmit timestamp the
// server must echo as its origin; PTP: sequenceId and port identity folded
// into 64 bits) and the TSC at which it left. A reply names its client
// (NTP: the address and port it is sent to; PTP: requestingPortIdentity) and
// sequence (NTP: the low bits of the echoed origin, see TagNtpTransmit; PTP:
// sequenceId); the slot's key must then equal the reply's exactly, otherwise
// the reply is unknown (stale, corrupt, or not ours).
//
// Each request is classified once, by its first reply or by its end:
//   answered  first reply within `timeout_ticks` of sending      (kFirst)
//   late      first reply after the timeout                      (kFirstLate)
//   lost      no reply while tracked: its slot was reused by the same client
//             `depth` requests later, or Finish() ran            (expired)
// and every further reply to it is a duplicate (kDuplicate).
//
// Fixed memory (Create allocates clients * depth slots once); no allocation,
// locks or syscalls after that. One writer: the lane's lcore.
//
//   auto table = RequestTable::Create(clients, 16, timeout_ticks);
//   uint32_t seq = (*table)->NextSequence(client);
//   ... build the request with key k (from seq), send it at tsc t ...
//   if ((*table)->OnSent(client, seq, k, t)) ++lost;   // slot's old request
//   ... reply for (client, seq) with key k arrives at tsc r ...
//   ReplyMatch m = (*table)->OnReply(client, seq, k, r);
//   ... at the end, after a drain of one timeout:
//   lost += (*table)->Finish();
#ifndef ZG_BENCH_LOADGEN_REQUEST_TABLE_H_
#define ZG_BENCH_LOADGEN_REQUEST_TABLE_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "core/time/time_types.h"

namespace zg::bench {

enum class MatchOutcome : uint8_t {
  kFirst = 0,      // first reply, in time: the request is answered
  kFirstLate = 1,  // first reply, after the timeout: the request is late
  kDuplicate = 2,  // a further reply to an answered or late request
  kUnknown = 3,    // no request with this client, sequence and key
};
const char* MatchOutcomeName(MatchOutcome outcome);

struct ReplyMatch {
  MatchOutcome outcome = MatchOutcome::kUnknown;
  uint64_t tx_tsc = 0;  // when the request left (kFirst, kFirstLate)
};

class RequestTable {
 public:
  // Most slots one table may hold (clients * depth): 2^22, 96 MiB.
  static constexpr uint64_t kMaxSlots = uint64_t{1} << 22;
  // Largest depth: PTP sequenceIds are 16 bits.
  static constexpr uint32_t kMaxDepth = 1u << 16;

  // `depth` must be a power of two in [1, kMaxDepth]; clients >= 1;
  // clients * depth <= kMaxSlots; timeout_ticks > 0.
  static absl::StatusOr<std::unique_ptr<RequestTable>> Create(
      uint32_t clients, uint32_t depth, uint64_t timeout_ticks);

  uint32_t clients() const { return clients_; }
  uint32_t depth() const { return depth_mask_ + 1; }
  uint64_t timeout_ticks() const { return timeout_ticks_; }

  // The next sequence number of `client` (< clients()); each call advances
  // it. Gaps (a sequence taken but never sent) are harmless.
  uint32_t NextSequence(uint32_t client) { return next_seq_[client]++; }

  // Records that `client`'s request `seq` with `key` left at `tx_tsc`.
  // Returns true when this evicted an earlier request of that client still
  // waiting for its first reply: that request is lost.
  bool OnSent(uint32_t client, uint32_t seq, uint64_t key, uint64_t tx_tsc);

  // Matches a reply for (client, seq) carrying `key`, received at `rx_tsc`.
  // client >= clients() gives kUnknown.
  ReplyMatch OnReply(uint32_t client, uint32_t seq, uint64_t key,
                     uint64_t rx_tsc);

  // The tracked request of (client, seq), if one waits or was answered:
  // its key, for parsers that check the reply against the request.
  // Returns false when the slot is empty or client is out of range.
  bool KeyOf(uint32_t client, uint32_t seq, uint64_t* key) const;

  // Requests still waiting for their first reply (slots scanned: O(size)).
  uint64_t CountWaiting() const;

  // Ends the run: every request still waiting is lost. Returns how many.
  // The table is then empty.
  uint64_t Finish();

 private:
  enum class State : uint8_t { kEmpty, kWaiting, kAnswered, kLate };
  struct Slot {
    uint64_t key = 0;
    uint64_t tx_tsc = 0;
    State state = State::kEmpty;
  };
  RequestTable(uint32_t clients, uint32_t depth, uint64_t timeout_ticks);
  uint64_t SlotOf(uint32_t client, uint32_t seq) const {
    return uint64_t{client} * (depth_mask_ + 1) + (seq & depth_mask_);
  }

  uint32_t clients_;
  uint32_t depth_mask_;
  uint64_t timeout_ticks_;
  std::vector<Slot> slots_;
  std::vector<uint32_t> next_seq_;
};

// NTP requests carry the sequence in the low `tag_bits` bits of the transmit
// timestamp's fraction (as chrony fills the bits below its precision with
// random ones). With tag_bits = log2(depth) this moves the timestamp on the
// wire by less than 2^(tag_bits - 32) s (3.7 ns for depth 16); the lane keeps
// the exact send time itself, so no measurement loses precision.
constexpr core::NtpTimestamp TagNtpTransmit(core::NtpTimestamp t, uint32_t seq,
                                            int tag_bits) {
  const uint32_t mask = tag_bits >= 32 ? ~0u : (1u << tag_bits) - 1;
  return {t.seconds, (t.fraction & ~mask) | (seq & mask)};
}
constexpr uint32_t NtpTransmitTag(core::NtpTimestamp t, int tag_bits) {
  const uint32_t mask = tag_bits >= 32 ? ~0u : (1u << tag_bits) - 1;
  return t.fraction & mask;
}

}  // namespace zg::bench

#endif  // ZG_BENCH_LOADGEN_REQUEST_TABLE_H_
