// SPDX-License-Identifier: Apache-2.0
#include "bench/loadgen/request_table.h"

#include <bit>

#include "absl/strings/str_cat.h"

namespace zg::bench {

const char* MatchOutcomeName(MatchOutcome outcome) {
  switch (outcome) {
    case MatchOutcome::kFirst:
      return "first";
    case MatchOutcome::kFirstLate:
      return "late";
    case MatchOutcome::kDuplicate:
      return "duplicate";
    case MatchOutcome::kUnknown:
      return "unknown";
  }
  return "?";
}

absl::StatusOr<std::unique_ptr<RequestTable>> RequestTable::Create(
    uint32_t clients, uint32_t depth, uint64_t timeout_ticks) {
  if (clients == 0) {
    return absl::InvalidArgumentError("request table: need at least 1 client");
  }
  if (depth == 0 || depth > kMaxDepth || !std::has_single_bit(depth)) {
    return absl::InvalidArgumentError(
        absl::StrCat("request table: depth ", depth,
                     " must be a power of two in [1, ", kMaxDepth, "]"));
  }
  if (uint64_t{clients} * depth > kMaxSlots) {
    return absl::InvalidArgumentError(absl::StrCat(
        "request table: ", clients, " clients x depth ", depth, " = ",
        uint64_t{clients} * depth, " slots exceeds ", kMaxSlots,
        "; use fewer clients per lane (more lcores) or a smaller depth"));
  }
  if (timeout_ticks == 0) {
    return absl::InvalidArgumentError("request table: timeout must be > 0");
  }
  return std::unique_ptr<RequestTable>(
      new RequestTable(clients, depth, timeout_ticks));
}

RequestTable::RequestTable(uint32_t clients, uint32_t depth,
                           uint64_t timeout_ticks)
    : clients_(clients),
      depth_mask_(depth - 1),
      timeout_ticks_(timeout_ticks),
      slots_(uint64_t{clients} * depth),
      next_seq_(clients, 0) {}

bool RequestTable::OnSent(uint32_t client, uint32_t seq, uint64_t key,
                          uint64_t tx_tsc) {
  Slot& s = slots_[SlotOf(client, seq)];
  const bool evicted = s.state == State::kWaiting;
  s.key = key;
  s.tx_tsc = tx_tsc;
  s.state = State::kWaiting;
  return evicted;
}

ReplyMatch RequestTable::OnReply(uint32_t client, uint32_t seq, uint64_t key,
                                 uint64_t rx_tsc) {
  if (client >= clients_) return {};
  Slot& s = slots_[SlotOf(client, seq)];
  if (s.state == State::kEmpty || s.key != key) return {};
  if (s.state != State::kWaiting) return {MatchOutcome::kDuplicate, s.tx_tsc};
  // A reply stamped before its request left (clock read reordering) counts
  // as in time: the subtraction wraps to a huge value, so compare signed.
  const int64_t age = static_cast<int64_t>(rx_tsc - s.tx_tsc);
  if (age > static_cast<int64_t>(timeout_ticks_)) {
    s.state = State::kLate;
    return {MatchOutcome::kFirstLate, s.tx_tsc};
  }
  s.state = State::kAnswered;
  return {MatchOutcome::kFirst, s.tx_tsc};
}

bool RequestTable::KeyOf(uint32_t client, uint32_t seq, uint64_t* key) const {
  if (client >= clients_) return false;
  const Slot& s = slots_[SlotOf(client, seq)];
  if (s.state == State::kEmpty) return false;
  *key = s.key;
  return true;
}

uint64_t RequestTable::CountWaiting() const {
  uint64_t n = 0;
  for (const Slot& s : slots_) n += s.state == State::kWaiting;
  return n;
}

uint64_t RequestTable::Finish() {
  uint64_t lost = 0;
  for (Slot& s : slots_) {
    lost += s.state == State::kWaiting;
    s = Slot();
  }
  return lost;
}

}  // namespace zg::bench
