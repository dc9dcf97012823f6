// SPDX-License-Identifier: Apache-2.0
// The packet pipeline a worker runs on every received frame: one classifier,
// one handler per frame kind, and a late-TX hook. This is the plug-in point
// for the protocol code (core/net/frame.h, core/net/l2l3_responder.h,
// core/ntp/ntp_reply.h, PTP): each is wrapped in a small FrameClassifier or
// FrameHandler and registered by frame-kind index.
//
// Per burst, the worker (dataplane/worker/worker.cc) does:
//   per frame: pkt.rx = timestamper.Stamp(mbuf)  // TAI receive time
//              Verdict v = classifier->Classify(pkt)  // kind, or a drop
//   per frame whose handler HasPrefetch(): handler->Prefetch(pkt)
//   per kind whose handler HasBurstSteps(): handler->BeginBurst(that kind's
//     frames of the burst, in order, burst)
//   per frame: HandleResult r = handlers[v.kind]->Handle(pkt, burst)
//     kTransmit          -> queued for tx_burst as rewritten
//     kTransmitFinalise  -> queued; FinaliseTx(pkt, tx) runs just before
//                           tx_burst (NTP writes T3 and the UDP checksum),
//                           then, per group of them, EndFinalise() of the
//                           handlers with burst steps (NTS seals together)
//   after tx_burst, frames of kinds whose handler HasAfterTx():
//     AfterTx(pkt, after, sent) with the stamp taken when tx_burst returned
//     kDrop              -> freed, counted under r.drop_reason
//     kConsumed          -> the handler kept the mbuf (frees/sends it later)
//
// Rules for classifiers and handlers (they run on the hot path): no locks,
// allocation, syscalls, exceptions or absl::Status; rewrite the frame in place
// and never make it longer than the received frame (the bounded exceptions:
// a neighbour advertisement, core/net/l2l3_responder.h; a PTP Delay_Resp is 10
// octets longer than its Delay_Req, a unicast GRANT 2 octets longer than its
// REQUEST TLV, core/ptp/ptp_wire.h and core/ptp/ptp_negotiation.h). The frame
// is one flat segment: rte_pktmbuf_mtod(pkt.mbuf, uint8_t*), length
// pkt.mbuf->data_len (the worker drops chained mbufs first). Shrink it with
// Packet::Trim(), or Packet::Resize() within Packet::capacity().
// Each worker owns its Pipeline (handlers may keep per-worker state, such as
// rate-limiter tables, without synchronisation).
//
//   class NtpHandler final : public FrameHandler {
//     HandleResult Handle(Packet& pkt, const BurstContext& burst) override;
//     void FinaliseTx(Packet& pkt, const TxStamp& tx) override;
//   };
//   Pipeline p;
//   p.SetClassifier(std::make_unique<FrameClassifierAdapter>(addresses));
//   ZG_RETURN_IF_ERROR(p.SetHandler(core::FrameKind::kNtp,
//                                   std::make_unique<NtpHandler>(...)));
#ifndef ZG_DATAPLANE_WORKER_PIPELINE_H_
#define ZG_DATAPLANE_WORKER_PIPELINE_H_

#include <rte_ether.h>
#include <rte_mbuf.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/time/clock_model.h"
#include "core/time/time_types.h"
#include "dataplane/clock/stamp_plan.h"
#include "dataplane/clock/timestamper.h"
#include "dataplane/clock/tx_scheduler.h"
#include "dataplane/port/interface_address.h"
#include "dataplane/trust/reload.h"
#include "dataplane/worker/worker_stats.h"
#include "nlohmann/json_fwd.hpp"
#include "servo/alarms/alarm_set.h"
#include "servo/api/dataplane_status.h"
#include "servo/audit/audit_log.h"

namespace prometheus {
class Collectable;
class Registry;
}  // namespace prometheus

namespace zg::core {
struct NtpClientQuery;  // core/ntp/ntp_client_query.h
}  // namespace zg::core

