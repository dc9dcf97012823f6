// SPDX-License-Identifier: Apache-2.0
#include "dataplane/daemon/flags/timestamps.h"

#include <optional>

#include "absl/flags/flag.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"
#include "core/time/tx_kick_estimate.h"
#include "core/time/tx_launch.h"
#include "dataplane/daemon/flags.h"

ABSL_FLAG(bool, hw_timestamps, true,
          "Use NIC RX timestamps where the port offers them and its clock can "
          "be read; otherwise the TSC at each burst.");
ABSL_FLAG(bool, timesync, false,
          "Enable the port's IEEE 1588 timesync registers (PTP TX stamps).");
ABSL_FLAG(bool, xdp_rx_timestamps, true,
          "AF_XDP with zeitgeber's XDP program: stamp each steered frame "
          "with the kernel's receive time in the XDP hook (more accurate "
          "than the TSC read after rx_burst when the worker shares its "
          "core).");
ABSL_FLAG(std::string, ntp_tx_stamp, "midpoint",
          "Software NTP transmit stamps (T3, basic mode): where the stamp is "
          "placed around tx_burst: before (the TSC read before the call), "
          "after or midpoint (that read plus the worker's running estimate "
          "of the call's length, so T3 lands when the frame leaves; "
          "measured by scripts/measure-tx-stamp.sh, doc/timestamps.md).");
ABSL_FLAG(bool, xdp_rx_metadata, true,
          "AF_XDP with xdp_prog=.../zg_xdp.o: replace the program by "
          "zg_xdp_hwts.o from the same folder, which stamps each frame with "
          "the driver's RX hardware time (bpf_xdp_metadata_rx_timestamp, "
          "kernel >= 6.3) where the driver has one; keeps zg_xdp.o, with "
          "the reason logged, where it cannot load.");
ABSL_FLAG(bool, fake_nic_clock, false,
          "Rigs and tests only: stamp received frames with a synthetic NIC "
          "clock, to exercise the hardware-timestamp path without a NIC.");
ABSL_FLAG(bool, nic_check, false,
          "Print what the port offers for timestamps (RX dynfield, timesync, "
          "send-on-timestamp, read_clock), the stamp plan zeitgeberd picks "
          "and, with --timesync, the TX-stamp latency; then exit without "
          "serving (scripts/nic-check.sh).");
ABSL_FLAG(std::string, tx_schedule, "off",
          "Send-on-timestamp transmission: 'auto' sends NTP replies and PTP "
          "event messages at a chosen NIC-clock time (exact T3 / one-step "
          "Sync originTimestamp) where the port offers "
          "RTE_ETH_TX_OFFLOAD_SEND_ON_TIMESTAMP and its clock is readable "
          "(mlx5 with the devarg tx_pp=); 'off' (default) stamps in software "
          "or with timesync.");
ABSL_FLAG(absl::Duration, tx_schedule_lead, absl::Microseconds(20),
          "With --tx_schedule=auto: how far ahead of now each frame's launch "
          "time is chosen (1us..10ms). Must cover finalising the TX batch "
          "and tx_burst; late frames are counted in "
          "zeitgeber_tx_schedule_late_total.");

namespace zg::dataplane {

absl::Status ParseTxScheduleMode(absl::string_view text, TxScheduleMode* out) {
  const std::string v = absl::AsciiStrToLower(text);
  if (v == "off") {
    *out = TxScheduleMode::kOff;
  } else if (v == "auto") {
    *out = TxScheduleMode::kAuto;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("--tx_schedule=", text,
                     ": must be 'off' or 'auto' (send-on-timestamp where the "
                     "port offers it)"));
  }
  return absl::OkStatus();
}

absl::Status CheckTxScheduleLead(absl::Duration lead, int64_t* lead_ns) {
  const int64_t ns = absl::ToInt64Nanoseconds(lead);
  if (lead < absl::Nanoseconds(core::kTxLaunchMinLeadNs) ||
      lead > absl::Nanoseconds(core::kTxLaunchMaxLeadNs)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--tx_schedule_lead=", absl::FormatDuration(lead),
        ": must be 1us..10ms. It must cover finalising a TX batch (MAC or "
        "NTS seals take ~0.2us a reply) and tx_burst, or frames leave late "
        "(zeitgeber_tx_schedule_late_total); every reply waits this long in "
        "the NIC, so keep it small: 20us is the default"));
  }
  *lead_ns = ns;
  return absl::OkStatus();
}

absl::Status ReadTxScheduleFlags(StampFlags* flags) {
  ZG_RETURN_IF_ERROR(ParseTxScheduleMode(absl::GetFlag(FLAGS_tx_schedule),
                                         &flags->tx_schedule));
  return CheckTxScheduleLead(absl::GetFlag(FLAGS_tx_schedule_lead),
                             &flags->tx_schedule_lead_ns);
}

absl::Status ReadTxStampFlags(StampFlags& flags) {
  const std::string placement = absl::GetFlag(FLAGS_ntp_tx_stamp);
  const std::optional<core::TxStampPlacement> p =
      core::ParseTxStampPlacement(placement);
  if (!p.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--ntp_tx_stamp=", placement, ": must be before, midpoint or after"));
  }
  flags.ntp_tx_placement = *p;
  flags.xdp_rx_metadata = absl::GetFlag(FLAGS_xdp_rx_metadata);
  return absl::OkStatus();
}

absl::Status ReadTimestampFlags(DaemonConfig& c) {
  c.hw_timestamps = absl::GetFlag(FLAGS_hw_timestamps);
  c.timesync = absl::GetFlag(FLAGS_timesync);
  c.fake_nic_clock = absl::GetFlag(FLAGS_fake_nic_clock);
  c.xdp_rx_timestamps = absl::GetFlag(FLAGS_xdp_rx_timestamps);
  c.nic_check = absl::GetFlag(FLAGS_nic_check);
  c.stamps.timesync = c.timesync;
  ZG_RETURN_IF_ERROR(ReadTxScheduleFlags(&c.stamps));
  return ReadTxStampFlags(c.stamps);
}

}  // namespace zg::dataplane
