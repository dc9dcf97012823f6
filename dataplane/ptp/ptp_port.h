// SPDX-License-Identifier: Apache-2.0
// The control-plane half of zeitgeberd's PTP port: the BMCA and port state
// (core/ptp/ptp_port_state.h) fed with the Announce messages the workers
// receive, and the snapshot every worker serves from.
//
// Workers hand each received foreign Announce to the control thread through
// their own single-producer ring; every --publish_interval the control
// thread drains the rings, takes one look at the published TSC ClockModel,
// builds the grandmaster view (clock quality, time properties), runs the
// state decision, and publishes {view, port state} through a SeqLock that
// the workers read once per poll. No worker ever waits for the control
// thread; a full ring drops the Announce (counted).
//
//   PtpPortRuntime rt(config, {identity, 1}, workers, tsc_hz);
//   rt.Start(ReadTsc());
//   // worker w, on a received Announce:
//   rt.PushAnnounce(w, {header, announce, rt.MonoNs(tsc)});
//   // control thread, every publish interval:
//   rt.Step(model, ReadTsc());
//   // worker, per poll:
//   PtpPortSnapshot s;  if (rt.published().TryRead(&s)) ...
#ifndef ZG_DATAPLANE_PTP_PTP_PORT_H_
#define ZG_DATAPLANE_PTP_PTP_PORT_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/base/seqlock.h"
#include "core/base/spsc_ring.h"
#include "core/ptp/ptp_datasets.h"
#include "core/ptp/ptp_port_state.h"
#include "core/ptp/ptp_profile.h"
#include "core/ptp/ptp_wire.h"
#include "core/time/clock_model.h"
#include "dataplane/worker/worker_stats.h"

namespace zg::dataplane {

// "001122.fffe.334455", as ptp4l and pmc print a clockIdentity.
std::string PtpClockIdentityText(const core::PtpClockIdentity& id);

// A foreign Announce, as a worker received it.
struct PtpAnnounceEvent {
  core::PtpHeader header;
  core::PtpAnnounce announce;
  int64_t rx_mono_ns = 0;
};

// What the control thread publishes for the workers.
struct PtpPortSnapshot {
  core::PtpGrandmasterView gm;
  core::PtpPortState state = core::PtpPortState::kInitializing;
  uint64_t generation = 0;  // bumped whenever gm or state changes
};

// Monotonic nanoseconds from TSC ticks at a fixed rate (never steered, so
// schedules and timeouts do not jump with the served clock): the rate the
// control plane measured at start (WorkerSetup::tsc_hz), so that a unicast
// Sync "every second" is one every SI second, not every 2.6e9 ticks of a
// TSC DPDK calls 2.6 GHz (1484 ppm slow on the development VM: 22 ms late
// after 30 s against a subscriber's schedule).
class MonoClock {
 public:
  explicit MonoClock(double tsc_hz)
      : ns_per_tick_q32_(core::NsPerTickQ32FromHz(tsc_hz)) {}
  int64_t Ns(uint64_t tsc) const {
    return static_cast<int64_t>(
        (static_cast<unsigned __int128>(tsc) * ns_per_tick_q32_) >> 32);
  }
  // Ticks in `ns` nanoseconds (for TSC deadlines).
  uint64_t Ticks(int64_t ns) const {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(ns) << 32) /
                                 ns_per_tick_q32_);
  }

 private:
  uint64_t ns_per_tick_q32_;
};

class PtpPortRuntime {
 public:
  static constexpr size_t kRingSize = 64;

  PtpPortRuntime(const core::PtpPortConfig& config,
                 const core::PtpPortIdentity& port, unsigned workers,
                 double tsc_hz);

  // ---- Workers.
  // Worker `worker` hands over a foreign Announce; false (counted) if its
  // ring is full.
  bool PushAnnounce(unsigned worker, const PtpAnnounceEvent& event);
  // Written by: control thread. Read by: workers.
  const core::SeqLock<PtpPortSnapshot>& published() const { return published_; }
  const MonoClock& mono() const { return mono_; }

  // ---- Control thread.
  // Starts LISTENING and publishes the first snapshot.
  void Start(const core::ClockModel& model, uint64_t tsc);
  // Drains the rings, runs the state decision with the model as of `tsc`,
  // publishes, and logs state changes.
  void Step(const core::ClockModel& model, uint64_t tsc);
  // The port's link as the control plane last saw it. The next Step makes
  // a link that went down after it was up FAULTY (nothing sent or
  // answered) and, up again, LISTENING (core::PtpPortStateMachine::
  // SetFault). A link not up yet since the start (a NIC still negotiating,
  // a memif peer not connected) is no fault: the port listens and serves
  // as it would, and the first link up changes nothing.
  void SetLinkUp(bool up) {
    link_up_ = up;
    link_was_up_ = link_was_up_ || up;
  }

  core::PtpPortState state() const { return machine_.state(); }
  core::PtpDecisionCode code() const { return machine_.code(); }
  const core::PtpGrandmasterView& gm() const { return snapshot_.gm; }
  size_t foreign_masters() const { return machine_.foreign_masters(); }
  uint64_t state_changes() const { return machine_.state_changes(); }
  // Announce verdicts (core::PtpAnnounceVerdict) and ring overflows.
  using Verdicts =
      std::array<SingleWriterCounter,
                 static_cast<size_t>(core::PtpAnnounceVerdict::kCount)>;
  const Verdicts& announce_verdicts() const { return verdicts_; }
  uint64_t ring_overflows() const;

  // ---- Any thread (metrics scrapes): the state changes and foreign
  // masters as of the last Start/Step; the verdicts and ring overflows
  // above; the state and announced quality through published().
  uint64_t published_state_changes() const {
    return published_state_changes_.Load();
  }
  uint64_t published_foreign_masters() const {
    return published_foreign_masters_.Load();
  }
  const core::PtpPortConfig& config() const { return config_; }
  const core::PtpPortIdentity& port() const { return port_; }

 private:
  using Ring = core::SpscRing<PtpAnnounceEvent, kRingSize>;
  void Publish(const core::PtpGrandmasterView& gm);
  // Logs the change from `before` to the machine's state, and why.
  void LogStateChange(core::PtpPortState before, const std::string& why) const;

  core::PtpPortConfig config_;
  core::PtpPortIdentity port_;
  MonoClock mono_;
  core::PtpPortStateMachine machine_;
  std::vector<std::unique_ptr<Ring>> rings_;  // one per worker
  // Written by: worker i. Read by: control thread.
  std::unique_ptr<SingleWriterCounter[]> overflows_;
  core::SeqLock<PtpPortSnapshot> published_;
  PtpPortSnapshot snapshot_;  // control thread's copy of what it published
  bool link_up_ = true;       // control thread (SetLinkUp, Step)
  bool link_was_up_ = false;  // control thread: up once since the start
  // Written by: control thread. Read by: any thread.
  Verdicts verdicts_;
  SingleWriterCounter published_state_changes_;
  SingleWriterCounter published_foreign_masters_;
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_PTP_PTP_PORT_H_
