// SPDX-License-Identifier: Apache-2.0
// The benchmark burst (pipeline_burst.h).
#include "bench/dataplane/worker/pipeline_burst.h"

#include <rte_cycles.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/time/time_types.h"
#include "core/time/tsc.h"
#include "dataplane/port/mempools.h"
#include "tests/dataplane/testing/frames.h"

namespace zg::dataplane::bench {
namespace {

// One pool for every burst of the process (pool names are per process).
MbufPools& Pools() {
  static MbufPools* pools = new MbufPools(1023);
  return *pools;
}

[[noreturn]] void Die(const absl::Status& status) {
  std::fprintf(stderr, "pipeline burst: %s\n",
               std::string(status.message()).c_str());
  std::abort();
}

}  // namespace

core::ClockModel LockedTscModel(int64_t unix_s) {
  core::ClockModel m;
  m.raw_anchor = core::ReadTsc();
  m.tai_anchor = core::TaiNs{(unix_s + 37) * core::kNanosPerSecond};
  m.ns_per_tick_q32 = core::NsPerTickQ32FromHz(double(rte_get_tsc_hz()));
  m.max_extrapolation_ns = 3600 * core::kNanosPerSecond;
  m.error_bound_ns = 1000;
  m.error_growth_ns_per_s = 100;
  m.state = core::SyncState::kLocked;
  m.stratum = 1;
  return m;
}

PipelineBurst::PipelineBurst() {
  clock_.Write(LockedTscModel());
  stamper_ =
      std::make_unique<Timestamper>(Timestamper::Config{&clock_, nullptr, {}});
}

const rte_ether_addr& PipelineBurst::mac() {
  static const rte_ether_addr kServerMac = {{0x02, 0, 0, 0, 0, 0x01}};
  return kServerMac;
}

void PipelineBurst::Start(ProtocolPipelineFactory::Options options,
                          std::vector<uint8_t> request,
                          std::optional<WorkerSetup> setup) {
  factory_ = std::make_unique<ProtocolPipelineFactory>(std::move(options));
  if (absl::Status s = factory_->RegisterNames(names_); !s.ok()) Die(s);
  absl::StatusOr<Pipeline> p =
      factory_->Create(setup ? *setup : testing::ServerSetup(kPortId, mac()));
  if (!p.ok()) Die(p.status());
  pipeline_ = std::move(*p);
  request_ = std::move(request);
  absl::StatusOr<rte_mempool*> pool = Pools().ForSocket(SOCKET_ID_ANY);
  if (!pool.ok()) Die(pool.status());
  for (rte_mbuf*& m : mbufs_) {
    m = testing::ToMbuf(*pool, request_);
    if (m == nullptr) Die(absl::ResourceExhaustedError("mbuf pool empty"));
  }
}

void PipelineBurst::Restore() {
  for (rte_mbuf* m : mbufs_) {
    std::memcpy(rte_pktmbuf_mtod(m, uint8_t*), request_.data(),
                request_.size());
    m->data_len = static_cast<uint16_t>(request_.size());
    m->pkt_len = static_cast<uint32_t>(request_.size());
  }
}

void PipelineBurst::MeasureBaseline(benchmark::State& state) {
  for (auto _ : state) {
    Restore();
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kBurstSize);
}

void PipelineBurst::Handle() {
  stamper_->BeginBurst();
  const BurstContext burst{
      &stamper_->tsc_model(), nullptr, stamper_->burst_tsc(), kPortId, 0, {}};
  FrameClassifier* classifier = pipeline_.classifier();
  // As Worker::PollQueue: the whole burst classified, then prefetched, then
  // each kind's burst step, then handled.
  size_t classified = 0;
  for (size_t i = 0; i < kBurstSize; ++i) {
    Packet& pkt = packets_[i];
    pkt.mbuf = mbufs_[i];
    pkt.port_id = kPortId;
    pkt.rx = stamper_->Stamp(pkt.mbuf);
    finalise_[i] = nullptr;
    const Verdict v = classifier->Classify(pkt);
    if (v.drop || pipeline_.handler(v.value) == nullptr) continue;
    kinds_[classified] = v.value;
    classified_[classified++] = &pkt;
  }
  for (size_t i = 0; i < classified; ++i) {
    FrameHandler* h = pipeline_.handler(kinds_[i]);
    if (h->HasPrefetch()) h->Prefetch(*classified_[i]);
  }
  for (size_t k = 0; k < kMaxFrameKinds; ++k) {
    FrameHandler* h = pipeline_.handler(static_cast<uint8_t>(k));
    if (h == nullptr || !h->HasBurstSteps()) continue;
    size_t m = 0;
    for (size_t i = 0; i < classified; ++i) {
      if (kinds_[i] == k) group_[m++] = classified_[i];
    }
    if (m != 0) h->BeginBurst({group_.data(), m}, burst);
  }
  for (size_t i = 0; i < classified; ++i) {
    Packet& pkt = *classified_[i];
    FrameHandler* h = pipeline_.handler(kinds_[i]);
    if (h->Handle(pkt, burst).action == Action::kTransmitFinalise) {
      finalise_[static_cast<size_t>(&pkt - packets_.data())] = h;
    }
  }
}

uint32_t PipelineBurst::Finalise() {
  // As Worker::Flush: the handlers' EndFinalise after every
  // kFinaliseCheckEvery hooks and after the last; EndBurst after the burst.
  auto end_finalise = [this] {
    for (size_t k = 0; k < kMaxFrameKinds; ++k) {
      FrameHandler* h = pipeline_.handler(static_cast<uint8_t>(k));
      if (h != nullptr && h->HasBurstSteps()) h->EndFinalise();
    }
  };
  const TxStamp tx = stamper_->TxNow();
  uint32_t n = 0;
  for (size_t i = 0; i < kBurstSize; ++i) {
    if (finalise_[i] == nullptr) continue;
    finalise_[i]->FinaliseTx(packets_[i], tx);
    if (++n % kFinaliseCheckEvery == 0) end_finalise();
  }
  end_finalise();
  for (size_t k = 0; k < kMaxFrameKinds; ++k) {
    FrameHandler* h = pipeline_.handler(static_cast<uint8_t>(k));
    if (h != nullptr && h->HasEndBurst()) h->EndBurst();
  }
  return n;
}

void PrintBurstSummary(const zg::bench::BestTimeReporter& r, const char* label,
                       const std::string& measured, const std::string& arg_name,
                       absl::Span<const char* const> cases) {
  double first_per_request = 0;
  for (size_t c = 0; c < cases.size(); ++c) {
    const std::string arg = absl::StrCat("/", arg_name, ":", c);
    const std::optional<double> base =
        r.BestNs(absl::StrCat("BM_RestoreBaseline", arg));
    const std::optional<double> burst = r.BestNs(measured + arg);
    if (!base || !burst) continue;
    const double per_request = *burst / kBurstSize;
    if (c == 0) first_per_request = per_request;
    std::printf(
        "%s %-6s: %6.1f ns per request of work (pipeline %.1f ns - baseline "
        "%.1f ns per burst of %d, / %d); %.2f M replies/s per core; %.2fx "
        "%s's time\n",
        label, cases[c], (*burst - *base) / kBurstSize, *burst, *base,
        kBurstSize, kBurstSize, 1e3 / per_request,
        first_per_request > 0 ? per_request / first_per_request : 0.0,
        cases[0]);
  }
}

}  // namespace zg::dataplane::bench
