// SPDX-License-Identifier: Apache-2.0
#include "dataplane/worker/worker.h"

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <sys/prctl.h>
#include <time.h>

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace zg::dataplane {

Worker::Worker(std::vector<WorkerQueue> queues, Pipeline pipeline,
               WorkerStats* stats, const std::atomic<bool>* stop)
    : pipeline_(std::move(pipeline)),
      classifier_(pipeline_.classifier()),
      source_(pipeline_.source()),
      stats_(stats),
      stop_(stop),
      finalise_budget_ticks_(static_cast<uint64_t>(
          static_cast<double>(rte_get_tsc_hz()) * kFinaliseBudgetNs * 1e-9)),
      kick_outlier_ticks_(static_cast<uint64_t>(
          static_cast<double>(rte_get_tsc_hz()) * kKickOutlierNs * 1e-9)) {
  queues_.reserve(queues.size());
  for (const WorkerQueue& q : queues) {
    queues_.push_back(
        {q, q.stats != nullptr ? q.stats : stats, Timestamper(q.stamping),
         TxScheduler(q.scheduling),
         core::TxKickEstimate(q.stamps.ntp_tx_placement, kick_outlier_ticks_)});
  }
  for (size_t k = 0; k < kMaxFrameKinds; ++k) {
    handlers_[k] = pipeline_.handler(static_cast<uint8_t>(k));
    after_tx_[k] = handlers_[k] != nullptr && handlers_[k]->HasAfterTx();
    prefetch_[k] = handlers_[k] != nullptr && handlers_[k]->HasPrefetch();
    any_prefetch_ |= prefetch_[k];
    FrameHandler* h = handlers_[k];
    if (h != nullptr && h->HasBurstSteps()) {
      burst_kinds_[n_burst_kinds_++] = static_cast<uint8_t>(k);
    }
    if (h != nullptr && h->HasEndBurst() &&
        std::find(end_burst_.begin(), end_burst_.begin() + n_end_burst_, h) ==
            end_burst_.begin() + n_end_burst_) {
      end_burst_[n_end_burst_++] = h;
    }
  }
}

absl::Status Worker::AttachEpochs(ReaderEpochs* epochs, size_t reader) {
  if (reader >= ReaderEpochs::kMaxReaders) {
    return absl::InvalidArgumentError(
        absl::StrCat("worker ", reader, ": at most ", ReaderEpochs::kMaxReaders,
                     " workers"));
  }
  epochs_ = epochs;
  reader_ = reader;
  return absl::OkStatus();
}

void Worker::Run() {
  if (epochs_ != nullptr) epochs_->Online(reader_);
  if (idle_sleep_ns_ == 0 && test_stall_ == nullptr) {
    while (!stop_->load(std::memory_order_relaxed)) PollOnce();
  } else {
    RunWithOptions();
  }
  Drain();
  // Stopped: holds no config any more, so it never delays reclamation.
  if (epochs_ != nullptr) epochs_->Offline(reader_);
}

void Worker::RunWithOptions() {
  // The kernel's default 50 us timer slack would stretch every sleep.
  if (idle_sleep_ns_ != 0) prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  while (!stop_->load(std::memory_order_relaxed)) {
    if (test_stall_ != nullptr &&
        test_stall_->load(std::memory_order_relaxed)) {
      HoldForTest();
      continue;
    }
    const uint32_t received = PollOnce();
    if (idle_sleep_ns_ != 0) IdleBackoff(received + originated_ != 0);
  }
}

void Worker::HoldForTest() {
  const timespec ms{0, 1'000'000};
  while (test_stall_->load(std::memory_order_relaxed) &&
         !stop_->load(std::memory_order_relaxed)) {
    clock_nanosleep(CLOCK_MONOTONIC, 0, &ms, nullptr);
  }
}

void Worker::IdleBackoff(bool worked) {
  if (worked) {
    idle_passes_ = 0;
    return;
  }
  // Once idle that long, every idle pass sleeps until a frame comes: the
  // count stays at the threshold, so an idle worker does not spin
  // kIdlePassesBeforeSleep passes between sleeps (on the veth rig's AF_XDP
  // queues that is most of a core).
  if (idle_passes_ < kIdlePassesBeforeSleep) {
    ++idle_passes_;
    return;
  }
  const timespec ts{static_cast<time_t>(idle_sleep_ns_ / 1'000'000'000),
                    static_cast<long>(idle_sleep_ns_ % 1'000'000'000)};
  clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, nullptr);
}

uint32_t Worker::PollOnce() {
  uint32_t n = 0;
  originated_ = 0;
  for (QueueState& q : queues_) {
    stats_ = q.stats;
    n += PollQueue(q);
    if (source_ != nullptr) originated_ += PollSource(q);
  }
  const uint64_t beat = core::ReadTsc();
  for (QueueState& q : queues_) q.stats->heartbeat_tsc.Set(beat);
  // Burst boundary: no config pointer from this pass is held any more.
  if (epochs_ != nullptr) epochs_->Quiescent(reader_);
  return n;
}

void Worker::Drain(int max_passes) {
  for (int i = 0; i < max_passes; ++i) {
    if (PollOnce() == 0) return;
  }
}

void Worker::Drop(rte_mbuf* m, uint8_t reason) {
  stats_->dropped[reason < kMaxDropReasons ? reason : 0].Add(1);
  free_[n_free_++] = m;
}

uint32_t Worker::PollQueue(QueueState& q) {
  const uint16_t n = rte_eth_rx_burst(
      q.config.queue.port_id, q.config.queue.queue_id, rx_.data(), kBurstSize);
  if (n == 0) {
    stats_->empty_polls.Add(1);
    return 0;
  }
  stats_->bursts.Add(1);
  if (const uint32_t failed = q.stamper.BeginBurst(); failed != 0) {
    stats_->model_refresh_failures.Add(failed);
  }
  const BurstContext burst{&q.stamper.tsc_model(),  q.stamper.nic_model(),
                           q.stamper.burst_tsc(),   q.config.queue.port_id,
                           q.config.queue.queue_id, q.config.offloads};
  uint64_t rx_bytes = 0, hw = 0;
  n_tx_ = 0;
  n_free_ = 0;
  // The whole burst is classified first, then prefetched (per-client
  // lookups), then each kind's burst step runs (crypto), then the frames
  // are handled: the burst's cache misses and AES blocks overlap. (The
  // prefetches issued back to back, after the classification, measured
  // faster than each issued as its frame is classified: doc/performance.md.)
  uint16_t n_classified = 0;
  for (uint16_t i = 0; i < n; ++i) {
    Packet& pkt = packets_[i];
    pkt.mbuf = rx_[i];
    rx_bytes += pkt.mbuf->pkt_len;
    if (pkt.mbuf->nb_segs != 1) {
      Drop(pkt.mbuf, CounterNames::kDropMultiSegment);
      continue;
    }
    pkt.rx = q.stamper.Stamp(pkt.mbuf);
    pkt.port_id = q.config.queue.port_id;
    hw += pkt.rx.clock == RawClockKind::kNic ? 1 : 0;
    if (Classify(pkt, kinds_[n_classified])) classified_[n_classified++] = &pkt;
  }
  if (any_prefetch_) {
    for (uint16_t i = 0; i < n_classified; ++i) {
      if (prefetch_[kinds_[i]]) handlers_[kinds_[i]]->Prefetch(*classified_[i]);
    }
  }
  if (n_burst_kinds_ != 0) BeginBursts(n_classified, burst);
  for (uint16_t i = 0; i < n_classified; ++i) {
    Dispatch(*classified_[i], kinds_[i], burst);
  }
  stats_->rx_packets.Add(n);
  stats_->rx_bytes.Add(rx_bytes);
  stats_->hw_stamped.Add(hw);
  stats_->sw_stamped.Add(n - hw);
  Flush(q);
  for (size_t i = 0; i < n_end_burst_; ++i) end_burst_[i]->EndBurst();
  return n;
}

void Worker::BeginBursts(uint16_t n_classified, const BurstContext& burst) {
  for (size_t k = 0; k < n_burst_kinds_; ++k) {
    const uint8_t kind = burst_kinds_[k];
    size_t m = 0;
    for (uint16_t i = 0; i < n_classified; ++i) {
      if (kinds_[i] == kind) group_[m++] = classified_[i];
    }
    if (m != 0) handlers_[kind]->BeginBurst({group_.data(), m}, burst);
  }
}

void Worker::EndFinalise() {
  for (size_t k = 0; k < n_burst_kinds_; ++k) {
    handlers_[burst_kinds_[k]]->EndFinalise();
  }
}

bool Worker::Classify(Packet& pkt, uint8_t& kind) {
  if (classifier_ == nullptr) {
    Drop(pkt.mbuf, CounterNames::kDropUnclassified);
    return false;
  }
  const Verdict v = classifier_->Classify(pkt);
  if (v.drop) {
    Drop(pkt.mbuf, v.value);
    return false;
  }
  if (v.value >= kMaxFrameKinds || handlers_[v.value] == nullptr) {
    Drop(pkt.mbuf, CounterNames::kDropNoHandler);
    return false;
  }
  kind = v.value;
  return true;
}

void Worker::Dispatch(Packet& pkt, uint8_t kind, const BurstContext& burst) {
  FrameHandler* h = handlers_[kind];
  stats_->handled[kind].Add(1);
  const HandleResult r = h->Handle(pkt, burst);
  switch (r.action) {
    case Action::kTransmit:
    case Action::kTransmitFinalise:
      stats_->replied[kind].Add(1);
      finalise_[n_tx_] = r.action == Action::kTransmitFinalise ? h : nullptr;
      after_[n_tx_] = after_tx_[kind] ? h : nullptr;
      tx_[n_tx_++] = &pkt;
      return;
    case Action::kDrop:
      Drop(pkt.mbuf, r.drop_reason);
      return;
    case Action::kConsumed:
      return;
  }
}

void Worker::Flush(QueueState& q) {
  if (n_tx_ > 0) {
    // Late TX hook: a fresh stamp as close to tx_burst as the batch allows.
    // Frames whose finalising is costly (an NTS or MAC seal after T3: tens
    // of ns each when a group's run together in EndFinalise, 0.1-0.3 us
    // alone) would make the first of a full batch's T3 early by the whole
    // batch's finalising: once a chunk's finalising passes
    // kFinaliseBudgetNs, it is sent and the rest get a fresh stamp. The
    // clock is checked every kFinaliseCheckEvery hooks, after the
    // handlers' EndFinalise, so cheap hooks (plain NTP: ~10 ns) never
    // split a batch.
    uint16_t first = 0;  // of the chunk not yet sent
    bool any_finalise = false;
    for (uint16_t i = 0; i < n_tx_; ++i)
      any_finalise |= finalise_[i] != nullptr;
    // Each chunk's stamp carries the estimate of when its frames leave
    // (--ntp_tx_stamp; core/time/tx_kick_estimate.h).
    auto stamp = [&q](uint16_t frames) {
      TxStamp tx = q.stamper.TxNow();
      tx.leave_ticks = q.kick.LeaveTicks(frames);
      tx.kick_ticks = q.kick.KickTicks(frames);
      return tx;
    };
    uint64_t stamp_tsc = 0;
    if (any_finalise) {
      TxStamp tx = stamp(n_tx_);
      // Send-on-timestamp: each frame's stamp is its launch time instead.
      q.scheduler.Begin(q.stamper.nic_model());
      uint32_t since_check = 0;
      for (uint16_t i = 0; i < n_tx_; ++i) {
        if (finalise_[i] == nullptr) continue;
        finalise_[i]->FinaliseTx(*tx_[i],
                                 q.scheduler.Schedule(tx_[i]->mbuf, tx));
        if (++since_check < kFinaliseCheckEvery || i + 1 == n_tx_) continue;
        since_check = 0;
        EndFinalise();
        if (core::ReadTsc() - tx.tsc_ticks < finalise_budget_ticks_) continue;
        Transmit(q, first, i + 1, tx.tsc_ticks);
        first = static_cast<uint16_t>(i + 1);
        stats_->tx_finalise_splits.Add(1);
        tx = stamp(static_cast<uint16_t>(n_tx_ - first));
      }
      EndFinalise();
      stamp_tsc = tx.tsc_ticks;
    }
    Transmit(q, first, n_tx_, stamp_tsc);
    n_tx_ = 0;
  }
  if (n_free_ > 0) {
    rte_pktmbuf_free_bulk(free_.data(), n_free_);
    n_free_ = 0;
  }
}

// Just before tx_burst: the batch's scheduled frames, and those whose launch
// time has already passed (late).
void Worker::CountLaunches(QueueState& q) {
  if (q.scheduler.pending() == 0) return;
  const TxScheduleCounts c = q.scheduler.TakeBatch(q.stamper.TxNow().tai);
  stats_->tx_scheduled.Add(c.scheduled);
  stats_->tx_schedule_late.Add(c.late);
}

void Worker::Transmit(QueueState& q, uint16_t from, uint16_t to,
                      uint64_t stamp_tsc) {
  const uint16_t n = static_cast<uint16_t>(to - from);
  if (n == 0) return;
  // Lengths are read before tx_burst: the PMD may free what it sends.
  std::array<uint32_t, kBurstSize> len;
  for (uint16_t i = 0; i < n; ++i) {
    tx_mbufs_[i] = tx_[from + i]->mbuf;
    len[i] = tx_mbufs_[i]->pkt_len;
  }
  CountLaunches(q);
  const uint64_t entry_tsc = core::ReadTsc();
  const uint16_t sent = rte_eth_tx_burst(
      q.config.queue.port_id, q.config.queue.queue_id, tx_mbufs_.data(), n);
  const TxStamp after = q.stamper.TxNow();
  if (stamp_tsc != 0 && sent > 0) {
    q.kick.Record(sent, stamp_tsc, entry_tsc, after.tsc_ticks);
  }
  bool any_after = false;
  for (uint16_t i = from; i < to; ++i) any_after |= after_[i] != nullptr;
  if (any_after) {
    for (uint16_t i = 0; i < n; ++i) {
      FrameHandler* h = after_[from + i];
      if (h != nullptr) h->AfterTx(*tx_[from + i], after, i < sent);
    }
  }
  uint64_t tx_bytes = 0;
  for (uint16_t i = 0; i < sent; ++i) tx_bytes += len[i];
  stats_->tx_packets.Add(sent);
  stats_->tx_bytes.Add(tx_bytes);
  if (sent < n) {
    stats_->tx_dropped.Add(n - sent);
    rte_pktmbuf_free_bulk(tx_mbufs_.data() + sent, n - sent);
  }
}

uint16_t Worker::PollSource(QueueState& q) {
  const uint64_t tsc = core::ReadTsc();
  if (!source_->Due(tsc)) return 0;
  if (const uint32_t failed = q.stamper.BeginBurstAt(tsc); failed != 0) {
    stats_->model_refresh_failures.Add(failed);
  }
  q.scheduler.Begin(q.stamper.nic_model());
  const SourceContext ctx{
      &q.stamper.tsc_model(), tsc,
      q.config.queue.port_id, q.config.queue.queue_id,
      q.config.offloads,      q.scheduler.enabled() ? &q.scheduler : nullptr};
  const uint16_t n = source_->Produce(ctx, src_.data(), kBurstSize);
  if (n == 0) return 0;
  std::array<uint32_t, kBurstSize> len;
  for (uint16_t i = 0; i < n; ++i) len[i] = src_[i]->pkt_len;
  const TxStamp before = q.stamper.TxNow();
  source_->BeforeTx(src_.data(), n, before);
  CountLaunches(q);
  const uint16_t sent = rte_eth_tx_burst(
      q.config.queue.port_id, q.config.queue.queue_id, src_.data(), n);
  const TxStamp after = q.stamper.TxNow();
  uint64_t tx_bytes = 0;
  for (uint16_t i = 0; i < sent; ++i) tx_bytes += len[i];
  stats_->tx_packets.Add(sent);
  stats_->tx_bytes.Add(tx_bytes);
  if (sent < n) {
    stats_->tx_dropped.Add(n - sent);
    rte_pktmbuf_free_bulk(src_.data() + sent, n - sent);
  }
  source_->AfterTx(n, sent, before, after);
  return n;
}

std::vector<unsigned> WorkerLcores() {
  std::vector<unsigned> lcores;
  unsigned lcore;
  RTE_LCORE_FOREACH_WORKER(lcore) { lcores.push_back(lcore); }
  return lcores;
}

WorkerGroup::~WorkerGroup() { Join(); }

absl::Status WorkerGroup::Launch(std::vector<std::unique_ptr<Worker>> workers) {
  const std::vector<unsigned> lcores = WorkerLcores();
  if (workers.size() != lcores.size()) {
    return absl::FailedPreconditionError(
        absl::StrCat(workers.size(), " workers for ", lcores.size(),
                     " worker lcores; build one worker per lcore"));
  }
  workers_ = std::move(workers);
  joined_ = false;
  for (size_t i = 0; i < lcores.size(); ++i) {
    const int rc = rte_eal_remote_launch(&WorkerGroup::Entry, workers_[i].get(),
                                         lcores[i]);
    if (rc != 0) {
      return absl::InternalError(absl::StrCat(
          "cannot launch worker ", i, " on lcore ", lcores[i],
          " (rte_eal_remote_launch: ", rc, "); is the lcore busy?"));
    }
    lcores_.push_back(lcores[i]);
  }
  return absl::OkStatus();
}

void WorkerGroup::Join() {
  if (joined_) return;
  for (unsigned lcore : lcores_) rte_eal_wait_lcore(lcore);
  lcores_.clear();
  joined_ = true;
}

int WorkerGroup::Entry(void* worker) {
  static_cast<Worker*>(worker)->Run();
  return 0;
}

}  // namespace zg::dataplane
