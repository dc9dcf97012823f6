// SPDX-License-Identifier: Apache-2.0
// The pipeline's NTP server: a client request (mode 3) becomes the mode-4
// reply in the same mbuf, and its transmit timestamp is written as late as
// the worker allows, just before tx_burst.
//
// Prefetch() (per frame, as it is classified):
//   NtpRequestPolicy::Prefetch   (optional) the client's table line
// BeginBurst() (the burst's NTP frames together, each step over all of
// them before the next, so per-client lookups and AES blocks overlap):
//   ValidateNtpRequest           bad version, mode != 3, short/malformed,
//                                MAC/NTS, zero transmit -> "ntp_<reason>"
//   NtpRequestPolicy (optional)  answer / drop / Kiss-o'-Death
//   MACs, NTS                    the burst's checked together (below)
//   WriteNtpReply                every field but the final T3, from the
//                                ClockModel of the frame's RX stamp
//   PrepareUdpReply              addresses and ports swapped, 48-byte
//                                payload (never longer than the request)
//   UDP checksum                 computed now (with T3 = T2), or the
//                                pseudo-header sum for NIC offload
// Handle() (per frame, in the burst loop) returns what BeginBurst decided
// for it; a frame BeginBurst did not see (a caller without burst steps) is
// prepared alone, the same way.
// FinaliseTx() (once per TX batch, right before tx_burst):
//   StampNtpTransmit             T3 from the batch's fresh TSC stamp
//   UpdateUdpChecksum            RFC 1624 update for those 8 bytes (software
//                                checksums only)
// EndFinalise() (after a group of FinaliseTx): the group's MACs and NTS
// seals, together, then their checksums.
//
// With an NtpWorkerAuth (--ntp_keys, dataplane/ntp/ntp_auth.h), a request
// with a MAC is checked after the policy's drops (unknown key, bad length,
// bad MAC: dropped and counted, as chrony does); a valid one is answered with
// the same key's MAC appended, computed after T3 (FinaliseTx, then
// EndFinalise with the group's; a Kiss-o'-Death is MACed at once: it has no
// late field).
//
// With an NtsWorkerAuth (--nts_master_key, dataplane/ntp/nts_auth.h), a
// request with NTS fields is checked after the policy's drops, in the same
// place (cookie open + authenticator: dropped, or an NTS NAK); a valid one
// gets its reply's fields (UID, fresh cookies) in BeginBurst and its seal
// after T3 (FinaliseTx, then EndFinalise with the group's; the S2C key
// schedule is prepared in BeginBurst). A policy KoD to an NTS client
// carries its UID, unauthenticated.
//
// With an NtpWorkerInterleave (--ntp_interleave, dataplane/ntp/
// ntp_interleave.h), every reply's T2 is tagged, a request whose origin is
// one of our recent T2s gets the interleaved reply (RFC 9769: T3 the exact
// transmit time of that earlier reply), written in Handle and left alone
// by FinaliseTx, and AfterTx keeps each saved reply's transmit time. Plain,
// MACed and NTS requests alike. Where FinaliseTx gives a frame an exact
// launch time (send-on-timestamp), it passes that time to
// NtpWorkerInterleave::SetExactTx for the note's slot, and AfterTx keeps it.
//
// A policy that keeps per-client records (NtpRequestPolicy::WantsOutcome)
// hears what became of each request it let through: authentication failed,
// KoD sent, or answered (interleaved or not), for authenticated, kissed and
// interleave-enabled requests.
//
//   ZG_ASSIGN_OR_RETURN(NtpDropIndex ntp, RegisterNtpNames(names));
//   ZG_RETURN_IF_ERROR(pipeline.SetHandler(core::FrameKind::kNtp,
//       std::make_unique<NtpHandler>(frame_drops, ntp, /*policy=*/nullptr)));
#ifndef ZG_DATAPLANE_NTP_NTP_HANDLER_H_
#define ZG_DATAPLANE_NTP_NTP_HANDLER_H_

#include <array>
#include <cstdint>
#include <memory>
#include <span>

#include "absl/status/statusor.h"
#include "core/ntp/ntp_mac.h"
#include "core/ntp/ntp_wire.h"
#include "core/nts/nts_server.h"
#include "dataplane/ntp/ntp_auth.h"
#include "dataplane/ntp/ntp_interleave.h"
#include "dataplane/ntp/ntp_policy.h"
#include "dataplane/ntp/nts_auth.h"
#include "dataplane/worker/frame_classifier.h"
#include "dataplane/worker/pipeline.h"
#include "dataplane/worker/worker_stats.h"

namespace zg::dataplane {

// Counter indices of the NTP drop reasons: NtpDrop d is base + d - 1.
struct NtpDropIndex {
  uint8_t base = 0;
  uint8_t Of(core::NtpDrop d) const {
    return static_cast<uint8_t>(base + static_cast<uint8_t>(d) - 1);
  }
};

// Registers the "ntp" drop reasons (core::NtpDropName). Control thread.
absl::StatusOr<NtpDropIndex> RegisterNtpNames(CounterNames& names);

class NtpHandler final : public FrameHandler {
 public:
  NtpHandler(FrameDropIndex frame_drops, NtpDropIndex ntp_drops,
             std::unique_ptr<NtpRequestPolicy> policy,
             std::unique_ptr<NtpWorkerAuth> auth = nullptr,
             std::unique_ptr<NtsWorkerAuth> nts = nullptr,
             std::unique_ptr<NtpWorkerInterleave> interleave = nullptr)
      : frame_drops_(frame_drops),
        ntp_drops_(ntp_drops),
        policy_(std::move(policy)),
        auth_(std::move(auth)),
        nts_(std::move(nts)),
        interleave_(std::move(interleave)),
        prefetch_(policy_ != nullptr && policy_->WantsPrefetch()),
        outcome_(policy_ != nullptr && policy_->WantsOutcome()) {}

