// SPDX-License-Identifier: Apache-2.0
// The messages a grandmaster originates on its own schedule: Announce, Sync
// and Follow_Up (multicast and to each unicast subscriber), and the
// Pdelay_Resp_Follow_Up that completes a two-step peer-delay answer.
//
// A million subscribers mean millions of messages per second, so Announce,
// Sync and Follow_Up are serialised once (SerializePtpMessage) into
// templates whenever the grandmaster view changes, and each send copies a
// template and patches sequenceId, the unicast flag, logMessageInterval and
// the timestamp at their fixed offsets (IEEE 1588-2019 Table 35).
//
//   PtpOriginTemplates t;
//   if (!t.Build(reply_config, gm, /*two_step=*/true)) { /* bad config */ }
//   size_t n = t.WriteSync(buf, seq, log_interval, /*unicast=*/true,
//                          TaiToPtp(now));
//   ... transmit, read the TX timestamp t1 ...
//   n = t.WriteFollowUp(buf, seq, log_interval, true, TaiToPtp(t1));
//
// No allocation; Write* are a memcpy and a few stores.
#ifndef ZG_CORE_PTP_PTP_ORIGINATE_H_
#define ZG_CORE_PTP_PTP_ORIGINATE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "core/ptp/ptp_datasets.h"
#include "core/ptp/ptp_wire.h"
#include "core/time/time_types.h"

namespace zg::core {

// Offsets of the fields patched in originated messages (Table 35/44).
inline constexpr size_t kPtpOffsetFlags = 6;
inline constexpr size_t kPtpOffsetCorrection = 8;
inline constexpr size_t kPtpOffsetSequenceId = 30;
inline constexpr size_t kPtpOffsetLogInterval = 33;
inline constexpr size_t kPtpOffsetBodyTimestamp = 34;

class PtpOriginTemplates {
 public:
  // (Re)builds the templates: sourcePortIdentity, domain, sdoId and minor
  // version from `port`; Announce fields and time-property flags from `gm`;
  // twoStepFlag on Sync when `two_step`. False if a field cannot be encoded.
  bool Build(const PtpReplyConfig& port, const PtpGrandmasterView& gm,
             bool two_step);

  // Each returns the message length, or 0 when `out` is too small.
  // `origin`: the Announce originTimestamp / the Sync originTimestamp (an
  // estimate of the send time for two-step; the exact one for one-step,
  // which the NIC may overwrite).
  size_t WriteAnnounce(std::span<uint8_t> out, uint16_t sequence_id,
                       int8_t log_interval, bool unicast,
                       PtpTimestamp origin) const;
  size_t WriteSync(std::span<uint8_t> out, uint16_t sequence_id,
                   int8_t log_interval, bool unicast,
                   PtpTimestamp origin) const;
  // preciseOriginTimestamp = the Sync's transmit time (t1).
  size_t WriteFollowUp(std::span<uint8_t> out, uint16_t sequence_id,
                       int8_t log_interval, bool unicast,
                       PtpTimestamp precise_origin) const;

  bool two_step() const { return two_step_; }

 private:
  bool two_step_ = true;
  std::array<uint8_t, kPtpAnnounceLength> announce_{};
  std::array<uint8_t, kPtpSyncLength> sync_{};
  std::array<uint8_t, kPtpFollowUpLength> follow_up_{};
};

// Overwrites the timestamp that starts the body (Sync/Follow_Up/Delay_Req
// originTimestamp, preciseOriginTimestamp, ...). False if `msg` is shorter
// than header + timestamp or `t` is invalid.
bool PtpSetBodyTimestamp(std::span<uint8_t> msg, PtpTimestamp t);

// The Pdelay_Resp_Follow_Up for a Pdelay_Resp answering `pdelay_req`:
// same sequenceId, domain and sdoId, requestingPortIdentity the requester,
// responseOriginTimestamp t3, correctionField the request's (two-step
// 11.4.2 c), unicast flag as the request. 0 if `out` is too small.
size_t WritePtpPdelayRespFollowUp(std::span<uint8_t> out,
                                  const PtpReplyConfig& port,
                                  const PtpHeader& pdelay_req,
                                  PtpTimestamp response_origin,
                                  PtpCorrection request_correction);

}  // namespace zg::core

#endif  // ZG_CORE_PTP_PTP_ORIGINATE_H_
