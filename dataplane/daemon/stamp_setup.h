// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's stamps for its port, set up once at start: the port's stamp
// capabilities probed (dataplane/clock/stamp_plan.h) and overlaid with what
// the daemon enabled (--hw_timestamps, --timesync), the StampPlan chosen from
// them and the flags, and the clock behind the receive stamps the plan reads
// from the NIC or the kernel (EthdevNicClock for the RX dynfield, the
// FakeNicClock of --fake_nic_clock, XdpStampClock for AF_XDP), attached to
// every queue. The plan is logged, handed to every WorkerQueue and
// WorkerPort, and exported as
//
//   zeitgeber_stamp_source{port="net_ring0",stamp="ntp_rx",source="dynfield"} 1
//
// Written by: the control thread before the workers start; immutable after
// (the NIC clocks' RX callbacks read only immutable fields).
//
//   ZG_ASSIGN_OR_RETURN(std::unique_ptr<PortStamps> stamps,
//                       PortStamps::SetUp(*port, options));
//   LogInfo(stamps->Describe());
//   if (stamps->nic() != nullptr) control->AddNicClock(...);
#ifndef ZG_DATAPLANE_DAEMON_STAMP_SETUP_H_
#define ZG_DATAPLANE_DAEMON_STAMP_SETUP_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "dataplane/clock/nic_clock.h"
#include "dataplane/clock/stamp_plan.h"
#include "dataplane/clock/timestamper.h"
#include "dataplane/port/port.h"

namespace prometheus {
class Registry;
}

namespace zg::dataplane {

// --hw_timestamps is already in the Port's enabled caps (PortOptions).
struct PortStampOptions {
  bool fake_nic_clock = false;  // --fake_nic_clock: a synthetic dynfield
  StampFlags flags;             // --timesync, --tx_schedule, XDP stamps
  // --xdp_rx_metadata: zg_xdp_hwts.o is attached and its hardware stamps
  // are this PTP hardware clock's ("/dev/ptpN"); "": not swapped in.
  std::string xdp_phc;
};

class PortStamps {
 public:
  // `port` started (read_clock needs it on some PMDs); outlives this.
  static absl::StatusOr<std::unique_ptr<PortStamps>> SetUp(
      const Port& port, const PortStampOptions& options);
  PortStamps(const PortStamps&) = delete;
  PortStamps& operator=(const PortStamps&) = delete;

  const PortStampCaps& caps() const { return caps_; }
  const StampPlan& plan() const { return plan_; }
  // The clock of the plan's RX stamps when they are not the TSC (null:
  // software RX stamps). Control thread: the NIC-clock tracker samples it.
  NicClock* nic() const { return nic_; }
  // The clock of PTP's timesync stamps (plan ptp_tx/ptp_rx kTimesync;
  // null otherwise). Control thread: tracked like nic(), its model is
  // WorkerPort::timesync_clock.
  NicClock* timesync() const { return timesync_.get(); }
  // Where the RX stamps of nic() are in each mbuf; valid iff nic().
  NicStampField field() const { return field_; }
  // "port 0 (net_ring0) stamps: driver ...; plan ntp_rx=..."
  std::string Describe() const;
  // zeitgeber_stamp_source{port,stamp,source} = 1 for the plan's sources.
  absl::Status AddMetrics(prometheus::Registry& registry) const;

 private:
  explicit PortStamps(const Port& port) : port_(port) {}
  absl::Status AttachRxClock(const PortStampOptions& options);

  const Port& port_;
  PortStampCaps caps_;
  StampPlan plan_;
  std::unique_ptr<EthdevNicClock> ethdev_nic_;
  std::unique_ptr<FakeNicClock> fake_nic_;
  std::unique_ptr<XdpStampClock> xdp_stamps_;
  NicClock* nic_ = nullptr;  // one of the three above, if any
  std::unique_ptr<TimesyncNicClock> timesync_;
  NicStampField field_;
};

// The daemon's view of a port's caps: what the port offers, less what it
// did not enable (RX timestamp offload off by --hw_timestamps=false or not
// offered; timesync not requested or refused), plus the fake NIC clock.
PortStampCaps EffectiveStampCaps(PortStampCaps offered,
                                 const PortCapabilities& enabled,
                                 bool fake_nic_clock);

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_STAMP_SETUP_H_
