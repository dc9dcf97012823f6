// SPDX-License-Identifier: Apache-2.0
#include "tests/sim/sim_harness.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace zg::sim {

servo::SourceInfo SimSourceInfo(const char* name, int priority) {
  servo::SourceInfo info;
  info.name = name;
  info.kind = servo::SourceKind::kSimulated;
  std::memcpy(&info.ntp_refid, "GPS\0", 4);
  info.stratum = 0;
  info.ptp_time_source = core::PtpTimeSource::kGnss;
  info.time_traceable = true;
  info.frequency_traceable = true;
  info.priority = priority;
  return info;
}

SimHarness::SimHarness(const OscillatorParams& osc, uint64_t seed,
                       servo::DisciplineConfig config, double poll_interval_s)
    : osc_(osc, seed), poll_interval_s_(poll_interval_s) {
  config.raw_nominal_hz = osc.nominal_hz;
  auto d = servo::ClockDiscipline::Create(config);
  if (!d.ok()) {
    std::fprintf(stderr, "SimHarness: %s\n", d.status().ToString().c_str());
    std::abort();
  }
  discipline_ = *std::move(d);
  discipline_->SetEventSink(
      [this](const servo::DisciplineEvent& e) { events_.push_back(e); });
}

int SimHarness::AddReference(const ReferenceParams& params,
                             const servo::SourceInfo& info, uint64_t seed) {
  auto id = discipline_->AddSource(info);
  if (!id.ok()) std::abort();
  refs_.push_back(std::make_unique<SimReference>(params, seed));
  ids_.push_back(*id);
  return static_cast<int>(refs_.size()) - 1;
}

void SimHarness::RemoveReference(int i) {
  if (!discipline_->RemoveSource(ids_[i]).ok()) std::abort();
  ids_[i] = -1;
}

int SimHarness::CountEvents(servo::EventKind kind) const {
  int n = 0;
  for (const auto& e : events_) n += e.kind == kind;
  return n;
}

void SimHarness::RunUntil(double t_end_s, const Observer& observe) {
  while (osc_.now_s() + poll_interval_s_ <= t_end_s + 1e-9) {
    osc_.AdvanceTo(osc_.now_s() + poll_interval_s_);
    for (size_t i = 0; i < refs_.size(); ++i) {
      if (ids_[i] < 0) continue;
      buf_.clear();
      if (refs_[i]->Poll(osc_, &buf_)) discipline_->AddSamples(ids_[i], buf_);
    }
    const uint64_t raw = osc_.NowTicks();
    const core::TaiNs truth = osc_.TrueTai();
    SimCheck c;
    c.t_s = osc_.now_s();
    if (have_last_) {
      c.aged_valid = true;
      const core::TaiNs served = last_.RawToTai(raw);
      c.aged_error_ns = served - truth;
      c.aged_bound_ns = last_.ErrorBoundNs(served);
      c.aged_synchronized = last_.IsSynchronized(served);
    }
    const core::ClockModel& m = discipline_->Update(raw);
    const core::TaiNs served = m.RawToTai(raw);
    c.state = m.state;
    c.clock_class = m.ptp_quality.clock_class;
    c.stratum = m.stratum;
    c.synchronized = m.IsSynchronized(served);
    c.error_ns = served - truth;
    c.bound_ns = m.ErrorBoundNs(served);
    c.model = &m;
    last_ = m;
    have_last_ = true;
    if (observe) observe(c);
  }
}

}  // namespace zg::sim
