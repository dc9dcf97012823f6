// SPDX-License-Identifier: Apache-2.0
#include "tests/dataplane/testing/pipeline_burst.h"

#include "core/time/tsc.h"
#include "dataplane/worker/worker.h"

namespace zg::dataplane::testing {

PipelineBurst::PipelineBurst(const Pipeline* pipeline, Timestamper* stamper,
                             uint16_t port_id)
    : pipeline_(pipeline), stamper_(stamper), port_id_(port_id) {}

size_t PipelineBurst::Process(rte_mbuf* const* mbufs, size_t n) {
  stamper_->BeginBurst();
  const BurstContext burst{
      &stamper_->tsc_model(), nullptr, stamper_->burst_tsc(), port_id_, 0, {}};
  FrameClassifier* classifier = pipeline_->classifier();
  size_t classified = 0;
  for (size_t i = 0; i < n; ++i) {
    Packet& pkt = packets_[i];
    pkt.mbuf = mbufs[i];
    pkt.port_id = port_id_;
    pkt.rx = stamper_->Stamp(pkt.mbuf);
    finalise_[i] = nullptr;
    const Verdict v = classifier->Classify(pkt);
    if (v.drop || pipeline_->handler(v.value) == nullptr) continue;
    kinds_[classified] = v.value;
    classified_[classified++] = &pkt;
  }
  for (size_t i = 0; i < classified; ++i) {
    FrameHandler* h = pipeline_->handler(kinds_[i]);
    if (h->HasPrefetch()) h->Prefetch(*classified_[i]);
  }
  for (size_t k = 0; k < kMaxFrameKinds; ++k) {
    FrameHandler* h = pipeline_->handler(static_cast<uint8_t>(k));
    if (h == nullptr || !h->HasBurstSteps()) continue;
    size_t m = 0;
    for (size_t i = 0; i < classified; ++i) {
      if (kinds_[i] == k) group_[m++] = classified_[i];
    }
    if (m != 0) h->BeginBurst({group_.data(), m}, burst);
  }
  size_t answered = 0;
  for (size_t i = 0; i < classified; ++i) {
    Packet& pkt = *classified_[i];
    FrameHandler* h = pipeline_->handler(kinds_[i]);
    const Action a = h->Handle(pkt, burst).action;
    answered += a == Action::kTransmit || a == Action::kTransmitFinalise;
    if (a == Action::kTransmitFinalise) {
      finalise_[static_cast<size_t>(&pkt - packets_.data())] = h;
    }
  }
  auto end_finalise = [this] {
    for (size_t k = 0; k < kMaxFrameKinds; ++k) {
      FrameHandler* h = pipeline_->handler(static_cast<uint8_t>(k));
      if (h != nullptr && h->HasBurstSteps()) h->EndFinalise();
    }
  };
  const TxStamp tx = stamper_->TxNow();
  const uint64_t t0 = core::ReadTsc();
  uint32_t since = 0;
  for (size_t i = 0; i < n; ++i) {
    if (finalise_[i] == nullptr) continue;
    finalise_[i]->FinaliseTx(packets_[i], tx);
    if (++since == kFinaliseCheckEvery) {
      end_finalise();
      since = 0;
    }
  }
  end_finalise();
  finalise_ticks_ = core::ReadTsc() - t0;
  return answered;
}

}  // namespace zg::dataplane::testing
