// SPDX-License-Identifier: Apache-2.0
#include "core/nts/nts_ke_admission.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace zg::core {
namespace {

constexpr int kFrac = NtpTokenBucket::kTimeFracBits;

// chrony's 2^-4 s time stamp (modulo 2^32; only differences are used).
uint32_t Stamp(int64_t mono_ns) {
  return static_cast<uint32_t>(static_cast<uint64_t>(mono_ns) /
                               (1'000'000'000ull >> kFrac));
}

}  // namespace

NtsKeSource NtsKeSource::V6(const Ipv6Addr& a) {
  NtsKeSource s;
  for (int i = 0; i < 8; ++i) s.hi = (s.hi << 8) | a.b[i];
  s.ipv6 = true;
  return s;
}

std::string NtsKeSource::ToString() const {
  if (!ipv6) return Ipv4Addr{v4}.ToString();
  Ipv6Addr a;
  for (int i = 0; i < 8; ++i) a.b[i] = static_cast<uint8_t>(hi >> (56 - 8 * i));
  return absl::StrCat(a.ToString(), "/64");
}

const char* NtsKeRefusalName(NtsKeRefusal r) {
  switch (r) {
    case NtsKeRefusal::kNone:
      return "none";
    case NtsKeRefusal::kRateLimited:
      return "rate_limited";
    case NtsKeRefusal::kFull:
      return "full";
    case NtsKeRefusal::kCount:
      break;
  }
  return "unknown";
}

NtsKeAdmission::NtsKeAdmission(const Config& config)
    : config_(config),
      bucket_(NtpTokenBucket::For(config.rate)),
      leak_{(config.seed != 0 ? config.seed : 0x9E3779B97F4A7C15ull) | 1} {
  if (config_.max_sources == 0) config_.max_sources = 1;
}

NtsKeAdmission::Record& NtsKeAdmission::Find(const NtsKeSource& source,
                                             uint32_t now) {
  auto it = sources_.find(source);
  if (it != sources_.end()) return it->second;
  if (sources_.size() >= config_.max_sources) {
    // Forget the sources with nothing open: each record is dropped once
    // for each time it was added, so this costs O(1) per source added.
    absl::erase_if(sources_,
                   [](const auto& kv) { return kv.second.connections == 0; });
  }
  Record r;
  r.last = now;
  r.tokens = bucket_.max_tokens;  // a new source starts with a full bucket
  return sources_.emplace(source, r).first->second;
}

// chrony clientlog.c update_record (the tokens for the time since the last
// connection) and CLG_LimitServiceRate (a token, or the leak).
bool NtsKeAdmission::RateLimited(Record& r, uint32_t now) {
  r.tokens = bucket_.Refill(r.tokens, r.last, now);
  r.last = now;
  if (r.tokens >= bucket_.tokens_per_hit) {
    r.tokens = static_cast<uint16_t>(r.tokens - bucket_.tokens_per_hit);
    return false;
  }
  if (leak_.Leak(config_.rate.leak_log2)) {
    r.tokens = 0;
    return false;
  }
  return true;
}

NtsKeAdmission::Decision NtsKeAdmission::Admit(const NtsKeSource& source,
                                               int64_t mono_ns) {
  const uint32_t t = Stamp(mono_ns);
  Record& r = Find(source, t);
  Decision d;
  if (config_.rate_limit && RateLimited(r, t)) {
    ++r.refused;
    d.refusal = NtsKeRefusal::kRateLimited;
    return d;
  }
  if (connections_ < config_.max_connections) return d;
  // Full: the heaviest source gives one up if it holds at least two more
  // than this one would.
  const NtsKeSource* heaviest = nullptr;
  uint32_t most = 0;
  for (const auto& [s, rec] : sources_) {
    if (rec.connections > most) {
      most = rec.connections;
      heaviest = &s;
    }
  }
  if (heaviest != nullptr && most >= r.connections + 2) {
    d.cut = true;
    d.cut_source = *heaviest;
    return d;
  }
  ++r.refused;
  d.refusal = NtsKeRefusal::kFull;
  return d;
}

void NtsKeAdmission::Opened(const NtsKeSource& source) {
  auto it = sources_.find(source);
  if (it == sources_.end()) {
    it = sources_.emplace(source, Record{}).first;
    it->second.tokens = bucket_.max_tokens;
  }
  ++it->second.connections;
  ++connections_;
}

void NtsKeAdmission::Closed(const NtsKeSource& source) {
  auto it = sources_.find(source);
  if (it == sources_.end() || it->second.connections == 0) return;
  --it->second.connections;
  --connections_;
}

uint32_t NtsKeAdmission::ConnectionsOf(const NtsKeSource& source) const {
  auto it = sources_.find(source);
  return it == sources_.end() ? 0 : it->second.connections;
}

NtsKeAdmission::TopRefused NtsKeAdmission::TakeTopRefused() {
  TopRefused top;
  for (auto& [s, rec] : sources_) {
    if (rec.refused > top.refused) top = {s, rec.refused};
    rec.refused = 0;
  }
  return top;
}

}  // namespace zg::core
