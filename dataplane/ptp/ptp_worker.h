// SPDX-License-Identifier: Apache-2.0
// The data-plane half of zeitgeberd's PTP grandmaster, one per worker:
//
//  - answers what arrives on the worker's queue (core/ptp/ptp_dispatch.h
//    decides): Delay_Req -> Delay_Resp stamped with the request's RX time,
//    Pdelay_Req -> Pdelay_Resp now and Pdelay_Resp_Follow_Up with its TX
//    time, unicast negotiation Signaling (core/ptp/ptp_negotiation.h) against
//    this worker's shard of subscribers, management GETs (pmc); foreign
//    Announce messages go to the control thread (dataplane/ptp/ptp_port.h);
//  - originates, as the worker's FrameSource: multicast Announce and Sync
//    (worker 0 only), Announce and Sync to this worker's unicast
//    subscribers as the scheduler spreads them, and the Follow_Up of every
//    two-step Sync with its TX stamp as the port's StampPlan says: the
//    software stamp before (or after) tx_burst, or with --timesync the
//    NIC's TX latch, collected on later polls without blocking
//    (ptp_tx_stamp.h; one-step: the software stamp written into the Sync).
//
// Shards: RSS sends a client's frames to one worker, which owns its
// subscription (negotiation, Sync and Announce, its Delay_Resp grant), so
// no subscriber state is shared between workers. The Delay_Resp grant
// (G.8275.2) is enforced where the port steers by address (one queue, or
// RSS on IP addresses only, as dataplane/port/port.cc configures it): a
// client's event port (319) and general port (320) then reach one worker.
// Where the queues are spread by a hash we did not set (AF_XDP with several
// queues: the kernel NIC's, often over UDP ports) it is not enforced, and
// the plugin says so at start with the ethtool command that fixes it.
//
// Everything on the per-frame and per-poll paths is allocation-free except
// mbufs from the worker's own pool.
//
// One class, four files: ptp_worker.cc (creation, the pipeline adapters,
// the snapshot, framing), ptp_answer.cc (the receive side),
// ptp_originate_tx.cc (the scheduled messages) and ptp_follow_up.cc (the
// pending ring both sides feed); its hardware stamps (PtpTimesync) are
// ptp_tx_stamp.h.
//
//   ZG_ASSIGN_OR_RETURN(std::shared_ptr<PtpWorker> ptp,
//                       PtpWorker::Create(config, runtime, drops, stats));
//   pipeline.SetHandler(FrameKind::kPtpEvent, ptp->MakeHandler());  // ...
//   pipeline.SetSource(ptp->MakeSource());
#ifndef ZG_DATAPLANE_PTP_PTP_WORKER_H_
#define ZG_DATAPLANE_PTP_PTP_WORKER_H_

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>

#include "absl/status/statusor.h"
#include "core/net/frame.h"
#include "core/net/local_addresses.h"
#include "core/ptp/ptp_dispatch.h"
#include "core/ptp/ptp_management.h"
#include "core/ptp/ptp_negotiation.h"
#include "core/ptp/ptp_originate.h"
#include "core/ptp/ptp_subscriber_export.h"
#include "core/ptp/ptp_unicast_service.h"
#include "dataplane/clock/stamp_plan.h"
#include "dataplane/ptp/ptp_port.h"
#include "dataplane/ptp/ptp_tx_stamp.h"
#include "dataplane/trust/access_swap.h"
#include "dataplane/trust/config_swap.h"
#include "dataplane/worker/pipeline.h"
#include "dataplane/worker/worker.h"
#include "dataplane/worker/worker_stats.h"

