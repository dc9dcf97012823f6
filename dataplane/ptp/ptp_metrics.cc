// SPDX-License-Identifier: Apache-2.0
#include "dataplane/ptp/ptp_metrics.h"

#include "core/ptp/ptp_admission.h"
#include "core/ptp/ptp_unicast_service.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"

namespace zg::dataplane {
namespace {

using prometheus::BuildCounter;
using prometheus::BuildGauge;

constexpr core::PtpPortState kStates[] = {
    core::PtpPortState::kInitializing, core::PtpPortState::kFaulty,
    core::PtpPortState::kDisabled,     core::PtpPortState::kListening,
    core::PtpPortState::kPreMaster,    core::PtpPortState::kMaster,
    core::PtpPortState::kPassive,      core::PtpPortState::kUncalibrated,
    core::PtpPortState::kSlave,
};

}  // namespace

void PtpMetrics::Total::Set(double v) {
  if (counter != nullptr && v > last) counter->Increment(v - last);
  last = v;
}

absl::Status PtpMetrics::Add(prometheus::Registry& r) {
  auto& state = BuildGauge()
                    .Name("zeitgeber_ptp_port_state")
                    .Help("PTP port state: 1 for the current state")
                    .Register(r);
  for (core::PtpPortState s : kStates) {
    state_[s] = &state.Add({{"state", core::PtpPortStateName(s)}});
  }
  state_changes_.counter = &BuildCounter()
                                .Name("zeitgeber_ptp_port_state_changes_total")
                                .Help("PTP port state changes")
                                .Register(r)
                                .Add({});
  foreign_masters_ = &BuildGauge()
                          .Name("zeitgeber_ptp_foreign_masters")
                          .Help("Foreign master records in use (BMCA)")
                          .Register(r)
                          .Add({});
  auto& quality = BuildGauge()
                      .Name("zeitgeber_ptp_clock_quality")
                      .Help("Clock quality announced now")
                      .Register(r);
  clock_class_ = &quality.Add({{"field", "clock_class"}});
  clock_accuracy_ = &quality.Add({{"field", "clock_accuracy"}});
  auto& verdicts = BuildCounter()
                       .Name("zeitgeber_ptp_announces_received_total")
                       .Help("Foreign Announce messages by BMCA verdict")
                       .Register(r);
  for (size_t i = 0; i < static_cast<size_t>(core::PtpAnnounceVerdict::kCount);
       ++i) {
    verdicts_.push_back({&verdicts.Add(
        {{"verdict", core::PtpAnnounceVerdictName(
                         static_cast<core::PtpAnnounceVerdict>(i))}})});
  }
  ring_overflows_.counter =
      &BuildCounter()
           .Name("zeitgeber_ptp_announce_ring_overflows_total")
           .Help("Announce messages lost between a worker and the BMCA")
           .Register(r)
           .Add({});
  auto& sent = BuildCounter()
                   .Name("zeitgeber_ptp_messages_sent_total")
                   .Help("PTP messages sent, by type")
                   .Register(r);
  for (core::PtpMessageType t : kPtpSentMessageTypes) {
    sent_[static_cast<size_t>(t)] = {
        &sent.Add({{"type", core::PtpMessageTypeName(t)}})};
  }
  subscribers_ = &BuildGauge()
                      .Name("zeitgeber_ptp_unicast_subscribers")
                      .Help("Unicast subscribers (negotiated clients)")
                      .Register(r)
                      .Add({});
  auto per_type = [&](const char* name, const char* help,
                      std::vector<Total>* out) {
    auto& f = BuildCounter().Name(name).Help(help).Register(r);
    for (size_t i = 0; i < core::kPtpGrantTypeCount; ++i) {
      out->push_back(
          {&f.Add({{"type", core::PtpMessageTypeName(core::PtpGrantMessageType(
                                static_cast<core::PtpGrantType>(i)))}})});
    }
  };
  per_type("zeitgeber_ptp_unicast_grants_total",
           "Unicast grants (incl. renewals), by message type", &grants_);
  per_type("zeitgeber_ptp_unicast_renewals_total",
           "Unicast grants renewed while live", &renewals_);
  per_type("zeitgeber_ptp_unicast_cancels_total",
           "Unicast grants cancelled by the client", &cancels_);
  per_type("zeitgeber_ptp_unicast_expiries_total",
           "Unicast grants that ran out", &expiries_);
  auto& denials = BuildCounter()
                      .Name("zeitgeber_ptp_unicast_denials_total")
                      .Help("Unicast requests denied, by reason")
                      .Register(r);
  for (size_t i = 1; i < core::kPtpGrantDenialCount; ++i) {
    denials_.push_back({&denials.Add(
        {{"reason",
          core::PtpGrantDenialName(static_cast<core::PtpGrantDenial>(i))}})});
  }
  AddAdmission(r);
  follow_up_overflows_.counter =
      &BuildCounter()
           .Name("zeitgeber_ptp_follow_up_overflows_total")
           .Help("Two-step messages not sent: pending follow-ups full")
           .Register(r)
           .Add({});
  mbuf_failures_.counter =
      &BuildCounter()
           .Name("zeitgeber_ptp_mbuf_alloc_failures_total")
           .Help("Originated PTP frames not sent: mbuf pool empty")
           .Register(r)
           .Add({});
  auto& tx_stamps =
      BuildCounter()
          .Name("zeitgeber_ptp_tx_stamps_total")
          .Help(
              "PTP TX stamps (Sync t1, Pdelay_Resp t3), by where they came "
              "from; timeout and stale: no follow-up sent")
          .Register(r);
  for (size_t i = 0; i < static_cast<size_t>(PtpTxStampResult::kCount); ++i) {
    tx_stamps_.push_back({&tx_stamps.Add(
        {{"result", PtpTxStampResultName(static_cast<PtpTxStampResult>(i))}})});
  }
  auto& rx_stamps =
      BuildCounter()
          .Name("zeitgeber_ptp_rx_stamps_total")
          .Help(
              "PTP RX stamps (Delay_Req t4, Pdelay_Req t2), by where they "
              "came from")
          .Register(r);
  for (size_t i = 0; i < static_cast<size_t>(PtpRxStampResult::kCount); ++i) {
    rx_stamps_.push_back({&rx_stamps.Add(
        {{"result", PtpRxStampResultName(static_cast<PtpRxStampResult>(i))}})});
  }
  auto one = [&](const char* name, const char* help, Total* out) {
    out->counter = &BuildCounter().Name(name).Help(help).Register(r).Add({});
  };
  one("zeitgeber_ptp_syncs_deferred_total",
      "Two-step Syncs that waited for the port's timesync TX latch",
      &syncs_deferred_);
  one("zeitgeber_ptp_follow_ups_unbuilt_total",
      "Follow-ups not sent: the frame could not be built",
      &follow_ups_unbuilt_);
  one("zeitgeber_ptp_pdelay_resp_unsent_total",
      "Pdelay_Resp not taken by tx_burst: no Pdelay_Resp_Follow_Up sent",
      &pdelay_resp_unsent_);
  AddSchedule(r);
  return absl::OkStatus();
}

void PtpMetrics::AddSchedule(prometheus::Registry& r) {
  auto per_kind = [&](const char* name, const char* help,
                      std::vector<Total>* out) {
    auto& f = BuildCounter().Name(name).Help(help).Register(r);
    for (const char* type : {"Announce", "Sync"}) {
      out->push_back({&f.Add({{"type", type}})});
    }
  };
  // Index = core::PtpTimerKind: kAnnounce 0, kSync 1.
  per_kind("zeitgeber_ptp_originate_unbuilt_total",
           "Originated Announce/Sync due but not sent: the frame could not "
           "be encoded or built",
           &originate_unbuilt_);
  per_kind("zeitgeber_ptp_unicast_skipped_total",
           "Unicast Announce/Sync never sent: the worker fell a whole "
           "interval behind its schedule",
           &unicast_skipped_);
  auto& late = prometheus::BuildHistogram()
                   .Name("zeitgeber_ptp_unicast_lateness_seconds")
                   .Help(
                       "How late unicast Announce/Sync left their schedule "
                       "(the wheel's grain is 1 ms)")
                   .Register(r);
  prometheus::Histogram::BucketBoundaries bounds;
  for (int64_t ns : core::kPtpLatenessBoundsNs) bounds.push_back(ns * 1e-9);
  lateness_[0].histogram = &late.Add({{"type", "Announce"}}, bounds);
  lateness_[1].histogram = &late.Add({{"type", "Sync"}}, bounds);
}

void PtpMetrics::UpdateSchedule() {
  for (size_t k = 0; k < core::kPtpTimerKinds; ++k) {
    uint64_t unbuilt = 0, skipped = 0, sum_ns = 0;
    std::array<uint64_t, core::kPtpLatenessBuckets> now{};
    for (const PtpWorkerStats* w : workers_) {
      unbuilt += w->originate_unbuilt[k].Load();
      skipped += w->unicast_skipped[k].Load();
      sum_ns += w->unicast_lateness_ns[k].Load();
      for (size_t b = 0; b < now.size(); ++b) {
        now[b] += w->unicast_lateness[k][b].Load();
      }
    }
    originate_unbuilt_[k].Set(static_cast<double>(unbuilt));
    unicast_skipped_[k].Set(static_cast<double>(skipped));
    Lateness& l = lateness_[k];
    std::vector<double> grew(now.size());
    bool any = false;
    for (size_t b = 0; b < now.size(); ++b) {
      grew[b] =
          now[b] > l.last[b] ? static_cast<double>(now[b] - l.last[b]) : 0;
      any = any || grew[b] > 0;
    }
    if (any && l.histogram != nullptr) {
      l.histogram->ObserveMultiple(
          grew, sum_ns > l.last_sum_ns
                    ? static_cast<double>(sum_ns - l.last_sum_ns) * 1e-9
                    : 0);
    }
    l.last = now;
    l.last_sum_ns = sum_ns;
  }
}

void PtpMetrics::AddAdmission(prometheus::Registry& r) {
  auto& reductions =
      BuildCounter()
          .Name("zeitgeber_ptp_unicast_reductions_total")
          .Help(
              "Unicast grants made at a longer interval than requested, by "
              "reason")
          .Register(r);
  for (size_t i = 1; i < core::kPtpGrantReductionCount; ++i) {
    reductions_.push_back({&reductions.Add(
        {{"reason", core::PtpGrantReductionName(
                        static_cast<core::PtpGrantReduction>(i))}})});
  }
  cancels_wrong_source_.counter =
      &BuildCounter()
           .Name("zeitgeber_ptp_unicast_cancels_refused_total")
           .Help(
               "CANCEL_UNICAST_TRANSMISSION ignored: not from the UDP port "
               "the grant was made to")
           .Register(r)
           .Add({});
  committed_rate_ =
      &BuildGauge()
           .Name("zeitgeber_ptp_unicast_committed_rate")
           .Help(
               "Messages per second the live unicast grants commit (Sync "
               "with Follow_Up, Announce, Delay_Resp, Pdelay_Resp)")
           .Register(r)
           .Add({});
  tx_budget_ = &BuildGauge()
                    .Name("zeitgeber_ptp_unicast_tx_budget")
                    .Help(
                        "--ptp_tx_budget: messages per second all unicast "
                        "grants may commit (0: no limit)")
                    .Register(r)
                    .Add({});
}

void PtpMetrics::Update() {
  for (auto& [s, g] : state_) g->Set(runtime_->state() == s ? 1 : 0);
  state_changes_.Set(static_cast<double>(runtime_->state_changes()));
  foreign_masters_->Set(static_cast<double>(runtime_->foreign_masters()));
  clock_class_->Set(runtime_->gm().quality.clock_class);
  clock_accuracy_->Set(runtime_->gm().quality.clock_accuracy);
  for (size_t i = 0; i < verdicts_.size(); ++i) {
    verdicts_[i].Set(static_cast<double>(runtime_->announce_verdicts()[i]));
  }
  ring_overflows_.Set(static_cast<double>(runtime_->ring_overflows()));
  auto sum = [&](auto field) {
    uint64_t n = 0;
    for (const PtpWorkerStats* w : workers_) n += field(*w);
    return static_cast<double>(n);
  };
  for (auto& [type, total] : sent_) {
    const size_t t = type;
    total.Set(sum([t](const PtpWorkerStats& w) { return w.sent[t].Load(); }));
  }
  subscribers_->Set(sum(
      [](const PtpWorkerStats& w) { return w.unicast_subscribers.Load(); }));
  for (size_t i = 0; i < core::kPtpGrantTypeCount; ++i) {
    grants_[i].Set(
        sum([i](const PtpWorkerStats& w) { return w.grants[i].Load(); }));
    renewals_[i].Set(
        sum([i](const PtpWorkerStats& w) { return w.renewals[i].Load(); }));
    cancels_[i].Set(
        sum([i](const PtpWorkerStats& w) { return w.cancels[i].Load(); }));
    expiries_[i].Set(
        sum([i](const PtpWorkerStats& w) { return w.expiries[i].Load(); }));
  }
  for (size_t i = 0; i < denials_.size(); ++i) {
    denials_[i].Set(
        sum([i](const PtpWorkerStats& w) { return w.denials[i + 1].Load(); }));
  }
  for (size_t i = 0; i < reductions_.size(); ++i) {
    reductions_[i].Set(sum(
        [i](const PtpWorkerStats& w) { return w.reductions[i + 1].Load(); }));
  }
  cancels_wrong_source_.Set(sum(
      [](const PtpWorkerStats& w) { return w.cancels_wrong_source.Load(); }));
  const double units = static_cast<double>(core::kPtpRateUnitsPerMessage);
  committed_rate_->Set(
      sum([](const PtpWorkerStats& w) { return w.committed_units.Load(); }) /
      units);
  tx_budget_->Set(
      sum([](const PtpWorkerStats& w) { return w.budget_units.Load(); }) /
      units);
  follow_up_overflows_.Set(
      sum([](const PtpWorkerStats& w) { return w.follow_up_overflow.Load(); }));
  mbuf_failures_.Set(sum(
      [](const PtpWorkerStats& w) { return w.mbuf_alloc_failures.Load(); }));
  for (size_t i = 0; i < tx_stamps_.size(); ++i) {
    tx_stamps_[i].Set(
        sum([i](const PtpWorkerStats& w) { return w.stamps.tx[i].Load(); }));
  }
  for (size_t i = 0; i < rx_stamps_.size(); ++i) {
    rx_stamps_[i].Set(
        sum([i](const PtpWorkerStats& w) { return w.stamps.rx[i].Load(); }));
  }
  syncs_deferred_.Set(sum(
      [](const PtpWorkerStats& w) { return w.stamps.syncs_deferred.Load(); }));
  follow_ups_unbuilt_.Set(
      sum([](const PtpWorkerStats& w) { return w.follow_ups_unbuilt.Load(); }));
  pdelay_resp_unsent_.Set(
      sum([](const PtpWorkerStats& w) { return w.pdelay_resp_unsent.Load(); }));
  UpdateSchedule();
}

}  // namespace zg::dataplane
