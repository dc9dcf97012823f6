// SPDX-License-Identifier: Apache-2.0
// PtpWorker's glue (dataplane/ptp/ptp_worker.h): its drop reasons, Create
// and the constructor, the FrameHandler/FrameSource adapters the pipeline
// calls, the control thread's snapshot and the service counters, and Frame,
// which writes the headers of every frame the worker sends (answers,
// originated messages, follow-ups). The two halves live beside it:
// ptp_answer.cc (what arrives) and ptp_originate_tx.cc with ptp_follow_up.cc
// (what the worker sends on its own schedule).
#include "dataplane/ptp/ptp_worker.h"

#include <cstring>
#include <vector>

#include "core/base/status_macros.h"
#include "core/net/frame_build.h"
#include "core/net/net_headers.h"

namespace zg::dataplane {
namespace {

using core::PtpUnicastTransport;

// How often the source looks at its schedule when nothing is pending: a
// quarter of a scheduler slot (and, serving unicast, at each slot's start:
// PtpWorker::Produce).
constexpr int64_t kPollPeriodNs = 250'000;

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
  bool HasAfterTx() const override { return true; }
  void AfterTx(Packet& pkt, const TxStamp& after, bool sent) override {
    w_->HandlerAfterTx(pkt, after, sent);
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
  ZG_ASSIGN_OR_RETURN(b.no_mbuf,
                      names.AddDropReasons("ptp", {"no_mbuf", "acl_denied"}));
  b.acl = static_cast<uint8_t>(b.no_mbuf + 1);
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
    sc.admission = config.admission;
    sc.admission.shards = config.workers;
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
      enforce_grants_(config.workers == 1 || config.steers_by_address),
      reply_config_(core::MakePtpReplyConfig(config.port, config.identity)),
      management_config_(
          core::MakePtpManagementConfig(config.port, config.identity)),
      poll_period_tsc_(runtime->mono().Ticks(kPollPeriodNs)),
      timesync_(
          {.port_id = config.port_id,
           .worker_index = config.worker_index,
           .tx = config.stamps.ptp_tx == TxStampSource::kTimesync,
           .rx = config.stamps.ptp_rx == RxStampSource::kTimesync,
           .clock = config.timesync_clock,
           .latch = config.tx_latch,
           .tx_timeout_ns = config.tx_stamp_timeout_ns,
           .tsc_hz = static_cast<double>(runtime->mono().Ticks(1'000'000'000))},
          &stats->stamps) {
  batch_pending_.fill(-1);
}

std::unique_ptr<FrameHandler> PtpWorker::MakeHandler() {
  return std::make_unique<PtpHandlerAdapter>(shared_from_this());
}

std::unique_ptr<FrameSource> PtpWorker::MakeSource() {
  return std::make_unique<PtpSourceAdapter>(shared_from_this());
}

void PtpWorker::RefreshSnapshot() {
  PtpPortSnapshot s;
  if (!runtime_->published().TryRead(&s) ||
      s.generation == snapshot_.generation) {
    return;
  }
  snapshot_ = s;
  templates_ok_ =
      templates_.Build(reply_config_, snapshot_.gm, config_.port.two_step);
  data_sets_ = core::MakePtpDataSets(snapshot_.gm, config_.port,
                                     config_.identity.port_number,
                                     config_.number_ports, snapshot_.state);
}

void PtpWorker::RefreshPolicies() {
  if (config_.acl != nullptr) {
    const AccessPolicy* p = config_.acl->Current();
    acl_now_ = p != nullptr && !p->list->empty() ? p->list.get() : nullptr;
  }
  if (config_.admission_swap != nullptr && service_ != nullptr) {
    const PtpAdmissionPolicy* a = config_.admission_swap->Current();
    if (a != nullptr && a->generation != admission_generation_) {
      admission_generation_ = a->generation;
      core::PtpAdmissionConfig c = a->config;
      c.shards = config_.workers;
      service_->SetAdmission(c);
    }
  }
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
  for (size_t i = 0; i < core::kPtpGrantReductionCount; ++i) {
    stats_->reductions[i].Set(s.reductions[i]);
  }
  stats_->cancels_wrong_source.Set(s.cancels_wrong_source);
  stats_->committed_units.Set(service_->committed_units());
  stats_->budget_units.Set(service_->budget_units());
  stats_->unicast_subscribers.Set(service_->table().size());
  for (size_t k = 0; k < core::kPtpTimerKinds; ++k) {
    stats_->unicast_skipped[k].Set(s.skipped[k]);
    stats_->unicast_lateness_ns[k].Set(s.lateness_sum_ns[k]);
    for (size_t b = 0; b < core::kPtpLatenessBuckets; ++b) {
      stats_->unicast_lateness[k][b].Set(s.lateness[k][b]);
    }
  }
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
    core::FinaliseUdpChecksum(buf, info);
  }
  m->data_len = static_cast<uint16_t>(flen);
  m->pkt_len = flen;
  m->ol_flags = 0;
  if (built != nullptr) *built = info;
  return true;
}

}  // namespace zg::dataplane