namespace zg::dataplane {

// Indices of the PTP drop-reason blocks in CounterNames (registered once by
// RegisterPtpDropReasons, shared by every worker).
struct PtpDropBases {
  uint8_t port = 0;        // core::PtpPortDrop
  uint8_t message = 0;     // core::PtpDrop (a reply could not be built)
  uint8_t signaling = 0;   // core::PtpSignalingResult (no reply sent)
  uint8_t management = 0;  // core::PtpManagementResult (no reply sent)
  uint8_t no_mbuf = 0;     // "ptp_no_mbuf"
  uint8_t acl = 0;         // "ptp_acl_denied": --ptp_allow / --ptp_deny
};
absl::StatusOr<PtpDropBases> RegisterPtpDropReasons(CounterNames& names);

// Whether the port schedules PTP transmission (StampPlan ptp_tx =
// kScheduled, --tx_schedule=auto): its Syncs then go one-step with the
// exact launch time as originTimestamp (ptp_tx_schedule.cc).
bool PtpSchedulesSyncs(const WorkerPort& port);

// Counters of one worker's PTP. Written by: that worker. Read by: the
// control thread (status, alarms) and metrics scrapes (ptp_metrics.h).
struct PtpWorkerStats {
  std::array<SingleWriterCounter, core::kPtpMessageTypeCount> sent;
  SingleWriterCounter announces_forwarded;
  SingleWriterCounter follow_up_overflow;  // pending follow-ups full
  SingleWriterCounter mbuf_alloc_failures;
  SingleWriterCounter unicast_subscribers;  // current (Set)
  std::array<SingleWriterCounter, core::kPtpGrantTypeCount> grants;
  std::array<SingleWriterCounter, core::kPtpGrantTypeCount> renewals;
  std::array<SingleWriterCounter, core::kPtpGrantDenialCount> denials;
  std::array<SingleWriterCounter, core::kPtpGrantReductionCount> reductions;
  SingleWriterCounter cancels_wrong_source;
  SingleWriterCounter committed_units;  // current (Set), 1/32 msg/s
  SingleWriterCounter budget_units;     // this shard's share (Set); 0: none
  std::array<SingleWriterCounter, core::kPtpGrantTypeCount> cancels;
  std::array<SingleWriterCounter, core::kPtpGrantTypeCount> expiries;
  // Where t1/t3 and t2/t4 came from (ptp_tx_stamp.h).
  PtpStampStats stamps;
  // Follow-ups whose stamp was there but whose frame could not be built
  // (encoding or framing failed): not sent.
  SingleWriterCounter follow_ups_unbuilt;
  // Pdelay_Resp that tx_burst did not take: its follow-up is not sent.
  SingleWriterCounter pdelay_resp_unsent;
  // Originated Announce [kAnnounce] and Sync [kSync] (core::PtpTimerKind)
  // that were due but not sent because the message could not be encoded
  // or framed (skipped, the schedule goes on).
  std::array<SingleWriterCounter, core::kPtpTimerKinds> originate_unbuilt;
  // Unicast schedule (core::PtpUnicastServiceStats, copied every 1024
  // polls): messages skipped because the worker fell a whole interval
  // behind, and how late those sent left (kPtpLatenessBoundsNs buckets and
  // the sum in ns), per core::PtpTimerKind.
  std::array<SingleWriterCounter, core::kPtpTimerKinds> unicast_skipped;
  std::array<std::array<SingleWriterCounter, core::kPtpLatenessBuckets>,
             core::kPtpTimerKinds>
      unicast_lateness;
  std::array<SingleWriterCounter, core::kPtpTimerKinds> unicast_lateness_ns;
};

// The admission limits in force, as the plugin publishes them (initially
// and on each reload); `generation` tells a worker it has a new one.
struct PtpAdmissionPolicy {
  core::PtpAdmissionConfig config;
  uint64_t generation = 0;
};

struct PtpWorkerConfig {
  core::PtpPortConfig port;
  core::PtpAdmissionConfig admission;  // shards: set from `workers`
  core::PtpPortIdentity identity;
  uint16_t number_ports = 1;   // the clock's PTP ports (defaultDS)
  core::LocalAddresses local;  // our MAC, VLAN and addresses
  unsigned worker_index = 0;
  unsigned workers = 1;
  rte_mempool* pool = nullptr;  // for originated frames
  uint64_t seed = 0;            // subscription table hash key
  // --ptp_allow / --ptp_deny, the plugin's (read once per burst); null: no
  // access list. Applies to every PTP message over UDP by its source
  // address (Layer 2 frames carry none).
  const ReloadableAccessList* acl = nullptr;
  // The admission limits as reloaded (read once per burst); null: `admission`
  // stays in force.
  const SwappableConfig<PtpAdmissionPolicy>* admission_swap = nullptr;
  // The port this worker sends on and where its stamps come from
  // (WorkerPort::stamps): ptp_tx / ptp_rx kTimesync use the IEEE 1588
  // registers (ptp_tx_stamp.h), mapped by `timesync_clock` (written by the
  // control thread; null: not published, software stamps, counted).
  uint16_t port_id = 0;
  StampPlan stamps;
  const core::PublishedClock* timesync_clock = nullptr;
  // The port's one TX latch, shared by its workers (null: this worker's
  // own, fine with one worker).
  TimesyncTxLatch* tx_latch = nullptr;
  int64_t tx_stamp_timeout_ns = kTimesyncTxTimeoutNs;
  uint32_t link_mbps = 0;  // WorkerPort::link_mbps (0: 10G assumed)
  // WorkerPort::steers_by_address: with it, grants are enforced with any
  // number of workers.
  bool steers_by_address = true;
  // zgctl ptp subscribers: this worker's share, walked a slice per poll
  // when asked (null: never asked).
  core::PtpSubscriberExport* subscriber_export = nullptr;
};

class PtpWorker : public std::enable_shared_from_this<PtpWorker> {
 public:
  static absl::StatusOr<std::shared_ptr<PtpWorker>> Create(
      const PtpWorkerConfig& config, PtpPortRuntime* runtime,
      const PtpDropBases& drops, PtpWorkerStats* stats);

