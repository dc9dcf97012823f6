// SPDX-License-Identifier: Apache-2.0
#include "dataplane/ptp/ptp_port_mux.h"

#include <utility>

namespace zg::dataplane {
namespace {

class PortWorkers {
 public:
  explicit PortWorkers(std::vector<std::shared_ptr<PtpWorker>> workers)
      : workers_(std::move(workers)) {}
  PtpWorker* For(uint16_t port_id) const {
    for (const auto& w : workers_) {
      if (w->port_id() == port_id) return w.get();
    }
    return nullptr;
  }
  const std::vector<std::shared_ptr<PtpWorker>>& all() const {
    return workers_;
  }

 private:
  std::vector<std::shared_ptr<PtpWorker>> workers_;
};

class PtpPortMuxHandler final : public FrameHandler {
 public:
  PtpPortMuxHandler(std::vector<std::shared_ptr<PtpWorker>> workers,
                    uint8_t unknown_port_drop)
      : workers_(std::move(workers)), unknown_port_drop_(unknown_port_drop) {}
  HandleResult Handle(Packet& pkt, const BurstContext& burst) override {
    PtpWorker* w = workers_.For(burst.port_id);
    if (w == nullptr) return HandleResult::Drop(unknown_port_drop_);
    return w->Handle(pkt, burst);
  }
  // Only frames Handle() passed to a worker come here.
  void FinaliseTx(Packet& pkt, const TxStamp& tx) override {
    if (PtpWorker* w = workers_.For(pkt.port_id)) w->FinaliseTx(pkt, tx);
  }
  bool HasAfterTx() const override { return true; }
  void AfterTx(Packet& pkt, const TxStamp& after, bool sent) override {
    if (PtpWorker* w = workers_.For(pkt.port_id)) {
      w->HandlerAfterTx(pkt, after, sent);
    }
  }

 private:
  PortWorkers workers_;
  uint8_t unknown_port_drop_;
};

class PtpPortMuxSource final : public FrameSource {
 public:
  explicit PtpPortMuxSource(std::vector<std::shared_ptr<PtpWorker>> workers)
      : workers_(std::move(workers)) {}
  bool Due(uint64_t tsc) const override {
    for (const auto& w : workers_.all()) {
      if (w->Due(tsc)) return true;
    }
    return false;
  }
  uint16_t Produce(const SourceContext& ctx, rte_mbuf** out,
                   uint16_t room) override {
    producing_ = workers_.For(ctx.port_id);
    if (producing_ == nullptr || !producing_->Due(ctx.tsc)) {
      producing_ = nullptr;
      return 0;
    }
    return producing_->Produce(ctx, out, room);
  }
  void BeforeTx(rte_mbuf** frames, uint16_t n, const TxStamp& before) override {
    if (producing_ != nullptr) producing_->BeforeTx(frames, n, before);
  }
  void AfterTx(uint16_t n, uint16_t sent, const TxStamp& before,
               const TxStamp& after) override {
    if (producing_ != nullptr) producing_->AfterTx(n, sent, before, after);
    producing_ = nullptr;
  }

 private:
  PortWorkers workers_;
  PtpWorker* producing_ = nullptr;  // the port of the last Produce
};

}  // namespace

std::unique_ptr<FrameHandler> MakePtpPortMuxHandler(
    std::vector<std::shared_ptr<PtpWorker>> workers,
    uint8_t unknown_port_drop) {
  return std::make_unique<PtpPortMuxHandler>(std::move(workers),
                                             unknown_port_drop);
}

std::unique_ptr<FrameSource> MakePtpPortMuxSource(
    std::vector<std::shared_ptr<PtpWorker>> workers) {
  return std::make_unique<PtpPortMuxSource>(std::move(workers));
}

}  // namespace zg::dataplane
