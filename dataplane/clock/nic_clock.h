// SPDX-License-Identifier: Apache-2.0
// NIC clocks as the control plane sees them: something it can read, bracketed
// by two TSC reads, to correlate NIC ticks with the TSC (servo's NIC-clock
// correlator turns a series of NicTscSamples into the NIC -> TAI ClockModel
// that the workers' Timestampers apply to hardware RX stamps).
//
//  - EthdevNicClock: a real port's free-running clock via rte_eth_read_clock
//    (the unit of the mbuf RX-timestamp dynfield), plus the IEEE 1588
//    timesync registers (rte_eth_timesync_*) for PTP TX stamps.
//  - TimesyncNicClock: the clock of those timesync registers
//    (rte_eth_timesync_read_time, ns), which on Intel PMDs is not the one
//    rte_eth_read_clock reads: PTP's hardware stamps (dataplane/ptp/
//    ptp_tx_stamp.h) are mapped to TAI by its own tracked model.
//  - XdpStampClock: the kernel's receive time of each frame in AF_XDP mode,
//    taken by zeitgeber's XDP program (bpf_ktime_get_ns, CLOCK_MONOTONIC)
//    and appended to the frame; an ethdev RX callback moves it into the
//    RX-timestamp dynfield and trims it. Its "ticks" are CLOCK_MONOTONIC ns;
//    with zg_xdp_hwts.o (--xdp_rx_metadata, OpenPhc) they are the driver's
//    RX hardware stamps, ns of the interface's PTP hardware clock, which
//    Sample then reads (core/net/xdp_stamp.h tags which clock a stamp is).
//  - FakeNicClock: a synthetic clock for tests and rigs without a NIC clock.
//    ticks = offset + tsc * rate (its own epoch and rate), written into the
//    RX-timestamp dynfield of every frame received on a port's queues by an
//    ethdev RX callback, exactly where a stamping NIC's PMD would put it.
//
// Control thread only (Sample, Attach); the fake's RX callback runs on the
// worker inside rte_eth_rx_burst and only reads immutable fields.
//
//   FakeNicClock fake(field, /*offset_ticks=*/1'000'000'000'000,
//                     /*ticks_per_tsc=*/0.5);
//   ZG_RETURN_IF_ERROR(fake.AttachRx(port_id, queue_id));
//   ZG_ASSIGN_OR_RETURN(NicTscSample s, fake.Sample());
#ifndef ZG_DATAPLANE_CLOCK_NIC_CLOCK_H_
#define ZG_DATAPLANE_CLOCK_NIC_CLOCK_H_

#include <rte_ethdev.h>

#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/net/xdp_stamp.h"
#include "dataplane/clock/timestamper.h"
#include "servo/clock/nic_clock_tracker.h"

namespace zg::dataplane {

// One NIC clock reading bracketed by TSC reads (ReadTscOrdered).
struct NicTscSample {
  uint64_t tsc_before = 0;
  uint64_t nic_ticks = 0;
  uint64_t tsc_after = 0;
  uint64_t tsc_mid() const { return tsc_before + (tsc_after - tsc_before) / 2; }
};

class NicClock {
 public:
  virtual ~NicClock() = default;
  virtual absl::StatusOr<NicTscSample> Sample() = 0;
  // e.g. "port0" or "fake:port0"; used in logs and metric labels.
  virtual std::string name() const = 0;
};

// Reads a port's clock with rte_eth_read_clock.
class EthdevNicClock final : public NicClock {
 public:
  // Fails (kUnimplemented) if the PMD cannot read its clock.
  static absl::StatusOr<EthdevNicClock> Open(uint16_t port_id);
  absl::StatusOr<NicTscSample> Sample() override;
  std::string name() const override;

 private:
  explicit EthdevNicClock(uint16_t port_id) : port_id_(port_id) {}
  uint16_t port_id_;
};

// `nic` as the control plane's NicClockTracker reads it (servo/ has no
// DPDK): each call is one Sample(). `nic` must outlive the reader.
servo::NicClockReadFn NicClockReader(NicClock* nic);

// The timesync registers' clock of a port, read with
// rte_eth_timesync_read_time between two TSC reads; ticks are its ns.
class TimesyncNicClock final : public NicClock {
 public:
  explicit TimesyncNicClock(uint16_t port_id) : port_id_(port_id) {}
  absl::StatusOr<NicTscSample> Sample() override;
  std::string name() const override;  // "timesync:port0"

