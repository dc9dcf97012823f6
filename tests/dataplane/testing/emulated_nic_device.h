// SPDX-License-Identifier: Apache-2.0
// TEST-ONLY: the model behind the emulated NIC (emulated_nic.h): its clock,
// its queues (rte_rings and an mbuf pool of its own), what it does to each
// frame it receives (RX dynfield stamp, timesync RX latch) and sends (wire
// time, launch time, TX latch, the transmitted log), and its counters.
// emulated_nic.cc makes it an ethdev (eth_dev_ops calling into it).
//
// Wire times are exact (given to Inject, or a launch time, or the clock at
// tx_burst plus the wire latency); the stamps the NIC reports for them (RX
// dynfield, timesync latches) are quantised to the clock's resolution.
//
// Threads: RxBurst/TxBurst run on the worker polling the queue; Inject,
// TakeTransmitted and Snapshot on the test thread; the timesync reads on the
// worker or the control thread. Latches and the log are guarded by mutexes
// (test code, not the hot path); counters are atomics; the mode (Configure,
// Start) is written by the thread starting the port before any burst.
//
//   EmulatedNicDevice dev(config, "e0");
//   dev.Configure(conf);  dev.Start(port_id);
//   dev.Inject(bytes, 0, std::nullopt);
//   n = dev.RxBurst(dev.rx_queue(0), pkts, 32);
#ifndef ZG_TESTS_DATAPLANE_TESTING_EMULATED_NIC_DEVICE_H_
#define ZG_TESTS_DATAPLANE_TESTING_EMULATED_NIC_DEVICE_H_

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include <atomic>
#include <cstdint>
#include <ctime>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "tests/dataplane/testing/emulated_nic.h"

namespace zg::dataplane::testing::emulated_nic_internal {

// nic_ns(tsc) = offset + step + floor(tsc * 1e9 / hz) * (1 + drift * 1e-9),
// quantised down to the resolution. Step is the only mutable part.
class SimClock {
 public:
  SimClock(const EmulatedNicConfig& config, uint64_t tsc_hz);
  int64_t AtTsc(uint64_t tsc) const;
  int64_t Now() const;
  // What the NIC reports for an instant: floor to the resolution.
  int64_t Quantise(int64_t ns) const;
  void Step(int64_t delta_ns) {
    step_ns_.fetch_add(delta_ns, std::memory_order_relaxed);
  }

 private:
  const int64_t offset_ns_;
  const long double drift_;  // drift_ppb * 1e-9
  const int64_t resolution_ns_;
  const uint64_t tsc_hz_;
  std::atomic<int64_t> step_ns_{0};
};

class EmulatedNicDevice;

// One queue as ethdev sees it (data->rx_queues[q] / tx_queues[q]).
struct Queue {
  EmulatedNicDevice* dev = nullptr;
  uint16_t id = 0;
  rte_ring* ring = nullptr;  // RX only: what Inject() enqueued
  std::atomic<uint64_t> packets{0};
  std::atomic<uint64_t> bytes{0};
};

class EmulatedNicDevice {
 public:
  // Aborts the test binary if the pool or rings cannot be created.
  EmulatedNicDevice(const EmulatedNicConfig& config, const std::string& tag);
  ~EmulatedNicDevice();  // frees what is left in the rings, the rings, pool
  EmulatedNicDevice(const EmulatedNicDevice&) = delete;
  EmulatedNicDevice& operator=(const EmulatedNicDevice&) = delete;

  const EmulatedNicConfig& config() const { return config_; }
  const SimClock& clock() const { return clock_; }
  SimClock& clock() { return clock_; }
  Queue* rx_queue(uint16_t q) { return &rxq_[q]; }
  Queue* tx_queue(uint16_t q) { return &txq_[q]; }
  uint16_t mbuf_data_room() const;

  // ethdev's dev_configure / dev_start: which offloads the application
  // enabled (and the device offers). Start returns 0 or -errno. Stopping
  // changes nothing here (ethdev stops calling the bursts).
  void Configure(const rte_eth_conf& conf);
  int Start(uint16_t port_id);
  void SetTimesync(bool on);  // timesync_enable / disable: clears the latches

  std::optional<int64_t> Inject(std::span<const uint8_t> frame, uint16_t queue,
                                std::optional<int64_t> wire_ns);
  uint16_t RxBurst(Queue* q, rte_mbuf** pkts, uint16_t n);
  uint16_t TxBurst(Queue* q, rte_mbuf** pkts, uint16_t n);

  // rte_eth_timesync_read_{rx,tx}_timestamp: 0, or -EINVAL when nothing is
  // latched (TX: or not yet readable).
  int ReadRxStamp(timespec* ts, uint32_t flags);
  int ReadTxStamp(timespec* ts);

  std::vector<EmulatedNic::WireFrame> TakeTransmitted();
  EmulatedNic::Counters Snapshot() const;
  // For stats_get: frames Inject could not queue.
  uint64_t rx_missed() const {
    return rx_missed_.load(std::memory_order_relaxed);
  }
  void ResetQueueStats();

 private:
  void StampRx(rte_mbuf* m);
  // The TMST rule for a frame leaving at wire_ns: returns whether it latched.
  bool LatchTx(int64_t wire_ns);
  EmulatedNic::WireFrame ToWire(const rte_mbuf* m, uint16_t queue,
                                int64_t earliest_ns);

  const EmulatedNicConfig config_;
  SimClock clock_;
  rte_mempool* pool_ = nullptr;  // RX mbufs; priv area: the wire time
  std::unique_ptr<Queue[]> rxq_;
  std::unique_ptr<Queue[]> txq_;

  // Mode. Written by: the thread starting the port (Configure, Start), before
  // any burst. Read by: the bursts.
  uint16_t port_id_ = 0;
  bool rx_stamp_on_ = false;
  bool launch_on_ = false;
  int rx_ts_offset_ = -1;  // the timestamp dynfield (shared by RX and TX)
  uint64_t rx_ts_flag_ = 0;
  uint64_t tx_ts_flag_ = 0;
  // Written by: timesync_enable/disable (any thread). Read by: the bursts.
  std::atomic<bool> timesync_on_{false};

  // The timesync latches. Guarded by latch_mu_.
  std::mutex latch_mu_;
  bool rx_latch_full_ = false;
  int64_t rx_latch_ns_ = 0;
  bool tx_latch_full_ = false;
  int64_t tx_latch_ns_ = 0;
  int64_t tx_readable_ns_ = 0;
  std::mt19937_64 loss_rng_;

  std::mutex log_mu_;
  std::vector<EmulatedNic::WireFrame> log_;  // guarded by log_mu_

  // Written by: bursts / latches. Read by: the test thread.
  std::atomic<uint64_t> rx_stamped_{0}, rx_timesync_latched_{0};
  std::atomic<uint64_t> tx_latched_{0}, tx_lost_{0}, tx_overwritten_{0};
  std::atomic<uint64_t> tx_read_{0}, launch_scheduled_{0}, launch_late_{0};
  std::atomic<uint64_t> rx_missed_{0};
};

}  // namespace zg::dataplane::testing::emulated_nic_internal

#endif  // ZG_TESTS_DATAPLANE_TESTING_EMULATED_NIC_DEVICE_H_
