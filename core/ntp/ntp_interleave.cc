// SPDX-License-Identifier: Apache-2.0
#include "core/ntp/ntp_interleave.h"

#include <bit>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/base/byte_order.h"

namespace zg::core {
namespace {

// 1 s in NTP units: a pending entry older than this lost its TX time.
constexpr int64_t kStalePendingNtp = int64_t{1} << 32;
// The most |T3 - T2| an entry keeps: int32 in 2^-32 s units (0.5 s).
constexpr int64_t kMaxTxMinusRx = INT32_MAX;

// Wrap-around difference a - b of two NTP 64-bit values (adjacent eras
// compare as neighbours, as chrony's find_ntp_rx_ts does).
int64_t NtpDiff(uint64_t a, uint64_t b) { return static_cast<int64_t>(a - b); }

}  // namespace

NtpInterleavedRequest NtpInterleavedLookup(const uint8_t* payload,
                                           const NtpRequestCheck& check) {
  NtpInterleavedRequest r;
  if (check.version != 4) return r;
  r.origin = LoadNtpTimestamp(payload + kNtpOffsetOriginTime);
  r.receive = LoadNtpTimestamp(payload + kNtpOffsetReceiveTime);
  const NtpTimestamp transmit =
      LoadNtpTimestamp(payload + kNtpOffsetTransmitTime);
  // chrony: origin.lo & 1 (one of our tagged T2s, never zero) and
  // receive != transmit (a basic or symmetric packet may repeat one).
  r.looks_interleaved =
      (r.origin.fraction & 1) != 0 && !(r.receive == transmit);
  return r;
}

absl::StatusOr<NtpInterleaveTable> NtpInterleaveTable::Create(uint32_t slots) {
  if (slots < kNtpInterleaveMinSlots || slots > kNtpInterleaveMaxSlots) {
    return absl::InvalidArgumentError(absl::StrCat(
        "NTP interleave table: ", slots, " slots is outside [",
        kNtpInterleaveMinSlots, ", ", kNtpInterleaveMaxSlots,
        "]; size it to the interleaved clients one worker serves"));
  }
  NtpInterleaveTable t(std::bit_ceil(slots));
  t.hash_shift_ = 64 - static_cast<uint32_t>(std::countr_zero(
                           static_cast<uint64_t>(t.buckets_.size())));
  return t;
}

uint32_t NtpInterleaveTable::BucketOf(uint64_t rx) const {
  // Fibonacci hashing: the key's low (fast-changing) bits reach the top.
  return static_cast<uint32_t>((rx * 0x9E3779B97F4A7C15ull) >> hash_shift_);
}

NtpInterleaveTable::Taken NtpInterleaveTable::Take(NtpTimestamp rx) {
  const uint64_t key = rx.ToU64();
  Bucket& b = buckets_[BucketOf(key)];
  for (Entry& e : b.way) {
    if (e.rx != key || e.state == State::kEmpty) continue;
    Taken t;
    switch (e.state) {
      case State::kReady:
        t.result = TakeResult::kHit;
        t.tx = NtpTimestamp::FromU64(
            key + static_cast<uint64_t>(int64_t{e.tx_minus_rx}));
        break;
      case State::kUsed:
      case State::kPendingUsed:
        t.result = TakeResult::kReplay;
        break;
      case State::kPending:
      case State::kNoTx:
      case State::kEmpty:
        t.result = TakeResult::kNoTx;
        break;
    }
    Disable(e);
    return t;
  }
  return {};
}

NtpTimestamp NtpInterleaveTable::UniqueRx(NtpTimestamp rx) {
  uint64_t key = TagNtpRx(rx).ToU64();
  const int64_t behind = NtpDiff(last_rx_, key);
  if (have_last_ && behind >= 0 &&
      behind <= static_cast<int64_t>(kNtpInterleaveMaxBump)) {
    key = last_rx_ + 2;  // odd again: last_rx_ is tagged
  }
  if (!have_last_ || NtpDiff(key, last_rx_) > 0) last_rx_ = key;
  have_last_ = true;
  return NtpTimestamp::FromU64(key);
}

uint32_t NtpInterleaveTable::Victim(uint32_t bucket, uint64_t rx) const {
  const Bucket& b = buckets_[bucket];
  uint32_t oldest = kWays;
  int64_t oldest_age = INT64_MIN;
  for (uint32_t w = 0; w < kWays; ++w) {
    const Entry& e = b.way[w];
    if (e.state == State::kEmpty || e.state == State::kUsed) return w;
    const int64_t age = NtpDiff(rx, e.rx);
    if (IsPending(e.state) && age <= kStalePendingNtp) continue;
    // kNoTx entries can answer nothing: before any kReady one.
    const int64_t rank = e.state == State::kNoTx ? INT64_MAX : age;
    if (rank > oldest_age) {
      oldest_age = rank;
      oldest = w;
    }
  }
  return oldest;
}

NtpInterleaveTable::Saved NtpInterleaveTable::Save(NtpTimestamp rx) {
  const uint64_t key = rx.ToU64();
  const uint32_t bucket = BucketOf(key);
  Bucket& b = buckets_[bucket];
  for (Entry& e : b.way) {
    if (e.rx == key && e.state != State::kEmpty) {
      Disable(e);  // ambiguous: neither reply answers
      return {SaveResult::kDuplicate, kNtpInterleaveNoSlot};
    }
  }
  const uint32_t w = Victim(bucket, key);
  if (w == kWays) return {SaveResult::kBusy, kNtpInterleaveNoSlot};
  Entry& e = b.way[w];
  const bool evicting = e.state == State::kReady || e.state == State::kPending;
  e.rx = key;
  e.tx_minus_rx = 0;
  e.state = State::kPending;
  return {evicting ? SaveResult::kSavedEvicting : SaveResult::kSaved,
          bucket * kWays + w};
}

void NtpInterleaveTable::SetTx(uint32_t slot, NtpTimestamp tx) {
  if (slot >= slots()) return;
  Entry& e = At(slot);
  if (e.state == State::kPendingUsed) e.state = State::kUsed;
  if (e.state != State::kPending) return;
  const int64_t d = NtpDiff(TagNtpTx(tx).ToU64(), e.rx);
  if (d > kMaxTxMinusRx || d < -kMaxTxMinusRx) {
    e.state = State::kNoTx;
    return;
  }
  e.tx_minus_rx = static_cast<int32_t>(d);
  e.state = State::kReady;
}

void NtpInterleaveTable::ClearTx(uint32_t slot) {
  if (slot >= slots()) return;
  Entry& e = At(slot);
  if (e.state == State::kPending || e.state == State::kReady) {
    e.state = State::kNoTx;
  } else if (e.state == State::kPendingUsed) {
    e.state = State::kUsed;
  }
}

}  // namespace zg::core
