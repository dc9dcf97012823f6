// SPDX-License-Identifier: Apache-2.0
// Where each timestamp of a port comes from: what the port can stamp
// (PortStampCaps, probed once at startup by ProbePortStampCaps) and which
// source the worker uses for each stamp (StampPlan, chosen by
// SelectStampPlan from the caps and the flags --timesync, --tx_schedule,
// --tx_schedule_lead). The plan is fixed when the workers start; it is
// logged, exported as zeitgeber_stamp_source{port,stamp,source} and printed
// by scripts/nic-check.sh. doc/deployment.md has the table per NIC family.
//
// Written by: the control thread before the workers start. Read by: the
// workers (immutable afterwards).
//
//   ZG_ASSIGN_OR_RETURN(PortStampCaps caps, ProbePortStampCaps(port_id));
//   StampPlan plan = SelectStampPlan(caps, flags);
#ifndef ZG_DATAPLANE_CLOCK_STAMP_PLAN_H_
#define ZG_DATAPLANE_CLOCK_STAMP_PLAN_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "core/time/tx_kick_estimate.h"

namespace zg::dataplane {

// What one port offers.
struct PortStampCaps {
  std::string driver;              // rte_eth_dev_info.driver_name
  bool af_xdp = false;             // net_af_xdp
  bool read_clock = false;         // rte_eth_read_clock works
  bool rx_dynfield = false;        // RTE_ETH_RX_OFFLOAD_TIMESTAMP
  bool timesync = false;           // the PMD has IEEE 1588 timesync ops
                                   // (the daemon: and enabling them worked)
  bool timesync_one_latch = true;  // one TX stamp latched per port (Intel)
  bool send_on_timestamp = false;  // RTE_ETH_TX_OFFLOAD_SEND_ON_TIMESTAMP
  bool xdp_rx_metadata = false;    // bpf_xdp_metadata_rx_timestamp answers
};

// Receive stamps.
enum class RxStampSource : uint8_t {
  kSoftwareBurst,  // one TSC read per rx_burst (ring, memif)
  kXdpKernel,      // the XDP program's bpf_ktime_get_ns per frame (AF_XDP)
  kXdpMetadata,    // the driver's RX hardware stamp via XDP metadata kfunc
  kDynfield,       // the mbuf RX-timestamp dynfield (mlx5 style)
  kTimesync,       // rte_eth_timesync_read_rx_timestamp (PTP event frames)
};
// Transmit stamps.
enum class TxStampSource : uint8_t {
  kSoftwareBefore,  // TSC read just before tx_burst
  kSoftwareAfter,   // TSC read when tx_burst returned (after the kick)
  kTimesync,        // RTE_MBUF_F_TX_IEEE1588_TMST + read_tx_timestamp
  kScheduled,       // send-on-timestamp: leaves at a chosen NIC time
};
const char* RxStampSourceName(RxStampSource s);
const char* TxStampSourceName(TxStampSource s);

// The software TX stamps used where the port has no hardware one (basic NTP
// replies carry the stamp taken before tx_burst plus the --ntp_tx_stamp
// estimate, StampPlan::ntp_tx_placement: T3 is written into the frame;
// these say which one interleaved NTP and two-step PTP keep as the exact
// transmit time).
//
// NTP interleaved: the stamp after tx_burst includes net_af_xdp's kick,
// where the frame really leaves (doc/ntp-interleave.md).
inline constexpr TxStampSource kNtpSoftwareTxDefault =
    TxStampSource::kSoftwareAfter;
// PTP t1 (Sync) and t3 (Pdelay_Resp): the stamp BEFORE tx_burst. Measured
// on the veth rig (scripts/, the ptpmeas session: ptp4l slave's offset of
// each placement against the peer's RX time): UDPv4 before +5.3 us, after
// -37.5 us; L2 before -3.3 us, after -9.1 us. The kick runs the peer's
// whole receive path in softirq before tx_burst returns, so `after` is
// late by that path (doc/timestamps.md, "PTP").
inline constexpr TxStampSource kPtpSoftwareTxDefault =
    TxStampSource::kSoftwareBefore;

enum class TxScheduleMode : uint8_t { kOff, kAuto };

struct StampFlags {
  bool timesync = false;                              // --timesync
  TxScheduleMode tx_schedule = TxScheduleMode::kOff;  // --tx_schedule
  int64_t tx_schedule_lead_ns = 20'000;               // --tx_schedule_lead
  // AF_XDP: the XDP program stamps frames (xdp_prog= and
  // --xdp_rx_timestamps); otherwise AF_XDP RX is software.
  bool xdp_rx_stamps = true;
  // --ntp_tx_stamp: where a software basic-mode NTP T3 is placed around
  // tx_burst (an estimate for midpoint/after: core/time/tx_kick_estimate.h).
  core::TxStampPlacement ntp_tx_placement = core::TxStampPlacement::kMidpoint;
  // --xdp_rx_metadata: AF_XDP, replace zg_xdp.o by zg_xdp_hwts.o (the RX
  // metadata kfunc) where it loads (dataplane/port/xdp_hwts.h).
  bool xdp_rx_metadata = true;
};

// Per port: the source of each stamp the worker takes.
struct StampPlan {
  RxStampSource ntp_rx = RxStampSource::kSoftwareBurst;   // NTP T2
  TxStampSource ntp_tx = TxStampSource::kSoftwareBefore;  // NTP T3
  RxStampSource ptp_rx = RxStampSource::kSoftwareBurst;   // t2, Delay_Req t4
  TxStampSource ptp_tx = TxStampSource::kSoftwareBefore;  // t1, Pdelay t3
  int64_t tx_schedule_lead_ns = 0;  // kScheduled: launch this far ahead
  // The two stamps of an NTP reply come from one clock (false: RX from
  // the NIC clock, TX from the TSC; the correlation error between them is
  // added to the error bound).
  bool ntp_one_clock = true;
  // A software basic-mode T3 (ntp_tx software_*): stamped before tx_burst
  // plus this placement's estimate (--ntp_tx_stamp).
  core::TxStampPlacement ntp_tx_placement = core::TxStampPlacement::kBefore;
};

// Needs the port configured (and started, for read_clock on some PMDs).
absl::StatusOr<PortStampCaps> ProbePortStampCaps(uint16_t port_id);
StampPlan SelectStampPlan(const PortStampCaps& caps, const StampFlags& flags);
// "ntp_rx=dynfield ntp_tx=software_after ptp_rx=... ptp_tx=..." for logs.
std::string StampPlanString(const StampPlan& plan);
// "driver net_mlx5: rx_dynfield yes, read_clock yes, ..." for logs.
std::string PortStampCapsString(const PortStampCaps& caps);

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_CLOCK_STAMP_PLAN_H_
