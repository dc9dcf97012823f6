// SPDX-License-Identifier: Apache-2.0
#include "dataplane/daemon/stamp_setup.h"

#include <rte_cycles.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/base/status_macros.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"

namespace zg::dataplane {

PortStampCaps EffectiveStampCaps(PortStampCaps offered,
                                 const PortCapabilities& enabled,
                                 bool fake_nic_clock) {
  offered.rx_dynfield = offered.rx_dynfield && enabled.rx_timestamp_offload;
  offered.timesync = offered.timesync && enabled.timesync;
  // Launch times only where the port enabled them (--tx_schedule=auto).
  offered.send_on_timestamp =
      offered.send_on_timestamp && enabled.send_on_timestamp;
  if (fake_nic_clock) {
    // The fake writes the dynfield and is read like a NIC clock; it
    // schedules nothing (send_on_timestamp stays the port's).
    offered.rx_dynfield = true;
    offered.read_clock = true;
  }
  return offered;
}

absl::StatusOr<std::unique_ptr<PortStamps>> PortStamps::SetUp(
    const Port& port, const PortStampOptions& options) {
  std::unique_ptr<PortStamps> s(new PortStamps(port));
  ZG_ASSIGN_OR_RETURN(const PortStampCaps offered,
                      ProbePortStampCaps(port.id()));
  s->caps_ = EffectiveStampCaps(offered, port.caps(), options.fake_nic_clock);
  s->caps_.xdp_rx_metadata = s->caps_.af_xdp && !options.xdp_phc.empty();
  s->plan_ = SelectStampPlan(s->caps_, options.flags);
  ZG_RETURN_IF_ERROR(s->AttachRxClock(options));
  if (s->plan_.ptp_tx == TxStampSource::kTimesync ||
      s->plan_.ptp_rx == RxStampSource::kTimesync) {
    s->timesync_ = std::make_unique<TimesyncNicClock>(port.id());
  }
  return s;
}

absl::Status PortStamps::AttachRxClock(const PortStampOptions& options) {
  const RxStampSource rx = plan_.ntp_rx;
  if (rx == RxStampSource::kDynfield && options.fake_nic_clock) {
    ZG_ASSIGN_OR_RETURN(field_, RegisterNicStampField());
    // A 1 GHz clock (ns ticks, like most NICs) with its own epoch.
    fake_nic_ = std::make_unique<FakeNicClock>(
        field_, /*offset_ticks=*/1'000'000'000'000ULL,
        1e9 / static_cast<double>(rte_get_tsc_hz()));
    for (uint16_t q = 0; q < port_.num_queues(); ++q) {
      ZG_RETURN_IF_ERROR(fake_nic_->AttachRx(port_.id(), q));
    }
    nic_ = fake_nic_.get();
  } else if (rx == RxStampSource::kDynfield) {
    ZG_ASSIGN_OR_RETURN(EthdevNicClock clock, EthdevNicClock::Open(port_.id()));
    ethdev_nic_ = std::make_unique<EthdevNicClock>(std::move(clock));
    field_ = port_.stamp_field();
    nic_ = ethdev_nic_.get();
  } else if (rx == RxStampSource::kXdpKernel ||
             rx == RxStampSource::kXdpMetadata) {
    ZG_ASSIGN_OR_RETURN(field_, RegisterNicStampField());
    xdp_stamps_ = std::make_unique<XdpStampClock>(field_);
    if (rx == RxStampSource::kXdpMetadata) {
      ZG_RETURN_IF_ERROR(xdp_stamps_->OpenPhc(options.xdp_phc));
    }
    for (uint16_t q = 0; q < port_.num_queues(); ++q) {
      ZG_RETURN_IF_ERROR(xdp_stamps_->AttachRx(port_.id(), q));
    }
    nic_ = xdp_stamps_.get();
  }
  // kSoftwareBurst: the TSC; kTimesync is never NTP's (PTP reads its own
  // registers).
  return absl::OkStatus();
}

std::string PortStamps::Describe() const {
  absl::string_view clock = "the TSC at each rx_burst";
  if (fake_nic_ != nullptr) clock = "a synthetic NIC clock (--fake_nic_clock)";
  if (ethdev_nic_ != nullptr) clock = "the NIC clock (rte_eth_read_clock)";
  if (xdp_stamps_ != nullptr) {
    clock = xdp_stamps_->phc()
                ? "the driver's RX hardware stamps from zg_xdp_hwts.o (the "
                  "interface's PHC; frames without one: the TSC at rx_burst)"
                : "the kernel's receive time from the XDP program "
                  "(CLOCK_MONOTONIC)";
  }
  return absl::StrCat("port ", port_.id(), " (", port_.name(),
                      ") stamps: ", PortStampCapsString(caps_), "; plan ",
                      StampPlanString(plan_), "; RX stamps from ", clock,
                      nic_ != nullptr ? ", mapped to TAI through the TSC" : "",
                      timesync_ != nullptr
                          ? "; PTP stamps from the timesync registers' clock "
                            "(tracked as timesync:port<N>)"
                          : "");
}

absl::Status PortStamps::AddMetrics(prometheus::Registry& registry) const {
  auto& family =
      prometheus::BuildGauge()
          .Name("zeitgeber_stamp_source")
          .Help(
              "1 for the source of each stamp (ntp_rx, ntp_tx, ptp_rx, ptp_tx) "
              "the port's stamp plan chose at start")
          .Register(registry);
  const std::pair<const char*, const char*> stamps[] = {
      {"ntp_rx", RxStampSourceName(plan_.ntp_rx)},
      {"ntp_tx", TxStampSourceName(plan_.ntp_tx)},
      {"ptp_rx", RxStampSourceName(plan_.ptp_rx)},
      {"ptp_tx", TxStampSourceName(plan_.ptp_tx)},
  };
  for (const auto& [stamp, source] : stamps) {
    family.Add({{"port", port_.name()}, {"stamp", stamp}, {"source", source}})
        .Set(1);
  }
  return absl::OkStatus();
}

}  // namespace zg::dataplane
