// SPDX-License-Identifier: Apache-2.0
// Everything one zg-loadgen lane does except moving packets: it picks the
// next client, writes its request (NTP client request or PTP Delay_Req),
// remembers it, and checks every reply that comes back (matching, validation,
// round trip, server residence, offset). The DPDK application wraps each
// UDP payload in headers (core/net/frame_build.h) and calls this; tests call it
// directly with replies built by core's own server code.
//
// TX, per burst:
//   engine.SetClock(model);                       // the lane's clock copy
//   for (i...) req[i] = engine.Next(payload_i, now_tai);   // then headers
//   n = tx_burst(...);
//   engine.Sent(req, n, ReadTsc());               // the first n left
// RX, per reply frame (after L2-L4 checks):
//   engine.OnReply({.from_target = ..., .dst_address_offset = ...,
//                   .src_port = ..., .dst_port = ...}, payload, len, rx_tsc);
// End (after draining one timeout):
//   engine.Finish();
//
// How a reply is judged (the counts are RequestCounts, see report.h):
//   - not from the target, to an unknown client, to another lane's client,
//     or from an unexpected port: a ReplyDefect, nothing else.
//   - NTP: the origin timestamp's low bits name the request (TagNtpTransmit);
//     core::ParseNtpServerReply checks the rest against that request. Origin
//     mismatch: unmatched. Otherwise the request's first reply is answered
//     (valid), kod (RATE/DENY/RSTR/NTSN), or bad_reply (a defect: bad version
//     or mode, zero timestamps, unsynchronised, version not the request's);
//     if it came after the timeout, late; any further reply, duplicate.
//   - PTP: a Delay_Resp whose requestingPortIdentity is our client's and
//     whose sequenceId names a tracked request; the same first/late/duplicate
//     rules.
//   - LaneConfig::reflector (a testpmd 5tswap baseline): the request itself
//     comes back; matched by its own transmit timestamp / sequenceId and
//     port identity, it counts as answered (round trip only).
//   - NTS (--mix=nts): the request carries the Unique Identifier, the
//     credential's cookie and an authenticator (core/nts/nts_client.h); a
//     first valid reply is checked in full every verify_every-th time
//     (bad: bad_reply, kNtsBad); an NTS NAK is a kod that also counts
//     nts.nak.
// Valid NTP replies feed three histograms (ns): round trip T4 - T1 from TSC
// stamps taken at tx_burst and rx_burst, residence T3 - T2 from the reply,
// and offset ((T2 - T1) + (T3 - T4)) / 2 with T1/T4 the generator's own
// clock: when the generator and server share a clock, the stamping error.
// Valid PTP replies feed the round trip.
//
// One writer (the lane's lcore); no allocation after Create.
#ifndef ZG_BENCH_LOADGEN_LANE_ENGINE_H_
#define ZG_BENCH_LOADGEN_LANE_ENGINE_H_

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/loadgen/client_space.h"
#include "bench/loadgen/config.h"
#include "bench/loadgen/histogram.h"
#include "bench/loadgen/report.h"
#include "bench/loadgen/request_table.h"
#include "core/ntp/ntp_wire.h"
#include "core/nts/nts_client.h"
#include "core/ptp/ptp_wire.h"
#include "core/time/clock_model.h"
#include "core/time/time_types.h"

