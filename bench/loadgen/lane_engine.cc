// SPDX-License-Identifier: Apache-2.0
#include "bench/loadgen/lane_engine.h"

#include <bit>
#include <cstring>
#include <span>
#include <variant>

#include "absl/strings/str_cat.h"
#include "core/base/byte_order.h"
#include "core/net/net_headers.h"
#include "core/ntp/ntp_client.h"

namespace zg::bench {

using core::NtpReplyStatus;

const char* ReplyDefectName(ReplyDefect defect) {
  switch (defect) {
    case ReplyDefect::kBadFrame:
      return "bad_frame";
    case ReplyDefect::kNotFromTarget:
      return "not_from_target";
    case ReplyDefect::kUnexpectedPort:
      return "unexpected_port";
    case ReplyDefect::kUnknownDestination:
      return "unknown_destination";
    case ReplyDefect::kMisrouted:
      return "misrouted";
    case ReplyDefect::kNtpTooShort:
      return "ntp_too_short";
    case ReplyDefect::kNtpBadVersion:
      return "ntp_bad_version";
    case ReplyDefect::kNtpNotServerMode:
      return "ntp_not_server_mode";
    case ReplyDefect::kNtpZeroTimestamp:
      return "ntp_zero_timestamp";
    case ReplyDefect::kNtpClockOutOfRange:
      return "ntp_clock_out_of_range";
    case ReplyDefect::kNtpUnsynchronized:
      return "ntp_unsynchronized";
    case ReplyDefect::kNtpVersionMismatch:
      return "ntp_version_mismatch";
    case ReplyDefect::kPtpMalformed:
      return "ptp_malformed";
    case ReplyDefect::kPtpNotDelayResp:
      return "ptp_not_delay_resp";
    case ReplyDefect::kPtpUnknownIdentity:
      return "ptp_unknown_identity";
    case ReplyDefect::kPtpWrongDestination:
      return "ptp_wrong_destination";
    case ReplyDefect::kNotReflection:
      return "not_reflection";
    case ReplyDefect::kNtsBad:
      return "nts_bad";
    case ReplyDefect::kCount:
      break;
  }
  return "unknown";
}

// ---- LaneMeasurements ------------------------------------------------------

void LaneMeasurements::Merge(const LaneMeasurements& o) {
  counts += o.counts;
  for (size_t i = 0; i < defects.size(); ++i) defects[i] += o.defects[i];
  for (size_t i = 0; i < kiss.size(); ++i) kiss[i] += o.kiss[i];
  rtt_ns.Merge(o.rtt_ns);
  residence_ns.Merge(o.residence_ns);
  offset_ns.Merge(o.offset_ns);
  nts += o.nts;
  for (size_t i = 0; i < nts_status.size(); ++i) {
    nts_status[i] += o.nts_status[i];
  }
}

uint64_t LaneMeasurements::DefectTotal() const {
  uint64_t n = 0;
  for (uint64_t d : defects) n += d;
  return n;
}

NamedCounts LaneMeasurements::DefectNames() const {
  NamedCounts out;
  for (size_t i = 0; i < defects.size(); ++i) {
    if (defects[i] != 0) {
      out.emplace_back(ReplyDefectName(static_cast<ReplyDefect>(i)),
                       defects[i]);
    }
  }
  for (size_t i = 0; i < nts_status.size(); ++i) {
    if (nts_status[i] != 0) {
      out.emplace_back(
          absl::StrCat("nts_", core::NtsReplyStatusName(
                                   static_cast<core::NtsReplyStatus>(i))),
          nts_status[i]);
    }
  }
  return out;
}

NamedCounts LaneMeasurements::KissNames() const {
  NamedCounts out;
  for (size_t i = 0; i < kiss.size(); ++i) {
    if (kiss[i] != 0) {
      out.emplace_back(core::NtpKissName(static_cast<core::NtpKiss>(i)),
                       kiss[i]);
    }
  }
  return out;
}

// ---- PTP identities --------------------------------------------------------

core::PtpPortIdentity PtpIdentityOf(uint32_t client) {
  const std::array<uint8_t, 6> mac = {0x02,
                                      0x7a,
                                      0x67,
                                      static_cast<uint8_t>(client >> 16),
                                      static_cast<uint8_t>(client >> 8),
                                      static_cast<uint8_t>(client)};
  return {core::PtpClockIdentity::FromMac(mac), 1};
}

bool ClientOfPtpIdentity(const core::PtpPortIdentity& id, uint32_t* client) {
  const auto& o = id.clock_identity.octets;
  if (o[0] != 0x02 || o[1] != 0x7a || o[2] != 0x67 || o[3] != 0xFF ||
      o[4] != 0xFE || id.port_number != 1) {
    return false;
  }
  *client = (uint32_t{o[5]} << 16) | (uint32_t{o[6]} << 8) | o[7];
  return true;
}

std::optional<uint32_t> OwnerLaneOf(const ClientSpace& space, uint16_t ntp_port,
                                    const ReplyAddress& from,
                                    const uint8_t* payload, uint32_t len) {
  std::optional<uint32_t> client;
  if (from.src_port == ntp_port) {
    client = space.ClientOf(from.dst_address_offset, from.dst_port);
  } else if (from.src_port == core::kPtpEventPort ||
             from.src_port == core::kPtpGeneralPort) {
    // The identity's offset: Delay_Resp body or the common header.
    const auto type =
        static_cast<core::PtpMessageType>(len > 0 ? payload[0] & 0x0F : 0xF);
    uint32_t at = 0;
    if (type == core::PtpMessageType::kDelayResp &&
        len >= core::kPtpDelayRespLength) {
      at = core::kPtpHeaderLength + 10;  // after receiveTimestamp
    } else if (type == core::PtpMessageType::kDelayReq &&
               len >= core::kPtpDelayReqLength) {
      at = 20;  // sourcePortIdentity
    } else {
      return std::nullopt;
    }
    core::PtpPortIdentity id;
    std::memcpy(id.clock_identity.octets.data(), payload + at, 8);
    id.port_number =
        static_cast<uint16_t>((payload[at + 8] << 8) | payload[at + 9]);
    uint32_t c = 0;
    if (ClientOfPtpIdentity(id, &c) && c < space.clients()) client = c;
  }
  if (!client.has_value()) return std::nullopt;
  return space.LaneOf(*client);
}

// ---- LaneEngine ------------------------------------------------------------

namespace {

bool IsNtp(TrafficKind k) {
  return k == TrafficKind::kNtp4 || k == TrafficKind::kNtp3 ||
         k == TrafficKind::kNts;
}
bool HasNtp(const TrafficMix& mix) {
  return mix.Has(TrafficKind::kNtp4) || mix.Has(TrafficKind::kNtp3) ||
         mix.Has(TrafficKind::kNts);
}
uint8_t NtpVersionOf(TrafficKind k) { return k == TrafficKind::kNtp3 ? 3 : 4; }
uint64_t PtpKey(uint32_t client, uint16_t seq) {
  return (uint64_t{client} << 16) | seq;
}

ReplyDefect DefectOf(NtpReplyStatus s) {
  switch (s) {
    case NtpReplyStatus::kTooShort:
      return ReplyDefect::kNtpTooShort;
    case NtpReplyStatus::kBadVersion:
      return ReplyDefect::kNtpBadVersion;
    case NtpReplyStatus::kNotServerMode:
      return ReplyDefect::kNtpNotServerMode;
    case NtpReplyStatus::kZeroTimestamp:
      return ReplyDefect::kNtpZeroTimestamp;
    case NtpReplyStatus::kClockOutOfRange:
      return ReplyDefect::kNtpClockOutOfRange;
    default:
      return ReplyDefect::kNtpUnsynchronized;
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<LaneEngine>> LaneEngine::Create(
    const LaneConfig& config) {
  const uint32_t lane_clients = config.space.ClientsInLane(config.lane);
  if (lane_clients == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "lane ", config.lane, " has no clients: ", config.space.clients(),
        " clients over ", config.space.config().lanes, " lanes"));
  }
  if (lane_clients > (1u << 24)) {
    return absl::InvalidArgumentError("more than 2^24 clients in one lane");
  }
  if (config.mix.weights.empty()) {
    return absl::InvalidArgumentError("empty traffic mix");
  }
  if (config.mix.Has(TrafficKind::kNts)) {
    if (config.nts == nullptr || config.nts->credentials.empty()) {
      return absl::InvalidArgumentError(
          "--mix has nts but there are no NTS credentials: give "
          "--nts_master_key=FILE or --nts_ke=HOST:PORT");
    }
    for (const NtsCredential& c : config.nts->credentials) {
      if (c.cookie.empty() || c.cookie.size() > core::kNtsClientMaxCookieSize ||
          core::NtsRequestSize(c.cookie.size(), 0) > kMaxRequestPayload) {
        return absl::InvalidArgumentError(
            absl::StrCat("an NTS cookie of ", c.cookie.size(),
                         " bytes does not fit a request of at most ",
                         kMaxRequestPayload, " bytes"));
      }
    }
  }
  auto table =
      RequestTable::Create(lane_clients, config.depth, config.timeout_ticks);
  if (!table.ok()) return table.status();
  return std::unique_ptr<LaneEngine>(
      new LaneEngine(config, std::move(table).value()));
}

LaneEngine::LaneEngine(const LaneConfig& config,
                       std::unique_ptr<RequestTable> table)
    : config_(config),
      ntp_tag_bits_(std::countr_zero(config.depth)),
      table_(std::move(table)),
      m_(std::make_unique<LaneMeasurements>()),
      kinds_(table_->clients()) {
  for (uint32_t local = 0; local < kinds_.size(); ++local) {
    kinds_[local] =
        config_.mix.KindOf(config_.space.GlobalIndex(config_.lane, local),
                           config_.space.clients());
  }
  if (config_.mix.Has(TrafficKind::kNts)) {
    nts_.resize(config_.nts->credentials.size());
    for (size_t i = 0; i < nts_.size(); ++i) {
      const NtsCredential& c = config_.nts->credentials[i];
      nts_[i].SetKeys(c.keys);
      nts_[i].PushCookie(c.cookie.data(), c.cookie.size());
    }
    core::FillNtsRandom(nts_salt_.data(), nts_salt_.size());
  }
}

OutgoingRequest LaneEngine::Next(uint8_t* payload, core::TaiNs now) {
  OutgoingRequest r;
  r.local_client = cursor_;
  cursor_ = cursor_ + 1 == kinds_.size() ? 0 : cursor_ + 1;
  const uint32_t client =
      config_.space.GlobalIndex(config_.lane, r.local_client);
  r.seq = table_->NextSequence(r.local_client);
  r.source = config_.space.EndpointOf(client);
  const TrafficKind kind = kinds_[r.local_client];
  if (IsNtp(kind)) {
    const core::NtpTimestamp t1 = TagNtpTransmit(
        core::UtcToNtp(model_.TaiToUtc(now)), r.seq, ntp_tag_bits_);
    if (kind == TrafficKind::kNts) {
      NextNts(payload, t1, &r);
      return r;
    }
    core::BuildNtpClientRequest(payload, NtpVersionOf(kind),
                                config_.ntp_poll_log2, t1);
    r.key = t1.ToU64();
    r.dst_port = config_.ntp_port;
    r.payload_len = core::kNtpHeaderSize;
    return r;
  }
  // PTP Delay_Req, unicast, one-step E2E (IEEE 1588-2019 13.6).
  core::PtpMessage msg;
  msg.header.message_type = core::PtpMessageType::kDelayReq;
  msg.header.domain_number = config_.ptp_domain;
  msg.header.flags.Set(core::PtpFlag::kUnicast);
  msg.header.source_port_identity = PtpIdentityOf(client);
  msg.header.sequence_id = static_cast<uint16_t>(r.seq);
  msg.header.control_field =
      core::PtpControlFieldFor(core::PtpMessageType::kDelayReq);
  msg.header.log_message_interval = core::kPtpLogIntervalUnspecified;
  msg.body = core::PtpDelayReq{core::TaiToPtp(now)};
  r.payload_len = static_cast<uint16_t>(core::SerializePtpMessage(
      msg, std::span<uint8_t>(payload, kMaxRequestPayload)));
  r.key = PtpKey(client, static_cast<uint16_t>(r.seq));
  r.source.port = core::kPtpEventPort;
  r.dst_port = core::kPtpEventPort;
  return r;
}

void LaneEngine::Sent(const OutgoingRequest* requests, uint32_t n,
                      uint64_t tx_tsc) {
  for (uint32_t i = 0; i < n; ++i) {
    const OutgoingRequest& r = requests[i];
    m_->counts.lost += table_->OnSent(r.local_client, r.seq, r.key, tx_tsc);
  }
  m_->counts.sent += n;
}

void LaneEngine::OnReply(const ReplyAddress& from, const uint8_t* payload,
                         uint32_t len, uint64_t rx_tsc) {
  if (!from.from_target) return CountDefect(ReplyDefect::kNotFromTarget);
  if (from.src_port == config_.ntp_port && HasNtp(config_.mix)) {
    const std::optional<uint32_t> client =
        config_.space.ClientOf(from.dst_address_offset, from.dst_port);
    if (!client.has_value()) {
      return CountDefect(ReplyDefect::kUnknownDestination);
    }
    if (config_.space.LaneOf(*client) != config_.lane) {
      return CountDefect(ReplyDefect::kMisrouted);
    }
    const uint32_t local = config_.space.LocalIndexOf(*client);
    if (!IsNtp(kinds_[local])) {
      return CountDefect(ReplyDefect::kUnknownDestination);
    }
    if (config_.reflector) return OnNtpReflection(local, payload, len, rx_tsc);
    return OnNtpReply(local, payload, len, rx_tsc);
  }
  if ((from.src_port == core::kPtpEventPort ||
       from.src_port == core::kPtpGeneralPort) &&
      config_.mix.Has(TrafficKind::kPtpDelayReq)) {
    return OnPtpReply(from, payload, len, rx_tsc);
  }
  CountDefect(ReplyDefect::kUnexpectedPort);
}

void LaneEngine::CountRepeat(MatchOutcome outcome) {
  switch (outcome) {
    case MatchOutcome::kFirstLate:
      ++m_->counts.late;
      break;
    case MatchOutcome::kDuplicate:
      ++m_->counts.duplicate;
      break;
    case MatchOutcome::kUnknown:
      ++m_->counts.unmatched;
      break;
    case MatchOutcome::kFirst:
      break;  // the caller judges first replies
  }
}

void LaneEngine::CountBadFirst(ReplyDefect defect) {
  ++m_->counts.bad_reply;
  CountDefect(defect);
}

void LaneEngine::OnNtpReply(uint32_t local, const uint8_t* payload,
                            uint32_t len, uint64_t rx_tsc) {
  if (len < core::kNtpHeaderSize) {
    return CountDefect(ReplyDefect::kNtpTooShort);
  }
  const core::NtpTimestamp origin =
      core::LoadNtpTimestamp(payload + core::kNtpOffsetOriginTime);
  const uint32_t seq = NtpTransmitTag(origin, ntp_tag_bits_);
  const core::UtcNs t4 = model_.TaiToUtc(TaiOf(rx_tsc));
  core::NtpClientSample sample;
  const NtpReplyStatus status =
      core::ParseNtpServerReply(payload, len, origin, t4, &sample);
  const ReplyMatch match = table_->OnReply(local, seq, origin.ToU64(), rx_tsc);
  if (match.outcome != MatchOutcome::kFirst) return CountRepeat(match.outcome);
  const bool nts = kinds_[local] == TrafficKind::kNts;
  if (status == NtpReplyStatus::kKissOfDeath) {
    ++m_->counts.kod;
    ++m_->kiss[static_cast<size_t>(sample.kiss) % kKissKinds];
    if (nts && sample.kiss == core::NtpKiss::kNtsNak) {
      uint8_t uid[core::kNtsUniqueIdSize];
      NtsUid(origin, local, uid);
      if (core::IsNtsNak(payload, len, uid)) ++m_->nts.nak;
    }
    return;
  }
  if (status != NtpReplyStatus::kOk) {
    return CountBadFirst(DefectOf(status));
  }
  if (sample.header.version != NtpVersionOf(kinds_[local])) {
    return CountBadFirst(ReplyDefect::kNtpVersionMismatch);
  }
  if (nts && !CheckNtsReply(local, payload, len)) {
    return CountBadFirst(ReplyDefect::kNtsBad);
  }
  CountAnswered(match.tx_tsc, rx_tsc);
  const core::UtcNs t1 = model_.TaiToUtc(TaiOf(match.tx_tsc));
  m_->residence_ns.Record(sample.t3 - sample.t2);
  m_->offset_ns.Record(((sample.t2 - t1) + (sample.t3 - t4)) / 2);
}

void LaneEngine::NtsUid(core::NtpTimestamp t1, uint32_t local,
                        uint8_t* uid) const {
  core::StoreBe64(uid, t1.ToU64());
  core::StoreBe32(uid + 8, config_.lane);
  core::StoreBe32(uid + 12, local);
  std::memcpy(uid + 16, nts_salt_.data(), 16);
}

void LaneEngine::NextNts(uint8_t* payload, core::NtpTimestamp t1,
                         OutgoingRequest* r) {
  uint8_t uid[core::kNtsUniqueIdSize];
  NtsUid(t1, r->local_client, uid);
  uint8_t nonce[core::kNtsClientNonceSize];
  std::memcpy(nonce, nts_salt_.data(), 8);
  core::StoreBe64(nonce + 8, ++nts_nonce_);
  core::NtsRequestSpec spec;
  spec.transmit = t1;
  spec.poll_log2 = config_.ntp_poll_log2;
  spec.unique_id = uid;
  spec.nonce = nonce;
  core::NtsClientAssociation& a = nts_[r->local_client % nts_.size()];
  r->payload_len = static_cast<uint16_t>(a.BuildRequest(
      spec, /*consume_cookie=*/false, payload, kMaxRequestPayload));
  r->key = t1.ToU64();
  r->dst_port = config_.ntp_port;
  ++m_->nts.sent;
}

bool LaneEngine::CheckNtsReply(uint32_t local, const uint8_t* payload,
                               uint32_t len) {
  const uint32_t every = config_.nts->verify_every;
  if (every == 0 || nts_replies_++ % every != 0) {
    ++m_->nts.answered;
    return true;
  }
  uint8_t uid[core::kNtsUniqueIdSize];
  NtsUid(core::LoadNtpTimestamp(payload + core::kNtpOffsetOriginTime), local,
         uid);
  const core::NtsReplyCheck c = nts_[local % nts_.size()].VerifyReply(
      payload, len, uid, /*store_cookies=*/false);
  if (c.status != core::NtsReplyStatus::kOk || c.cookies == 0) {
    ++m_->nts.verified_bad;
    // A reply that opens but carries no cookie: counted as bad plaintext.
    ++m_->nts_status[static_cast<size_t>(
        c.status == core::NtsReplyStatus::kOk
            ? core::NtsReplyStatus::kBadPlaintext
            : c.status)];
    return false;
  }
  ++m_->nts.answered;
  ++m_->nts.verified_ok;
  return true;
}

void LaneEngine::OnPtpReply(const ReplyAddress& from, const uint8_t* payload,
                            uint32_t len, uint64_t rx_tsc) {
  core::PtpMessage msg;
  if (core::ParsePtpMessage(std::span<const uint8_t>(payload, len), &msg) !=
      core::PtpDrop::kOk) {
    return CountDefect(ReplyDefect::kPtpMalformed);
  }
  const core::PtpPortIdentity* id = nullptr;
  if (config_.reflector) {
    if (!std::holds_alternative<core::PtpDelayReq>(msg.body)) {
      return CountDefect(ReplyDefect::kNotReflection);
    }
    id = &msg.header.source_port_identity;
  } else {
    const auto* resp = std::get_if<core::PtpDelayResp>(&msg.body);
    if (resp == nullptr) return CountDefect(ReplyDefect::kPtpNotDelayResp);
    id = &resp->requesting_port_identity;
  }
  uint32_t client = 0;
  if (!ClientOfPtpIdentity(*id, &client) || client >= config_.space.clients()) {
    return CountDefect(ReplyDefect::kPtpUnknownIdentity);
  }
  if (config_.space.LaneOf(client) != config_.lane) {
    return CountDefect(ReplyDefect::kMisrouted);
  }
  const uint32_t local = config_.space.LocalIndexOf(client);
  if (kinds_[local] != TrafficKind::kPtpDelayReq) {
    return CountDefect(ReplyDefect::kPtpUnknownIdentity);
  }
  if (config_.space.EndpointOf(client).address_offset !=
      from.dst_address_offset) {
    return CountDefect(ReplyDefect::kPtpWrongDestination);
  }
  const uint16_t seq = msg.header.sequence_id;
  const ReplyMatch match =
      table_->OnReply(local, seq, PtpKey(client, seq), rx_tsc);
  if (match.outcome != MatchOutcome::kFirst) return CountRepeat(match.outcome);
  CountAnswered(match.tx_tsc, rx_tsc);
}

void LaneEngine::OnNtpReflection(uint32_t local, const uint8_t* payload,
                                 uint32_t len, uint64_t rx_tsc) {
  if (len < core::kNtpHeaderSize) {
    return CountDefect(ReplyDefect::kNtpTooShort);
  }
  // Our request: client mode, our version, and a transmit timestamp that
  // names a tracked request of this client.
  const uint8_t li_vn_mode = payload[0];
  if ((li_vn_mode & 7) != static_cast<uint8_t>(core::NtpMode::kClient) ||
      ((li_vn_mode >> 3) & 7) != NtpVersionOf(kinds_[local])) {
    return CountDefect(ReplyDefect::kNotReflection);
  }
  const core::NtpTimestamp transmit =
      core::LoadNtpTimestamp(payload + core::kNtpOffsetTransmitTime);
  const ReplyMatch match = table_->OnReply(
      local, NtpTransmitTag(transmit, ntp_tag_bits_), transmit.ToU64(), rx_tsc);
  if (match.outcome != MatchOutcome::kFirst) return CountRepeat(match.outcome);
  CountAnswered(match.tx_tsc, rx_tsc);
}

void LaneEngine::CountAnswered(uint64_t tx_tsc, uint64_t rx_tsc) {
  ++m_->counts.answered;
  const int64_t rtt = TaiOf(rx_tsc) - TaiOf(tx_tsc);
  m_->rtt_ns.Record(rtt > 0 ? static_cast<uint64_t>(rtt) : 0);
}

void LaneEngine::Finish() { m_->counts.lost += table_->Finish(); }

RequestCounts LaneEngine::Counts() const {
  RequestCounts c = m_->counts;
  const uint64_t done = c.answered + c.kod + c.bad_reply + c.late + c.lost;
  c.in_flight = c.sent > done ? c.sent - done : 0;
  return c;
}

}  // namespace zg::bench
