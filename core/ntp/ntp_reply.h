// SPDX-License-Identifier: Apache-2.0
// The NTP server reply, built in place in the request's buffer.
//
// A worker answers a client request without copying it: the 48-byte header is
// rewritten into the mode-4 reply, extension fields and any trailer are cut
// off (the reply is always 48 bytes, never longer than the request), and the
// transmit timestamp (T3) is written last, just before tx_burst:
//
//   const ClockModel& model = reader.Refresh();               // once per burst
//   uint32_t reply_len;
//   NtpDrop drop = BuildNtpReply(payload, len, rx_tai, model, &reply_len);
//   if (drop != NtpDrop::kNone) { ++stats.ntp_drops[size_t(drop)]; free; }
//   ... set UDP length to reply_len, swap addresses ...
//   StampNtpTransmit(payload, model.RawToTai(ReadTsc()), model);  // T3
//   rte_eth_tx_burst(...);
//
// Until StampNtpTransmit runs, T3 holds the receive time, which is a correct
// (if pessimistic) transmit time, so a reply that skipped it is still valid.
// No allocation, locks, syscalls or exceptions; one pass over the header.
//
// What the reply says (RFC 5905 section 7.3; all from one ClockModel copy):
//   LI         model.NtpLeapAt(rx): leap warning within the last UTC day,
//              3 when unsynchronised
//   version    the request's (1..4); mode 4
//   stratum    model.stratum when synchronised (1..15)
//   poll       the request's, clamped to [kNtpReplyMinPollLog2,
//              kNtpReplyMaxPollLog2]
//   precision  model.precision_log2
//   root delay model.root_delay_ns; root dispersion the model's error bound
//              at rx (ErrorBoundNs), both rounded up to 2^-16 s and saturated
//   refid      model.reference_id; reference time model.reference_time (UTC)
//   origin     the request's transmit timestamp (T1)
//   receive    rx_time (T2) and transmit (T3), converted TAI -> UTC by the
//              model, so leap seconds come out as the kernel counts them
//
// Unsynchronised (model stale past max_extrapolation, free-running, holdover
// out of spec, or a model stratum outside 1..15): LI=3, stratum 0 on the wire,
// refid 0, root dispersion at least 16 s (MAXDISP); timestamps are still
// served. Stratum 0, not 16: RFC 5905 section 7.3 says to "map p.stratum
// values of MAXSTRAT or greater to 0 in transmitted packets", and ntpd, ntpsec
// (STRATUM_TO_PKT) and chrony (NTP_INVALID_STRATUM) all send 0. With refid 0
// it is no kiss code a client acts on (chrony sends exactly this); clients
// reject it for LI=3 alone (chrony test 7, ntpdig "leap not in sync").
#ifndef ZG_CORE_NTP_NTP_REPLY_H_
#define ZG_CORE_NTP_NTP_REPLY_H_

#include <array>
#include <cstdint>
#include <span>

#include "core/ntp/ntp_wire.h"
#include "core/time/clock_model.h"
#include "core/time/time_types.h"

namespace zg::core {

// Bounds for the poll value echoed to clients: chrony's lowest poll (2^-7 s,
// sub-second LAN polling) to RFC 5905 MAXPOLL (2^17 s, 36 h). Values outside
// are not real polling intervals and are clamped.
inline constexpr int8_t kNtpReplyMinPollLog2 = -7;
inline constexpr int8_t kNtpReplyMaxPollLog2 = 17;
// Wire stratum and refid of an unsynchronised reply (see the file comment).
inline constexpr uint8_t kNtpUnsynchronizedWireStratum = 0;
inline constexpr uint32_t kNtpUnsynchronizedRefId = 0;
// RFC 5905 MAXDISP: the root dispersion floor of an unsynchronised reply.
inline constexpr int64_t kNtpMaxDispersionNs = 16 * kNanosPerSecond;

// A duration as NTP short format (16.16 s), rounded up so that a bound is
// never understated; <= 0 gives 0, >= 65536 s saturates at 0xffff.ffff.
constexpr NtpShort NtpShortCeilFromNanos(int64_t d_ns) {
  if (d_ns <= 0) return {0, 0};
  constexpr int64_t kMaxNs = int64_t{65536} * kNanosPerSecond;
  if (d_ns >= kMaxNs) return {0xffff, 0xffff};
  // Whole seconds, then the sub-second part rounded up to 2^-16 s (< 2^46
  // before the division: no overflow; both divisions are by constants).
  const uint64_t ns = static_cast<uint64_t>(d_ns);
  const uint64_t seconds = ns / kNanosPerSecond;
  const uint64_t sub_ns = ns % kNanosPerSecond;
  const uint64_t frac =
      ((sub_ns << 16) + (kNanosPerSecond - 1)) / kNanosPerSecond;
  const uint64_t v = (seconds << 16) + frac;  // frac <= 2^16: may carry
  return v > 0xffffffff ? NtpShort{0xffff, 0xffff}
                        : NtpShort::FromU32(static_cast<uint32_t>(v));
}

// Validates the request in payload[0..len) (ValidateNtpRequest) and, if it is
// to be answered, rewrites it in place into the reply with every field but
// T3's final value; sets *reply_len (48) and returns NtpDrop::kNone. On a drop
// the payload is untouched and *reply_len is 0.
NtpDrop BuildNtpReply(uint8_t* payload, uint32_t len, TaiNs rx_time,
                      const ClockModel& model, uint32_t* reply_len);

// The same for a request already validated by ValidateNtpRequest (check.drop
// must be kNone), for callers that look at the request between the two (ACL,
// rate limiting). Returns the reply length (48).
uint32_t WriteNtpReply(uint8_t* payload, const NtpRequestCheck& check,
                       TaiNs rx_time, const ClockModel& model);

// Writes the transmit timestamp (T3) of a reply built above: tx_time,
// converted TAI -> UTC by `model`. Call as late as possible before sending.
void StampNtpTransmit(uint8_t* payload, TaiNs tx_time, const ClockModel& model);

// The whole reply to `request` as a value, for tests and the load generator;
// the same code as the in-place path (ValidateNtpRequest, WriteNtpReply,
// StampNtpTransmit). `size` is 0 unless drop == kNone.
struct NtpReplyPacket {
  NtpDrop drop = NtpDrop::kNone;
  uint32_t size = 0;
  std::array<uint8_t, kNtpHeaderSize> bytes = {};
};
NtpReplyPacket BuildNtpReply(std::span<const uint8_t> request, TaiNs rx_time,
                             TaiNs tx_time, const ClockModel& model);

}  // namespace zg::core

#endif  // ZG_CORE_NTP_NTP_REPLY_H_
