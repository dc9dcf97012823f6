// SPDX-License-Identifier: Apache-2.0
// Launch times for send-on-timestamp transmission (--tx_schedule):
// the arithmetic behind dataplane/clock/tx_scheduler.h, without DPDK.
//
// A NIC with send-on-timestamp (mlx5 tx_pp) sends a frame at the NIC-clock
// time written in its mbuf. The worker picks that time `lead_ns` ahead of
// now, so the frame's transmit timestamp (NTP T3, PTP originTimestamp) is
// known exactly before it is written into the frame:
//
//   target = max(now_tai + lead_ns, previous launch + its wire time)
//   launch_raw = nic.TaiToRaw(target)      // NIC ticks, the first at/after
//   launch_tai = nic.RawToTai(launch_raw)  // what the frame carries
//
// Launch times of one queue are strictly increasing and spaced by at least
// the previous frame's time on the wire at the link speed (preamble, FCS and
// inter-frame gap included), so the frames of a burst never share one time
// (the NIC could not honour it: the second would leave late).
//
// One per (worker, port queue); used by that worker alone. No allocation,
// syscalls or locks.
//
//   TxLaunchSchedule s(/*lead_ns=*/20'000, /*link_mbps=*/25'000);
//   TxLaunch l = s.Next(tsc_model.RawToTai(ReadTsc()), nic_model, pkt_len);
//   // write l.raw into the mbuf's TX-timestamp dynfield, l.tai as T3
#ifndef ZG_CORE_TIME_TX_LAUNCH_H_
#define ZG_CORE_TIME_TX_LAUNCH_H_

#include <cstdint>

#include "core/time/clock_model.h"
#include "core/time/time_types.h"

namespace zg::core {

// Bounds of --tx_schedule_lead.
inline constexpr int64_t kTxLaunchMinLeadNs = 1'000;       // 1 us
inline constexpr int64_t kTxLaunchMaxLeadNs = 10'000'000;  // 10 ms
// The link speed assumed when the port does not report one.
inline constexpr uint32_t kTxLaunchDefaultLinkMbps = 10'000;

// Octets a frame occupies on an Ethernet wire beyond its length without
// FCS (the mbuf's pkt_len): FCS 4, preamble and SFD 8, inter-frame gap 12.
inline constexpr uint32_t kEthernetWireOverhead = 24;
inline constexpr uint32_t kEthernetMinFrame = 60;  // without FCS

// Nanoseconds a frame of `frame_bytes` (without FCS) holds a link of
// `link_mbps` (0: the default), rounded up.
constexpr int64_t FrameWireTimeNs(uint32_t frame_bytes, uint32_t link_mbps) {
  if (link_mbps == 0) link_mbps = kTxLaunchDefaultLinkMbps;
  const uint64_t bytes =
      uint64_t{frame_bytes < kEthernetMinFrame ? kEthernetMinFrame
                                               : frame_bytes} +
      kEthernetWireOverhead;
  // bits * 1000 / Mbit/s = ns.
  return static_cast<int64_t>((bytes * 8 * 1000 + link_mbps - 1) / link_mbps);
}

struct TxLaunch {
  uint64_t raw = 0;  // NIC-clock ticks: the mbuf's launch time
  TaiNs tai;         // the same instant on the TAI scale (nic.RawToTai)
};

class TxLaunchSchedule {
 public:
  TxLaunchSchedule() = default;
  TxLaunchSchedule(int64_t lead_ns, uint32_t link_mbps)
      : lead_ns_(lead_ns),
        link_mbps_(link_mbps != 0 ? link_mbps : kTxLaunchDefaultLinkMbps) {}

  // The link's speed changed (0: unknown, the default).
  void SetLinkMbps(uint32_t mbps) {
    link_mbps_ = mbps != 0 ? mbps : kTxLaunchDefaultLinkMbps;
  }
  uint32_t link_mbps() const { return link_mbps_; }
  int64_t lead_ns() const { return lead_ns_; }

  // The launch time of the next frame (`frame_bytes` long, without FCS) of
  // this queue, given TAI now (from the TSC model) and the NIC clock's model
  // (NIC ticks -> TAI; ns_per_tick_q32 != 0).
  TxLaunch Next(TaiNs now_tai, const ClockModel& nic, uint32_t frame_bytes) {
    TaiNs target = now_tai + lead_ns_;
    uint64_t raw;
    if (have_last_) {
      // The previous frame's launch under the current model (it may have
      // been republished since) plus its time on the wire.
      const TaiNs free_at =
          nic.RawToTai(last_raw_) + FrameWireTimeNs(last_bytes_, link_mbps_);
      if (free_at > target) target = free_at;
      raw = nic.TaiToRaw(target);
      if (static_cast<int64_t>(raw - last_raw_) <= 0) raw = last_raw_ + 1;
    } else {
      raw = nic.TaiToRaw(target);
    }
    have_last_ = true;
    last_raw_ = raw;
    last_bytes_ = frame_bytes;
    return {raw, nic.RawToTai(raw)};
  }

  // Forgets the previous launch (the NIC clock was stepped: its ticks no
  // longer compare).
  void Reset() { have_last_ = false; }

 private:
  int64_t lead_ns_ = 20'000;
  uint32_t link_mbps_ = kTxLaunchDefaultLinkMbps;
  bool have_last_ = false;
  uint64_t last_raw_ = 0;
  uint32_t last_bytes_ = 0;
};

}  // namespace zg::core

#endif  // ZG_CORE_TIME_TX_LAUNCH_H_
