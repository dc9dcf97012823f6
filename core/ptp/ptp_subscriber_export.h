// SPDX-License-Identifier: Apache-2.0
// PtpSubscriberExport: how an operator (zgctl ptp subscribers) sees the
// unicast subscribers of a worker's table (ptp_unicast_table.h) without
// touching it from another thread and without stalling the worker.
//
// The control thread asks (Request: the top N by message rate); the worker,
// which alone owns its table, notices at its next poll (one relaxed load
// per poll while nothing is asked), walks the table kChunk slots per poll —
// a bounded slice of work, so a 1M-entry table takes a few hundred polls
// rather than one long stall — keeping the N busiest subscribers in this
// object's fixed array (a min-heap: no allocation), then marks the request
// done (release). The control thread reads the entries once Done() says so
// (acquire); until its next Request the worker does not write them.
//
//   PtpSubscriberExport exp;                     // shared: worker + control
//   uint64_t gen = exp.Request(20);              // control thread
//   exp.Step(&table, now_s);                     // worker, each poll
//   if (exp.Done(gen)) for (auto& e : exp.entries()) ...   // control thread
#ifndef ZG_CORE_PTP_PTP_SUBSCRIBER_EXPORT_H_
#define ZG_CORE_PTP_PTP_SUBSCRIBER_EXPORT_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <span>

#include "core/ptp/ptp_profile.h"
#include "core/ptp/ptp_unicast_table.h"

namespace zg::core {

struct PtpSubscriberEntry {
  PtpUnicastClientKey key;
  uint8_t granted = 0;  // bit i: PtpGrantType i
  std::array<int8_t, kPtpGrantTypeCount> log_interval{};
  // Seconds until each grant ends (0 where not granted).
  std::array<uint32_t, kPtpGrantTypeCount> expires_in_s{};
  double rate = 0;  // messages per second the grants commit
};

// Messages per second `s`'s live grants commit (a Sync grant counts once;
// its Follow_Ups are the port's business).
double PtpSubscriberRate(const PtpUnicastSubscriber& s);

// The order of "busiest": higher rate first, then the lower address (and
// port identity), so equal rates come out the same in every run.
bool PtpSubscriberBusier(const PtpSubscriberEntry& a,
                         const PtpSubscriberEntry& b);

class PtpSubscriberExport {
 public:
  static constexpr uint32_t kMaxTop = 1000;
  static constexpr uint32_t kChunk = 4096;  // table slots per Step

  // ---- Control thread.
  // Asks for the `top` (clamped to 1..kMaxTop) busiest subscribers; returns
  // the request's generation. A request still being walked is abandoned.
  uint64_t Request(uint32_t top);
  // Whether request `gen` is done; then entries() and total() hold its
  // answer until the next Request (which the worker starts writing over:
  // read them before asking again).
  bool Done(uint64_t gen) const {
    return completed_.load(std::memory_order_acquire) == gen;
  }
  // Unordered (a heap); at most `top`.
  std::span<const PtpSubscriberEntry> entries() const {
    return {entries_.data(), count_};
  }
  uint32_t total() const { return total_; }  // subscribers walked

  // ---- Worker (the table's owner), once per poll. `table` may be null (no
  // unicast negotiation: an empty answer). `now_s`: the table's clock.
  void Step(const PtpUnicastTable* table, uint32_t now_s) {
    if (requested_.load(std::memory_order_relaxed) == done_) return;
    Walk(table, now_s);
  }

 private:
  void Walk(const PtpUnicastTable* table, uint32_t now_s);
  void Consider(const PtpUnicastSubscriber& s, uint32_t now_s);

  // Written by: control thread (top_ before requested_, release). Read by:
  // the worker (after acquiring requested_; atomic because a second Request
  // may overwrite it while the worker reads it for the first).
  std::atomic<uint32_t> top_{0};
  std::atomic<uint64_t> requested_{0};
  // Written by: the worker (entries_, count_, total_ before completed_,
  // release). Read by: the control thread after Done().
  std::atomic<uint64_t> completed_{0};
  std::array<PtpSubscriberEntry, kMaxTop> entries_{};
  uint32_t count_ = 0;
  uint32_t total_ = 0;
  // Worker only.
  uint64_t done_ = 0;     // completed_, without the atomic load per poll
  uint64_t working_ = 0;  // the request being walked
  uint32_t walk_top_ = 0;
  uint32_t cursor_ = 0;
};

}  // namespace zg::core

#endif  // ZG_CORE_PTP_PTP_SUBSCRIBER_EXPORT_H_