 private:
  uint16_t port_id_;
};

// IEEE 1588 timesync registers of a port (PTP event-message stamps latched by
// the NIC). Control thread / PTP handler use; not per-frame.
absl::Status EnableTimesync(uint16_t port_id);
// The TX stamp of the last PTP event frame sent with
// RTE_MBUF_F_TX_IEEE1588_TMST, if the NIC has latched one.
std::optional<timespec> ReadTimesyncTxStamp(uint16_t port_id);

class XdpStampClock final : public NicClock {
 public:
  // Keep in sync with dataplane/bpf/zg_xdp.c (ZG_STAMP_MAGIC, ZG_STAMP_LEN):
  // the stamp header, in front of the Ethernet header, is two native-endian
  // uint64_t, magic then ns.
  static constexpr uint64_t kStampMagic = core::kXdpStampMagicKernel;
  static constexpr uint16_t kStampLen = core::kXdpStampLen;

  explicit XdpStampClock(NicStampField field) : field_(field) {}
  ~XdpStampClock() override;
  XdpStampClock(const XdpStampClock&) = delete;
  XdpStampClock& operator=(const XdpStampClock&) = delete;

  // Takes the stamp header off every frame received on (port, queue).
  absl::Status AttachRx(uint16_t port_id, uint16_t queue_id);
  void Detach();
  // zg_xdp_hwts.o is attached: the ticks are the NIC-clock stamps, read
  // from PHC `path` ("/dev/ptpN"). Before AttachRx.
  absl::Status OpenPhc(const std::string& path);
  bool phc() const { return phc_fd_ >= 0; }
  // CLOCK_MONOTONIC (or the PHC) between two TSC reads.
  absl::StatusOr<NicTscSample> Sample() override;
  std::string name() const override { return phc() ? "xdp_phc" : "xdp"; }
  const NicStampField& field() const { return field_; }

  // The per-burst work of the RX callback (exposed for tests): frames with
  // a stamp header lose it; those whose stamp is on `clock`'s scale get it
  // in the dynfield (the others keep the burst's TSC stamp: with the PHC,
  // frames the driver had no hardware stamp for). Frames without a header
  // are left as they are. Returns how many were stamped.
  static uint16_t TakeStamps(const NicStampField& field, rte_mbuf* pkts[],
                             uint16_t n,
                             core::XdpClock clock = core::XdpClock::kKernel);

 private:
  static uint16_t StampBurst(uint16_t port, uint16_t queue, rte_mbuf* pkts[],
                             uint16_t n, uint16_t max, void* self);
  const NicStampField field_;
  int phc_fd_ = -1;
  core::XdpClock clock_ = core::XdpClock::kKernel;  // the stamps it keeps
  struct Attached {
    uint16_t port_id;
    uint16_t queue_id;
    const rte_eth_rxtx_callback* cb;
  };
  std::vector<Attached> attached_;
};

class FakeNicClock final : public NicClock {
 public:
  // `ticks_per_tsc` must be in (0, 16).
  FakeNicClock(NicStampField field, uint64_t offset_ticks,
               double ticks_per_tsc);
  ~FakeNicClock() override;
  FakeNicClock(const FakeNicClock&) = delete;
  FakeNicClock& operator=(const FakeNicClock&) = delete;

  // Stamps every frame received on (port, queue) from now on.
  absl::Status AttachRx(uint16_t port_id, uint16_t queue_id);
  // Removes the RX callbacks (call before the port stops).
  void Detach();

  uint64_t TicksAt(uint64_t tsc) const {
    return offset_ticks_ +
           static_cast<uint64_t>(
               (static_cast<unsigned __int128>(tsc) * ticks_per_tsc_q32_) >>
               32);
  }
  absl::StatusOr<NicTscSample> Sample() override;
  std::string name() const override { return "fake"; }
  const NicStampField& field() const { return field_; }

 private:
  static uint16_t StampBurst(uint16_t port, uint16_t queue, rte_mbuf* pkts[],
                             uint16_t n, uint16_t max, void* self);

  const NicStampField field_;
  const uint64_t offset_ticks_;
  const uint64_t ticks_per_tsc_q32_;
  struct Attached {
    uint16_t port_id;
    uint16_t queue_id;
    const rte_eth_rxtx_callback* cb;
  };
  std::vector<Attached> attached_;
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_CLOCK_NIC_CLOCK_H_