namespace zg::bench {

// Why a reply was invalid. Names (ReplyDefectName) are report labels.
enum class ReplyDefect : uint8_t {
  kBadFrame = 0,        // failed the L2-L4 checks (core/net/frame.h)
  kNotFromTarget,       // source address is not the target's
  kUnexpectedPort,      // neither from the NTP port nor PTP 319/320
  kUnknownDestination,  // destination address/port is none of our clients
  kMisrouted,           // a client of another lane: RSS/queue mismatch
  kNtpTooShort,
  kNtpBadVersion,
  kNtpNotServerMode,
  kNtpZeroTimestamp,
  kNtpClockOutOfRange,
  kNtpUnsynchronized,    // LI=3 or stratum 0/16+: a client rejects it
  kNtpVersionMismatch,   // not the version the request was sent with
  kPtpMalformed,         // core::ParsePtpMessage rejected it
  kPtpNotDelayResp,      // another message type
  kPtpUnknownIdentity,   // requestingPortIdentity is none of our clients
  kPtpWrongDestination,  // sent to another client's address
  kNotReflection,        // reflector mode: not one of our requests
  kNtsBad,               // NTS reply failed its full check (NtsReplyStatus)
  kCount
};
inline constexpr size_t kReplyDefectCount =
    static_cast<size_t>(ReplyDefect::kCount);
const char* ReplyDefectName(ReplyDefect defect);

// Kiss codes counted separately (core::NtpKiss values).
inline constexpr size_t kKissKinds = 6;

// A lane's measurements. Written by: the lane. Read by: the main lcore after
// the lane stopped (live progress goes through Counts() snapshots).
struct LaneMeasurements {
  RequestCounts counts;  // in_flight is not kept here; see Counts()
  std::array<uint64_t, kReplyDefectCount> defects{};
  std::array<uint64_t, kKissKinds> kiss{};  // by core::NtpKiss
  LogHistogram rtt_ns;
  SignedHistogram residence_ns;  // signed: a negative one is a server bug
  SignedHistogram offset_ns;
  NtsCounts nts;
  // By core::NtsReplyStatus, for the sampled replies that failed.
  std::array<uint64_t, static_cast<size_t>(core::NtsReplyStatus::kCount)>
      nts_status{};

  void Merge(const LaneMeasurements& other);
  uint64_t DefectTotal() const;
  NamedCounts DefectNames() const;  // nonzero ones
  NamedCounts KissNames() const;    // nonzero ones
};

// Where a reply came from and went to, as the frame said.
struct ReplyAddress {
  bool from_target = false;         // source IP == the target's
  uint64_t dst_address_offset = 0;  // destination IP - first client address
  uint16_t src_port = 0;
  uint16_t dst_port = 0;
};

// One request as built by Next(): what the headers need, and what Sent()
// records.
struct OutgoingRequest {
  uint32_t local_client = 0;
  uint32_t seq = 0;
  uint64_t key = 0;
  ClientEndpoint source;  // source address offset and port
  uint16_t dst_port = 0;
  uint16_t payload_len = 0;
};

// The biggest payload Next() writes: an NTS request with one cookie of up
// to 124 bytes (ours are 100: 228 bytes).
inline constexpr uint16_t kMaxRequestPayload = 256;

// Keys and a cookie for NTS clients. Written by: the main lcore at setup
// (from --nts_master_key or --nts_ke). Read by: the lanes' engines at
// Create, which copy them.
struct NtsCredential {
  core::NtsKeys keys;
  std::vector<uint8_t> cookie;
};
struct NtsClientSetup {
  // Client i of a lane uses credential i % size. Every request reuses its
  // credential's cookie (a load generator's shortcut: a real client spends
  // each cookie once; servers keep no state, so reuse costs them the same).
  std::vector<NtsCredential> credentials;
  uint32_t verify_every = 16;  // full check of every N-th reply; 1: all
};

struct LaneConfig {
  uint32_t lane = 0;
  ClientSpace space;  // all clients; this lane owns LaneOf(i) == lane
  TrafficMix mix;
  uint16_t ntp_port = 123;  // the target's NTP port
  int8_t ntp_poll_log2 = 6;
  uint8_t ptp_domain = 0;
  uint32_t depth = 16;  // RequestTable depth (power of two)
  uint64_t timeout_ticks = 0;
  // The target is a packet reflector (dpdk-testpmd --forward-mode=5tswap),
  // the baseline a server is compared with: a "reply" is our own request
  // with addresses and ports swapped. It is matched by what the request
  // carried (NTP: its transmit timestamp; PTP: sequenceId and
  // sourcePortIdentity) and counted answered; it has no server timestamps,
  // so only the round trip is measured.
  bool reflector = false;
  // Required when the mix has nts.
  std::shared_ptr<const NtsClientSetup> nts;
};

class LaneEngine {
 public:
  static absl::StatusOr<std::unique_ptr<LaneEngine>> Create(
      const LaneConfig& config);

  // The clock used to turn TSC stamps into time; call once per burst with
  // the latest model (core/time/clock_model.h).
  void SetClock(const core::ClockModel& model) { model_ = model; }

  // Writes the next client's request into payload[0..kMaxRequestPayload).
  // `now` (TAI) is only what goes on the wire as the request's own
  // timestamp; the measurements use the stamp passed to Sent().
  OutgoingRequest Next(uint8_t* payload, core::TaiNs now);

