// SPDX-License-Identifier: Apache-2.0
// The state of a grandmaster's PTP port: foreign master records (IEEE
// 1588-2019 9.3.2.4/9.3.2.5), the state decision of 9.3.3 for a port that
// never becomes a slave (masterOnly), and the announceReceiptTimeout.
//
// zeitgeberd's clock comes from its own references, never from PTP, so the
// port is LISTENING at start, MASTER when no better grandmaster is on the
// segment, and PASSIVE (silent but for peer delay and management) while a
// better one is: the other half of a redundant pair. When the better one
// stops announcing for announceReceiptTimeout announce intervals, its record
// expires and the port becomes MASTER again.
//
// One instance per port, owned by the control thread; workers only read the
// published state (an atomic the owner stores after each Update).
//
//   PtpPortStateMachine sm(config, {identity, 1});
//   sm.Start(now_mono_ns);                                  // LISTENING
//   // for each received, parsed, domain-checked Announce:
//   PtpAnnounceVerdict v = sm.OnAnnounce(header, announce, now_mono_ns);
//   // then, and at least once per announce interval:
//   PtpStateDecision d = sm.Update(gm_view, now_mono_ns);
//   if (d.changed) audit("PTP port %s (%s)", PtpPortStateName(d.state), ...);
//
// Fixed memory (kPtpMaxForeignMasters records), no allocation.
#ifndef ZG_CORE_PTP_PTP_PORT_STATE_H_
#define ZG_CORE_PTP_PTP_PORT_STATE_H_

#include <array>
#include <cstddef>
#include <cstdint>

#include "core/ptp/ptp_bmca.h"
#include "core/ptp/ptp_datasets.h"
#include "core/ptp/ptp_management.h"
#include "core/ptp/ptp_profile.h"
#include "core/ptp/ptp_wire.h"

namespace zg::core {

// "INITIALIZING", "LISTENING", "MASTER", "PASSIVE", ... (as pmc prints).
const char* PtpPortStateName(PtpPortState state);

// 9.3.2.4.4 / 9.3.2.5: a foreign master is qualified after this many
// Announce messages within this many announce intervals.
inline constexpr int kPtpForeignMasterThreshold = 2;
inline constexpr int kPtpForeignMasterTimeWindow = 4;
// 1588 asks for at least 5 records; a segment has a handful of masters.
inline constexpr size_t kPtpMaxForeignMasters = 16;

// What became of one received Announce.
enum class PtpAnnounceVerdict : uint8_t {
  kAccepted = 0,       // recorded (qualified or not yet)
  kFromSelf,           // sent by our own clock (looped back multicast)
  kStepsRemovedLimit,  // stepsRemoved >= 255 (9.3.2.5 d)
  kEvicted,            // table full: replaced the stalest record
  kCount,
};
const char* PtpAnnounceVerdictName(PtpAnnounceVerdict v);

struct PtpForeignMaster {
  bool in_use = false;
  PtpBmcaDataset dataset;  // from the latest Announce
  PtpTimePropertiesDataSet time_properties;
  // Receive times (monotonic ns) of the latest Announce messages, newest
  // first; qualification looks at the last kPtpForeignMasterThreshold.
  std::array<int64_t, kPtpForeignMasterThreshold> rx_mono_ns{};
  uint32_t announces = 0;  // since the record was created
  uint16_t last_sequence_id = 0;
};

// Why the port is in its state (9.3.3 decision codes; kListening: waiting
// for the first announceReceiptTimeout).
enum class PtpDecisionCode : uint8_t {
  kInitializing = 0,
  kListening,
  kM1,     // clockClass 1..127 and D0 better than the best foreign master
  kM2,     // D0 better than every foreign master (or none qualified)
  kP1,     // clockClass 1..127 and a better grandmaster is on the segment
  kP2,     // masterOnly port and a better grandmaster is on the segment
  kFault,  // FAULTY: the port's link is down (SetFault)
};
const char* PtpDecisionCodeName(PtpDecisionCode code);

struct PtpStateDecision {
  PtpPortState state = PtpPortState::kInitializing;
  PtpDecisionCode code = PtpDecisionCode::kInitializing;
  bool changed = false;  // state differs from before this Update
  // The best qualified foreign master, or null; valid until the next call.
  const PtpForeignMaster* best = nullptr;
};

class PtpPortStateMachine {
 public:
  PtpPortStateMachine(const PtpPortConfig& config, const PtpPortIdentity& port);

  // INITIALIZING -> LISTENING; the receipt timeout starts now.
  void Start(int64_t now_mono_ns);

  // Records a received Announce (already parsed, in our domain). Announce
  // messages from our own clock identity and with stepsRemoved >= 255 are
  // not recorded.
  PtpAnnounceVerdict OnAnnounce(const PtpHeader& header,
                                const PtpAnnounce& announce,
                                int64_t now_mono_ns);

  // FAULT_DETECTED (9.2.6.4; the port's link went down): FAULTY, the
  // foreign masters forgotten, and Update keeps it there. FAULT_CLEARED
  // (`fault` false): LISTENING again, as after Start (linuxptp's
  // INITIALIZING -> LISTENING), for a new receipt timeout. No change when
  // already so, or before Start.
  void SetFault(bool fault, int64_t now_mono_ns);

  // Expires foreign masters silent for announceReceiptTimeout intervals,
  // then runs the state decision with `gm` as D0.
  PtpStateDecision Update(const PtpGrandmasterView& gm, int64_t now_mono_ns);

  PtpPortState state() const { return state_; }
  PtpDecisionCode code() const { return code_; }
  // Number of records in use (qualified or not).
  size_t foreign_masters() const;
  uint64_t state_changes() const { return state_changes_; }
  // Receipt timeout in ns: announceReceiptTimeout * 2^logAnnounceInterval.
  int64_t receipt_timeout_ns() const { return receipt_timeout_ns_; }

 private:
  bool Qualified(const PtpForeignMaster& f, int64_t now_mono_ns) const;
  void Expire(int64_t now_mono_ns);
  const PtpForeignMaster* Best(int64_t now_mono_ns) const;
  PtpForeignMaster* Slot(const PtpPortIdentity& sender, bool* evicted);

  PtpPortConfig config_;
  const PtpProfile* profile_;
  PtpPortIdentity port_;
  int64_t announce_interval_ns_;
  int64_t receipt_timeout_ns_;
  int64_t listening_until_ns_ = 0;
  PtpPortState state_ = PtpPortState::kInitializing;
  PtpDecisionCode code_ = PtpDecisionCode::kInitializing;
  uint64_t state_changes_ = 0;
  std::array<PtpForeignMaster, kPtpMaxForeignMasters> foreign_{};
};

}  // namespace zg::core

#endif  // ZG_CORE_PTP_PTP_PORT_STATE_H_
