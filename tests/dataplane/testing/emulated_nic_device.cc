// SPDX-License-Identifier: Apache-2.0
#include "tests/dataplane/testing/emulated_nic_device.h"

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_mbuf_dyn.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "tests/dataplane/testing/ptp_event_match.h"

namespace zg::dataplane::testing::emulated_nic_internal {
namespace {

constexpr int64_t kNsPerS = 1'000'000'000;

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "EmulatedNic: %s: %s\n", what.c_str(),
               rte_strerror(rte_errno));
  std::abort();
}

int64_t* WireNsOf(rte_mbuf* m) {
  return static_cast<int64_t*>(rte_mbuf_to_priv(m));
}

timespec ToTimespec(int64_t ns) {
  int64_t s = ns / kNsPerS, r = ns % kNsPerS;
  if (r < 0) r += kNsPerS, --s;
  return {static_cast<time_t>(s), static_cast<long>(r)};
}

// Pool of 2^k - 1 mbufs (mempools are most memory-efficient so).
unsigned PoolSize(const EmulatedNicConfig& c) {
  const unsigned need = c.queues * (c.ring_size + 64) + 255;
  unsigned p = 1;
  while (p - 1 < need) p <<= 1;
  return p - 1;
}

}  // namespace

SimClock::SimClock(const EmulatedNicConfig& config, uint64_t tsc_hz)
    : offset_ns_(config.offset_ns),
      drift_(static_cast<long double>(config.drift_ppb) * 1e-9L),
      resolution_ns_(config.resolution_ns == 0 ? 1 : config.resolution_ns),
      tsc_hz_(tsc_hz) {}

int64_t SimClock::AtTsc(uint64_t tsc) const {
  const int64_t base = static_cast<int64_t>(
      static_cast<unsigned __int128>(tsc) * kNsPerS / tsc_hz_);
  const auto drift =
      static_cast<int64_t>(std::floor(static_cast<long double>(base) * drift_));
  return Quantise(offset_ns_ + step_ns_.load(std::memory_order_relaxed) + base +
                  drift);
}

int64_t SimClock::Quantise(int64_t ns) const {
  int64_t rem = ns % resolution_ns_;
  if (rem < 0) rem += resolution_ns_;
  return ns - rem;
}

int64_t SimClock::Now() const { return AtTsc(rte_rdtsc()); }

