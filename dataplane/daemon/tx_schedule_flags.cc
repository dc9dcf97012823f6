#include "dataplane/daemon/tx_schedule_flags.h"

#include "absl/flags/flag.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"
#include "core/time/tx_launch.h"

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

}  // namespace zg::dataplane
