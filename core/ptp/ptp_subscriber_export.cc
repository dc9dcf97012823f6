// SPDX-License-Identifier: Apache-2.0
// The worker's side of the subscriber export (ptp_subscriber_export.h).
#include "core/ptp/ptp_subscriber_export.h"

#include <algorithm>
#include <cmath>

namespace zg::core {

bool PtpSubscriberBusier(const PtpSubscriberEntry& a,
                         const PtpSubscriberEntry& b) {
  if (a.rate != b.rate) return a.rate > b.rate;
  const PtpUnicastAddress& x = a.key.address;
  const PtpUnicastAddress& y = b.key.address;
  if (x.transport != y.transport) return x.transport < y.transport;
  if (x.octets != y.octets) return x.octets < y.octets;
  const PtpPortIdentity& p = a.key.port_identity;
  const PtpPortIdentity& q = b.key.port_identity;
  if (p.clock_identity.octets != q.clock_identity.octets) {
    return p.clock_identity.octets < q.clock_identity.octets;
  }
  return p.port_number < q.port_number;
}

namespace {

// As a heap comparator: the least busy on top.
bool Busier(const PtpSubscriberEntry& a, const PtpSubscriberEntry& b) {
  return PtpSubscriberBusier(a, b);
}

}  // namespace

double PtpSubscriberRate(const PtpUnicastSubscriber& s) {
  double rate = 0;
  for (size_t g = 0; g < kPtpGrantTypeCount; ++g) {
    if (s.Has(static_cast<PtpGrantType>(g))) {
      rate += std::ldexp(1.0, -s.log_interval[g]);
    }
  }
  return rate;
}

uint64_t PtpSubscriberExport::Request(uint32_t top) {
  top_.store(std::clamp<uint32_t>(top, 1, kMaxTop), std::memory_order_relaxed);
  const uint64_t gen = requested_.load(std::memory_order_relaxed) + 1;
  requested_.store(gen, std::memory_order_release);
  return gen;
}

void PtpSubscriberExport::Walk(const PtpUnicastTable* table, uint32_t now_s) {
  const uint64_t req = requested_.load(std::memory_order_acquire);
  if (req != working_) {  // a new request: start over
    working_ = req;
    walk_top_ = top_.load(std::memory_order_relaxed);
    cursor_ = 0;
    count_ = 0;
    total_ = 0;
  }
  const uint32_t capacity = table == nullptr ? 0 : table->capacity();
  const uint32_t end = std::min(capacity, cursor_ + kChunk);
  for (uint32_t i = cursor_; i < end; ++i) {
    if (!table->in_use(i)) continue;
    ++total_;
    Consider(table->at(i), now_s);
  }
  cursor_ = end;
  if (cursor_ < capacity) return;
  done_ = req;
  completed_.store(req, std::memory_order_release);
}

void PtpSubscriberExport::Consider(const PtpUnicastSubscriber& s,
                                   uint32_t now_s) {
  PtpSubscriberEntry e;
  e.key = s.key;
  e.granted = s.granted;
  e.log_interval = s.log_interval;
  for (size_t g = 0; g < kPtpGrantTypeCount; ++g) {
    if (s.Has(static_cast<PtpGrantType>(g)) && s.expiry_s[g] > now_s) {
      e.expires_in_s[g] = s.expiry_s[g] - now_s;
    }
  }
  e.rate = PtpSubscriberRate(s);
  const auto first = entries_.begin();
  if (count_ < walk_top_) {
    entries_[count_++] = e;
    std::push_heap(first, first + count_, Busier);
    return;
  }
  if (!Busier(e, entries_[0])) return;
  std::pop_heap(first, first + count_, Busier);
  entries_[count_ - 1] = e;
  std::push_heap(first, first + count_, Busier);
}

}  // namespace zg::core