namespace zg::dataplane {

struct DaemonConfig;  // dataplane/daemon/flags.h

// Frames per rx_burst: the most frames of one burst a handler sees.
inline constexpr uint16_t kBurstSize = 32;

inline constexpr size_t kParseScratchBytes =
    96;  // fits core::FrameInfo + a pointer
inline constexpr size_t kNoteScratchBytes = 16;

// One received frame while it is in the pipeline (lives for one burst).
struct Packet {
  rte_mbuf* mbuf = nullptr;
  RxStamp rx;            // written by the worker before Classify
  uint16_t port_id = 0;  // written by the worker before Classify (not every
                         // PMD sets mbuf->port)
  // Written by the classifier, read by the handler of the same frame: the
  // classifier's parse result (offsets, addresses), so handlers do not parse
  // again. Its type is a contract between one classifier and its handlers.
  alignas(8) std::byte parse[kParseScratchBytes];
  // Written by Handle, read by FinaliseTx of the same frame (e.g. where T3
  // and the UDP checksum live).
  alignas(8) std::byte note[kNoteScratchBytes];

  template <typename T>
  T& ParseAs() {
    static_assert(sizeof(T) <= kParseScratchBytes && alignof(T) <= 8 &&
                  std::is_trivially_copyable_v<T>);
    return *reinterpret_cast<T*>(parse);
  }
  template <typename T>
  T& NoteAs() {
    static_assert(sizeof(T) <= kNoteScratchBytes && alignof(T) <= 8 &&
                  std::is_trivially_copyable_v<T>);
    return *reinterpret_cast<T*>(note);
  }
  uint8_t* data() { return rte_pktmbuf_mtod(mbuf, uint8_t*); }
  uint16_t length() const { return mbuf->data_len; }
  // Shortens the frame to `len` bytes (never lengthens it).
  void Trim(uint16_t len) {
    if (len < mbuf->data_len) {
      mbuf->data_len = len;
      mbuf->pkt_len = len;
    }
  }
  // Bytes the frame may grow to in place: its length plus the tailroom.
  uint32_t capacity() const {
    return uint32_t{mbuf->data_len} + rte_pktmbuf_tailroom(mbuf);
  }
  // Sets the frame length to `len` <= capacity() (false, unchanged, if it
  // does not fit). Only for replies a protocol allows to be slightly longer
  // than their request (a neighbour advertisement carries its target
  // link-layer address option; core/net/l2l3_responder.h bounds it).
  bool Resize(uint32_t len) {
    if (len > capacity()) return false;
    mbuf->data_len = static_cast<uint16_t>(len);
    mbuf->pkt_len = len;
    return true;
  }
};

// What the classifier decided about one frame.
struct Verdict {
  bool drop = false;
  uint8_t value = 0;  // frame kind (< kMaxFrameKinds) or drop reason index
  static constexpr Verdict Kind(uint8_t kind) { return {false, kind}; }
  static constexpr Verdict Drop(uint8_t reason) { return {true, reason}; }
  template <typename E>
  requires std::is_enum_v<E>
  static constexpr Verdict Kind(E kind) {
    return {false, static_cast<uint8_t>(kind)};
  }
};

enum class Action : uint8_t { kTransmit, kTransmitFinalise, kDrop, kConsumed };

struct HandleResult {
  Action action = Action::kDrop;
  uint8_t drop_reason = 0;  // a CounterNames drop-reason index, for kDrop
  static constexpr HandleResult Transmit() { return {Action::kTransmit, 0}; }
  static constexpr HandleResult TransmitFinalise() {
    return {Action::kTransmitFinalise, 0};
  }
  static constexpr HandleResult Drop(uint8_t reason) {
    return {Action::kDrop, reason};
  }
  static constexpr HandleResult Consumed() { return {Action::kConsumed, 0}; }
};

// TX offloads the port enabled; handlers use them instead of software
// checksums where present.
struct TxOffloads {
  bool ipv4_checksum = false;
  bool udp_checksum = false;
};

// Shared by every frame of one burst on one queue.
struct BurstContext {
  const core::ClockModel* tsc_model = nullptr;  // this burst's copy
  const core::ClockModel* nic_model = nullptr;  // null: port has no HW stamps
  uint64_t burst_tsc = 0;                       // TSC right after rx_burst
  uint16_t port_id = 0;
  uint16_t queue_id = 0;
  TxOffloads offloads;
};

class FrameClassifier {
 public:
  virtual ~FrameClassifier() = default;
  // Classifies pkt's frame; may fill pkt.parse for the handler.
  virtual Verdict Classify(Packet& pkt) = 0;
};

class FrameHandler {
 public:
  virtual ~FrameHandler() = default;
  // Rewrites the frame into its reply in place, or drops it.
  virtual HandleResult Handle(Packet& pkt, const BurstContext& burst) = 0;
  // Runs just before tx_burst for frames Handle() returned
  // kTransmitFinalise for, with one fresh stamp for the whole TX batch.
  virtual void FinaliseTx(Packet& /*pkt*/, const TxStamp& /*tx*/) {}
  // Optional, when HasPrefetch() (asked once, when the worker starts):
  // called for every frame of this kind in a burst after the whole burst
  // is classified and before BeginBurst and the first Handle, so that the
  // burst's per-client lookups' cache misses overlap. It starts loads and
  // may leave what it computed in pkt.note for BeginBurst and Handle of
  // the same frame (before they write the note); whoever drives the
  // handler calls it for every frame of its kind.
  virtual bool HasPrefetch() const { return false; }
  virtual void Prefetch(Packet& /*pkt*/) {}
  // Optional burst-level steps, when HasBurstSteps() (asked once, when the
  // worker starts). BeginBurst gets every frame of this handler's kind in
  // the burst, in order, after the whole burst is classified and before
  // the first Handle; Handle then gets the same frames in the same order.
  // It does what is cheaper for the burst together: per-client lookups
  // whose cache misses overlap, crypto whose AES blocks interleave (NTP:
  // the policy, MACs and NTS of every request). EndFinalise runs after a
  // group of FinaliseTx calls (at most kFinaliseCheckEvery, worker.h) and
  // before their tx_burst: what FinaliseTx left to do together (the
  // replies' MACs and NTS seals after their T3).
  virtual bool HasBurstSteps() const { return false; }
  virtual void BeginBurst(std::span<Packet* const> /*frames*/,
                          const BurstContext& /*burst*/) {}
  virtual void EndFinalise() {}
  // Optional: after tx_burst, for every frame of this kind that was queued
  // for transmission (kTransmit or kTransmitFinalise), when HasAfterTx()
  // (asked once, when the worker starts): whether tx_burst took it, and one
  // TSC stamp read right after tx_burst returned (after net_af_xdp's kick:
  // the best software transmit time). The mbuf is no longer ours (the PMD
  // owns or freed it): only pkt.rx, pkt.parse and pkt.note may be read.
  // NTP interleaved mode keeps this as the reply's exact transmit time.
  virtual bool HasAfterTx() const { return false; }
  virtual void AfterTx(Packet& /*pkt*/, const TxStamp& /*after*/,
                       bool /*sent*/) {}
  // Optional: once per burst with frames, after its replies were sent, when
  // HasEndBurst() (asked once, when the worker starts): per-burst work that
  // the replies need not wait for (the NTP client records' new clients).
  virtual bool HasEndBurst() const { return false; }
  virtual void EndBurst() {}
};

// What the worker hands a FrameSource each time it polls it.
struct SourceContext {
  const core::ClockModel* tsc_model = nullptr;  // refreshed for this poll
  uint64_t tsc = 0;                             // TSC read for this poll
  uint16_t port_id = 0;
  uint16_t queue_id = 0;
  TxOffloads offloads;
  // Send-on-timestamp (the plan's ptp_tx = kScheduled; else null): in
  // BeforeTx, Schedule(frame, before) gives a frame its launch time and
  // returns the exact stamp it must carry (a one-step Sync's origin).
  TxScheduler* scheduler = nullptr;
};

// Frames a pipeline originates on its own schedule rather than in answer to
// a received frame (PTP Announce, Sync, Follow_Up, Pdelay_Resp_Follow_Up).
// The worker polls it once per loop pass and queue:
//
//   if (source->Due(tsc)) {
//     refresh the clock models
//     n = source->Produce(ctx, frames, kBurstSize)   // mbufs it allocated
//     before = TxNow();  source->BeforeTx(frames, n, before)
//     sent = rte_eth_tx_burst(frames, n)
//     after = TxNow();   source->AfterTx(n, sent, before, after)
//   }
//
// The two stamps bracket tx_burst: a PMD that hands frames to the kernel
// synchronously (net_af_xdp's sendto kick) delivers them inside the
// bracket, a NIC puts them on the wire just after it; without NIC TX
// timestamps, the end of the bracket is the best software estimate.
//
// Same rules as handlers: no locks, allocation (but from its mempool),
// syscalls or exceptions. Used by its worker alone.
class FrameSource {
 public:
  virtual ~FrameSource() = default;
  // Cheap: whether Produce has anything to do at `tsc`.
  virtual bool Due(uint64_t tsc) const = 0;
  // Writes up to `room` frames (mbufs it owns until tx_burst) to `out`.
  virtual uint16_t Produce(const SourceContext& ctx, rte_mbuf** out,
                           uint16_t room) = 0;
  // Just before tx_burst of out[0..n): one stamp for the batch (a one-step
  // Sync's originTimestamp). The frames may still be edited.
  virtual void BeforeTx(rte_mbuf** /*frames*/, uint16_t /*n*/,
                        const TxStamp& /*before*/) {}
  // After tx_burst: the first `sent` of the `n` frames went out; the worker
  // freed the others. The mbufs must not be touched any more. `before` and
  // `after` bracket the tx_burst call.
  virtual void AfterTx(uint16_t /*n*/, uint16_t /*sent*/,
                       const TxStamp& /*before*/, const TxStamp& /*after*/) {}
};

// One worker's classifier and handlers. Built on the control thread, then
// moved to its worker; used by that worker alone.
class Pipeline {
 public:
  Pipeline() = default;
  Pipeline(Pipeline&&) = default;
  Pipeline& operator=(Pipeline&&) = default;

