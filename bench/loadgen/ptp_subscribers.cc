// SPDX-License-Identifier: Apache-2.0
#include "bench/loadgen/ptp_subscribers.h"

#include <algorithm>
#include <cmath>
#include <span>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/loadgen/lane_engine.h"
#include "bench/loadgen/report.h"
#include "core/net/net_headers.h"
#include "core/ptp/ptp_profile.h"
#include "core/ptp/ptp_tlv.h"
#include "nlohmann/json.hpp"

namespace zg::bench {

namespace {

constexpr std::array<core::PtpMessageType, kPtpSubGrants> kGrantTypes = {
    core::PtpMessageType::kAnnounce, core::PtpMessageType::kSync,
    core::PtpMessageType::kDelayResp};

bool GrantIndexOf(core::PtpMessageType t, size_t* g) {
  for (size_t i = 0; i < kPtpSubGrants; ++i) {
    if (kGrantTypes[i] == t) {
      *g = i;
      return true;
    }
  }
  return false;
}

// Sub::flags bits.
constexpr uint8_t kHaveSync = 1;
constexpr uint8_t kPendingSync = 2;  // a two-step Sync awaits its Follow_Up
constexpr uint8_t kDelayReqOut = 4;  // a Delay_Req awaits its Delay_Resp
constexpr uint8_t kHaveMs = 8;       // last_ms_ns holds t2 - t1
constexpr uint8_t kHaveMpd = 16;     // mpd_ns holds a meanPathDelay
constexpr uint8_t kHaveAnnounce = 32;

// Stamp arithmetic on wire values (timestamps, corrections a peer chose),
// clamped to int64 ns instead of overflowing.
constexpr int64_t Sat(__int128 ns) { return core::SaturatingNanos(0, ns); }

}  // namespace

// One subscriber. Written by: the lane's engine only.
struct PtpSubscriberEngine::Sub {
  struct Slot {
    uint64_t due_tsc = 0;     // (re)ask at; while asking: the reply timeout
    uint64_t expiry_tsc = 0;  // the grant is live while now < expiry
    uint32_t duration_s = 0;  // of the live grant
    int8_t log = 0;           // granted logInterMessagePeriod
    uint8_t asking = 0;       // a REQUEST is outstanding
    uint8_t refused = 0;      // the last answer was a refusal
    uint8_t ever = 0;         // granted at least once
  };
  std::array<Slot, kPtpSubGrants> slot;
  uint64_t heap_due = 0;  // the live heap entry's due time (0: none)
  uint64_t next_delay_req_tsc = 0;
  uint64_t delay_req_tx_tsc = 0;  // t3 raw; 0 until Sent
  uint64_t first_sync_tsc = 0;
  uint64_t last_sync_tsc = 0;
  uint64_t anchor_tsc = 0;  // schedule: Sync anchor_ext is due here
  uint64_t pending_rx_tsc = 0;
  int64_t pending_correction_ns = 0;  // the pending Sync's correctionField
  int64_t last_ms_ns = 0;             // t2 - t1 of the latest Sync
  int64_t mpd_ns = 0;                 // latest meanPathDelay
  uint32_t syncs = 0;                 // in order (not repeated/backwards)
  uint32_t ext_seq = 0;               // extended sequenceId of the last
  uint32_t anchor_ext = 0;
  uint16_t last_seq = 0;
  uint16_t pending_seq = 0;
  uint16_t delay_req_seq = 0;
  uint16_t signaling_seq = 0;
  int8_t anchor_log = 0;  // the Sync interval the anchor was set with
  uint8_t flags = 0;
};

const char* PtpSubGrantName(size_t g) {
  static constexpr const char* kNames[] = {"announce", "sync", "delay_resp"};
  return g < kPtpSubGrants ? kNames[g] : "?";
}

const char* PtpSubscriberDefectName(PtpSubscriberDefect d) {
  switch (d) {
    case PtpSubscriberDefect::kUnknownDestination:
      return "unknown_destination";
    case PtpSubscriberDefect::kMisrouted:
      return "misrouted";
    case PtpSubscriberDefect::kMalformed:
      return "ptp_malformed";
    case PtpSubscriberDefect::kWrongDomain:
      return "wrong_domain";
    case PtpSubscriberDefect::kUnexpectedType:
      return "unexpected_type";
    case PtpSubscriberDefect::kWrongPort:
      return "wrong_port";
    case PtpSubscriberDefect::kNotUnicast:
      return "not_unicast";
    case PtpSubscriberDefect::kForeignMaster:
      return "foreign_master";
    case PtpSubscriberDefect::kWrongTarget:
      return "wrong_target";
    case PtpSubscriberDefect::kBadGrantTlv:
      return "bad_grant_tlv";
    case PtpSubscriberDefect::kNotFromTarget:
      return "not_from_target";
    case PtpSubscriberDefect::kCount:
      break;
  }
  return "?";
}

PtpSubscriberCounts& PtpSubscriberCounts::operator+=(
    const PtpSubscriberCounts& o) {
  subscribers += o.subscribers;
  for (size_t g = 0; g < kPtpSubGrants; ++g) {
    asked[g] += o.asked[g];
    granted[g] += o.granted[g];
    refused[g] += o.refused[g];
    reduced[g] += o.reduced[g];
    renewed[g] += o.renewed[g];
    unsolicited[g] += o.unsolicited[g];
  }
  ask_timeouts += o.ask_timeouts;
  signaling_sent += o.signaling_sent;
  signaling_received += o.signaling_received;
  subscribers_all_granted += o.subscribers_all_granted;
  subscribers_any_refused += o.subscribers_any_refused;
  announces += o.announces;
  subscribers_without_announce += o.subscribers_without_announce;
  syncs += o.syncs;
  syncs_out_of_order += o.syncs_out_of_order;
  syncs_missed_sequence += o.syncs_missed_sequence;
  syncs_missed_schedule += o.syncs_missed_schedule;
  subscribers_without_sync += o.subscribers_without_sync;
  one_step_syncs += o.one_step_syncs;
  follow_ups += o.follow_ups;
  syncs_with_follow_up += o.syncs_with_follow_up;
  syncs_without_follow_up += o.syncs_without_follow_up;
  syncs_follow_up_pending += o.syncs_follow_up_pending;
  follow_ups_unmatched += o.follow_ups_unmatched;
  delay_reqs += o.delay_reqs;
  delay_resps_answered += o.delay_resps_answered;
  delay_reqs_unanswered += o.delay_reqs_unanswered;
  delay_resps_unmatched += o.delay_resps_unmatched;
  queue_full += o.queue_full;
  for (size_t i = 0; i < kPtpSubscriberDefectCount; ++i) {
    defects[i] += o.defects[i];
  }
  return *this;
}

uint64_t PtpSubscriberCounts::DefectTotal() const {
  uint64_t t = 0;
  for (uint64_t d : defects) t += d;
  return t;
}

void PtpSubscriberSummary::Merge(const PtpSubscriberSummary& o) {
  counts += o.counts;
  sync_rates.insert(sync_rates.end(), o.sync_rates.begin(), o.sync_rates.end());
  sync_lateness_ns.Merge(o.sync_lateness_ns);
  follow_up_delay_ns.Merge(o.follow_up_delay_ns);
  path_delay_ns.Merge(o.path_delay_ns);
  offset_ns.Merge(o.offset_ns);
  for (size_t g = 0; g < kPtpSubGrants; ++g) {
    min_granted_log[g] = std::min(min_granted_log[g], o.min_granted_log[g]);
    max_granted_log[g] = std::max(max_granted_log[g], o.max_granted_log[g]);
  }
  bytes_per_subscriber = std::max(bytes_per_subscriber, o.bytes_per_subscriber);
  duration_s = std::max(duration_s, o.duration_s);
}

double PtpSubscriberSummary::SyncRateQuantile(double q) const {
  if (sync_rates.empty()) return 0;
  std::vector<double> v = sync_rates;
  const uint64_t rank = NearestRank(q, v.size());
  std::nth_element(v.begin(), v.begin() + (rank - 1), v.end());
  return v[rank - 1];
}

// ---- Engine -----------------------------------------------------------------

PtpSubscriberEngine::PtpSubscriberEngine(const PtpSubscriberConfig& config)
    : config_(config) {}
PtpSubscriberEngine::~PtpSubscriberEngine() = default;

size_t PtpSubscriberEngine::BytesPerSubscriber() {
  return sizeof(Sub) + 2 * sizeof(HeapEntry);
}

absl::StatusOr<std::unique_ptr<PtpSubscriberEngine>>
PtpSubscriberEngine::Create(const PtpSubscriberConfig& config) {
  if (config.lanes == 0 || config.lane >= config.lanes) {
    return absl::InvalidArgumentError("ptp subscribers: bad lane");
  }
  if (config.subscribers == 0 || config.subscribers >= (1u << 24)) {
    return absl::InvalidArgumentError(
        "--ptp_subscribers must be in [1, 16777215]");
  }
  if (config.tsc_hz == 0) {
    return absl::InvalidArgumentError("ptp subscribers: tsc_hz is 0");
  }
  for (size_t g = 0; g < kPtpSubGrants; ++g) {
    const int8_t l = config.log_interval[g];
    if (l < core::kPtpMinLogInterval || l > core::kPtpMaxLogInterval) {
      return absl::InvalidArgumentError(
          absl::StrCat("ptp subscribers: log interval of ", PtpSubGrantName(g),
                       " ", l, " outside [", core::kPtpMinLogInterval, ", ",
                       core::kPtpMaxLogInterval, "]"));
    }
  }
  if (config.duration_s == 0) {
    return absl::InvalidArgumentError("ptp subscribers: grant duration 0");
  }
  std::unique_ptr<PtpSubscriberEngine> e(new PtpSubscriberEngine(config));
  const uint32_t lanes = config.lanes;
  e->n_ = (config.subscribers - config.lane + lanes - 1) / lanes;
  e->subs_.resize(e->n_);
  e->heap_capacity_ = 2 * static_cast<size_t>(e->n_) + 1024;
  e->heap_.reserve(e->heap_capacity_);
  e->counts_.subscribers = e->n_;
  for (uint32_t i = 0; i < e->n_; ++i) {
    const uint64_t global = uint64_t{i} * lanes + config.lane;
    const uint64_t first =
        config.start_tsc + static_cast<uint64_t>(static_cast<unsigned __int128>(
                                                     config.spread_ticks) *
                                                 global / config.subscribers);
    Sub& s = e->subs_[i];
    for (Sub::Slot& slot : s.slot) slot.due_tsc = first;
    s.heap_due = first;
    e->heap_.push_back({first, i});
  }
  // Ascending `first`: already a min-heap, but make it one by the book.
  std::make_heap(e->heap_.begin(), e->heap_.end(),
                 [](const HeapEntry& a, const HeapEntry& b) {
                   return a.due_tsc > b.due_tsc;
                 });
  return e;
}

void PtpSubscriberEngine::Rebase(uint64_t start_tsc) {
  const int64_t shift = static_cast<int64_t>(start_tsc - config_.start_tsc);
  config_.start_tsc = start_tsc;
  for (Sub& s : subs_) {
    for (Sub::Slot& slot : s.slot) slot.due_tsc += shift;
    s.heap_due += shift;
  }
  for (HeapEntry& e : heap_) e.due_tsc += shift;
}

uint64_t PtpSubscriberEngine::IntervalTicks(int8_t log2) const {
  const int l =
      std::clamp<int>(log2, core::kPtpMinLogInterval, core::kPtpMaxLogInterval);
  return static_cast<uint64_t>(
      static_cast<unsigned __int128>(core::PtpLogIntervalNs(l)) *
      config_.tsc_hz / core::kNanosPerSecond);
}

uint64_t PtpSubscriberEngine::Wake(const Sub& s, uint64_t now_tsc) const {
  uint64_t w = UINT64_MAX;
  for (const Sub::Slot& slot : s.slot) w = std::min(w, slot.due_tsc);
  const Sub::Slot& d = s.slot[static_cast<size_t>(PtpSubGrant::kDelayResp)];
  if (d.expiry_tsc > now_tsc) w = std::min(w, s.next_delay_req_tsc);
  return w;
}

void PtpSubscriberEngine::Schedule(uint32_t local, uint64_t now_tsc) {
  Sub& s = subs_[local];
  const uint64_t w = Wake(s, now_tsc);
  if (s.heap_due != 0 && s.heap_due <= w) return;  // the live entry is sooner
  if (heap_.size() >= heap_capacity_) {
    ++counts_.queue_full;
    return;
  }
  s.heap_due = w == 0 ? 1 : w;
  heap_.push_back({s.heap_due, local});
  std::push_heap(heap_.begin(), heap_.end(),
                 [](const HeapEntry& a, const HeapEntry& b) {
                   return a.due_tsc > b.due_tsc;
                 });
}

bool PtpSubscriberEngine::Next(uint64_t now_tsc, uint8_t* payload,
                               PtpSubscriberMessage* out) {
  const auto later = [](const HeapEntry& a, const HeapEntry& b) {
    return a.due_tsc > b.due_tsc;
  };
  while (!heap_.empty() && heap_.front().due_tsc <= now_tsc) {
    std::pop_heap(heap_.begin(), heap_.end(), later);
    const HeapEntry e = heap_.back();
    heap_.pop_back();
    Sub& s = subs_[e.local];
    if (e.due_tsc != s.heap_due) continue;  // stale: a sooner one replaced it
    s.heap_due = 0;
    const uint64_t global = uint64_t{e.local} * config_.lanes + config_.lane;
    out->local = e.local;
    out->address_offset = static_cast<uint32_t>(global);
    bool signal = false;
    for (const Sub::Slot& slot : s.slot) signal |= slot.due_tsc <= now_tsc;
    const Sub::Slot& d = s.slot[static_cast<size_t>(PtpSubGrant::kDelayResp)];
    uint16_t len = 0;
    if (signal) {
      len = WriteSignaling(e.local, now_tsc, payload);
      out->port = core::kPtpGeneralPort;
      out->delay_req = false;
    } else if (d.expiry_tsc > now_tsc && s.next_delay_req_tsc <= now_tsc) {
      len = WriteDelayReq(e.local, now_tsc, payload);
      out->port = core::kPtpEventPort;
      out->delay_req = true;
    }
    Schedule(e.local, now_tsc);
    if (len == 0) continue;
    out->payload_len = len;
    return true;
  }
  return false;
}

uint16_t PtpSubscriberEngine::WriteSignaling(uint32_t local, uint64_t now_tsc,
                                             uint8_t* payload) {
  Sub& s = subs_[local];
  const uint64_t global = uint64_t{local} * config_.lanes + config_.lane;
  std::array<uint8_t, 3 * (core::kPtpTlvHeaderLength +
                           core::kPtpUnicastRequestValueLength)>
      tlvs{};
  size_t n = 0;
  // Ask for every type due now, and renew early the ones due within the
  // reply timeout (one message, not two).
  const uint64_t horizon = now_tsc + config_.reply_timeout_ticks;
  for (size_t g = 0; g < kPtpSubGrants; ++g) {
    Sub::Slot& slot = s.slot[g];
    if (slot.due_tsc > horizon) continue;
    if (slot.asking != 0) ++counts_.ask_timeouts;
    n += core::WritePtpUnicastRequestTlv(
        {kGrantTypes[g], config_.log_interval[g], config_.duration_s},
        std::span(tlvs).subspan(n));
    slot.asking = 1;
    slot.due_tsc = now_tsc + config_.reply_timeout_ticks;
    ++counts_.asked[g];
  }
  core::PtpMessage msg;
  msg.header.domain_number = config_.domain;
  msg.header.major_sdo_id = static_cast<uint8_t>((config_.sdo_id >> 8) & 0xF);
  msg.header.minor_sdo_id = static_cast<uint8_t>(config_.sdo_id);
  msg.header.flags.Set(core::PtpFlag::kUnicast);
  msg.header.source_port_identity =
      PtpIdentityOf(static_cast<uint32_t>(global));
  msg.header.sequence_id = s.signaling_seq++;
  msg.header.control_field =
      core::PtpControlFieldFor(core::PtpMessageType::kSignaling);
  msg.header.log_message_interval = core::kPtpLogIntervalUnspecified;
  msg.body = core::PtpSignaling{core::PtpPortIdentity::All()};
  msg.tlvs = std::span<const uint8_t>(tlvs.data(), n);
  const size_t len = core::SerializePtpMessage(
      msg, std::span<uint8_t>(payload, kPtpSubscriberMaxPayload));
  if (len != 0) ++counts_.signaling_sent;
  return static_cast<uint16_t>(len);
}

uint16_t PtpSubscriberEngine::WriteDelayReq(uint32_t local, uint64_t now_tsc,
                                            uint8_t* payload) {
  Sub& s = subs_[local];
  const uint64_t global = uint64_t{local} * config_.lanes + config_.lane;
  if ((s.flags & kDelayReqOut) != 0) ++counts_.delay_reqs_unanswered;
  const Sub::Slot& d = s.slot[static_cast<size_t>(PtpSubGrant::kDelayResp)];
  s.next_delay_req_tsc = now_tsc + IntervalTicks(d.log);
  core::PtpMessage msg;
  msg.header.domain_number = config_.domain;
  msg.header.major_sdo_id = static_cast<uint8_t>((config_.sdo_id >> 8) & 0xF);
  msg.header.minor_sdo_id = static_cast<uint8_t>(config_.sdo_id);
  msg.header.flags.Set(core::PtpFlag::kUnicast);
  msg.header.source_port_identity =
      PtpIdentityOf(static_cast<uint32_t>(global));
  msg.header.sequence_id = ++s.delay_req_seq;
  msg.header.control_field =
      core::PtpControlFieldFor(core::PtpMessageType::kDelayReq);
  msg.header.log_message_interval = core::kPtpLogIntervalUnspecified;
  msg.body = core::PtpDelayReq{core::TaiToPtp(model_.RawToTai(now_tsc))};
  const size_t len = core::SerializePtpMessage(
      msg, std::span<uint8_t>(payload, kPtpSubscriberMaxPayload));
  if (len == 0) return 0;
  s.flags |= kDelayReqOut;
  s.delay_req_tx_tsc = 0;  // until Sent
  return static_cast<uint16_t>(len);
}

void PtpSubscriberEngine::Sent(const PtpSubscriberMessage* msgs, uint32_t n,
                               uint64_t tx_tsc) {
  for (uint32_t i = 0; i < n; ++i) {
    if (!msgs[i].delay_req || msgs[i].local >= n_) continue;
    Sub& s = subs_[msgs[i].local];
    s.delay_req_tx_tsc = tx_tsc;
    ++counts_.delay_reqs;
  }
}

bool PtpSubscriberEngine::FromMaster(const core::PtpMessage& msg) {
  if (!have_master_) return true;  // no GRANT yet: cannot tell
  if (msg.header.source_port_identity == master_) return true;
  CountDefect(PtpSubscriberDefect::kForeignMaster);
  return false;
}

void PtpSubscriberEngine::OnFrame(uint64_t address_offset, uint16_t dst_port,
                                  const uint8_t* payload, uint32_t len,
                                  uint64_t rx_tsc) {
  if (address_offset >= config_.subscribers) {
    return CountDefect(PtpSubscriberDefect::kUnknownDestination);
  }
  if (address_offset % config_.lanes != config_.lane) {
    return CountDefect(PtpSubscriberDefect::kMisrouted);
  }
  const uint32_t local = static_cast<uint32_t>(address_offset / config_.lanes);
  core::PtpMessage msg;
  if (core::ParsePtpMessage(std::span<const uint8_t>(payload, len), &msg) !=
      core::PtpDrop::kOk) {
    return CountDefect(PtpSubscriberDefect::kMalformed);
  }
  if (msg.header.domain_number != config_.domain ||
      msg.header.sdo_id() != config_.sdo_id) {
    return CountDefect(PtpSubscriberDefect::kWrongDomain);
  }
  const core::PtpMessageType type = msg.header.message_type;
  const bool event = core::PtpIsEventMessage(type);
  if (dst_port != (event ? core::kPtpEventPort : core::kPtpGeneralPort)) {
    return CountDefect(PtpSubscriberDefect::kWrongPort);
  }
  if (!msg.header.flags.Has(core::PtpFlag::kUnicast)) {
    return CountDefect(PtpSubscriberDefect::kNotUnicast);
  }
  switch (type) {
    case core::PtpMessageType::kSignaling:
      return OnSignaling(local, msg, rx_tsc);
    case core::PtpMessageType::kSync:
      if (!FromMaster(msg)) return;
      return OnSync(local, msg, rx_tsc);
    case core::PtpMessageType::kFollowUp:
      if (!FromMaster(msg)) return;
      return OnFollowUp(local, msg, rx_tsc);
    case core::PtpMessageType::kDelayResp:
      if (!FromMaster(msg)) return;
      return OnDelayResp(local, msg);
    case core::PtpMessageType::kAnnounce:
      if (!FromMaster(msg)) return;
      ++counts_.announces;
      subs_[local].flags |= kHaveAnnounce;
      return;
    default:
      return CountDefect(PtpSubscriberDefect::kUnexpectedType);
  }
}

void PtpSubscriberEngine::OnSignaling(uint32_t local,
                                      const core::PtpMessage& msg,
                                      uint64_t rx_tsc) {
  const auto& sig = std::get<core::PtpSignaling>(msg.body);
  const uint64_t global = uint64_t{local} * config_.lanes + config_.lane;
  if (!(sig.target_port_identity ==
            PtpIdentityOf(static_cast<uint32_t>(global)) ||
        sig.target_port_identity == core::PtpPortIdentity::All())) {
    return CountDefect(PtpSubscriberDefect::kWrongTarget);
  }
  ++counts_.signaling_received;
  Sub& s = subs_[local];
  core::PtpTlvReader reader(msg.tlvs);
  core::PtpTlv tlv;
  bool granted_any = false;
  while (reader.Next(&tlv)) {
    if (tlv.type != core::PtpTlvType::kGrantUnicastTransmission) continue;
    core::PtpUnicastGrant grant;
    size_t g = 0;
    if (!core::ParsePtpUnicastGrantTlv(tlv, &grant) ||
        !GrantIndexOf(grant.message_type, &g)) {
      CountDefect(PtpSubscriberDefect::kBadGrantTlv);
      continue;
    }
    Sub::Slot& slot = s.slot[g];
    if (slot.asking == 0) {
      ++counts_.unsolicited[g];
      continue;
    }
    slot.asking = 0;
    if (grant.duration_s == 0) {
      ++counts_.refused[g];
      slot.refused = 1;
      slot.due_tsc = rx_tsc + config_.retry_ticks;
      continue;
    }
    ++counts_.granted[g];
    granted_any = true;
    if (slot.expiry_tsc > rx_tsc) ++counts_.renewed[g];
    if (grant.log_inter_message_period > config_.log_interval[g]) {
      ++counts_.reduced[g];
    }
    const uint64_t dur = static_cast<uint64_t>(
        static_cast<unsigned __int128>(grant.duration_s) * config_.tsc_hz);
    const bool was_live = slot.expiry_tsc > rx_tsc;
    slot.refused = 0;
    slot.ever = 1;
    slot.log = grant.log_inter_message_period;
    slot.duration_s = grant.duration_s;
    slot.expiry_tsc = rx_tsc + dur;
    slot.due_tsc = rx_tsc + dur / 2;  // renew at half the duration
    if (g == static_cast<size_t>(PtpSubGrant::kDelayResp) && !was_live) {
      s.next_delay_req_tsc = rx_tsc;  // the first Delay_Req now
    }
  }
  if (reader.malformed()) CountDefect(PtpSubscriberDefect::kBadGrantTlv);
  if (granted_any && !have_master_) {
    master_ = msg.header.source_port_identity;
    have_master_ = true;
  }
  Schedule(local, rx_tsc);
}

void PtpSubscriberEngine::OnSync(uint32_t local, const core::PtpMessage& msg,
                                 uint64_t rx_tsc) {
  Sub& s = subs_[local];
  ++counts_.syncs;
  const uint16_t seq = msg.header.sequence_id;
  const int8_t log = s.slot[static_cast<size_t>(PtpSubGrant::kSync)].log;
  if ((s.flags & kHaveSync) == 0) {
    s.flags |= kHaveSync;
    s.first_sync_tsc = rx_tsc;
    s.anchor_tsc = rx_tsc;
    s.anchor_ext = 0;
    s.anchor_log = log;
    s.ext_seq = 0;
    s.syncs = 1;
    sync_lateness_ns_.Record(0);
  } else {
    const uint16_t delta = static_cast<uint16_t>(seq - s.last_seq);
    if (delta == 0 || delta >= 0x8000) {
      ++counts_.syncs_out_of_order;
      return;
    }
    counts_.syncs_missed_sequence += delta - 1u;
    s.ext_seq += delta;
    ++s.syncs;
    if (log != s.anchor_log) {  // a new interval: a new schedule
      s.anchor_tsc = rx_tsc;
      s.anchor_ext = s.ext_seq;
      s.anchor_log = log;
    }
    const uint64_t due =
        s.anchor_tsc + uint64_t{s.ext_seq - s.anchor_ext} * IntervalTicks(log);
    if (rx_tsc < due) {
      s.anchor_tsc = rx_tsc;
      s.anchor_ext = s.ext_seq;
      sync_lateness_ns_.Record(0);
    } else {
      sync_lateness_ns_.Record(
          static_cast<uint64_t>(static_cast<unsigned __int128>(rx_tsc - due) *
                                core::kNanosPerSecond / config_.tsc_hz));
    }
  }
  s.last_seq = seq;
  s.last_sync_tsc = rx_tsc;
  if ((s.flags & kPendingSync) != 0) ++counts_.syncs_without_follow_up;
  const auto& sync = std::get<core::PtpSync>(msg.body);
  if (msg.header.flags.Has(core::PtpFlag::kTwoStep)) {
    s.flags |= kPendingSync;
    s.pending_seq = seq;
    s.pending_rx_tsc = rx_tsc;
    s.pending_correction_ns = msg.header.correction.Nanos();
  } else {
    s.flags &= static_cast<uint8_t>(~kPendingSync);
    ++counts_.one_step_syncs;
    OnT1T2(s,
           Sat(__int128{core::PtpToTai(sync.origin_timestamp).value} +
               msg.header.correction.Nanos()),
           rx_tsc);
  }
}

void PtpSubscriberEngine::OnFollowUp(uint32_t local,
                                     const core::PtpMessage& msg,
                                     uint64_t rx_tsc) {
  Sub& s = subs_[local];
  ++counts_.follow_ups;
  if ((s.flags & kPendingSync) == 0 ||
      msg.header.sequence_id != s.pending_seq) {
    ++counts_.follow_ups_unmatched;
    return;
  }
  s.flags &= static_cast<uint8_t>(~kPendingSync);
  ++counts_.syncs_with_follow_up;
  follow_up_delay_ns_.Record(static_cast<uint64_t>(
      static_cast<unsigned __int128>(rx_tsc - s.pending_rx_tsc) *
      core::kNanosPerSecond / config_.tsc_hz));
  const auto& fu = std::get<core::PtpFollowUp>(msg.body);
  OnT1T2(s,
         Sat(__int128{core::PtpToTai(fu.precise_origin_timestamp).value} +
             s.pending_correction_ns + msg.header.correction.Nanos()),
         s.pending_rx_tsc);
}

void PtpSubscriberEngine::OnT1T2(Sub& s, int64_t t1_tai_ns, uint64_t t2_tsc) {
  s.last_ms_ns = Sat(__int128{model_.RawToTai(t2_tsc).value} - t1_tai_ns);
  s.flags |= kHaveMs;
  if ((s.flags & kHaveMpd) != 0) {
    offset_ns_.Record(Sat(__int128{s.last_ms_ns} - s.mpd_ns));
  }
}

void PtpSubscriberEngine::OnDelayResp(uint32_t local,
                                      const core::PtpMessage& msg) {
  Sub& s = subs_[local];
  const auto& resp = std::get<core::PtpDelayResp>(msg.body);
  const uint64_t global = uint64_t{local} * config_.lanes + config_.lane;
  if (!(resp.requesting_port_identity ==
        PtpIdentityOf(static_cast<uint32_t>(global))) ||
      (s.flags & kDelayReqOut) == 0 ||
      msg.header.sequence_id != s.delay_req_seq) {
    ++counts_.delay_resps_unmatched;
    return;
  }
  s.flags &= static_cast<uint8_t>(~kDelayReqOut);
  ++counts_.delay_resps_answered;
  if (s.delay_req_tx_tsc == 0 || (s.flags & kHaveMs) == 0) return;
  const int64_t t4 =
      Sat(__int128{core::PtpToTai(resp.receive_timestamp).value} -
          msg.header.correction.Nanos());
  const int64_t sm =
      Sat(__int128{t4} - model_.RawToTai(s.delay_req_tx_tsc).value);
  s.mpd_ns = Sat((__int128{s.last_ms_ns} + sm) / 2);
  s.flags |= kHaveMpd;
  path_delay_ns_.Record(s.mpd_ns);
}

void PtpSubscriberEngine::Finish(uint64_t end_tsc) {
  for (Sub& s : subs_) {
    if ((s.flags & kPendingSync) != 0) {
      ++counts_.syncs_follow_up_pending;
      s.flags &= static_cast<uint8_t>(~kPendingSync);
    }
    if ((s.flags & kDelayReqOut) != 0) {
      ++counts_.delay_reqs_unanswered;
      s.flags &= static_cast<uint8_t>(~kDelayReqOut);
    }
    bool all = true, refused = false;
    for (const Sub::Slot& slot : s.slot) {
      all &= slot.expiry_tsc > end_tsc;
      refused |= slot.refused != 0;
    }
    counts_.subscribers_all_granted += all;
    counts_.subscribers_any_refused += refused;
    const Sub::Slot& a = s.slot[static_cast<size_t>(PtpSubGrant::kAnnounce)];
    if (a.ever != 0 && (s.flags & kHaveAnnounce) == 0) {
      ++counts_.subscribers_without_announce;
    }
    const Sub::Slot& y = s.slot[static_cast<size_t>(PtpSubGrant::kSync)];
    if (y.ever == 0) continue;
    if ((s.flags & kHaveSync) == 0) {
      ++counts_.subscribers_without_sync;
      continue;
    }
    // Syncs due from the first to the end (tolerating half an interval for
    // the one in flight), against those received in order.
    const uint64_t interval = IntervalTicks(y.log);
    const uint64_t tolerance = interval / 2;
    uint64_t due = 1;
    if (end_tsc > s.first_sync_tsc + tolerance && interval > 0) {
      due += (end_tsc - s.first_sync_tsc - tolerance) / interval;
    }
    if (due > s.syncs) counts_.syncs_missed_schedule += due - s.syncs;
  }
  duration_s_ = end_tsc > config_.start_tsc
                    ? static_cast<double>(end_tsc - config_.start_tsc) /
                          static_cast<double>(config_.tsc_hz)
                    : 0;
}

PtpSubscriberSummary PtpSubscriberEngine::Summarize() const {
  PtpSubscriberSummary out;
  out.counts = counts_;
  out.sync_lateness_ns = sync_lateness_ns_;
  out.follow_up_delay_ns = follow_up_delay_ns_;
  out.path_delay_ns = path_delay_ns_;
  out.offset_ns = offset_ns_;
  out.bytes_per_subscriber = BytesPerSubscriber();
  out.duration_s = duration_s_;
  out.sync_rates.reserve(n_);
  for (const Sub& s : subs_) {
    for (size_t g = 0; g < kPtpSubGrants; ++g) {
      if (s.slot[g].ever == 0) continue;
      out.min_granted_log[g] = std::min(out.min_granted_log[g], s.slot[g].log);
      out.max_granted_log[g] = std::max(out.max_granted_log[g], s.slot[g].log);
    }
    if (s.syncs < 2 || s.last_sync_tsc <= s.first_sync_tsc) continue;
    out.sync_rates.push_back(
        static_cast<double>(s.syncs - 1) * static_cast<double>(config_.tsc_hz) /
        static_cast<double>(s.last_sync_tsc - s.first_sync_tsc));
  }
  return out;
}

// ---- Report -----------------------------------------------------------------

namespace {

std::string LogRange(const PtpSubscriberSummary& s, size_t g) {
  if (s.min_granted_log[g] > s.max_granted_log[g]) return "-";
  if (s.min_granted_log[g] == s.max_granted_log[g]) {
    return absl::StrCat(s.min_granted_log[g]);
  }
  return absl::StrCat(s.min_granted_log[g], "..", s.max_granted_log[g]);
}

}  // namespace

std::string FormatPtpSubscriberSummary(const PtpSubscriberSummary& s) {
  const PtpSubscriberCounts& c = s.counts;
  std::string out = absl::StrFormat(
      "ptp unicast subscribers: %u (%u B of state each), all three grants "
      "live at the end: %u, a refusal last: %u\n",
      c.subscribers, s.bytes_per_subscriber, c.subscribers_all_granted,
      c.subscribers_any_refused);
  absl::StrAppend(&out,
                  "  grants          asked    granted    refused    reduced  "
                  "  renewed  log2 granted\n");
  for (size_t g = 0; g < kPtpSubGrants; ++g) {
    absl::StrAppendFormat(&out, "    %-10s %10u %10u %10u %10u %10u  %s\n",
                          PtpSubGrantName(g), c.asked[g], c.granted[g],
                          c.refused[g], c.reduced[g], c.renewed[g],
                          LogRange(s, g));
  }
  absl::StrAppendFormat(
      &out,
      "  signaling: %u sent, %u received; %u REQUEST TLVs asked again "
      "(no GRANT in time)\n",
      c.signaling_sent, c.signaling_received, c.ask_timeouts);
  absl::StrAppendFormat(
      &out,
      "  sync: %u received (%u one-step); per subscriber %.3f / %.3f / %.3f "
      "per s (min / median / max, %u subscribers)\n",
      c.syncs, c.one_step_syncs, s.SyncRateQuantile(0), s.SyncRateQuantile(0.5),
      s.SyncRateQuantile(1), s.sync_rates.size());
  absl::StrAppendFormat(&out,
                        "  sync missed: %u by sequenceId gaps, %u against the "
                        "granted interval; %u out of order; %u subscribers "
                        "granted Sync got none\n",
                        c.syncs_missed_sequence, c.syncs_missed_schedule,
                        c.syncs_out_of_order, c.subscribers_without_sync);
  const Distribution late = Summarize(s.sync_lateness_ns);
  absl::StrAppendFormat(&out,
                        "  sync lateness vs granted schedule: p50 %s  p99 %s  "
                        "max %s\n",
                        FormatNanos(late.p50), FormatNanos(late.p99),
                        FormatNanos(late.max));
  const Distribution fu = Summarize(s.follow_up_delay_ns);
  absl::StrAppendFormat(
      &out,
      "  follow_up: %u received; syncs with %u, without %u (%u pending at "
      "the end); unmatched %u; "
      "delay p50 %s  p99 %s\n",
      c.follow_ups, c.syncs_with_follow_up, c.syncs_without_follow_up,
      c.syncs_follow_up_pending, c.follow_ups_unmatched, FormatNanos(fu.p50),
      FormatNanos(fu.p99));
  absl::StrAppendFormat(&out,
                        "  delay_req: %u sent, %u answered, %u unanswered; "
                        "%u Delay_Resp unmatched\n",
                        c.delay_reqs, c.delay_resps_answered,
                        c.delay_reqs_unanswered, c.delay_resps_unmatched);
  absl::StrAppendFormat(&out,
                        "  announce: %u received; %u subscribers got none\n",
                        c.announces, c.subscribers_without_announce);
  const Distribution pd = Summarize(s.path_delay_ns);
  const Distribution off = Summarize(s.offset_ns);
  absl::StrAppendFormat(
      &out,
      "  mean path delay: p50 %s  p99 %s  (%u)\n"
      "  offset t2-t1-delay (server TAI vs generator clock): p50 %s  p1 %s  "
      "p99 %s  (%u)\n",
      FormatNanos(pd.p50), FormatNanos(pd.p99), pd.count, FormatNanos(off.p50),
      FormatNanos(static_cast<double>(s.offset_ns.Percentile(0.01))),
      FormatNanos(off.p99), off.count);
  if (c.DefectTotal() != 0 || c.queue_full != 0) {
    absl::StrAppend(&out, "  bad frames:");
    for (size_t i = 0; i < kPtpSubscriberDefectCount; ++i) {
      if (c.defects[i] == 0) continue;
      absl::StrAppendFormat(
          &out, " %s=%u",
          PtpSubscriberDefectName(static_cast<PtpSubscriberDefect>(i)),
          c.defects[i]);
    }
    if (c.queue_full != 0)
      absl::StrAppendFormat(&out, " queue_full=%u", c.queue_full);
    absl::StrAppend(&out, "\n");
  }
  return out;
}

void PtpSubscriberSummaryToJson(const PtpSubscriberSummary& s,
                                nlohmann::json* out) {
  const PtpSubscriberCounts& c = s.counts;
  const auto dist = [](const Distribution& d) {
    return nlohmann::json{{"count", d.count}, {"mean", d.mean}, {"min", d.min},
                          {"p50", d.p50},     {"p99", d.p99},   {"max", d.max}};
  };
  nlohmann::json grants = nlohmann::json::object();
  for (size_t g = 0; g < kPtpSubGrants; ++g) {
    grants[PtpSubGrantName(g)] = {
        {"asked", c.asked[g]},         {"granted", c.granted[g]},
        {"refused", c.refused[g]},     {"reduced", c.reduced[g]},
        {"renewed", c.renewed[g]},     {"unsolicited", c.unsolicited[g]},
        {"min_log_interval", nullptr}, {"max_log_interval", nullptr}};
    if (s.min_granted_log[g] <= s.max_granted_log[g]) {  // any granted
      grants[PtpSubGrantName(g)]["min_log_interval"] = s.min_granted_log[g];
      grants[PtpSubGrantName(g)]["max_log_interval"] = s.max_granted_log[g];
    }
  }
  nlohmann::json defects = nlohmann::json::object();
  for (size_t i = 0; i < kPtpSubscriberDefectCount; ++i) {
    if (c.defects[i] == 0) continue;
    defects[PtpSubscriberDefectName(static_cast<PtpSubscriberDefect>(i))] =
        c.defects[i];
  }
  *out = {
      {"subscribers", c.subscribers},
      {"bytes_per_subscriber", s.bytes_per_subscriber},
      {"duration_s", s.duration_s},
      {"subscribers_all_granted", c.subscribers_all_granted},
      {"subscribers_any_refused", c.subscribers_any_refused},
      {"grants", grants},
      {"signaling",
       {{"sent", c.signaling_sent},
        {"received", c.signaling_received},
        {"ask_timeouts", c.ask_timeouts}}},
      {"sync",
       {{"received", c.syncs},
        {"one_step", c.one_step_syncs},
        {"rate_per_subscriber",
         {{"subscribers", s.sync_rates.size()},
          {"min", s.SyncRateQuantile(0)},
          {"median", s.SyncRateQuantile(0.5)},
          {"max", s.SyncRateQuantile(1)}}},
        {"missed_sequence", c.syncs_missed_sequence},
        {"missed_schedule", c.syncs_missed_schedule},
        {"out_of_order", c.syncs_out_of_order},
        {"subscribers_without_sync", c.subscribers_without_sync},
        {"lateness_ns", dist(Summarize(s.sync_lateness_ns))}}},
      {"follow_up",
       {{"received", c.follow_ups},
        {"syncs_with", c.syncs_with_follow_up},
        {"syncs_without", c.syncs_without_follow_up},
        {"syncs_pending_at_end", c.syncs_follow_up_pending},
        {"unmatched", c.follow_ups_unmatched},
        {"delay_ns", dist(Summarize(s.follow_up_delay_ns))}}},
      {"delay_req",
       {{"sent", c.delay_reqs},
        {"answered", c.delay_resps_answered},
        {"unanswered", c.delay_reqs_unanswered},
        {"resp_unmatched", c.delay_resps_unmatched}}},
      {"announce",
       {{"received", c.announces},
        {"subscribers_without", c.subscribers_without_announce}}},
      {"mean_path_delay_ns", dist(Summarize(s.path_delay_ns))},
      {"offset_ns", dist(Summarize(s.offset_ns))},
      {"offset_clock", "server TAI minus generator clock (TSC + system clock)"},
      {"defects", defects},
      {"queue_full", c.queue_full},
  };
}

}  // namespace zg::bench
