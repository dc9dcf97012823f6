// SPDX-License-Identifier: Apache-2.0
#include "core/ptp/ptp_port_state.h"

namespace zg::core {

const char* PtpPortStateName(PtpPortState state) {
  switch (state) {
    case PtpPortState::kInitializing:
      return "INITIALIZING";
    case PtpPortState::kFaulty:
      return "FAULTY";
    case PtpPortState::kDisabled:
      return "DISABLED";
    case PtpPortState::kListening:
      return "LISTENING";
    case PtpPortState::kPreMaster:
      return "PRE_MASTER";
    case PtpPortState::kMaster:
      return "MASTER";
    case PtpPortState::kPassive:
      return "PASSIVE";
    case PtpPortState::kUncalibrated:
      return "UNCALIBRATED";
    case PtpPortState::kSlave:
      return "SLAVE";
  }
  return "UNKNOWN";
}

const char* PtpAnnounceVerdictName(PtpAnnounceVerdict v) {
  switch (v) {
    case PtpAnnounceVerdict::kAccepted:
      return "accepted";
    case PtpAnnounceVerdict::kFromSelf:
      return "from_self";
    case PtpAnnounceVerdict::kStepsRemovedLimit:
      return "steps_removed_limit";
    case PtpAnnounceVerdict::kEvicted:
      return "evicted";
    case PtpAnnounceVerdict::kCount:
      break;
  }
  return "unknown";
}

const char* PtpDecisionCodeName(PtpDecisionCode code) {
  switch (code) {
    case PtpDecisionCode::kInitializing:
      return "initializing";
    case PtpDecisionCode::kListening:
      return "listening";
    case PtpDecisionCode::kM1:
      return "M1";
    case PtpDecisionCode::kM2:
      return "M2";
    case PtpDecisionCode::kP1:
      return "P1";
    case PtpDecisionCode::kP2:
      return "P2";
    case PtpDecisionCode::kFault:
      return "fault";
  }
  return "unknown";
}

PtpPortStateMachine::PtpPortStateMachine(const PtpPortConfig& config,
                                         const PtpPortIdentity& port)
    : config_(config),
      profile_(&GetPtpProfile(config.profile)),
      port_(port),
      announce_interval_ns_(PtpLogIntervalNs(config.log_announce_interval)),
      receipt_timeout_ns_(int64_t{config.announce_receipt_timeout} *
                          PtpLogIntervalNs(config.log_announce_interval)) {}

void PtpPortStateMachine::Start(int64_t now_mono_ns) {
  for (auto& f : foreign_) f = PtpForeignMaster{};
  listening_until_ns_ = now_mono_ns + receipt_timeout_ns_;
  if (state_ != PtpPortState::kListening) ++state_changes_;
  state_ = PtpPortState::kListening;
  code_ = PtpDecisionCode::kListening;
}

void PtpPortStateMachine::SetFault(bool fault, int64_t now_mono_ns) {
  if (state_ == PtpPortState::kInitializing ||
      fault == (state_ == PtpPortState::kFaulty)) {
    return;
  }
  if (!fault) return Start(now_mono_ns);
  for (auto& f : foreign_) f = PtpForeignMaster{};
  state_ = PtpPortState::kFaulty;
  code_ = PtpDecisionCode::kFault;
  ++state_changes_;
}

size_t PtpPortStateMachine::foreign_masters() const {
  size_t n = 0;
  for (const auto& f : foreign_) n += f.in_use ? 1 : 0;
  return n;
}

PtpForeignMaster* PtpPortStateMachine::Slot(const PtpPortIdentity& sender,
                                            bool* evicted) {
  PtpForeignMaster* free_slot = nullptr;
  PtpForeignMaster* stalest = &foreign_[0];
  for (auto& f : foreign_) {
    if (f.in_use && f.dataset.sender == sender) return &f;
    if (!f.in_use && free_slot == nullptr) free_slot = &f;
    if (f.in_use && f.rx_mono_ns[0] < stalest->rx_mono_ns[0]) stalest = &f;
  }
  *evicted = free_slot == nullptr;
  PtpForeignMaster* slot = free_slot != nullptr ? free_slot : stalest;
  *slot = PtpForeignMaster{};
  slot->in_use = true;
  return slot;
}

PtpAnnounceVerdict PtpPortStateMachine::OnAnnounce(const PtpHeader& header,
                                                   const PtpAnnounce& announce,
                                                   int64_t now_mono_ns) {
  if (header.source_port_identity.clock_identity == port_.clock_identity) {
    return PtpAnnounceVerdict::kFromSelf;
  }
  if (announce.steps_removed >= 255) {
    return PtpAnnounceVerdict::kStepsRemovedLimit;
  }
  bool evicted = false;
  PtpForeignMaster* f = Slot(header.source_port_identity, &evicted);
  f->dataset = PtpBmcaDatasetFromAnnounce(header, announce, port_,
                                          config_.port_local_priority);
  f->time_properties.current_utc_offset = announce.current_utc_offset;
  f->time_properties.time_source = announce.time_source;
  f->time_properties.leap61 = header.flags.Has(PtpFlag::kLeap61);
  f->time_properties.leap59 = header.flags.Has(PtpFlag::kLeap59);
  f->time_properties.current_utc_offset_valid =
      header.flags.Has(PtpFlag::kCurrentUtcOffsetValid);
  f->time_properties.ptp_timescale = header.flags.Has(PtpFlag::kPtpTimescale);
  f->time_properties.time_traceable = header.flags.Has(PtpFlag::kTimeTraceable);
  f->time_properties.frequency_traceable =
      header.flags.Has(PtpFlag::kFrequencyTraceable);
  // A repeated sequenceId is the same message seen twice (e.g. over two
  // transports): it refreshes the record but does not count toward
  // qualification.
  if (f->announces == 0 || header.sequence_id != f->last_sequence_id) {
    for (size_t i = f->rx_mono_ns.size() - 1; i > 0; --i) {
      f->rx_mono_ns[i] = f->rx_mono_ns[i - 1];
    }
    ++f->announces;
  }
  f->rx_mono_ns[0] = now_mono_ns;
  f->last_sequence_id = header.sequence_id;
  return evicted ? PtpAnnounceVerdict::kEvicted : PtpAnnounceVerdict::kAccepted;
}

bool PtpPortStateMachine::Qualified(const PtpForeignMaster& f,
                                    int64_t now_mono_ns) const {
  if (!f.in_use || f.announces < kPtpForeignMasterThreshold) return false;
  const int64_t window = kPtpForeignMasterTimeWindow * announce_interval_ns_;
  return now_mono_ns - f.rx_mono_ns[kPtpForeignMasterThreshold - 1] <= window;
}

void PtpPortStateMachine::Expire(int64_t now_mono_ns) {
  for (auto& f : foreign_) {
    if (f.in_use && now_mono_ns - f.rx_mono_ns[0] > receipt_timeout_ns_) {
      f = PtpForeignMaster{};
    }
  }
}

const PtpForeignMaster* PtpPortStateMachine::Best(int64_t now_mono_ns) const {
  const PtpForeignMaster* best = nullptr;
  for (const auto& f : foreign_) {
    if (!Qualified(f, now_mono_ns)) continue;
    if (best == nullptr || PtpABetter(ComparePtpDatasetsFor(
                               *profile_, f.dataset, best->dataset))) {
      best = &f;
    }
  }
  return best;
}

PtpStateDecision PtpPortStateMachine::Update(const PtpGrandmasterView& gm,
                                             int64_t now_mono_ns) {
  PtpStateDecision d;
  if (state_ == PtpPortState::kInitializing ||
      state_ == PtpPortState::kFaulty) {
    d.state = state_;
    d.code = code_;
    return d;
  }
  Expire(now_mono_ns);
  d.best = Best(now_mono_ns);
  PtpPortState next = state_;
  PtpDecisionCode code = code_;
  const bool gm_capable =
      gm.quality.clock_class >= 1 && gm.quality.clock_class <= 127;
  if (d.best == nullptr) {
    // Nobody qualified: keep listening until the receipt timeout, then
    // serve (9.2.6.12: ANNOUNCE_RECEIPT_TIMEOUT_EXPIRES).
    if (state_ == PtpPortState::kListening &&
        now_mono_ns < listening_until_ns_) {
      code = PtpDecisionCode::kListening;
    } else {
      next = PtpPortState::kMaster;
      code = gm_capable ? PtpDecisionCode::kM1 : PtpDecisionCode::kM2;
    }
  } else {
    const PtpBmcaDataset d0 = PtpBmcaDatasetOfLocalClock(gm);
    // Only a foreign master that is strictly better silences us; the
    // error results (the same path seen twice) leave us serving.
    const bool ours =
        !PtpBBetter(ComparePtpDatasetsFor(*profile_, d0, d.best->dataset));
    if (ours) {
      next = PtpPortState::kMaster;
      code = gm_capable ? PtpDecisionCode::kM1 : PtpDecisionCode::kM2;
    } else {
      next = PtpPortState::kPassive;
      code = gm_capable ? PtpDecisionCode::kP1 : PtpDecisionCode::kP2;
    }
  }
  d.changed = next != state_;
  if (d.changed) ++state_changes_;
  state_ = next;
  code_ = code;
  d.state = state_;
  d.code = code_;
  return d;
}

}  // namespace zg::core