  void SetClassifier(std::unique_ptr<FrameClassifier> classifier) {
    classifier_ = std::move(classifier);
  }
  absl::Status SetHandler(uint8_t kind, std::unique_ptr<FrameHandler> handler);
  template <typename E>
  requires std::is_enum_v<E> absl::Status SetHandler(
      E kind, std::unique_ptr<FrameHandler> handler) {
    return SetHandler(static_cast<uint8_t>(kind), std::move(handler));
  }

  void SetSource(std::unique_ptr<FrameSource> source) {
    source_ = std::move(source);
  }

  FrameClassifier* classifier() const { return classifier_.get(); }
  FrameSource* source() const { return source_.get(); }
  FrameHandler* handler(uint8_t kind) const {
    return kind < kMaxFrameKinds ? handlers_[kind].get() : nullptr;
  }

 private:
  std::unique_ptr<FrameClassifier> classifier_;
  std::array<std::unique_ptr<FrameHandler>, kMaxFrameKinds> handlers_;
  std::unique_ptr<FrameSource> source_;
};

// What a pipeline factory may want to know about the worker it builds for.
struct WorkerPort {
  uint16_t port_id = 0;
  uint16_t queue_id = 0;
  rte_ether_addr mac = {};
  uint16_t mtu = 0;
  TxOffloads
      offloads;      // for FinaliseUdpChecksums (dataplane/port/tx_checksum.h)
  StampPlan stamps;  // where each stamp comes from (clock/stamp_plan.h)
  // Timesync ns -> TAI (the port's IEEE 1588 clock, correlated by the
  // control plane) where stamps.ptp_tx/ptp_rx is kTimesync; null otherwise.
  // Written by: control thread. Read by: the PTP worker.
  const core::PublishedClock* timesync_clock = nullptr;
  // The link speed (0: down or unknown, 10G assumed): how far apart frames
  // of one tx_burst leave (core/time/tx_launch.h FrameWireTimeNs).
  uint32_t link_mbps = 0;
  // Port::steers_by_address(): a client's event and general messages reach
  // the same worker (so its PTP grants can be checked there).
  bool steers_by_address = true;
  // The port's own addresses and VLAN (--port ... address= vlan=), when
  // own_addresses; otherwise the port serves WorkerSetup::addresses and
  // WorkerSetup::vlan_id.
  bool own_addresses = false;
  std::vector<InterfaceAddress> addresses;
  uint16_t vlan_id = 0;
  std::string name;  // the port's name, for messages
};
struct WorkerSetup {
  unsigned lcore_id = 0;
  unsigned worker_index = 0;  // 0..workers-1
  unsigned workers = 1;       // how many workers the pipelines are built for
  std::vector<WorkerPort> ports;
  absl::Span<const InterfaceAddress> addresses;  // --address
  uint16_t vlan_id = 0;                          // --vlan (0: untagged)
  // The TSC's rate as the control plane measured it against
  // CLOCK_MONOTONIC_RAW (servo::TscCalibration); 0: DPDK's nominal
  // rte_get_tsc_hz(), which can be off by a thousand ppm or more (a VM's
  // CPUID frequency) and would stretch every schedule by as much.
  double tsc_hz = 0;
};

// The control thread's periodic call into a pipeline's control side.
struct ControlTick {
  // Written by: control thread (the daemon's publisher). Read by: anyone.
  const core::PublishedClock* tsc_clock = nullptr;
  uint64_t tsc = 0;  // TSC read for this tick
  double tsc_hz = 0;
  // Records a config_change in the audit log (servo::ControlPlane::
  // RecordConfigChange); empty without one (tests). Control thread.
  std::function<void(std::vector<std::pair<std::string, servo::AuditValue>>)>
      audit;
};

// What the control thread asks a pipeline each stats interval: its alarm
// conditions (set on `alarms`, servo/alarms/alarm_set.h) and its part of
// the operator surfaces' snapshot (PTP: status->ptp; servo/api/
// dataplane_status.h), which zgctl, the SNMP agent and the status page
// read. Control thread; either pointer may be null.
struct PipelineObservation {
  servo::AlarmSet* alarms = nullptr;
  int64_t mono_ns = 0;
  servo::DataplaneStatus* status = nullptr;
};

// Builds the protocol pipeline: names first (once, before any worker), then
// one Pipeline per worker. zeitgeberd passes the real one; tests pass theirs.
// The optional hooks give a pipeline a control-plane side (PTP's BMCA):
// Configure right after flag parsing (an error exits with kExitConfig),
// ControlStep every --publish_interval on the control thread,
// ScrapeCollectables once the exporter runs (then Observe every
// --stats_interval),
// Reload on SIGHUP, Report then Shutdown at the end.
class PipelineFactory {
 public:
  virtual ~PipelineFactory() = default;
  virtual absl::Status Configure(const DaemonConfig& /*config*/) {
    return absl::OkStatus();
  }
  virtual absl::Status RegisterNames(CounterNames& names) = 0;
  virtual absl::StatusOr<Pipeline> Create(const WorkerSetup& setup) = 0;
  virtual void ControlStep(const ControlTick& /*tick*/) {}
  // The pipeline's metric families, read when Prometheus scrapes (so a
  // scrape equals the counters at that instant); called once, after every
  // worker's pipeline exists.
  virtual std::vector<std::shared_ptr<prometheus::Collectable>>
  ScrapeCollectables() {
    return {};
  }
  // Control thread, every --stats_interval.
  virtual void Observe(const PipelineObservation& /*observation*/) {}
  // Control thread: gathers the `top` busiest PTP unicast subscribers from
  // the workers' tables; `done` runs on the control thread, now or at a
  // later ControlStep (the workers walk their tables a slice per poll).
  using PtpSubscribersDone =
      std::function<void(absl::StatusOr<servo::PtpSubscribers>)>;
  virtual void QueryPtpSubscribers(uint32_t /*top*/, PtpSubscribersDone done) {
    done(absl::UnavailableError("PTP is off (zeitgeberd --ptp)"));
  }
  // Any thread (the control socket's): zgctl clients, the workers' NTP
  // client records (core/ntp/ntp_client_query.h) timed by `clock`.
  virtual absl::StatusOr<nlohmann::json> QueryNtpClients(
      const core::NtpClientQuery& /*query*/,
      const core::PublishedClock& /*clock*/) const;
  // The flags (names without "--") Reload applies; a change to any other
  // flag on SIGHUP is reported as needing a restart.
  virtual std::vector<std::string> ReloadableFlags() const { return {}; }
  // SIGHUP, control thread: rebuild and validate the reloadable
  // configuration from the re-read flags and stage its publication in
  // reload.plan (dataplane/trust/reload.h). An error rejects the whole
  // reload: nothing anyone staged is published, the old config stays.
  virtual absl::Status Reload(const ReloadArgs& /*reload*/) {
    return absl::OkStatus();
  }
  virtual void Report() {}
  // Last, on the control thread, once every worker has stopped and before
  // the EAL is cleaned up (also on a failed start): free what lives in EAL
  // memory (access lists' rte_lpm tables). Nothing is used after it.
  virtual void Shutdown() {}
  // Whether the XDP steering program should also send PTP multicast (UDP
  // 319/320 to the PTP groups) and PTP over Ethernet to the data plane.
  virtual bool WantsPtpGroups() const { return false; }
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_WORKER_PIPELINE_H_
