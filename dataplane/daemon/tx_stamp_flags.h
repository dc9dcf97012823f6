// zeitgeberd's software-stamp flags:
//
//   --ntp_tx_stamp=midpoint   where a software basic-mode NTP T3 is placed
//                             around tx_burst: before | midpoint | after
//                             (core/time/tx_kick_estimate.h; the default
//                             is the measured best, doc/timestamps.md)
//   --xdp_rx_metadata=true    AF_XDP with xdp_prog=zg_xdp.o: replace it by
//                             zg_xdp_hwts.o (next to it), which asks the
//                             driver for the frame's RX hardware stamp
//                             (bpf_xdp_metadata_rx_timestamp); falls back
//                             to zg_xdp.o with a logged reason
//
//   ZG_RETURN_IF_ERROR(ReadTxStampFlags(c.stamps));
#ifndef ZG_DATAPLANE_DAEMON_TX_STAMP_FLAGS_H_
#define ZG_DATAPLANE_DAEMON_TX_STAMP_FLAGS_H_

#include <string>

#include "absl/flags/declare.h"
#include "absl/status/status.h"
#include "dataplane/clock/stamp_plan.h"

ABSL_DECLARE_FLAG(std::string, ntp_tx_stamp);
ABSL_DECLARE_FLAG(bool, xdp_rx_metadata);

namespace zg::dataplane {

// Fills flags.ntp_tx_placement and flags.xdp_rx_metadata from the flags'
// current values (errors name the flag).
absl::Status ReadTxStampFlags(StampFlags& flags);

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_TX_STAMP_FLAGS_H_
