// SPDX-License-Identifier: Apache-2.0
// PtpWorker's receive side: what arrives on the worker's queue, as
// core/ptp/ptp_dispatch.h decides. Delay_Req -> Delay_Resp stamped with the
// request's RX time; Pdelay_Req -> Pdelay_Resp now, its follow-up reserved
// in the pending ring (ptp_follow_up.cc); unicast negotiation Signaling and
// management GETs answered in place; foreign Announce messages handed to
// the control thread. A reply is written into the request's own mbuf.
#include <algorithm>
#include <cstring>

#include "core/net/net_headers.h"
#include "dataplane/ptp/ptp_worker.h"
#include "dataplane/worker/frame_classifier.h"

namespace zg::dataplane {
namespace {

using core::PtpMessageType;
using core::PtpUnicastTransport;

PtpUnicastTransport TransportOf(const core::FrameInfo& info) {
  if (info.ip_version == 4) return PtpUnicastTransport::kUdpIpv4;
  if (info.ip_version == 6) return PtpUnicastTransport::kUdpIpv6;
  return PtpUnicastTransport::kL2;
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
    RefreshPolicies();
    timesync_.BeginPoll();
  }
  pkt.NoteAs<HandleNote>().pending = -1;
  // Timesync RX: read the latch of every event frame that has one, whatever
  // becomes of the frame (Intel latches one at a time).
  hw_rx_.reset();
  if (timesync_.rx()) hw_rx_ = timesync_.ReadRx(pkt.mbuf, &hw_rx_why_);
  if (acl_now_ != nullptr && t != PtpUnicastTransport::kL2 && !Allowed(info)) {
    return RefuseByAcl(payload);
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

bool PtpWorker::Allowed(const core::FrameInfo& info) const {
  const core::AccessVerdict v = info.ip_version == 4
                                    ? acl_now_->Check(info.src_ipv4)
                                    : acl_now_->Check(info.src_ipv6);
  return core::IsAllowed(v);
}

// A denied source gets nothing at all, whatever it sent: no GRANT (not even
// a refusal: to a forged source that would be a reflection), no
// Delay_Resp, no management reply; its Announce never reaches the BMCA (a
// denied "better master" cannot make us PASSIVE). Negotiation messages are
// also counted as refused for `acl`.
HandleResult PtpWorker::RefuseByAcl(std::span<const uint8_t> payload) {
  if (service_ != nullptr && !payload.empty() &&
      (payload[0] & 0x0F) ==
          static_cast<uint8_t>(core::PtpMessageType::kSignaling)) {
    service_->CountAclRefusal();
    PublishServiceStats();
  }
  return HandleResult::Drop(drops_.acl);
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

HandleResult PtpWorker::Reply(Packet& pkt, const Dest& d, const uint8_t* ptp,
                              uint16_t len, PtpMessageType type) {
  if (!Frame(pkt.mbuf, d, ptp, len)) {
    return HandleResult::Drop(static_cast<uint8_t>(
        drops_.message + static_cast<uint8_t>(core::PtpDrop::kNoRoom)));
  }
  stats_->sent[static_cast<size_t>(type)].Add(1);
  return HandleResult::Transmit();
}

core::TaiNs PtpWorker::EventRxStamp(const Packet& pkt) {
  PtpRxStampResult r = PtpRxStampResult::kSoftware;
  core::TaiNs t = pkt.rx.tai;
  if (timesync_.rx()) {
    r = hw_rx_why_;
    if (hw_rx_.has_value()) t = *hw_rx_;
  }
  stats_->stamps.rx[static_cast<size_t>(r)].Add(1);
  return t;
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
      core::PtpDelayReqToDelayResp(buf, n, reply_config_, EventRxStamp(pkt));
  if (drop != core::PtpDrop::kOk) {
    return HandleResult::Drop(
        static_cast<uint8_t>(drops_.message + static_cast<uint8_t>(drop)));
  }
  const Dest dest = ReplyDest(pkt.data(), info, unicast, t,
                              core::kPtpGeneralPort, /*pdelay=*/false);
  return Reply(pkt, dest, buf.data(), core::kPtpDelayRespLength,
               PtpMessageType::kDelayResp);
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
      buf, n, reply_config_, EventRxStamp(pkt), &correction);
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
  // t3 from the NIC's TX latch when it is free (ptp_tx_stamp.h); a
  // Pdelay_Resp is an answer and cannot wait for it: software t3, counted.
  if (timesync_.tx()) {
    if (!timesync_.usable()) {
      stats_->stamps.tx[static_cast<size_t>(PtpTxStampResult::kNoModel)].Add(1);
    } else if (timesync_.AcquireTx()) {
      p.hw_stamp = true;
      pkt.mbuf->ol_flags |= RTE_MBUF_F_TX_IEEE1588_TMST;
    } else {
      stats_->stamps.tx[static_cast<size_t>(PtpTxStampResult::kLatchBusy)].Add(
          1);
    }
  }
  pkt.NoteAs<HandleNote>().pending = slot;
  return HandleResult::TransmitFinalise();
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
  ctx.from_port = t == PtpUnicastTransport::kL2 ? 0 : info.src_port;
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

}  // namespace zg::dataplane