  HandleResult Handle(Packet& pkt, const BurstContext& burst) override;
  void FinaliseTx(Packet& pkt, const TxStamp& tx) override;
  // The policy's per-client line, while the burst is classified; the hint
  // (the client's hash) waits in pkt.note for BeginBurst.
  bool HasPrefetch() const override { return prefetch_; }
  void Prefetch(Packet& pkt) override {
    pkt.NoteAs<NtpPolicyHint>() =
        policy_->Prefetch(pkt.ParseAs<ParsedFrame>().info);
  }
  // A policy, MACs or NTS: the burst's requests are prepared together.
  bool HasBurstSteps() const override {
    return policy_ != nullptr || auth_ != nullptr || nts_ != nullptr;
  }
  void BeginBurst(std::span<Packet* const> frames,
                  const BurstContext& burst) override;
  void EndFinalise() override;
  // The policy's per-burst step (client records' new clients).
  bool HasEndBurst() const override {
    return policy_ != nullptr && policy_->WantsEndBurst();
  }
  void EndBurst() override { policy_->EndBurst(); }
  // Interleaved mode keeps each reply's transmit time.
  bool HasAfterTx() const override { return interleave_ != nullptr; }
  void AfterTx(Packet& pkt, const TxStamp& after, bool sent) override;

  // Written by Handle, read by FinaliseTx and AfterTx of the same frame.
  struct TxNote {
    bool software_checksum : 1 = false;  // UpdateUdpChecksum after T3
    bool nts : 1 = false;  // an NTS reply: key_index is its seal slot
    // An interleaved reply: T3 (the previous reply's) was written already.
    bool interleaved : 1 = false;
    uint16_t key_index = 0;  // of `macer`
    // Saved for interleaved mode: AfterTx gives the slot its transmit time.
    uint32_t xleave_slot = core::kNtpInterleaveNoSlot;
    // Non-null: append the MAC of key_index after T3. Valid until the
    // burst ends (NtpWorkerAuth::Verdict::macer).
    const core::NtpMacer* macer = nullptr;
  };

 private:
  // One request of the burst, from BeginBurst to its Handle.
  struct Request {
    Packet* pkt = nullptr;
    core::NtpRequestCheck check;
    NtpPolicyHint hint;  // from Prefetch
    NtpPolicyVerdict verdict;
    bool done = false;  // `result` is final (a drop so far)
    HandleResult result;
    TxNote note;                 // MAC: macer and key_index
    NtsWorkerAuth::Verdict nts;  // NTS requests: the check's verdict
  };
  // A reply whose MAC waits for EndFinalise, with its checksum's span.
  struct MacSeal {
    Packet* pkt = nullptr;
    const core::NtpMacer* macer = nullptr;
    core::NtpMacSignOp op;
    bool software_checksum = false;
    uint32_t span = 0;  // T3 and the trailer
    uint8_t before[8 + 4 + core::kNtpMaxDigestSize];
  };

  // BeginBurst's work for frames[0..n) (n <= kBurstSize) into requests_;
  // `prefetched`: Prefetch left each frame's policy hint in its note.
  void Prepare(std::span<Packet* const> frames, const BurstContext& burst,
               bool prefetched);
  void VerifyMacs(size_t n);
  void CheckNts(size_t n);
  // The reply of a request that passed the checks: its result.
  HandleResult Reply(Request& r, const BurstContext& burst);
  HandleResult ReplyNts(Request& r, core::NtsRequestState& st,
                        const BurstContext& burst);
  // Interleaved mode: the reply's transmit time for its slot (the software
  // stamp where the plan keeps it, or a scheduled frame's launch time).
  void KeepTx(uint32_t slot, core::TaiNs t3, const TxStamp& tx);
  void FinaliseNts(Packet& pkt, const TxStamp& tx, const TxNote& note);
  // Tells the policy what became of a request it let through
  // (NtpRequestPolicy::Outcome), where it wants to know.
  void Report(const Request& r, NtpRequestOutcome::Result result,
              bool interleaved = false, uint32_t key_id = 0) {
    if (outcome_) {
      policy_->Outcome({result, interleaved, key_id, r.verdict.ticket});
    }
  }

  FrameDropIndex frame_drops_;
  NtpDropIndex ntp_drops_;
  std::unique_ptr<NtpRequestPolicy> policy_;  // null: answer every request
  std::unique_ptr<NtpWorkerAuth> auth_;       // null: drop requests with MACs
  std::unique_ptr<NtsWorkerAuth> nts_;        // null: drop NTS requests
  // null: basic mode only (no tags, no table)
  std::unique_ptr<NtpWorkerInterleave> interleave_;
  bool prefetch_;  // policy_->WantsPrefetch()
  bool outcome_;   // policy_->WantsOutcome()
  // TSC read for the latest MACed or NTS reply's T3, or after the latest
  // MACs and seals (EndFinalise): a batch stamp older than this was read
  // before them, and later T3s are read again (never earlier than one
  // already written).
  uint64_t last_mac_tsc_ = 0;

  // The burst BeginBurst prepared (Handle takes them in order).
  std::array<Request, kBurstSize> requests_;
  std::array<core::NtsRequestState, kBurstSize> nts_states_;
  size_t n_requests_ = 0;
  size_t next_request_ = 0;
  // Replies FinaliseTx left for EndFinalise.
  std::array<MacSeal, kBurstSize> mac_seals_;
  size_t n_mac_seals_ = 0;
  std::array<Packet*, kBurstSize> nts_checksums_;  // software, after seals
  size_t n_nts_checksums_ = 0;
  bool nts_queued_ = false;
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_NTP_NTP_HANDLER_H_
