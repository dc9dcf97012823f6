#include "dataplane/daemon/tx_stamp_flags.h"

#include <optional>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "core/time/tx_kick_estimate.h"

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

namespace zg::dataplane {

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

}  // namespace zg::dataplane
