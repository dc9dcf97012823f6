// SPDX-License-Identifier: Apache-2.0
#include "dataplane/clock/stamp_plan.h"

#include <rte_ethdev.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "dataplane/clock/nic_clock.h"

namespace zg::dataplane {
namespace {

// Stamps read from the NIC's (or the kernel's) clock rather than the TSC.
bool RxOffTsc(RxStampSource s) { return s != RxStampSource::kSoftwareBurst; }
bool TxOffTsc(TxStampSource s) {
  return s == TxStampSource::kTimesync || s == TxStampSource::kScheduled;
}

RxStampSource RxFallback(const PortStampCaps& caps, const StampFlags& flags) {
  if (caps.rx_dynfield && caps.read_clock) return RxStampSource::kDynfield;
  if (caps.af_xdp && flags.xdp_rx_stamps) {
    return caps.xdp_rx_metadata ? RxStampSource::kXdpMetadata
                                : RxStampSource::kXdpKernel;
  }
  return RxStampSource::kSoftwareBurst;
}

bool CanSchedule(const PortStampCaps& caps, const StampFlags& flags) {
  // The launch time is NIC-clock time: without a readable clock the worker
  // cannot choose one.
  return flags.tx_schedule == TxScheduleMode::kAuto && caps.send_on_timestamp &&
         caps.read_clock;
}

}  // namespace

const char* RxStampSourceName(RxStampSource s) {
  switch (s) {
    case RxStampSource::kSoftwareBurst:
      return "software_burst";
    case RxStampSource::kXdpKernel:
      return "xdp_kernel";
    case RxStampSource::kXdpMetadata:
      return "xdp_metadata";
    case RxStampSource::kDynfield:
      return "dynfield";
    case RxStampSource::kTimesync:
      return "timesync";
  }
  return "?";
}

const char* TxStampSourceName(TxStampSource s) {
  switch (s) {
    case TxStampSource::kSoftwareBefore:
      return "software_before";
    case TxStampSource::kSoftwareAfter:
      return "software_after";
    case TxStampSource::kTimesync:
      return "timesync";
    case TxStampSource::kScheduled:
      return "scheduled";
  }
  return "?";
}

absl::StatusOr<PortStampCaps> ProbePortStampCaps(uint16_t port_id) {
  rte_eth_dev_info info{};
  if (int rc = rte_eth_dev_info_get(port_id, &info); rc != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("port ", port_id, ": cannot read device info to probe ",
                     "its timestamping: ", std::strerror(-rc)));
  }
  PortStampCaps caps;
  caps.driver = info.driver_name != nullptr ? info.driver_name : "?";
  caps.af_xdp = caps.driver == "net_af_xdp";
  caps.rx_dynfield = (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_TIMESTAMP) != 0;
  caps.send_on_timestamp =
      (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_SEND_ON_TIMESTAMP) != 0;
  caps.read_clock = EthdevNicClock::Open(port_id).ok();
  // Whether the PMD has IEEE 1588 ops at all, without touching the
  // registers (rte_eth_timesync_enable resets the clock on some PMDs): only
  // a missing op answers -ENOTSUP. The daemon ANDs in Port::Start's enable.
  timespec ts{};
  caps.timesync = rte_eth_timesync_read_time(port_id, &ts) != -ENOTSUP;
  // rte_eth_timesync_read_tx_timestamp has no index: every 22.11 PMD hands
  // out the one stamp it latched last (Intel: one register per port).
  caps.timesync_one_latch = true;
  return caps;
}

StampPlan SelectStampPlan(const PortStampCaps& caps, const StampFlags& flags) {
  StampPlan plan;
  const bool schedule = CanSchedule(caps, flags);
  const bool timesync = flags.timesync && caps.timesync;
  plan.ntp_rx = RxFallback(caps, flags);
  // Timesync stamps only PTP event frames: NTP's T3 is scheduled or taken
  // in software.
  plan.ntp_tx = schedule ? TxStampSource::kScheduled : kNtpSoftwareTxDefault;
  if (schedule) {
    plan.ptp_tx = TxStampSource::kScheduled;  // one-step, exact origin
    plan.ptp_rx = plan.ntp_rx;
  } else if (timesync) {
    // t1 and t2/t4 from the same (timesync) registers' clock, which on
    // Intel PMDs is not the one rte_eth_read_clock reads.
    plan.ptp_tx = TxStampSource::kTimesync;
    plan.ptp_rx = RxStampSource::kTimesync;
  } else {
    plan.ptp_tx = kPtpSoftwareTxDefault;
    plan.ptp_rx = plan.ntp_rx;
  }
  if (schedule) plan.tx_schedule_lead_ns = flags.tx_schedule_lead_ns;
  if (!TxOffTsc(plan.ntp_tx)) plan.ntp_tx_placement = flags.ntp_tx_placement;
  plan.ntp_one_clock = RxOffTsc(plan.ntp_rx) == TxOffTsc(plan.ntp_tx);
  return plan;
}

std::string StampPlanString(const StampPlan& plan) {
  std::string s =
      absl::StrCat("ntp_rx=", RxStampSourceName(plan.ntp_rx),
                   " ntp_tx=", TxStampSourceName(plan.ntp_tx),
                   " ptp_rx=", RxStampSourceName(plan.ptp_rx),
                   " ptp_tx=", TxStampSourceName(plan.ptp_tx),
                   " ntp_one_clock=", plan.ntp_one_clock ? "yes" : "no");
  if (!TxOffTsc(plan.ntp_tx)) {
    absl::StrAppend(
        &s, " ntp_t3=", core::TxStampPlacementName(plan.ntp_tx_placement));
  }
  if (plan.tx_schedule_lead_ns != 0) {
    absl::StrAppend(&s, " tx_schedule_lead=", plan.tx_schedule_lead_ns, "ns");
  }
  return s;
}

std::string PortStampCapsString(const PortStampCaps& caps) {
  const char* yn[] = {"no", "yes"};
  return absl::StrCat(
      "driver ", caps.driver, ": rx_dynfield ", yn[caps.rx_dynfield],
      ", read_clock ", yn[caps.read_clock], ", timesync ", yn[caps.timesync],
      caps.timesync ? (caps.timesync_one_latch ? " (one TX latch)" : "") : "",
      ", send_on_timestamp ", yn[caps.send_on_timestamp], ", af_xdp ",
      yn[caps.af_xdp], ", xdp_rx_metadata ", yn[caps.xdp_rx_metadata]);
}

}  // namespace zg::dataplane
