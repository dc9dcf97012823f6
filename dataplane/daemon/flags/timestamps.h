// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's timestamp flags, the "Timestamps" group of `zeitgeberd --
// --help`: where receive and transmit stamps come from (doc/timestamps.md,
// dataplane/clock/stamp_plan.h), and --nic_check, which reports what the
// port offers for them.
//
//   --hw_timestamps=true      NIC RX stamps where the port has them
//   --timesync=false          the port's IEEE 1588 registers (PTP TX stamps)
//   --xdp_rx_timestamps=true  AF_XDP: the kernel's receive time from zg_xdp.o
//   --xdp_rx_metadata=true    AF_XDP with xdp_prog=zg_xdp.o: replace it by
//                             zg_xdp_hwts.o (next to it), which asks the
//                             driver for the frame's RX hardware stamp
//                             (bpf_xdp_metadata_rx_timestamp); falls back
//                             to zg_xdp.o with a logged reason
//   --ntp_tx_stamp=midpoint   where a software basic-mode NTP T3 is placed
//                             around tx_burst: before | midpoint | after
//                             (core/time/tx_kick_estimate.h; the default
//                             is the measured best, doc/timestamps.md)
//   --fake_nic_clock=false    rigs and tests: a synthetic NIC clock
//   --nic_check=false         report the port's stamping and exit
//
// Send-on-timestamp (dataplane/clock/tx_scheduler.h): whether a port that
// offers RTE_ETH_TX_OFFLOAD_SEND_ON_TIMESTAMP (mlx5 with tx_pp=, the
// emulated NIC) sends NTP replies and PTP event messages at a chosen
// NIC-clock time, so their transmit timestamps (NTP T3, a one-step Sync's
// originTimestamp) are exact, and how far ahead.
//
//   --tx_schedule=off        default: software (or timesync) TX stamps
//   --tx_schedule=auto       schedule where the port offers it and its clock
//                            is readable (StampPlan kScheduled), else off
//   --tx_schedule_lead=20us  launch this far after the reply is finalised:
//                            must cover the batch's finalising (MAC/NTS
//                            seals: ~0.2 us a reply) and tx_burst; frames
//                            whose time has passed leave at once, counted in
//                            zeitgeber_tx_schedule_late_total. 1us..10ms.
//
//   ZG_RETURN_IF_ERROR(ReadTimestampFlags(c));   // in DaemonConfigFromFlags
#ifndef ZG_DATAPLANE_DAEMON_FLAGS_TIMESTAMPS_H_
#define ZG_DATAPLANE_DAEMON_FLAGS_TIMESTAMPS_H_

#include <string>

#include "absl/flags/declare.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "dataplane/clock/stamp_plan.h"

ABSL_DECLARE_FLAG(std::string, tx_schedule);
ABSL_DECLARE_FLAG(absl::Duration, tx_schedule_lead);
ABSL_DECLARE_FLAG(std::string, ntp_tx_stamp);
ABSL_DECLARE_FLAG(bool, xdp_rx_metadata);

namespace zg::dataplane {

struct DaemonConfig;

// Fills c.hw_timestamps, timesync, fake_nic_clock, xdp_rx_timestamps,
// nic_check and c.stamps from the flags (errors name the flag).
absl::Status ReadTimestampFlags(DaemonConfig& c);

// "off" or "auto"; the error names the flag and the choices.
absl::Status ParseTxScheduleMode(absl::string_view text, TxScheduleMode* out);
// 1us..10ms; the error says what the lead must cover.
absl::Status CheckTxScheduleLead(absl::Duration lead, int64_t* lead_ns);
// Fills flags->tx_schedule and flags->tx_schedule_lead_ns from the flags.
absl::Status ReadTxScheduleFlags(StampFlags* flags);
// Fills flags.ntp_tx_placement and flags.xdp_rx_metadata.
absl::Status ReadTxStampFlags(StampFlags& flags);

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_FLAGS_TIMESTAMPS_H_
