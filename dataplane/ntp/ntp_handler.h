// SPDX-License-Identifier: Apache-2.0
// The pipeline's NTP server: a client request (mode 3) becomes the mode-4
// reply in the same mbuf, and its transmit timestamp is written as late as
// the worker allows, just before tx_burst.
//
// Handle() (per frame, in the burst loop):
//   ValidateNtpRequest           bad version, mode != 3, short/malformed,
//                                MAC/NTS, zero transmit -> "ntp_<reason>"
//   NtpRequestPolicy (optional)  answer / drop / Kiss-o'-Death
//   WriteNtpReply                every field but the final T3, from the
//                                ClockModel of the frame's RX stamp
//   PrepareUdpReply              addresses and ports swapped, 48-byte
//                                payload (never longer than the request)
//   UDP checksum                 computed now (with T3 = T2), or the
//                                pseudo-header sum for NIC offload
// FinaliseTx() (once per TX batch, right before tx_burst):
//   StampNtpTransmit             T3 from the batch's fresh TSC stamp
//   UpdateUdpChecksum            RFC 1624 update for those 8 bytes (software
//                                checksums only)
//
// With an NtpWorkerAuth (--ntp_keys, dataplane/ntp/ntp_auth.h), a request
// with a MAC is checked after the policy's drops (unknown key, bad length,
// bad MAC: dropped and counted, as chrony does); a valid one is answered with
// the same key's MAC appended, computed in FinaliseTx after T3 (a
// Kiss-o'-Death is MACed in Handle: it has no late field).
//
// With an NtsWorkerAuth (--nts_master_key, dataplane/ntp/nts_auth.h), a
// request with NTS fields is checked after the policy's drops, in the same
// place (cookie open + authenticator: dropped, or an NTS NAK); a valid one
// gets its reply's fields (UID, fresh cookies) in Handle and its seal in
// FinaliseTx, right after T3 (the S2C key schedule is prepared in Handle). A
// policy KoD to an NTS client carries its UID, unauthenticated.
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

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "core/ntp/ntp_wire.h"
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
        outcome_(policy_ != nullptr && policy_->WantsOutcome()) {}

  HandleResult Handle(Packet& pkt, const BurstContext& burst) override;
  void FinaliseTx(Packet& pkt, const TxStamp& tx) override;
  bool HasPrefetch() const override {
    return policy_ != nullptr && policy_->WantsPrefetch();
  }
  void Prefetch(Packet& pkt) override {
    policy_->Prefetch(pkt.ParseAs<ParsedFrame>().info);
  }
  // The policy's per-burst step (client records' new clients).
  bool HasEndBurst() const override {
    return policy_ != nullptr && policy_->WantsEndBurst();
  }
  void EndBurst() override { policy_->EndBurst(); }
  // Interleaved mode keeps each reply's transmit time.
  bool HasAfterTx() const override { return interleave_ != nullptr; }
  void AfterTx(Packet& pkt, const TxStamp& after, bool sent) override;

 private:
  FrameDropIndex frame_drops_;
  NtpDropIndex ntp_drops_;
  std::unique_ptr<NtpRequestPolicy> policy_;  // null: answer every request
  // The NTS request path (Handle's NTS half) and its late seal.
  HandleResult HandleNts(Packet& pkt, const BurstContext& burst,
                         const core::NtpRequestCheck& check,
                         const NtpPolicyVerdict& verdict);
  // Interleaved mode: the reply's transmit time for its slot (the software
  // stamp where the plan keeps it, or a scheduled frame's launch time).
  void KeepTx(uint32_t slot, core::TaiNs t3, const TxStamp& tx);
  void FinaliseNts(Packet& pkt, const TxStamp& tx, uint16_t slot,
                   bool software_checksum, bool interleaved,
                   uint32_t xleave_slot);
  // Tells the policy what became of the request it let through
  // (NtpRequestPolicy::Outcome), where it wants to know.
  void Report(NtpRequestOutcome::Result result, bool interleaved = false,
              uint32_t key_id = 0) {
    if (outcome_) policy_->Outcome({result, interleaved, key_id});
  }

  std::unique_ptr<NtpWorkerAuth> auth_;  // null: drop requests with MACs
  std::unique_ptr<NtsWorkerAuth> nts_;   // null: drop NTS requests
  // null: basic mode only (no tags, no table)
  std::unique_ptr<NtpWorkerInterleave> interleave_;
  bool outcome_;  // policy_->WantsOutcome()
  // TSC read for the latest MACed or NTS reply's T3 (FinaliseTx): a batch
  // stamp older than this was read before a MAC or seal ran.
  uint64_t last_mac_tsc_ = 0;
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_NTP_NTP_HANDLER_H_
