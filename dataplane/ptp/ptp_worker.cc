#include "dataplane/ptp/ptp_worker.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"
#include "core/net/frame_build.h"
#include "core/net/net_headers.h"
#include "dataplane/worker/frame_classifier.h"

namespace zg::dataplane {
namespace {

using core::PtpMessageType;
using core::PtpUnicastTransport;

// The largest PTP message we build or copy (Signaling with 8 grants: 140).
constexpr size_t kMaxPtp = 512;
// How often the source looks at its schedule when nothing is pending: a
// quarter of a scheduler slot.
constexpr int64_t kPollPeriodNs = 250'000;
// Unicast timers fired per poll, and expired grants swept per poll.
constexpr uint32_t kSweepPerPoll = 64;

template <typename E>
std::vector<absl::string_view> EnumNames(const char* (*name)(E), size_t count) {
  std::vector<absl::string_view> out;
  for (size_t i = 0; i < count; ++i) out.push_back(name(static_cast<E>(i)));
  return out;
}

class PtpHandlerAdapter final : public FrameHandler {
 public:
  explicit PtpHandlerAdapter(std::shared_ptr<PtpWorker> w) : w_(std::move(w)) {}
  HandleResult Handle(Packet& pkt, const BurstContext& burst) override {
    return w_->Handle(pkt, burst);
  }
  void FinaliseTx(Packet& pkt, const TxStamp& tx) override {
    w_->FinaliseTx(pkt, tx);
  }

 private:
  std::shared_ptr<PtpWorker> w_;
};

class PtpSourceAdapter final : public FrameSource {
 public:
  explicit PtpSourceAdapter(std::shared_ptr<PtpWorker> w) : w_(std::move(w)) {}
  bool Due(uint64_t tsc) const override { return w_->Due(tsc); }
  uint16_t Produce(const SourceContext& ctx, rte_mbuf** out,
                   uint16_t room) override {
    return w_->Produce(ctx, out, room);
  }
  void BeforeTx(rte_mbuf** frames, uint16_t n, const TxStamp& before) override {
    w_->BeforeTx(frames, n, before);
  }
  void AfterTx(uint16_t n, uint16_t sent, const TxStamp& before,
               const TxStamp& after) override {
    w_->AfterTx(n, sent, before, after);
  }

