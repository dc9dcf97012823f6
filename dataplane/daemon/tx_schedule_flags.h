// zeitgeberd's send-on-timestamp flags (dataplane/clock/
// tx_scheduler.h): whether a port that offers RTE_ETH_TX_OFFLOAD_SEND_ON_
// TIMESTAMP (mlx5 with tx_pp=, the emulated NIC) sends NTP replies and PTP
// event messages at a chosen NIC-clock time, so their transmit timestamps
// (NTP T3, a one-step Sync's originTimestamp) are exact, and how far ahead.
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
//   ZG_RETURN_IF_ERROR(ReadTxScheduleFlags(&c.stamps));
#ifndef ZG_DATAPLANE_DAEMON_TX_SCHEDULE_FLAGS_H_
#define ZG_DATAPLANE_DAEMON_TX_SCHEDULE_FLAGS_H_

#include <string>

#include "absl/flags/declare.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "dataplane/clock/stamp_plan.h"

ABSL_DECLARE_FLAG(std::string, tx_schedule);
ABSL_DECLARE_FLAG(absl::Duration, tx_schedule_lead);

namespace zg::dataplane {

// "off" or "auto"; the error names the flag and the choices.
absl::Status ParseTxScheduleMode(absl::string_view text, TxScheduleMode* out);
// 1us..10ms; the error says what the lead must cover.
absl::Status CheckTxScheduleLead(absl::Duration lead, int64_t* lead_ns);
// Fills flags->tx_schedule and flags->tx_schedule_lead_ns from the flags.
absl::Status ReadTxScheduleFlags(StampFlags* flags);

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_TX_SCHEDULE_FLAGS_H_