  // FrameHandler side (kinds kPtpEvent, kPtpGeneral, kPtpL2).
  HandleResult Handle(Packet& pkt, const BurstContext& burst);
  void FinaliseTx(Packet& pkt, const TxStamp& tx);
  // After tx_burst, every reply (ptp_follow_up.cc): a Pdelay_Resp's
  // follow-up becomes ready, awaits its hardware stamp, or is cancelled
  // when the Pdelay_Resp was not sent.
  void HandlerAfterTx(Packet& pkt, const TxStamp& after, bool sent);
  // FrameSource side.
  bool Due(uint64_t tsc) const {
    return ready_follow_ups_ > 0 || timesync_.awaiting() ||
           tsc >= next_poll_tsc_;
  }
  uint16_t Produce(const SourceContext& ctx, rte_mbuf** out, uint16_t room);
  void BeforeTx(rte_mbuf** frames, uint16_t n, const TxStamp& before);
  void AfterTx(uint16_t n, uint16_t sent, const TxStamp& before,
               const TxStamp& after);

  std::unique_ptr<FrameHandler> MakeHandler();
  std::unique_ptr<FrameSource> MakeSource();
  // The DPDK port it serves (PtpWorkerConfig::port_id).
  uint16_t port_id() const { return config_.port_id; }

  // Where a message goes.
  struct Dest {
    core::PtpUnicastTransport transport = core::PtpUnicastTransport::kUdpIpv4;
    core::MacAddr mac;
    core::IpAddress ip;
    uint16_t port = 0;        // UDP destination (and source) port
    uint16_t vlan_tci = 0;    // 0: untagged (or the configured VLAN)
    uint8_t local_index = 0;  // which of our addresses sends
    uint8_t ttl = 64;
  };

