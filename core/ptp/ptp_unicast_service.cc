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
    case PtpGrantDenial::kCount:
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
  return std::unique_ptr<PtpUnicastService>(
      new PtpUnicastService(config, std::move(table), std::move(scheduler)));
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

PtpGrantDecision PtpUnicastService::Request(const PtpUnicastClientKey& key,
                                            const PtpUnicastReturnPath& path,
                                            const PtpUnicastRequest& request,
                                            bool serving, int64_t now_mono_ns) {
  PtpGrantDecision d;
  d.log_interval = request.log_inter_message_period;
  d.denial = Check(request, serving);
  bool inserted = false;
  const uint32_t index =
      d.granted() ? table_->Insert(key, &inserted) : PtpUnicastTable::kNone;
  if (d.granted() && index == PtpUnicastTable::kNone) {
    d.denial = PtpGrantDenial::kTableFull;
  }
  if (!d.granted()) {
    ++stats_.denials[static_cast<size_t>(d.denial)];
    return d;
  }
  PtpGrantType g = PtpGrantType::kAnnounce;
  PtpGrantIndexOf(request.message_type, &g);
  const size_t gi = static_cast<size_t>(g);
  PtpUnicastSubscriber& s = table_->at(index);
  const uint32_t now_s = Seconds(now_mono_ns);
  d.renewal = s.Has(g) && now_s < s.expiry_s[gi];
  d.duration_s = std::clamp(request.duration_s, config_.limits.min_duration_s,
                            config_.limits.max_duration_s);
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
  return d;
}

void PtpUnicastService::EndGrant(uint32_t index, PtpGrantType type) {
  PtpUnicastSubscriber& s = table_->at(index);
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

bool PtpUnicastService::Cancel(const PtpUnicastClientKey& key,
                               PtpMessageType type) {
  PtpGrantType g = PtpGrantType::kAnnounce;
  if (!PtpGrantIndexOf(type, &g)) return false;
  const uint32_t index = table_->Find(key);
  if (index == PtpUnicastTable::kNone || !table_->at(index).Has(g)) {
    return false;
  }
  ++stats_.cancels[static_cast<size_t>(g)];
  EndGrant(index, g);
  return true;
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
