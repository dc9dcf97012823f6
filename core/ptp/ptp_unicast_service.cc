// SPDX-License-Identifier: Apache-2.0
#include "core/ptp/ptp_unicast_service.h"

#include <algorithm>

#include "core/base/status_macros.h"

namespace zg::core {

const char* PtpGrantDenialName(PtpGrantDenial d) {
  switch (d) {
    case PtpGrantDenial::kGranted:
      return "granted";
    case PtpGrantDenial::kTypeNotGranted:
      return "type_not_granted";
    case PtpGrantDenial::kIntervalTooShort:
      return "interval_too_short";
    case PtpGrantDenial::kIntervalTooLong:
      return "interval_too_long";
    case PtpGrantDenial::kZeroDuration:
      return "zero_duration";
    case PtpGrantDenial::kTableFull:
      return "table_full";
    case PtpGrantDenial::kNotMaster:
      return "not_master";
    case PtpGrantDenial::kPerSource:
      return "per_source";
    case PtpGrantDenial::kBudget:
      return "budget";
    case PtpGrantDenial::kAcl:
      return "acl";
    case PtpGrantDenial::kCount:
      break;
  }
  return "unknown";
}

const char* PtpGrantReductionName(PtpGrantReduction r) {
  switch (r) {
    case PtpGrantReduction::kNone:
      return "none";
    case PtpGrantReduction::kInterval:
      return "interval";
    case PtpGrantReduction::kBudget:
      return "budget";
    case PtpGrantReduction::kCount:
      break;
  }
  return "unknown";
}

absl::StatusOr<std::unique_ptr<PtpUnicastService>> PtpUnicastService::Create(
    const Config& config) {
  ZG_ASSIGN_OR_RETURN(auto table,
                      PtpUnicastTable::Create(config.capacity, config.seed));
  ZG_ASSIGN_OR_RETURN(auto scheduler,
                      PtpUnicastScheduler::Create(config.capacity));
  ZG_ASSIGN_OR_RETURN(
      auto sources,
      PtpSourceTable::Create(config.capacity, config.seed ^ 0x5eed5eedull));
  return std::unique_ptr<PtpUnicastService>(new PtpUnicastService(
      config, std::move(table), std::move(scheduler), std::move(sources)));
}

PtpUnicastService::PtpUnicastService(
    const Config& config, std::unique_ptr<PtpUnicastTable> table,
    std::unique_ptr<PtpUnicastScheduler> scheduler,
    std::unique_ptr<PtpSourceTable> sources)
    : config_(config),
      table_(std::move(table)),
      scheduler_(std::move(scheduler)),
      sources_(std::move(sources)),
      source_port_(config.capacity, 0),
      budget_units_(config.admission.ShardBudgetUnits()),
      refusal_rate_1024_(config.admission.ShardRefusalRate1024()) {}

bool PtpUnicastService::AllowRefusalReply(int64_t now_mono_ns) {
  if (refusal_rate_1024_ == 0) return true;
  // Tokens are 1/1024 reply: the bucket fills at refusal_rate_1024_ a
  // second and one reply takes 1024.
  const uint64_t burst = std::max<uint64_t>(1024, refusal_rate_1024_ / 8);
  if (now_mono_ns > refill_ns_) {
    const auto dt = static_cast<unsigned __int128>(now_mono_ns - refill_ns_);
    const auto add = static_cast<uint64_t>(std::min<unsigned __int128>(
        dt * refusal_rate_1024_ / kNanosPerSecond, burst));
    // Keep the remainder of a partial token: advance the refill time only
    // by what was credited.
    refill_ns_ = add == burst
                     ? now_mono_ns
                     : refill_ns_ + static_cast<int64_t>(
                                        static_cast<unsigned __int128>(add) *
                                        kNanosPerSecond / refusal_rate_1024_);
    refusal_tokens_ = std::min(burst, refusal_tokens_ + add);
  }
  if (refusal_tokens_ >= 1024) {
    refusal_tokens_ -= 1024;
    return true;
  }
  ++stats_.silenced;
  return false;
}

PtpGrantDenial PtpUnicastService::Check(const PtpUnicastRequest& request,
                                        bool serving) const {
  PtpGrantType g = PtpGrantType::kAnnounce;
  if (!PtpGrantIndexOf(request.message_type, &g)) {
    return PtpGrantDenial::kTypeNotGranted;
  }
  const PtpGrantLimit& limit = config_.limits.For(g);
  if (!limit.allowed) return PtpGrantDenial::kTypeNotGranted;
  if (request.log_inter_message_period < limit.log_interval.min) {
    return PtpGrantDenial::kIntervalTooShort;
  }
  if (request.log_inter_message_period > limit.log_interval.max) {
    return PtpGrantDenial::kIntervalTooLong;
  }
  if (request.duration_s == 0) return PtpGrantDenial::kZeroDuration;
  if (!serving) return PtpGrantDenial::kNotMaster;
  return PtpGrantDenial::kGranted;
}

PtpGrantDenial PtpUnicastService::Admit(PtpGrantType g, int8_t requested,
                                        uint64_t freed, int8_t* out,
                                        PtpGrantReduction* reduction) const {
  int8_t l = requested;
  *reduction = PtpGrantReduction::kNone;
  if (l < config_.admission.min_log_interval_per_source) {
    l = config_.admission.min_log_interval_per_source;
    *reduction = PtpGrantReduction::kInterval;
  }
  if (budget_units_ != 0) {
    const uint64_t used = committed_units_ - freed;
    const uint64_t room = budget_units_ > used ? budget_units_ - used : 0;
    // Slower, up to the profile's slowest rate for this type.
    const int8_t slowest = std::max(l, config_.limits.For(g).log_interval.max);
    const int8_t wanted = l;
    while (l <= slowest && Units(g, l) > room) ++l;
    if (l > slowest) return PtpGrantDenial::kBudget;
    if (l != wanted) *reduction = PtpGrantReduction::kBudget;
  }
  *out = l;
  return PtpGrantDenial::kGranted;
}

PtpGrantDecision PtpUnicastService::Request(const PtpUnicastClientKey& key,
                                            const PtpUnicastReturnPath& path,
                                            const PtpUnicastRequest& request,
                                            bool serving, int64_t now_mono_ns,
                                            uint16_t source_port) {
  PtpGrantDecision d;
  d.log_interval = request.log_inter_message_period;
  d.denial = Check(request, serving);
  PtpGrantType g = PtpGrantType::kAnnounce;
  PtpGrantIndexOf(request.message_type, &g);
  const size_t gi = static_cast<size_t>(g);
  uint32_t index = PtpUnicastTable::kNone;
  bool holds = false;  // a grant of this type (live or not yet reaped)
  if (d.granted()) {
    index = table_->Find(key);
    holds = index != PtpUnicastTable::kNone && table_->at(index).Has(g);
    const uint32_t max = config_.admission.max_grants_per_source;
    if (!holds && max != 0 && sources_->Grants(key.address) >= max) {
      d.denial = PtpGrantDenial::kPerSource;
    }
  }
  if (d.granted()) {
    const uint64_t freed =
        holds ? Units(g, table_->at(index).log_interval[gi]) : 0;
    d.denial = Admit(g, request.log_inter_message_period, freed,
                     &d.log_interval, &d.reduction);
  }
  if (d.granted() && index == PtpUnicastTable::kNone) {
    bool inserted = false;
    index = table_->Insert(key, &inserted);
    if (index == PtpUnicastTable::kNone) d.denial = PtpGrantDenial::kTableFull;
  }
  if (d.granted() && !holds && !sources_->Add(key.address)) {
    d.denial = PtpGrantDenial::kTableFull;
    if (table_->at(index).granted == 0) table_->Erase(index);
  }
  if (!d.granted()) {
    d.log_interval = request.log_inter_message_period;
    d.reduction = PtpGrantReduction::kNone;
    ++stats_.denials[static_cast<size_t>(d.denial)];
    return d;
  }
  PtpUnicastSubscriber& s = table_->at(index);
  const uint32_t now_s = Seconds(now_mono_ns);
  d.renewal = holds && now_s < s.expiry_s[gi];
  d.duration_s = std::clamp(request.duration_s, config_.limits.min_duration_s,
                            config_.limits.max_duration_s);
  if (holds) committed_units_ -= Units(g, s.log_interval[gi]);
  committed_units_ += Units(g, d.log_interval);
  source_port_[index] = source_port;
  s.path = path;
  s.Set(g, true);
  s.expiry_s[gi] = now_s + d.duration_s;
  s.log_interval[gi] = d.log_interval;
  if (g == PtpGrantType::kAnnounce || g == PtpGrantType::kSync) {
    const PtpTimerKind kind = g == PtpGrantType::kAnnounce
                                  ? PtpTimerKind::kAnnounce
                                  : PtpTimerKind::kSync;
    scheduler_->Arm(index, kind, d.log_interval, now_mono_ns);
  }
  ++stats_.grants[gi];
  if (d.renewal) ++stats_.renewals[gi];
  ++stats_.reductions[static_cast<size_t>(d.reduction)];
  return d;
}

void PtpUnicastService::EndGrant(uint32_t index, PtpGrantType type) {
  PtpUnicastSubscriber& s = table_->at(index);
  if (s.Has(type)) {
    committed_units_ -= Units(type, s.log_interval[static_cast<size_t>(type)]);
    sources_->Remove(s.key.address);
  }
  s.Set(type, false);
  if (type == PtpGrantType::kAnnounce) {
    scheduler_->Disarm(index, PtpTimerKind::kAnnounce);
  } else if (type == PtpGrantType::kSync) {
    scheduler_->Disarm(index, PtpTimerKind::kSync);
  }
  if (s.granted == 0) {
    scheduler_->Disarm(index, PtpTimerKind::kAnnounce);
    scheduler_->Disarm(index, PtpTimerKind::kSync);
    table_->Erase(index);
  }
}

PtpCancelResult PtpUnicastService::Cancel(const PtpUnicastClientKey& key,
                                          PtpMessageType type,
                                          uint16_t source_port) {
  PtpGrantType g = PtpGrantType::kAnnounce;
  if (!PtpGrantIndexOf(type, &g)) return PtpCancelResult::kNoGrant;
  const uint32_t index = table_->Find(key);
  if (index == PtpUnicastTable::kNone || !table_->at(index).Has(g)) {
    return PtpCancelResult::kNoGrant;
  }
  if (source_port_[index] != source_port) {
    ++stats_.cancels_wrong_source;
    return PtpCancelResult::kWrongSource;
  }
  ++stats_.cancels[static_cast<size_t>(g)];
  EndGrant(index, g);
  return PtpCancelResult::kCancelled;
}

bool PtpUnicastService::HasGrant(const PtpUnicastClientKey& key,
                                 PtpGrantType type, int64_t now_mono_ns) const {
  const uint32_t index = table_->Find(key);
  if (index == PtpUnicastTable::kNone) return false;
  const PtpUnicastSubscriber& s = table_->at(index);
  return s.Has(type) &&
         Seconds(now_mono_ns) < s.expiry_s[static_cast<size_t>(type)];
}

uint32_t PtpUnicastService::SweepExpired(int64_t now_mono_ns,
                                         uint32_t max_visits) {
  const uint32_t now_s = Seconds(now_mono_ns);
  const uint32_t capacity = table_->capacity();
  uint32_t removed = 0;
  for (uint32_t v = 0; v < max_visits && v < capacity; ++v) {
    const uint32_t i = sweep_cursor_;
    sweep_cursor_ = sweep_cursor_ + 1 == capacity ? 0 : sweep_cursor_ + 1;
    if (!table_->in_use(i)) continue;
    for (size_t gi = 0; gi < kPtpGrantTypeCount; ++gi) {
      const auto g = static_cast<PtpGrantType>(gi);
      if (!table_->in_use(i) || !table_->at(i).Has(g)) continue;
      if (now_s >= table_->at(i).expiry_s[gi]) {
        ++stats_.expiries[gi];
        EndGrant(i, g);
        if (!table_->in_use(i)) ++removed;
      }
    }
  }
  return removed;
}

}  // namespace zg::core