 private:
  std::shared_ptr<PtpWorker> w_;
};

PtpUnicastTransport TransportOf(const core::FrameInfo& info) {
  if (info.ip_version == 4) return PtpUnicastTransport::kUdpIpv4;
  if (info.ip_version == 6) return PtpUnicastTransport::kUdpIpv6;
  return PtpUnicastTransport::kL2;
}

uint8_t TransportBit(PtpUnicastTransport t) {
  switch (t) {
    case PtpUnicastTransport::kUdpIpv4:
      return core::kPtpTransportUdpIpv4;
    case PtpUnicastTransport::kUdpIpv6:
      return core::kPtpTransportUdpIpv6;
    default:
      return core::kPtpTransportL2;
  }
}

// The requester's address as a subscription key.
core::PtpUnicastAddress FromAddress(const uint8_t* frame,
                                    const core::FrameInfo& info,
                                    PtpUnicastTransport t) {
  if (t == PtpUnicastTransport::kUdpIpv4) {
    uint8_t b[4];
    info.src_ipv4.Store(b);
    return core::PtpUnicastAddress::Ipv4(b);
  }
  if (t == PtpUnicastTransport::kUdpIpv6) {
    return core::PtpUnicastAddress::Ipv6(info.src_ipv6.b.data());
  }
  return core::PtpUnicastAddress::L2(frame + core::eth::kSrc);
}

}  // namespace

absl::StatusOr<PtpDropBases> RegisterPtpDropReasons(CounterNames& names) {
  PtpDropBases b;
  ZG_ASSIGN_OR_RETURN(b.port, names.AddDropReasonList(
                                  "ptp", EnumNames(core::PtpPortDropName,
                                                   core::kPtpPortDropCount)));
  ZG_ASSIGN_OR_RETURN(
      b.message,
      names.AddDropReasonList(
          "ptp_msg", EnumNames(core::PtpDropName,
                               static_cast<size_t>(core::PtpDrop::kCount))));
  ZG_ASSIGN_OR_RETURN(
      b.signaling, names.AddDropReasonList(
                       "ptp_sig", EnumNames(core::PtpSignalingResultName,
                                            core::kPtpSignalingResultCount)));
  ZG_ASSIGN_OR_RETURN(
      b.management,
      names.AddDropReasonList(
          "ptp_mgmt",
          EnumNames(core::PtpManagementResultName,
                    static_cast<size_t>(core::PtpManagementResult::kCount))));
  ZG_ASSIGN_OR_RETURN(b.no_mbuf, names.AddDropReasons("ptp", {"no_mbuf"}));
  return b;
}

absl::StatusOr<std::shared_ptr<PtpWorker>> PtpWorker::Create(
    const PtpWorkerConfig& config, PtpPortRuntime* runtime,
    const PtpDropBases& drops, PtpWorkerStats* stats) {
  if (config.pool == nullptr) {
    return absl::InvalidArgumentError("PTP worker needs an mbuf pool");
  }
  if ((config.port.transports & core::kPtpTransportUdpIpv4) != 0 &&
      config.local.num_ipv4() == 0) {
    return absl::FailedPreconditionError(
        "PTP over UDP/IPv4 needs an IPv4 --address (or --ptp_transport "
        "without udp4)");
  }
  if ((config.port.transports & core::kPtpTransportUdpIpv6) != 0 &&
      config.local.num_ipv6() == 0) {
    return absl::FailedPreconditionError(
        "PTP over UDP/IPv6 needs an IPv6 --address (or --ptp_transport "
        "without udp6)");
  }
  std::unique_ptr<core::PtpUnicastService> service;
  if (config.port.unicast_negotiation) {
    core::PtpUnicastService::Config sc;
    sc.limits = config.port.grant_limits;
    sc.capacity = config.port.max_unicast_clients;
    sc.seed = config.seed;
    ZG_ASSIGN_OR_RETURN(service, core::PtpUnicastService::Create(sc));
  }
  return std::shared_ptr<PtpWorker>(
      new PtpWorker(config, runtime, drops, stats, std::move(service)));
}

PtpWorker::PtpWorker(const PtpWorkerConfig& config, PtpPortRuntime* runtime,
                     const PtpDropBases& drops, PtpWorkerStats* stats,
                     std::unique_ptr<core::PtpUnicastService> service)
    : config_(config),
      profile_(&core::GetPtpProfile(config.port.profile)),
      runtime_(runtime),
      drops_(drops),
      stats_(stats),
      service_(std::move(service)),
      enforce_grants_(config.workers == 1),
      reply_config_(core::MakePtpReplyConfig(config.port, config.identity)),
      management_config_(
          core::MakePtpManagementConfig(config.port, config.identity)),
      poll_period_tsc_(runtime->mono().Ticks(kPollPeriodNs)) {
  batch_pending_.fill(-1);
}

std::unique_ptr<FrameHandler> PtpWorker::MakeHandler() {
  return std::make_unique<PtpHandlerAdapter>(shared_from_this());
}

std::unique_ptr<FrameSource> PtpWorker::MakeSource() {
  return std::make_unique<PtpSourceAdapter>(shared_from_this());
}

// ---- Receive side -----------------------------------------------------------

HandleResult PtpWorker::Handle(Packet& pkt, const BurstContext& burst) {
  const core::FrameInfo& info = pkt.ParseAs<ParsedFrame>().info;
  const uint8_t* frame = pkt.data();
  const std::span<const uint8_t> payload(frame + info.payload_offset,
                                         info.payload_len);
  const PtpUnicastTransport t = TransportOf(info);
  const bool unicast = t == PtpUnicastTransport::kL2
                           ? (frame[core::eth::kDst] & 1) == 0
                           : !info.dst_multicast;
  if (burst.burst_tsc != last_burst_tsc_) {  // once per burst
    last_burst_tsc_ = burst.burst_tsc;
    RefreshSnapshot();
  }
  core::PtpRxContext ctx;
  ctx.config = &config_.port;
  ctx.state = snapshot_.state;
  ctx.self = config_.identity.clock_identity;
  ctx.unicast = unicast;
  ctx.transport = t;
  ctx.event_port = info.dst_port == core::kPtpEventPort;
  const core::PtpRxDecision d = core::DecidePtpRx(payload, ctx);
  switch (d.action) {
    case core::PtpRxAction::kAnswerDelayReq:
      return AnswerDelayReq(pkt, info, d, unicast, t);
    case core::PtpRxAction::kAnswerPdelayReq:
      return AnswerPdelayReq(pkt, info, d, unicast, t);
    case core::PtpRxAction::kAnnounce:
      return ForwardAnnounce(pkt, info, burst.burst_tsc);
    case core::PtpRxAction::kSignaling:
      return AnswerSignaling(pkt, info, unicast, t, burst.burst_tsc);
    case core::PtpRxAction::kManagement:
      return AnswerManagement(pkt, info, unicast, t);
    case core::PtpRxAction::kDrop:
      break;
  }
  if (d.drop == core::PtpPortDrop::kMalformed) {
    return HandleResult::Drop(
        static_cast<uint8_t>(drops_.message + static_cast<uint8_t>(d.parse)));
  }
  return HandleResult::Drop(
      static_cast<uint8_t>(drops_.port + static_cast<uint8_t>(d.drop)));
}

PtpWorker::Dest PtpWorker::ReplyDest(const uint8_t* frame,
                                     const core::FrameInfo& info, bool unicast,
                                     PtpUnicastTransport t, uint16_t port,
                                     bool pdelay) const {
  Dest d;
  d.transport = t;
  d.port = port;
  d.vlan_tci = info.vlan_tags > 0 ? info.vlan_tci : 0;
  d.local_index =
      info.local_index == core::FrameInfo::kNoLocalIndex ? 0 : info.local_index;
  if (unicast) {
    d.mac = core::MacAddr::Load(frame + core::eth::kSrc);
    d.ip = t == PtpUnicastTransport::kUdpIpv6
               ? core::IpAddress::V6(info.src_ipv6)
               : core::IpAddress::V4(info.src_ipv4);
    return d;
  }
  d.ttl = 1;  // as ptp4l sends to the groups
  if (t == PtpUnicastTransport::kL2) {
    d.mac = pdelay ? core::kPtpPdelayMac : core::kPtpPrimaryMac;
  } else if (t == PtpUnicastTransport::kUdpIpv6) {
    d.ip = core::IpAddress::V6(info.dst_ipv6);  // the group it was sent to
    d.mac = info.dst_ipv6.MulticastMac();
    d.local_index = static_cast<uint8_t>(
        std::max(0, config_.local.Ipv6SourceIndexFor(info.src_ipv6)));
  } else {
    d.ip = core::IpAddress::V4(info.dst_ipv4);
    d.mac = core::Ipv4MulticastMac(info.dst_ipv4);
  }
  return d;
}

bool PtpWorker::Frame(rte_mbuf* m, const Dest& d, const uint8_t* ptp,
                      uint16_t len, core::FrameInfo* built) const {
  uint8_t* buf = rte_pktmbuf_mtod(m, uint8_t*);
  const uint32_t cap = static_cast<uint32_t>(m->buf_len - m->data_off);
  std::optional<uint16_t> vlan;
  if (config_.local.has_vlan()) {
    vlan = config_.local.vlan_id();
  } else if ((d.vlan_tci & core::vlan::kVidMask) != 0) {
    vlan = d.vlan_tci & core::vlan::kVidMask;
  }
  const uint8_t pcp = vlan ? static_cast<uint8_t>(d.vlan_tci >> 13) : 0;
  core::FrameInfo info;
  uint32_t flen;
  if (d.transport == PtpUnicastTransport::kL2) {
    flen = core::BuildL2Frame(buf, cap, config_.local.mac(), d.mac, vlan, pcp,
                              core::kEtherTypePtp, len, &info);
  } else {
    core::UdpFrameSpec spec;
    spec.src_mac = config_.local.mac();
    spec.dst_mac = d.mac;
    spec.vlan_id = vlan;
    spec.vlan_pcp = pcp;
    if (d.transport == PtpUnicastTransport::kUdpIpv6) {
      const int i =
          d.local_index < config_.local.num_ipv6() ? d.local_index : 0;
      spec.src_ip = core::IpAddress::V6(config_.local.ipv6(i));
    } else {
      const int i =
          d.local_index < config_.local.num_ipv4() ? d.local_index : 0;
      spec.src_ip = core::IpAddress::V4(config_.local.ipv4(i));
    }
    spec.dst_ip = d.ip;
    spec.src_port = d.port;
    spec.dst_port = d.port;
    spec.ttl = d.ttl;
    flen = core::BuildUdpFrame(buf, cap, spec, len, &info);
  }
  if (flen == 0) return false;
  std::memcpy(buf + info.payload_offset, ptp, len);
  if (d.transport != PtpUnicastTransport::kL2) {
    core::FinalizeUdpChecksum(buf, info);
  }
  m->data_len = static_cast<uint16_t>(flen);
  m->pkt_len = flen;
  m->ol_flags = 0;
  if (built != nullptr) *built = info;
  return true;
}

HandleResult PtpWorker::Reply(Packet& pkt, const Dest& d, const uint8_t* ptp,
                              uint16_t len, PtpMessageType type) {
  if (!Frame(pkt.mbuf, d, ptp, len)) {
    return HandleResult::Drop(static_cast<uint8_t>(
        drops_.message + static_cast<uint8_t>(core::PtpDrop::kNoRoom)));
  }
  stats_->sent[static_cast<size_t>(type)].Add(1);
  return HandleResult::Transmit();
}

HandleResult PtpWorker::AnswerDelayReq(Packet& pkt, const core::FrameInfo& info,
                                       const core::PtpRxDecision& d,
                                       bool unicast, PtpUnicastTransport t) {
  if (profile_->negotiation_required && unicast && enforce_grants_ &&
      service_ != nullptr) {
    const core::PtpUnicastClientKey key{FromAddress(pkt.data(), info, t),
                                        d.header.source_port_identity};
    if (!service_->HasGrant(key, core::PtpGrantType::kDelayResp,
                            runtime_->mono().Ns(core::ReadTsc()))) {
      return HandleResult::Drop(static_cast<uint8_t>(
          drops_.port + static_cast<uint8_t>(core::PtpPortDrop::kNoGrant)));
    }
  }
  std::array<uint8_t, kMaxPtp> buf;
  const size_t n = std::min<size_t>(info.payload_len, buf.size());
  std::memcpy(buf.data(), pkt.data() + info.payload_offset, n);
  const core::PtpDrop drop =
      core::PtpDelayReqToDelayResp(buf, n, reply_config_, pkt.rx.tai);
  if (drop != core::PtpDrop::kOk) {
    return HandleResult::Drop(
        static_cast<uint8_t>(drops_.message + static_cast<uint8_t>(drop)));
  }
  const Dest dest = ReplyDest(pkt.data(), info, unicast, t,
                              core::kPtpGeneralPort, /*pdelay=*/false);
  return Reply(pkt, dest, buf.data(), core::kPtpDelayRespLength,
               PtpMessageType::kDelayResp);
}

int32_t PtpWorker::ReservePending() {
  if (pending_head_ - pending_tail_ == kPending) {
    stats_->follow_up_overflow.Add(1);
    return -1;
  }
  const uint32_t slot = pending_head_++ & (kPending - 1);
  pending_[slot] = Pending{};
  pending_[slot].state = Pending::kWaiting;
  return static_cast<int32_t>(slot);
}

HandleResult PtpWorker::AnswerPdelayReq(Packet& pkt,
                                        const core::FrameInfo& info,
                                        const core::PtpRxDecision& d,
                                        bool unicast, PtpUnicastTransport t) {
  std::array<uint8_t, kMaxPtp> buf;
  const size_t n = std::min<size_t>(info.payload_len, buf.size());
  std::memcpy(buf.data(), pkt.data() + info.payload_offset, n);
  core::PtpCorrection correction;
  const core::PtpDrop drop = core::PtpPdelayReqToPdelayResp(
      buf, n, reply_config_, pkt.rx.tai, &correction);
  if (drop != core::PtpDrop::kOk) {
    return HandleResult::Drop(
        static_cast<uint8_t>(drops_.message + static_cast<uint8_t>(drop)));
  }
  const int32_t slot = ReservePending();
  if (slot < 0) {
    return HandleResult::Drop(static_cast<uint8_t>(
        drops_.message + static_cast<uint8_t>(core::PtpDrop::kNoRoom)));
  }
  Pending& p = pending_[static_cast<uint32_t>(slot)];
  p.pdelay = true;
  p.unicast = unicast;
  p.request = d.header;
  p.correction = correction;
  p.dest = ReplyDest(pkt.data(), info, unicast, t, core::kPtpGeneralPort,
                     /*pdelay=*/true);
  const Dest dest = ReplyDest(pkt.data(), info, unicast, t, core::kPtpEventPort,
                              /*pdelay=*/true);
  const HandleResult r =
      Reply(pkt, dest, buf.data(), core::kPtpPdelayRespLength,
            PtpMessageType::kPdelayResp);
  if (r.action != Action::kTransmit) {
    p.state = Pending::kCancelled;
    return r;
  }
  pkt.NoteAs<HandleNote>().pending = static_cast<uint32_t>(slot);
  return HandleResult::TransmitFinalise();
}

void PtpWorker::FinaliseTx(Packet& pkt, const TxStamp& tx) {
  Pending& p = pending_[pkt.NoteAs<HandleNote>().pending & (kPending - 1)];
  if (p.state != Pending::kWaiting || !p.pdelay) return;
  p.tx = tx.tai;  // t3: the software stamp just before tx_burst
  p.state = Pending::kReady;
  ++ready_follow_ups_;
}

HandleResult PtpWorker::ForwardAnnounce(Packet& pkt,
                                        const core::FrameInfo& info,
                                        uint64_t tsc) {
  core::PtpMessage msg;
  const core::PtpDrop drop = core::ParsePtpMessage(
      {pkt.data() + info.payload_offset, info.payload_len}, &msg);
  if (drop != core::PtpDrop::kOk) {
    return HandleResult::Drop(
        static_cast<uint8_t>(drops_.message + static_cast<uint8_t>(drop)));
  }
  PtpAnnounceEvent e;
  e.header = msg.header;
  e.announce = std::get<core::PtpAnnounce>(msg.body);
  e.rx_mono_ns = runtime_->mono().Ns(tsc);
  runtime_->PushAnnounce(config_.worker_index, e);
  stats_->announces_forwarded.Add(1);
  rte_pktmbuf_free(pkt.mbuf);
  return HandleResult::Consumed();
}

HandleResult PtpWorker::AnswerSignaling(Packet& pkt,
                                        const core::FrameInfo& info,
                                        bool unicast, PtpUnicastTransport t,
                                        uint64_t tsc) {
  const uint8_t* frame = pkt.data();
  core::PtpSignalingContext ctx;
  ctx.port = reply_config_;
  ctx.from = FromAddress(frame, info, t);
  ctx.path.mac = core::MacAddr::Load(frame + core::eth::kSrc).b;
  ctx.path.vlan_tci = info.vlan_tags > 0 ? info.vlan_tci : 0;
  ctx.path.local_index =
      info.local_index == core::FrameInfo::kNoLocalIndex ? 0 : info.local_index;
  ctx.serving = snapshot_.state == core::PtpPortState::kMaster;
  ctx.now_mono_ns = runtime_->mono().Ns(tsc);
  std::array<uint8_t, kMaxPtp> out;
  const core::PtpSignalingAnswer a =
      core::AnswerPtpSignaling({frame + info.payload_offset, info.payload_len},
                               ctx, *service_, &signaling_seq_, out);
  PublishServiceStats();
  if (a.length == 0) {
    if (a.result == core::PtpSignalingResult::kMalformed) {
      return HandleResult::Drop(
          static_cast<uint8_t>(drops_.message + static_cast<uint8_t>(a.drop)));
    }
    return HandleResult::Drop(static_cast<uint8_t>(
        drops_.signaling + static_cast<uint8_t>(a.result)));
  }
  const Dest dest =
      ReplyDest(frame, info, /*unicast=*/true, t, core::kPtpGeneralPort, false);
  (void)unicast;
  return Reply(pkt, dest, out.data(), static_cast<uint16_t>(a.length),
               PtpMessageType::kSignaling);
}

HandleResult PtpWorker::AnswerManagement(Packet& pkt,
                                         const core::FrameInfo& info,
                                         bool unicast, PtpUnicastTransport t) {
  std::array<uint8_t, kMaxPtp> out;
  const core::PtpManagementAnswer a = core::AnswerPtpManagement(
      {pkt.data() + info.payload_offset, info.payload_len}, management_config_,
      data_sets_, out);
  if (a.length == 0) {
    return HandleResult::Drop(static_cast<uint8_t>(
        drops_.management + static_cast<uint8_t>(a.result)));
  }
  const Dest dest =
      ReplyDest(pkt.data(), info, unicast, t, core::kPtpGeneralPort, false);
  return Reply(pkt, dest, out.data(), static_cast<uint16_t>(a.length),
               PtpMessageType::kManagement);
}

// ---- Origination side -------------------------------------------------------

void PtpWorker::RefreshSnapshot() {
  PtpPortSnapshot s;
  if (!runtime_->published().TryRead(&s) ||
      s.generation == snapshot_.generation) {
    return;
  }
  snapshot_ = s;
  templates_ok_ =
      templates_.Build(reply_config_, snapshot_.gm, config_.port.two_step);
  data_sets_ =
      core::MakePtpDataSets(snapshot_.gm, config_.port,
                            config_.identity.port_number, snapshot_.state);
}

void PtpWorker::PublishServiceStats() {
  if (service_ == nullptr) return;
  const core::PtpUnicastServiceStats& s = service_->stats();
  for (size_t i = 0; i < core::kPtpGrantTypeCount; ++i) {
    stats_->grants[i].Set(s.grants[i]);
    stats_->renewals[i].Set(s.renewals[i]);
    stats_->cancels[i].Set(s.cancels[i]);
    stats_->expiries[i].Set(s.expiries[i]);
  }
  for (size_t i = 0; i < core::kPtpGrantDenialCount; ++i) {
    stats_->denials[i].Set(s.denials[i]);
  }
  stats_->unicast_subscribers.Set(service_->table().size());
}

uint16_t PtpWorker::Produce(const SourceContext& ctx, rte_mbuf** out,
                            uint16_t room) {
  RefreshSnapshot();
  batch_n_ = 0;
  const int64_t mono = runtime_->mono().Ns(ctx.tsc);
  const core::TaiNs now = ctx.tsc_model->RawToTai(ctx.tsc);
  // Event messages first: the earlier a Sync is in the batch, the closer
  // the bracket around tx_burst is to its real transmit time.
  uint16_t n = 0;
  batch_closed_ = false;
  deferred_ = false;
  if (templates_ok_) {
    ProduceMulticast(mono, now, out, &n, room);
    ProduceUnicast(mono, now, out, &n, room);
  }
  if (!batch_closed_) ProduceFollowUps(out, &n, room);
  batch_n_ = n;
  next_poll_tsc_ = ctx.tsc + poll_period_tsc_;
  // More to send (a Sync closed the batch, or it filled): come back now.
  if (batch_closed_ || deferred_ || n == room) next_poll_tsc_ = ctx.tsc;
  if ((++polls_ & 1023) == 0) PublishServiceStats();
  return n;
}

void PtpWorker::ProduceFollowUps(rte_mbuf** out, uint16_t* count,
                                 uint16_t room) {
  uint16_t& n = *count;
  while (pending_tail_ != pending_head_ && n < room) {
    Pending& p = pending_[pending_tail_ & (kPending - 1)];
    if (p.state == Pending::kWaiting) break;  // its TX has not happened yet
    if (p.state == Pending::kReady) {
      std::array<uint8_t, kMaxPtp> msg;
      size_t len;
      PtpMessageType type;
      if (p.pdelay) {
        len = core::WritePtpPdelayRespFollowUp(
            msg, reply_config_, p.request, core::TaiToPtp(p.tx), p.correction);
        type = PtpMessageType::kPdelayRespFollowUp;
      } else {
        len = templates_.WriteFollowUp(msg, p.sequence_id, p.log_interval,
                                       p.unicast, core::TaiToPtp(p.tx));
        type = PtpMessageType::kFollowUp;
      }
      rte_mbuf* m = rte_pktmbuf_alloc(config_.pool);
      if (m == nullptr) {
        stats_->mbuf_alloc_failures.Add(1);
        break;
      }
      if (len == 0 ||
          !Frame(m, p.dest, msg.data(), static_cast<uint16_t>(len))) {
        rte_pktmbuf_free(m);
      } else {
        batch_pending_[n] = -1;
        batch_one_step_[n] = false;
        out[n++] = m;
        stats_->sent[static_cast<size_t>(type)].Add(1);
      }
      --ready_follow_ups_;
    }
    p.state = Pending::kFree;
    ++pending_tail_;
  }
}

bool PtpWorker::Originate(PtpMessageType type, const Dest& d, uint16_t seq,
                          int8_t log_interval, bool unicast, core::TaiNs now,
                          rte_mbuf** out, uint16_t* n, uint16_t room) {
  const bool sync = type == PtpMessageType::kSync;
  // A Sync travels in a tx_burst of its own: the stamps around that call
  // then bracket its transmission alone (software TX time stamps).
  if (*n >= room || batch_closed_ || (sync && *n > 0)) return false;
  const bool two_step = sync && config_.port.two_step;
  std::array<uint8_t, core::kPtpAnnounceLength> msg;
  const size_t len =
      sync ? templates_.WriteSync(msg, seq, log_interval, unicast,
                                  core::TaiToPtp(now))
           : templates_.WriteAnnounce(msg, seq, log_interval, unicast,
                                      core::TaiToPtp(now));
  if (len == 0) return true;  // cannot encode: skip, do not stall
  int32_t slot = -1;
  if (two_step && (slot = ReservePending()) < 0) return false;
  rte_mbuf* m = rte_pktmbuf_alloc(config_.pool);
  if (m == nullptr ||
      !Frame(m, d, msg.data(), static_cast<uint16_t>(len), &batch_info_[*n])) {
    if (m == nullptr) stats_->mbuf_alloc_failures.Add(1);
    if (m != nullptr) rte_pktmbuf_free(m);
    if (slot >= 0)
      pending_[static_cast<uint32_t>(slot)].state = Pending::kCancelled;
    return m != nullptr;  // a frame that cannot be built is skipped
  }
  if (slot >= 0) {
    Pending& p = pending_[static_cast<uint32_t>(slot)];
    p.unicast = unicast;
    p.sequence_id = seq;
    p.log_interval = log_interval;
    p.dest = d;
    p.dest.port = core::kPtpGeneralPort;
  }
  batch_pending_[*n] = slot;
  batch_one_step_[*n] = sync && !two_step;
  out[(*n)++] = m;
  if (sync) batch_closed_ = true;
  stats_->sent[static_cast<size_t>(type)].Add(1);
  return true;
}

void PtpWorker::ProduceMulticast(int64_t mono, core::TaiNs now, rte_mbuf** out,
                                 uint16_t* n, uint16_t room) {
  if (config_.worker_index != 0 || !config_.port.multicast_service ||
      snapshot_.state != core::PtpPortState::kMaster) {
    // Start afresh when serving again.
    next_announce_ns_ = next_sync_ns_ = 0;
    multicast_left_ = {0, 0};
    return;
  }
  const PtpUnicastTransport kTransports[] = {PtpUnicastTransport::kUdpIpv4,
                                             PtpUnicastTransport::kUdpIpv6,
                                             PtpUnicastTransport::kL2};
  for (const bool sync : {true, false}) {
    uint8_t& left = multicast_left_[sync ? 0 : 1];
    int64_t& next = sync ? next_sync_ns_ : next_announce_ns_;
    uint16_t& seq = sync ? sync_seq_ : announce_seq_;
    const int8_t log = sync ? config_.port.log_sync_interval
                            : config_.port.log_announce_interval;
    if (left == 0) {
      if (mono < next) continue;
      left = config_.port.transports;
      const int64_t period = core::PtpLogIntervalNs(log);
      next =
          (next == 0 || mono - next > period) ? mono + period : next + period;
    }
    for (PtpUnicastTransport t : kTransports) {
      if ((left & TransportBit(t)) == 0) continue;
      Dest d;
      d.transport = t;
      d.ttl = 1;
      d.port = sync ? core::kPtpEventPort : core::kPtpGeneralPort;
      if (t == PtpUnicastTransport::kL2) {
        d.mac = core::kPtpPrimaryMac;
      } else if (t == PtpUnicastTransport::kUdpIpv6) {
        d.ip = core::IpAddress::V6(core::kPtpPrimaryIpv6);
        d.mac = core::kPtpPrimaryIpv6.MulticastMac();
        d.local_index = static_cast<uint8_t>(std::max(
            0, config_.local.Ipv6SourceIndexFor(core::kPtpPrimaryIpv6)));
      } else {
        d.ip = core::IpAddress::V4(core::kPtpPrimaryIpv4);
        d.mac = core::Ipv4MulticastMac(core::kPtpPrimaryIpv4);
      }
      if (!Originate(sync ? PtpMessageType::kSync : PtpMessageType::kAnnounce,
                     d, seq, log, false, now, out, n, room)) {
        deferred_ = true;
        return;  // the rest of this interval's set goes next poll
      }
      left = static_cast<uint8_t>(left & ~TransportBit(t));
    }
    ++seq;  // every transport got this interval's message
  }
}

PtpWorker::Dest PtpWorker::SubscriberDest(const core::PtpUnicastSubscriber& s,
                                          core::PtpTimerKind kind) const {
  Dest d;
  d.transport = s.key.address.transport;
  d.mac.b = s.path.mac;
  d.vlan_tci = s.path.vlan_tci;
  d.local_index = s.path.local_index;
  d.port = kind == core::PtpTimerKind::kSync ? core::kPtpEventPort
                                             : core::kPtpGeneralPort;
  if (d.transport == PtpUnicastTransport::kUdpIpv6) {
    d.ip =
        core::IpAddress::V6(core::Ipv6Addr::Load(s.key.address.octets.data()));
  } else if (d.transport == PtpUnicastTransport::kUdpIpv4) {
    d.ip =
        core::IpAddress::V4(core::Ipv4Addr::Load(s.key.address.octets.data()));
  }
  return d;
}

void PtpWorker::ProduceUnicast(int64_t mono, core::TaiNs now, rte_mbuf** out,
                               uint16_t* n, uint16_t room) {
  if (service_ == nullptr) return;
  const bool serving = snapshot_.state == core::PtpPortState::kMaster;
  service_->Poll(
      mono, static_cast<uint32_t>(room - *n), serving,
      [&](const core::PtpUnicastSubscriber& s, core::PtpTimerKind kind,
          uint16_t seq, int8_t log) {
        if ((config_.port.transports & TransportBit(s.key.address.transport)) ==
            0) {
          return true;  // transport turned off: nothing to send, keep phase
        }
        if (!Originate(
                kind == core::PtpTimerKind::kSync ? PtpMessageType::kSync
                                                  : PtpMessageType::kAnnounce,
                SubscriberDest(s, kind), seq, log, true, now, out, n, room)) {
          deferred_ = true;
          return false;
        }
        return true;
      });
  service_->SweepExpired(mono, kSweepPerPoll);
}

void PtpWorker::BeforeTx(rte_mbuf** frames, uint16_t n, const TxStamp& tx) {
  if (config_.port.two_step) return;
  for (uint16_t i = 0; i < n && i < batch_n_; ++i) {
    // One-step: the Sync carries its own (software) transmit time, which
    // must be written before the frame leaves.
    if (!batch_one_step_[i]) continue;
    uint8_t* f = rte_pktmbuf_mtod(frames[i], uint8_t*);
    const core::FrameInfo& info = batch_info_[i];
    core::PtpSetBodyTimestamp({f + info.payload_offset, info.payload_len},
                              core::TaiToPtp(tx.tai));
    if (info.ip_version != 0) core::FinalizeUdpChecksum(f, info);
  }
}

void PtpWorker::AfterTx(uint16_t n, uint16_t sent, const TxStamp& before,
                        const TxStamp& after) {
  (void)after;
  for (uint16_t i = 0; i < n && i < batch_n_; ++i) {
    const int32_t slot = batch_pending_[i];
    batch_pending_[i] = -1;
    if (slot < 0) continue;
    Pending& p = pending_[static_cast<uint32_t>(slot)];
    if (p.state != Pending::kWaiting) continue;
    if (i < sent) {
      // t1: the stamp just before tx_burst. The frame is in the kernel (or
      // on the wire) within the call, but on a busy host the call can
      // return long after (softirqs, preemption): `after` is no better,
      // nor is the middle (measured on the veth rig under load: ptp4l's
      // median offset +4 us with `before`, -15 us with the middle, as
      // net_af_xdp's kick runs the peer's whole receive path in softirq).
      p.tx = before.tai;
      p.state = Pending::kReady;
      ++ready_follow_ups_;
    } else {
      p.state = Pending::kCancelled;
    }
  }
  batch_n_ = 0;
}

}  // namespace zg::dataplane