 private:
  // A message whose follow-up waits for a TX stamp: a two-step Sync (its
  // Follow_Up) or a Pdelay_Resp (its Pdelay_Resp_Follow_Up).
  struct Pending {
    enum State : uint8_t { kFree, kWaiting, kReady, kCancelled };
    State state = kFree;
    bool pdelay = false;
    bool hw_stamp = false;  // sent with RTE_MBUF_F_TX_IEEE1588_TMST
    bool unicast = false;
    uint16_t sequence_id = 0;
    int8_t log_interval = 0;
    Dest dest;
    core::TaiNs tx;                  // t1 (Sync) or t3 (Pdelay_Resp)
    core::PtpHeader request;         // the Pdelay_Req
    core::PtpCorrection correction;  // the Pdelay_Req's
  };
  static constexpr uint32_t kPending = 256;  // power of two
  // The largest PTP message we build or copy (Signaling with 8 grants: 140).
  static constexpr size_t kMaxPtp = 512;
  struct HandleNote {
    int32_t pending = -1;  // slot of a Pdelay_Resp's follow-up, or -1
  };

  PtpWorker(const PtpWorkerConfig& config, PtpPortRuntime* runtime,
            const PtpDropBases& drops, PtpWorkerStats* stats,
            std::unique_ptr<core::PtpUnicastService> service);

  // Receive side (ptp_answer.cc).
  bool Allowed(const core::FrameInfo& info) const;
  HandleResult RefuseByAcl(std::span<const uint8_t> payload);
  HandleResult AnswerDelayReq(Packet& pkt, const core::FrameInfo& info,
                              const core::PtpRxDecision& d, bool unicast,
                              core::PtpUnicastTransport t);
  HandleResult AnswerPdelayReq(Packet& pkt, const core::FrameInfo& info,
                               const core::PtpRxDecision& d, bool unicast,
                               core::PtpUnicastTransport t);
  HandleResult AnswerSignaling(Packet& pkt, const core::FrameInfo& info,
                               bool unicast, core::PtpUnicastTransport t,
                               uint64_t tsc);
  HandleResult AnswerManagement(Packet& pkt, const core::FrameInfo& info,
                                bool unicast, core::PtpUnicastTransport t);
  HandleResult ForwardAnnounce(Packet& pkt, const core::FrameInfo& info,
                               uint64_t tsc);
  // Where to answer a received frame: the requester (unicast) or the group
  // it used; UDP port `port`.
  Dest ReplyDest(const uint8_t* frame, const core::FrameInfo& info,
                 bool unicast, core::PtpUnicastTransport t, uint16_t port,
                 bool pdelay) const;
  HandleResult Reply(Packet& pkt, const Dest& d, const uint8_t* ptp,
                     uint16_t len, core::PtpMessageType type);

  // Origination side (ptp_originate_tx.cc). Each appends frames at
  // out[*n], *n < room, advancing *n.
  void ProduceMulticast(int64_t mono, core::TaiNs now, rte_mbuf** out,
                        uint16_t* n, uint16_t room);
  void ProduceUnicast(int64_t mono, core::TaiNs now, rte_mbuf** out,
                      uint16_t* n, uint16_t room);
  // Builds an Announce or Sync (with its pending follow-up) to `d`.
  bool Originate(core::PtpMessageType type, const Dest& d, uint16_t seq,
                 int8_t log_interval, bool unicast, core::TaiNs now,
                 rte_mbuf** out, uint16_t* n, uint16_t room);
  Dest SubscriberDest(const core::PtpUnicastSubscriber& s,
                      core::PtpTimerKind kind) const;

  // The pending ring (ptp_follow_up.cc).
  int32_t ReservePending();  // a kWaiting slot, or -1 if the ring is full
  // The TX latch (ptp_tx_stamp.h): a stamp read or given up on.
  void PollTxStamp(uint64_t tsc);
  // A message of slot `slot` left: its software t1/t3 from the plan, or
  // (hw_stamp) the wait for the latch.
  void Transmitted(Pending& p, int32_t slot, const TxStamp& before,
                   const TxStamp& after);
  void ProduceFollowUps(rte_mbuf** out, uint16_t* n, uint16_t room);
  // Appends `m` (pending slot `slot`, or -1) to the batch at out[*n].
  void AddToBatch(rte_mbuf* m, int32_t slot, bool one_step, rte_mbuf** out,
                  uint16_t* n);
  // Where frame `i` of the batch left, from the stamps around tx_burst:
  // `before` moved by the wire time of the frames ahead of it, `after`
  // moved back by those behind it.
  TxStamp BatchBefore(const TxStamp& before, uint16_t i) const;
  TxStamp BatchAfter(const TxStamp& after, uint16_t i, uint16_t n) const;

