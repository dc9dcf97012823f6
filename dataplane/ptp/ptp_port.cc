// SPDX-License-Identifier: Apache-2.0
#include "dataplane/ptp/ptp_port.h"

#include <cstdio>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "dataplane/daemon/log.h"

namespace zg::dataplane {

std::string PtpClockIdentityText(const core::PtpClockIdentity& id) {
  const auto& o = id.octets;
  return absl::StrFormat("%02x%02x%02x.%02x%02x.%02x%02x%02x", o[0], o[1], o[2],
                         o[3], o[4], o[5], o[6], o[7]);
}

PtpPortRuntime::PtpPortRuntime(const core::PtpPortConfig& config,
                               const core::PtpPortIdentity& port,
                               unsigned workers, double tsc_hz)
    : config_(config),
      port_(port),
      mono_(tsc_hz),
      machine_(config, port),
      overflows_(std::make_unique<SingleWriterCounter[]>(workers)) {
  for (unsigned i = 0; i < workers; ++i) {
    rings_.push_back(std::make_unique<Ring>());
  }
}

bool PtpPortRuntime::PushAnnounce(unsigned worker,
                                  const PtpAnnounceEvent& event) {
  if (worker >= rings_.size()) return false;
  if (rings_[worker]->TryPush(event)) return true;
  overflows_[worker].Add(1);
  return false;
}

uint64_t PtpPortRuntime::ring_overflows() const {
  uint64_t n = 0;
  for (size_t i = 0; i < rings_.size(); ++i) n += overflows_[i].Load();
  return n;
}

void PtpPortRuntime::Start(const core::ClockModel& model, uint64_t tsc) {
  const int64_t mono = mono_.Ns(tsc);
  machine_.Start(mono);
  const core::PtpGrandmasterView gm = core::MakePtpGrandmasterView(
      config_, port_.clock_identity, model, model.RawToTai(tsc));
  Publish(gm);
  LogInfo(absl::StrCat("PTP port ", PtpClockIdentityText(port_.clock_identity),
                       "-", port_.port_number, ": LISTENING (domain ",
                       config_.domain_number, ", profile ",
                       core::PtpProfileName(config_.profile), ")"));
}

void PtpPortRuntime::Publish(const core::PtpGrandmasterView& gm) {
  published_state_changes_.Set(machine_.state_changes());
  published_foreign_masters_.Set(machine_.foreign_masters());
  if (snapshot_.generation != 0 && gm == snapshot_.gm &&
      machine_.state() == snapshot_.state) {
    return;
  }
  snapshot_.gm = gm;
  snapshot_.state = machine_.state();
  ++snapshot_.generation;
  published_.Write(snapshot_);
}

void PtpPortRuntime::LogStateChange(core::PtpPortState before,
                                    const std::string& why) const {
  LogInfo(absl::StrCat(
      "PTP port ", PtpClockIdentityText(port_.clock_identity), "-",
      port_.port_number, ": ", core::PtpPortStateName(before), " -> ",
      core::PtpPortStateName(machine_.state()), " (", why, ")"));
}

void PtpPortRuntime::Step(const core::ClockModel& model, uint64_t tsc) {
  PtpAnnounceEvent e;
  for (auto& ring : rings_) {
    while (ring->TryPop(&e)) {
      const core::PtpAnnounceVerdict v =
          machine_.OnAnnounce(e.header, e.announce, e.rx_mono_ns);
      verdicts_[static_cast<size_t>(v)].Add(1);
    }
  }
  const core::PtpGrandmasterView gm = core::MakePtpGrandmasterView(
      config_, port_.clock_identity, model, model.RawToTai(tsc));
  const core::PtpPortState before = machine_.state();
  machine_.SetFault(link_was_up_ && !link_up_, mono_.Ns(tsc));
  if (machine_.state() != before) {
    LogStateChange(before, link_up_ ? "link up" : "link down");
    Publish(gm);
    return;
  }
  const core::PtpStateDecision d = machine_.Update(gm, mono_.Ns(tsc));
  if (d.changed) {
    std::string why = absl::StrCat(core::PtpDecisionCodeName(d.code),
                                   ", our clockClass ", gm.quality.clock_class);
    if (d.best != nullptr) {
      absl::StrAppend(&why, ", best foreign grandmaster ",
                      PtpClockIdentityText(d.best->dataset.gm_identity),
                      " clockClass ", d.best->dataset.gm_quality.clock_class,
                      " priority1 ", d.best->dataset.gm_priority1);
    }
    LogStateChange(before, why);
  }
  Publish(gm);
}

}  // namespace zg::dataplane
