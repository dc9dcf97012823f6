// SPDX-License-Identifier: Apache-2.0
// An emulated timestamping NIC for tests (TEST-ONLY; never linked into
// zeitgeberd): an in-process DPDK ethdev, created with rte_eth_dev_allocate
// and its own eth_dev_ops (like net_ring's rte_eth_from_rings), that carries
// frames over rte_rings like RingPort and has a simulated NIC clock:
//
//   nic_ns(tsc) = offset_ns + (tsc / tsc_hz) * 1e9 * (1 + drift_ppb * 1e-9),
//   quantised down to resolution_ns.
//
// What it offers, each switchable in EmulatedNicConfig so a test can stand
// in for every NIC family (mlx5: dynfield + read_clock + send-on-timestamp;
// Intel ixgbe/i40e/ice/igc: timesync with one TX latch; neither: veth-like):
//  - rte_eth_read_clock: nic_ns(now) (ticks are ns);
//  - RX dynfield (RTE_ETH_RX_OFFLOAD_TIMESTAMP, the dynfield/flag from
//    rte_mbuf_dyn_rx_timestamp_register): each frame gets the NIC-clock time
//    at which it reached the wire (the time Inject() was given or read);
//  - timesync (rte_eth_timesync_enable/read_rx_timestamp/read_tx_timestamp/
//    read_time/adjust_time/write_time): PTP event frames (EtherType 0x88F7
//    or UDP port 319, message types 0..3) received are flagged
//    RTE_MBUF_F_RX_IEEE1588_PTP | RTE_MBUF_F_RX_IEEE1588_TMST and latch their
//    RX stamp (one latch, as Intel: a second event frame before the first is
//    read is flagged _PTP only); a frame sent with RTE_MBUF_F_TX_IEEE1588_TMST
//    latches its wire time, readable tx_stamp_latency_ns of NIC time later,
//    one latch (a second TMST frame while the latch is full is not stamped,
//    counted in tx_stamps_overwritten), lost with probability tx_stamp_loss;
//  - send-on-timestamp (RTE_ETH_TX_OFFLOAD_SEND_ON_TIMESTAMP, the dynfield
//    and flag from rte_mbuf_dyn_tx_timestamp_register): a frame carrying a
//    NIC-clock launch time leaves at exactly that time (its wire time), or
//    at once and counted late if the time has passed.
// A frame's TX wire time is nic_ns at tx_burst plus wire_latency_ns (or its
// launch time). Every transmitted frame is kept, in order, with its wire
// time, for the test to collect (TakeTransmitted).
//
//   EmulatedNicConfig c;  c.timesync = true;  c.tx_stamp_latency_ns = 2000;
//   std::unique_ptr<EmulatedNic> nic = EmulatedNic::Create("e0", c);
//   // start the port as any other (dataplane/port/port.h), run the worker
//   nic->Inject(frame_bytes);                 // arrives now
//   ... worker.PollOnce() ...
//   for (const EmulatedNic::WireFrame& f : nic->TakeTransmitted()) ...
//
// Thread-safety: the PMD side runs on the worker (rx/tx burst) and the test
// thread may call Inject/TakeTransmitted concurrently (rings; the
// transmitted log is guarded by a mutex: test code, not the hot path).
#ifndef ZG_TESTS_DATAPLANE_TESTING_EMULATED_NIC_H_
#define ZG_TESTS_DATAPLANE_TESTING_EMULATED_NIC_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace zg::dataplane::testing {

struct EmulatedNicConfig {
  uint16_t queues = 1;
  // The simulated NIC clock.
  int64_t offset_ns = 1'700'000'000'000'000'000;  // its epoch: any
  double drift_ppb = 0;                           // vs the TSC
  uint32_t resolution_ns = 1;                     // stamps quantised to it
  // What it offers.
  bool rx_dynfield = true;         // RX timestamp offload + read_clock
  bool timesync = false;           // IEEE 1588 registers (Intel style)
  bool send_on_timestamp = false;  // TX launch times
  // TX stamps (timesync): how long after the wire time the latch is
  // readable, and the probability a stamp is never latched.
  uint32_t tx_stamp_latency_ns = 0;
  double tx_stamp_loss = 0;
  uint64_t loss_seed = 1;
  // Time from tx_burst to the wire for frames without a launch time.
  uint32_t wire_latency_ns = 0;
  unsigned ring_size = 1024;
};

class EmulatedNic {
 public:
  struct WireFrame {
    std::vector<uint8_t> bytes;
    uint16_t queue = 0;
    int64_t wire_ns = 0;      // NIC clock when it left
    bool scheduled = false;   // had a launch time
    bool late = false;        // its launch time had passed at tx_burst
    bool tx_stamped = false;  // TMST asked and a stamp latched
  };
  struct Counters {
    uint64_t rx_stamped = 0;
    uint64_t rx_timesync_latched = 0;
    uint64_t tx_stamps_latched = 0;
    uint64_t tx_stamps_lost = 0;         // by tx_stamp_loss
    uint64_t tx_stamps_overwritten = 0;  // latch was full
    uint64_t tx_stamps_read = 0;
    uint64_t launch_scheduled = 0;
    uint64_t launch_late = 0;
  };

  // Aborts the test binary on failure (as MakeRingPort). Needs the EAL.
  static std::unique_ptr<EmulatedNic> Create(const std::string& tag,
                                             const EmulatedNicConfig& config);
  ~EmulatedNic();  // stops, closes and releases the port
  EmulatedNic(const EmulatedNic&) = delete;
  EmulatedNic& operator=(const EmulatedNic&) = delete;

  uint16_t port_id() const;
  const EmulatedNicConfig& config() const;

  // The simulated clock, now and at a TSC reading (ns, the NIC's ticks).
  int64_t NicNowNs() const;
  int64_t NicNsAtTsc(uint64_t tsc) const;
  // Steps the clock (as rte_eth_timesync_adjust_time does).
  void StepNs(int64_t delta_ns);

  // A frame arriving on `queue`; its wire time is `wire_ns` or now.
  // Returns the wire time used; false/nullopt if the ring is full.
  std::optional<int64_t> Inject(std::span<const uint8_t> frame,
                                uint16_t queue = 0,
                                std::optional<int64_t> wire_ns = std::nullopt);
  // Everything transmitted since the last call, in order.
  std::vector<WireFrame> TakeTransmitted();
  Counters counters() const;

 private:
  struct State;
  explicit EmulatedNic(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace zg::dataplane::testing

#endif  // ZG_TESTS_DATAPLANE_TESTING_EMULATED_NIC_H_