  // Both sides (ptp_worker.cc).
  void RefreshSnapshot();
  // Once per burst: this burst's access list and any new admission limits.
  void RefreshPolicies();
  void PublishServiceStats();
  // Writes headers for `d` and `len` PTP octets into the mbuf; false if it
  // does not fit.
  bool Frame(rte_mbuf* m, const Dest& d, const uint8_t* ptp, uint16_t len,
             core::FrameInfo* built = nullptr) const;

  PtpWorkerConfig config_;
  const core::PtpProfile* profile_;
  PtpPortRuntime* runtime_;
  PtpDropBases drops_;
  PtpWorkerStats* stats_;
  std::unique_ptr<core::PtpUnicastService> service_;  // null: negotiation off
  bool enforce_grants_;
  core::PtpReplyConfig reply_config_;
  core::PtpManagementConfig management_config_;

  // The control thread's latest snapshot and what is derived from it.
  PtpPortSnapshot snapshot_;
  core::PtpOriginTemplates templates_;
  core::PtpDataSets data_sets_;
  bool templates_ok_ = false;
  // This burst's access list (valid until the worker's next burst
  // boundary); null: none or empty.
  const AccessList* acl_now_ = nullptr;
  uint64_t admission_generation_ = 0;  // of the limits in the service

  uint64_t last_burst_tsc_ = 0;  // the burst the snapshot was read for
  uint64_t next_poll_tsc_ = 0;
  uint64_t poll_period_tsc_ = 0;
  int64_t next_announce_ns_ = 0;  // multicast (worker 0)
  int64_t next_sync_ns_ = 0;
  // Transports still owed this interval's multicast Sync [0] / Announce [1].
  std::array<uint8_t, 2> multicast_left_{};
  bool batch_closed_ = false;   // a lone Sync is in the batch: nothing else
  bool deferred_ = false;       // something due did not fit this poll
  bool sync_deferred_ = false;  // a Sync waits for the TX latch (counted once)
  uint16_t announce_seq_ = 0;
  uint16_t sync_seq_ = 0;
  uint16_t signaling_seq_ = 0;
  uint32_t polls_ = 0;

  std::array<Pending, kPending> pending_{};
  uint32_t pending_head_ = 0;  // next slot to reserve
  uint32_t pending_tail_ = 0;  // oldest slot in use
  uint32_t ready_follow_ups_ = 0;
  // Per frame of the batch being sent: its pending slot, or -1, and its
  // time on the wire (for the software t1 of a Sync that is not first).
  std::array<int32_t, kBurstSize> batch_pending_{};
  std::array<int64_t, kBurstSize> batch_wire_ns_{};
  uint16_t batch_syncs_ = 0;  // unicast Syncs in this batch
  std::array<bool, kBurstSize> batch_one_step_{};
  std::array<core::FrameInfo, kBurstSize> batch_info_{};
  uint16_t batch_n_ = 0;
  // Send-on-timestamp (ptp_tx_schedule.cc): this poll's scheduler, from
  // SourceContext (null: software stamps), and a one-step Sync's origin.
  TxScheduler* tx_scheduler_ = nullptr;
  core::TaiNs OneStepOrigin(rte_mbuf* m, const TxStamp& before);

  PtpTimesync timesync_;
  // This frame's hardware RX stamp (Handle, before dispatch), if any.
  std::optional<core::TaiNs> hw_rx_;
  PtpRxStampResult hw_rx_why_ = PtpRxStampResult::kSoftware;
  // t2/t4 of the frame being handled: its hardware stamp or pkt.rx.tai,
  // counted.
  core::TaiNs EventRxStamp(const Packet& pkt);
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_PTP_PTP_WORKER_H_