  // The first `n` of `requests` left at `tx_tsc`.
  void Sent(const OutgoingRequest* requests, uint32_t n, uint64_t tx_tsc);

  // Judges one reply (UDP payload) received at `rx_tsc`.
  void OnReply(const ReplyAddress& from, const uint8_t* payload, uint32_t len,
               uint64_t rx_tsc);

  // A frame that failed before reaching OnReply.
  void CountDefect(ReplyDefect defect) {
    ++m_->defects[static_cast<size_t>(defect)];
  }

  // Ends the run: every request still waiting is lost.
  void Finish();

  // Totals so far, with in_flight = sent minus every request classified.
  RequestCounts Counts() const;
  const LaneMeasurements& measurements() const { return *m_; }
  const RequestTable& table() const { return *table_; }
  const ClientSpace& space() const { return config_.space; }
  const core::ClockModel& clock() const { return model_; }
  uint32_t clients() const { return table_->clients(); }

 private:
  LaneEngine(const LaneConfig& config, std::unique_ptr<RequestTable> table);

  // An NTS request of `local` into payload; r has the rest.
  void NextNts(uint8_t* payload, core::NtpTimestamp t1, OutgoingRequest* r);
  // The unique identifier of `local`'s request sent with transmit `t1`:
  // t1, lane, client and a per-engine random salt (unique and not guessable
  // off-path; a real client draws 32 random bytes instead).
  void NtsUid(core::NtpTimestamp t1, uint32_t local, uint8_t* uid) const;
  // A first, valid NTP reply to an NTS request: sampled full check. False
  // when the check failed (counted).
  bool CheckNtsReply(uint32_t local, const uint8_t* payload, uint32_t len);
  void OnNtpReply(uint32_t local, const uint8_t* payload, uint32_t len,
                  uint64_t rx_tsc);
  void OnPtpReply(const ReplyAddress& from, const uint8_t* payload,
                  uint32_t len, uint64_t rx_tsc);
  // config_.reflector: our own request came back.
  void OnNtpReflection(uint32_t local, const uint8_t* payload, uint32_t len,
                       uint64_t rx_tsc);
  // The first reply to a request, valid: counts it and records its round
  // trip.
  void CountAnswered(uint64_t tx_tsc, uint64_t rx_tsc);
  // A reply that is not a request's first in-time one: late, duplicate or
  // unmatched.
  void CountRepeat(MatchOutcome outcome);
  // A request's first in-time reply failed validation.
  void CountBadFirst(ReplyDefect defect);
  core::TaiNs TaiOf(uint64_t tsc) const { return model_.RawToTai(tsc); }

  LaneConfig config_;
  int ntp_tag_bits_;
  std::unique_ptr<RequestTable> table_;
  std::unique_ptr<LaneMeasurements> m_;
  std::vector<TrafficKind> kinds_;               // by local client
  std::vector<core::NtsClientAssociation> nts_;  // from config_.nts
  std::array<uint8_t, 16> nts_salt_{};
  uint64_t nts_nonce_ = 0;    // counter, with the salt: the nonce
  uint64_t nts_replies_ = 0;  // valid NTS replies so far (sampling)
  uint32_t cursor_ = 0;       // next local client
  core::ClockModel model_;
};

// The lane owning the client a reply is for, as its addressing says (NTP,
// from `ntp_port`: destination address and port) or its PTP port identity
// (Delay_Resp: requestingPortIdentity; a reflected Delay_Req:
// sourcePortIdentity). nullopt when it names none of `space`'s clients: any
// lane's engine then counts the defect. Lets a lane hand a reply that RSS
// put on its queue to the lane that sent the request.
std::optional<uint32_t> OwnerLaneOf(const ClientSpace& space, uint16_t ntp_port,
                                    const ReplyAddress& from,
                                    const uint8_t* payload, uint32_t len);

// The PTP identity of simulated client `client` (< 2^24): EUI-64 from a
// locally administered MAC 02:7a:67:cc:cc:cc, port 1; and back.
core::PtpPortIdentity PtpIdentityOf(uint32_t client);
bool ClientOfPtpIdentity(const core::PtpPortIdentity& id, uint32_t* client);

}  // namespace zg::bench

#endif  // ZG_BENCH_LOADGEN_LANE_ENGINE_H_