EmulatedNicDevice::EmulatedNicDevice(const EmulatedNicConfig& config,
                                     const std::string& tag)
    : config_(config),
      clock_(config, rte_get_tsc_hz()),
      rxq_(new Queue[config.queues]),
      txq_(new Queue[config.queues]),
      loss_rng_(config.loss_seed) {
  pool_ = rte_pktmbuf_pool_create(absl::StrCat(tag, "p").c_str(),
                                  PoolSize(config), 0, sizeof(int64_t),
                                  RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
  if (pool_ == nullptr) Die(absl::StrCat("cannot create the pool of ", tag));
  for (uint16_t q = 0; q < config.queues; ++q) {
    rxq_[q].dev = txq_[q].dev = this;
    rxq_[q].id = txq_[q].id = q;
    rxq_[q].ring =
        rte_ring_create(absl::StrCat(tag, "r", q).c_str(), config.ring_size,
                        SOCKET_ID_ANY, RING_F_SC_DEQ | RING_F_EXACT_SZ);
    if (rxq_[q].ring == nullptr) {
      Die(absl::StrCat("cannot create RX ring ", q, " of ", tag));
    }
  }
}

EmulatedNicDevice::~EmulatedNicDevice() {
  for (uint16_t q = 0; q < config_.queues; ++q) {
    void* m;
    while (rte_ring_dequeue(rxq_[q].ring, &m) == 0) {
      rte_pktmbuf_free(static_cast<rte_mbuf*>(m));
    }
    rte_ring_free(rxq_[q].ring);
  }
  // Frames still held (a test's or a worker's) would be freed into a freed
  // pool: keep it then (a test-binary leak, said once).
  if (const unsigned held = rte_mempool_in_use_count(pool_); held != 0) {
    std::fprintf(stderr, "EmulatedNic: %u mbufs still held; pool %s kept\n",
                 held, pool_->name);
    return;
  }
  rte_mempool_free(pool_);
}

uint16_t EmulatedNicDevice::mbuf_data_room() const {
  return static_cast<uint16_t>(rte_pktmbuf_data_room_size(pool_) -
                               RTE_PKTMBUF_HEADROOM);
}

void EmulatedNicDevice::Configure(const rte_eth_conf& conf) {
  rx_stamp_on_ = config_.rx_dynfield &&
                 (conf.rxmode.offloads & RTE_ETH_RX_OFFLOAD_TIMESTAMP) != 0;
  launch_on_ =
      config_.send_on_timestamp &&
      (conf.txmode.offloads & RTE_ETH_TX_OFFLOAD_SEND_ON_TIMESTAMP) != 0;
}

int EmulatedNicDevice::Start(uint16_t port_id) {
  port_id_ = port_id;
  // Both registrations are idempotent: the application registered (or will
  // register) the same field and flags.
  if (rx_stamp_on_ &&
      rte_mbuf_dyn_rx_timestamp_register(&rx_ts_offset_, &rx_ts_flag_) != 0) {
    return -rte_errno;
  }
  if (launch_on_) {
    int offset = -1;
    if (rte_mbuf_dyn_tx_timestamp_register(&offset, &tx_ts_flag_) != 0) {
      return -rte_errno;
    }
    rx_ts_offset_ = offset;  // the same "rte_dynfield_timestamp"
  }
  return 0;
}

void EmulatedNicDevice::SetTimesync(bool on) {
  std::lock_guard<std::mutex> lock(latch_mu_);
  timesync_on_.store(on, std::memory_order_relaxed);
  rx_latch_full_ = tx_latch_full_ = false;
}

std::optional<int64_t> EmulatedNicDevice::Inject(
    std::span<const uint8_t> frame, uint16_t queue,
    std::optional<int64_t> wire_ns) {
  if (queue >= config_.queues) return std::nullopt;
  const int64_t wire = wire_ns.value_or(clock_.Now());
  if (frame.empty() || frame.size() > mbuf_data_room()) {
    return std::nullopt;  // one segment of at least a byte
  }
  rte_mbuf* m = rte_pktmbuf_alloc(pool_);
  if (m == nullptr) {
    rx_missed_.fetch_add(1, std::memory_order_relaxed);
    return std::nullopt;
  }
  char* p = rte_pktmbuf_append(m, static_cast<uint16_t>(frame.size()));
  std::memcpy(p, frame.data(), frame.size());
  *WireNsOf(m) = wire;
  if (rte_ring_enqueue(rxq_[queue].ring, m) != 0) {
    rx_missed_.fetch_add(1, std::memory_order_relaxed);
    rte_pktmbuf_free(m);
    return std::nullopt;
  }
  return wire;
}

void EmulatedNicDevice::StampRx(rte_mbuf* m) {
  const int64_t wire = clock_.Quantise(*WireNsOf(m));
  if (rx_stamp_on_) {
    *RTE_MBUF_DYNFIELD(m, rx_ts_offset_, uint64_t*) =
        static_cast<uint64_t>(wire);
    m->ol_flags |= rx_ts_flag_;
    rx_stamped_.fetch_add(1, std::memory_order_relaxed);
  }
  if (!timesync_on_.load(std::memory_order_relaxed)) return;
  const std::span<const uint8_t> bytes(rte_pktmbuf_mtod(m, const uint8_t*),
                                       m->data_len);
  if (!IsPtpEventFrame(bytes)) return;
  m->ol_flags |= RTE_MBUF_F_RX_IEEE1588_PTP;
  std::lock_guard<std::mutex> lock(latch_mu_);
  if (rx_latch_full_) return;  // one latch: this one is not stamped
  rx_latch_full_ = true;
  rx_latch_ns_ = wire;
  m->ol_flags |= RTE_MBUF_F_RX_IEEE1588_TMST;
  m->timesync = 0;  // the latch index, for read_rx_timestamp's flags
  rx_timesync_latched_.fetch_add(1, std::memory_order_relaxed);
}

uint16_t EmulatedNicDevice::RxBurst(Queue* q, rte_mbuf** pkts, uint16_t n) {
  const unsigned got = rte_ring_dequeue_burst(
      q->ring, reinterpret_cast<void**>(pkts), n, nullptr);
  uint64_t bytes = 0;
  for (unsigned i = 0; i < got; ++i) {
    pkts[i]->port = port_id_;
    bytes += pkts[i]->pkt_len;
    StampRx(pkts[i]);
  }
  q->packets.fetch_add(got, std::memory_order_relaxed);
  q->bytes.fetch_add(bytes, std::memory_order_relaxed);
  return static_cast<uint16_t>(got);
}

bool EmulatedNicDevice::LatchTx(int64_t wire_ns) {
  std::lock_guard<std::mutex> lock(latch_mu_);
  if (tx_latch_full_) {
    tx_overwritten_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  if (config_.tx_stamp_loss > 0 && std::uniform_real_distribution<double>(0, 1)(
                                       loss_rng_) < config_.tx_stamp_loss) {
    tx_lost_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  tx_latch_full_ = true;
  tx_latch_ns_ = clock_.Quantise(wire_ns);
  tx_readable_ns_ = wire_ns + config_.tx_stamp_latency_ns;
  tx_latched_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

EmulatedNic::WireFrame EmulatedNicDevice::ToWire(const rte_mbuf* m,
                                                 uint16_t queue,
                                                 int64_t earliest_ns) {
  EmulatedNic::WireFrame f;
  f.queue = queue;
  f.wire_ns = earliest_ns;
  if (launch_on_ && (m->ol_flags & tx_ts_flag_) != 0) {
    const auto launch =
        static_cast<int64_t>(*RTE_MBUF_DYNFIELD(m, rx_ts_offset_, uint64_t*));
    f.scheduled = true;
    launch_scheduled_.fetch_add(1, std::memory_order_relaxed);
    if (launch < earliest_ns) {
      f.late = true;  // leaves at once
      launch_late_.fetch_add(1, std::memory_order_relaxed);
    } else {
      f.wire_ns = launch;
    }
  }
  if (timesync_on_.load(std::memory_order_relaxed) &&
      (m->ol_flags & RTE_MBUF_F_TX_IEEE1588_TMST) != 0) {
    f.tx_stamped = LatchTx(f.wire_ns);
  }
  f.bytes.resize(m->pkt_len);
  uint32_t off = 0;
  for (const rte_mbuf* s = m; s != nullptr && off < m->pkt_len; s = s->next) {
    const uint32_t len = std::min<uint32_t>(s->data_len, m->pkt_len - off);
    std::memcpy(f.bytes.data() + off, rte_pktmbuf_mtod(s, const uint8_t*), len);
    off += len;
  }
  return f;
}

uint16_t EmulatedNicDevice::TxBurst(Queue* q, rte_mbuf** pkts, uint16_t n) {
  const int64_t earliest = clock_.Now() + config_.wire_latency_ns;
  std::vector<EmulatedNic::WireFrame> frames;
  frames.reserve(n);
  uint64_t bytes = 0;
  for (uint16_t i = 0; i < n; ++i) {
    frames.push_back(ToWire(pkts[i], q->id, earliest));
    bytes += pkts[i]->pkt_len;
    rte_pktmbuf_free(pkts[i]);
  }
  q->packets.fetch_add(n, std::memory_order_relaxed);
  q->bytes.fetch_add(bytes, std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(log_mu_);
  for (EmulatedNic::WireFrame& f : frames) log_.push_back(std::move(f));
  return n;
}

int EmulatedNicDevice::ReadRxStamp(timespec* ts, uint32_t flags) {
  std::lock_guard<std::mutex> lock(latch_mu_);
  if (flags != 0 || !rx_latch_full_) return -EINVAL;
  rx_latch_full_ = false;
  *ts = ToTimespec(rx_latch_ns_);
  return 0;
}

int EmulatedNicDevice::ReadTxStamp(timespec* ts) {
  std::lock_guard<std::mutex> lock(latch_mu_);
  if (!tx_latch_full_ || clock_.Now() < tx_readable_ns_) return -EINVAL;
  tx_latch_full_ = false;
  *ts = ToTimespec(tx_latch_ns_);
  tx_read_.fetch_add(1, std::memory_order_relaxed);
  return 0;
}

std::vector<EmulatedNic::WireFrame> EmulatedNicDevice::TakeTransmitted() {
  std::lock_guard<std::mutex> lock(log_mu_);
  std::vector<EmulatedNic::WireFrame> out;
  out.swap(log_);
  return out;
}

EmulatedNic::Counters EmulatedNicDevice::Snapshot() const {
  constexpr auto r = std::memory_order_relaxed;
  EmulatedNic::Counters c;
  c.rx_stamped = rx_stamped_.load(r);
  c.rx_timesync_latched = rx_timesync_latched_.load(r);
  c.tx_stamps_latched = tx_latched_.load(r);
  c.tx_stamps_lost = tx_lost_.load(r);
  c.tx_stamps_overwritten = tx_overwritten_.load(r);
  c.tx_stamps_read = tx_read_.load(r);
  c.launch_scheduled = launch_scheduled_.load(r);
  c.launch_late = launch_late_.load(r);
  return c;
}

void EmulatedNicDevice::ResetQueueStats() {
  for (uint16_t q = 0; q < config_.queues; ++q) {
    for (Queue* x : {&rxq_[q], &txq_[q]}) {
      x->packets.store(0, std::memory_order_relaxed);
      x->bytes.store(0, std::memory_order_relaxed);
    }
  }
  rx_missed_.store(0, std::memory_order_relaxed);
}

}  // namespace zg::dataplane::testing::emulated_nic_internal
