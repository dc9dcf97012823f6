// SPDX-License-Identifier: Apache-2.0
#include "dataplane/ntp/ntp_trust_policy.h"

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include <algorithm>
#include <random>

#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"
#include "core/time/tsc.h"
#include "dataplane/daemon/flags.h"
#include "dataplane/daemon/flags/ntp.h"
#include "dataplane/daemon/flags/trust.h"
#include "dataplane/daemon/log.h"
#include "dataplane/metrics/scrape_families.h"
#include "dataplane/worker/worker.h"

namespace zg::dataplane {

absl::StatusOr<NtpTrustConfig> BuildNtpTrustConfig(absl::string_view ratelimit,
                                                   bool rate_kod,
                                                   uint64_t clients_max,
                                                   bool client_records) {
  NtpTrustConfig c;
  c.rate_kod = rate_kod;
  c.client_records = client_records;
  if (clients_max == 0 || clients_max > kNtpClientsMaxLimit) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--ntp_clients_max=", clients_max, " is out of range [1, ",
        kNtpClientsMaxLimit, "] (", core::NtpClientTable::kBytesPerClient,
        " bytes of memory per client)"));
  }
  c.clients_max = clients_max;
  if (ratelimit.empty() || ratelimit == "off") return c;
  if (ratelimit == "on") {
    c.rate_limit = core::NtpRateLimitConfig{};
    return c;
  }
  ZG_ASSIGN_OR_RETURN(c.rate_limit, core::ParseNtpRateLimit(ratelimit));
  return c;
}

namespace {

// How a request is authenticated, by its form (checked later).
core::NtpClientAuth AuthOf(const core::NtpRequestCheck& check) {
  if (check.trailer.nts_fields != 0) return core::NtpClientAuth::kNts;
  return check.trailer.mac == core::NtpMacKind::kSymmetric
             ? core::NtpClientAuth::kSymmetricKey
             : core::NtpClientAuth::kNone;
}

}  // namespace

NtpPolicyVerdict NtpTrustPolicy::CheckHinted(const core::FrameInfo& request,
                                             const core::NtpRequestCheck& check,
                                             core::TaiNs rx_time,
                                             NtpPolicyHint hint) {
  // The hash Prefetch computed, or (no prefetch) computed now: once.
  // (An access list alone needs none.)
  const core::NtpClientHash hash = hint.valid ? core::NtpClientHash{hint.value}
                                   : (table_ != nullptr || records_ != nullptr)
                                       ? HashOf(KeyOf(request))
                                       : core::NtpClientHash{};
  uint64_t ticket = 0;
  if (records_ != nullptr) {
    record_slot_ =
        records_->Request(KeyOf(request), hash, rx_time, AuthOf(check));
    ticket =
        uint64_t{records_->FingerprintOf(record_slot_)} << 32 | record_slot_;
  }
  NtpPolicyVerdict v = Decide(request, rx_time, hash);
  v.ticket = ticket;
  return v;
}

NtpPolicyVerdict NtpTrustPolicy::Decide(const core::FrameInfo& request,
                                        core::TaiNs rx_time,
                                        core::NtpClientHash hash) {
  if (acl_ != nullptr) {
    const AccessPolicy* acl = acl_->Current();
    const core::AccessVerdict v = request.ip_version == 6
                                      ? acl->list->Check(request.src_ipv6)
                                      : acl->list->Check(request.src_ipv4);
    stats_->acl[static_cast<size_t>(v)].Add(1);
    if (!core::IsAllowed(v)) return Denied(*acl, hash, rx_time);
  }
  if (table_ == nullptr) return NtpPolicyVerdict::Answer();
  const core::NtpRateVerdict v = RateLimit(hash, rx_time);
  switch (v.decision) {
    case core::NtpRateDecision::kAnswer:
      break;
    case core::NtpRateDecision::kAnswerLeak:
      stats_->rate_answered_leak.Add(1);
      break;
    case core::NtpRateDecision::kAnswerFlood:
      stats_->rate_answered_flood.Add(1);
      break;
    case core::NtpRateDecision::kDrop:
      stats_->rate_dropped.Add(1);
      if (records_ != nullptr) {
        records_->Drop(record_slot_, core::NtpClientDrop::kRateLimit);
      }
      return NtpPolicyVerdict::Drop(drops_.rate_limited);
    case core::NtpRateDecision::kKiss:
      stats_->kod_rate.Add(1);
      return NtpPolicyVerdict::Kiss(core::kNtpKissRate, v.min_poll_log2);
  }
  return NtpPolicyVerdict::AnswerWithPoll(v.min_poll_log2);
}

// A denied client: dropped, or a KoD DENY. With rate limiting on, a KoD DENY
// is sent only where the client's bucket would have given an answer (or a
// KoD RATE): the same budget, so denied floods get no more than allowed ones.
NtpPolicyVerdict NtpTrustPolicy::Denied(const AccessPolicy& acl,
                                        core::NtpClientHash hash,
                                        core::TaiNs rx) {
  if (acl.deny_action == NtpDenyAction::kKod) {
    const bool budget = table_ == nullptr || RateLimit(hash, rx).decision !=
                                                 core::NtpRateDecision::kDrop;
    if (budget) {
      stats_->kod_deny.Add(1);
      return NtpPolicyVerdict::Kiss(core::kNtpKissDeny, 0);
    }
  }
  if (records_ != nullptr)
    records_->Drop(record_slot_, core::NtpClientDrop::kAcl);
  return NtpPolicyVerdict::Drop(drops_.acl_denied);
}

void NtpTrustPolicy::Outcome(const NtpRequestOutcome& outcome) {
  const uint32_t slot = static_cast<uint32_t>(outcome.ticket);
  // A later request of the burst gave the slot to another client (a full
  // bucket whose clients were all seen this 1/16 s): nothing to count in.
  if (records_->FingerprintOf(slot) != outcome.ticket >> 32) return;
  switch (outcome.result) {
    case NtpRequestOutcome::Result::kAnswered:
      records_->Answered(slot, outcome.key_id, outcome.interleaved);
      break;
    case NtpRequestOutcome::Result::kKissed:
      records_->Kiss(slot);
      break;
    case NtpRequestOutcome::Result::kAuthFailed:
      records_->Drop(slot, core::NtpClientDrop::kAuth);
      break;
  }
}

core::NtpRateVerdict NtpTrustPolicy::RateLimit(core::NtpClientHash hash,
                                               core::TaiNs rx) {
  // Reloaded parameters: one load of a line that changes only on SIGHUP.
  const NtpRateParams* params = rate_->Current();
  if (params->generation != rate_generation_) {
    table_->SetLimit(params->limit, params->kod);
    rate_generation_ = params->generation;
  }
  const core::NtpRateVerdict v = table_->Check(hash, rx);
  const core::NtpClientTableStats& t = table_->stats();
  if (t.inserted != seen_inserted_) {  // a new client, perhaps an eviction
    seen_inserted_ = t.inserted;
    stats_->clients_tracked.Set(t.tracked);
    stats_->client_evictions.Set(t.evictions);
  }
  return v;
}

// ---- Control side: flags and metrics -----------------------------------

class NtpTrustPolicyFactory::Plugin final : public ProtocolPlugin {
 public:
  explicit Plugin(NtpTrustPolicyFactory* factory) : factory_(factory) {}

  absl::Status RegisterNames(CounterNames& /*names*/) override {
    return absl::OkStatus();  // the factory registers them as ntp_policy
  }
  absl::Status AddHandlers(const WorkerSetup& /*setup*/,
                           Pipeline& /*pipeline*/) override {
    return absl::OkStatus();
  }
  absl::Status Configure(const DaemonConfig& config) override {
    ZG_ASSIGN_OR_RETURN(NtpTrustConfig c, ReadNtpTrustFlags());
    ZG_ASSIGN_OR_RETURN(NtpClientFlags clients, ReadNtpClientFlags());
    c.client_records = clients.records;
    factory_->SetConfig(std::move(c));
    factory_->SetClientLog(clients.log);
    return factory_->ConfigureShared(config.access);
  }
  // The client log's thread starts with the first tick (the clock exists).
  void ControlStep(const ControlTick& tick) override {
    factory_->StartClientLog(tick.tsc_clock);
  }
  // The counters, read when Prometheus scrapes (so a scrape equals the KoDs
  // and drops on the wire): zeitgeber_ntp_clients_tracked,
  // ..._client_evictions_total, ..._rate_limited_total{action},
  // ..._kod_sent_total{code}, ..._acl_total{verdict}.
  std::vector<std::shared_ptr<prometheus::Collectable>> ScrapeCollectables()
      override;
  // ntp_rate_limit_saturated while the client table evicts clients.
  void Observe(const PipelineObservation& observation) override;
  void Report() override;

 private:
  class Collector;
  template <typename F>
  uint64_t Sum(F field) const {
    uint64_t n = 0;
    for (const auto& s : factory_->worker_stats())
      n += (s.get()->*field).Load();
    return n;
  }

  NtpTrustPolicyFactory* factory_;
  uint64_t observed_evictions_ = 0;
};

// Sums the workers' NtpTrustWorkerStats (relaxed loads) at each scrape.
// The stats live in the factory, which outlives the exporter.
class NtpTrustPolicyFactory::Plugin::Collector final
    : public prometheus::Collectable {
 public:
  explicit Collector(const Plugin* plugin) : plugin_(plugin) {}
  std::vector<prometheus::MetricFamily> Collect() const override {
    const Plugin& p = *plugin_;
    ScrapeFamilies f;
    f.Gauge("zeitgeber_ntp_clients_tracked",
            "NTP clients in the rate limiter's tables (all workers)", {},
            double(p.Sum(&NtpTrustWorkerStats::clients_tracked)));
    f.Counter("zeitgeber_ntp_client_evictions_total",
              "NTP clients replaced in a full rate-limiter bucket", {},
              double(p.Sum(&NtpTrustWorkerStats::client_evictions)));
    const char* limited = "zeitgeber_ntp_rate_limited_total";
    const char* limited_help =
        "NTP requests past their client's rate limit, by what was done: "
        "leak/flood (answered anyway), drop, kod";
    const double kod_rate = double(p.Sum(&NtpTrustWorkerStats::kod_rate));
    f.Counter(limited, limited_help, {{"action", "leak"}},
              double(p.Sum(&NtpTrustWorkerStats::rate_answered_leak)));
    f.Counter(limited, limited_help, {{"action", "flood"}},
              double(p.Sum(&NtpTrustWorkerStats::rate_answered_flood)));
    f.Counter(limited, limited_help, {{"action", "drop"}},
              double(p.Sum(&NtpTrustWorkerStats::rate_dropped)));
    f.Counter(limited, limited_help, {{"action", "kod"}}, kod_rate);
    const char* kod = "zeitgeber_ntp_kod_sent_total";
    const char* kod_help = "NTP Kiss-o'-Death replies sent, by kiss code";
    f.Counter(kod, kod_help, {{"code", "RATE"}}, kod_rate);
    f.Counter(kod, kod_help, {{"code", "DENY"}},
              double(p.Sum(&NtpTrustWorkerStats::kod_deny)));
    for (int v = 0; v < core::kAccessVerdictCount; ++v) {
      uint64_t n = 0;
      for (const auto& s : p.factory_->worker_stats()) n += s->acl[v].Load();
      f.Counter("zeitgeber_ntp_acl_total",
                "NTP requests checked against the access list "
                "(--ntp_allow/--ntp_deny), by verdict: which rule kind or "
                "the default decided",
                {{"verdict", core::AccessVerdictName(
                                 static_cast<core::AccessVerdict>(v))}},
                double(n));
    }
    return f.Take();
  }

 private:
  const Plugin* plugin_;
};

std::vector<std::shared_ptr<prometheus::Collectable>>
NtpTrustPolicyFactory::Plugin::ScrapeCollectables() {
  return {std::make_shared<Collector>(this)};
}

void NtpTrustPolicyFactory::Plugin::Observe(const PipelineObservation& o) {
  if (o.alarms == nullptr || !factory_->config().rate_limit.has_value()) {
    return;
  }
  const uint64_t evictions = Sum(&NtpTrustWorkerStats::client_evictions);
  if (evictions > observed_evictions_) {
    o.alarms->Notice(
        servo::AlarmId::kNtpRateLimitSaturated, "",
        absl::StrCat("the NTP rate limiter's client table is full: ",
                     evictions - observed_evictions_,
                     " client(s) evicted (--ntp_clients_max)"),
        o.mono_ns);
  }
  observed_evictions_ = evictions;
}

void NtpTrustPolicyFactory::Plugin::Report() {
  factory_->Release();  // the last call before the EAL's cleanup
  const NtpTrustConfig& c = factory_->config();
  if (!c.rate_limit.has_value()) return;
  std::fprintf(
      stderr,
      "ntp rate limit (%s, kod %s): %llu clients tracked, %llu evicted; "
      "excess requests: %llu leaked, %llu flood-answered, %llu dropped, "
      "%llu KoD RATE\n",
      core::FormatNtpRateLimit(*c.rate_limit).c_str(),
      c.rate_kod ? "on" : "off",
      static_cast<unsigned long long>(
          Sum(&NtpTrustWorkerStats::clients_tracked)),
      static_cast<unsigned long long>(
          Sum(&NtpTrustWorkerStats::client_evictions)),
      static_cast<unsigned long long>(
          Sum(&NtpTrustWorkerStats::rate_answered_leak)),
      static_cast<unsigned long long>(
          Sum(&NtpTrustWorkerStats::rate_answered_flood)),
      static_cast<unsigned long long>(Sum(&NtpTrustWorkerStats::rate_dropped)),
      static_cast<unsigned long long>(Sum(&NtpTrustWorkerStats::kod_rate)));
}

// ---- Factory --------------------------------------------------------------

NtpTrustPolicyFactory::NtpTrustPolicyFactory()
    : plugin_(std::make_unique<Plugin>(this)) {}
NtpTrustPolicyFactory::~NtpTrustPolicyFactory() = default;

ProtocolPlugin* NtpTrustPolicyFactory::plugin() { return plugin_.get(); }

absl::Status NtpTrustPolicyFactory::RegisterNames(CounterNames& names) {
  ZG_ASSIGN_OR_RETURN(
      const uint8_t base,
      names.AddDropReasons("ntp", {"rate_limited", "acl_denied"}));
  drops_ = {base, static_cast<uint8_t>(base + 1)};
  return absl::OkStatus();
}

absl::Status NtpTrustPolicyFactory::ConfigureShared(
    const AccessConfig& access) {
  access_ = access;  // the list is built by the first Create (after the EAL)
  if (config_.rate_limit.has_value()) {
    rate_ = std::make_unique<SwappableConfig<NtpRateParams>>(
        std::make_unique<const NtpRateParams>(NtpRateParams{
            *config_.rate_limit, config_.rate_kod, ++rate_generation_}));
  }
  return absl::OkStatus();
}

std::vector<std::string> NtpTrustPolicyFactory::ReloadableFlags() const {
  return {"ntp_allow", "ntp_deny", "ntp_deny_action", "ntp_ratelimit",
          "ntp_ratelimit_kod"};
}

absl::Status NtpTrustPolicyFactory::Reload(const ReloadArgs& reload) {
  ZG_ASSIGN_OR_RETURN(NtpTrustConfig next, ReadNtpTrustFlags());
  if (next.rate_limit.has_value() != (rate_ != nullptr)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "--ntp_ratelimit was ", rate_ ? "on" : "off", " at start: turning it ",
        rate_ ? "off" : "on",
        " needs a restart (the client tables are allocated at start)"));
  }
  if (acl_->configured()) {
    ZG_RETURN_IF_ERROR(acl_->Reload(reload));
  } else if (!reload.config->access.ntp.empty()) {
    return absl::FailedPreconditionError(
        "--ntp_allow/--ntp_deny were empty at start: an NTP access list "
        "needs a restart");
  }
  if (rate_ != nullptr && (*next.rate_limit != rate_->Current()->limit ||
                           next.rate_kod != rate_->Current()->kod)) {
    const std::string change = absl::StrCat(
        "ntp rate limit ", core::FormatNtpRateLimit(*next.rate_limit), ", kod ",
        next.rate_kod ? "on" : "off");
    reload.plan->StagePublish(
        *rate_,
        std::make_unique<const NtpRateParams>(
            NtpRateParams{*next.rate_limit, next.rate_kod, ++rate_generation_}),
        change);
    config_.rate_limit = next.rate_limit;
    config_.rate_kod = next.rate_kod;
  }
  return absl::OkStatus();
}

uint64_t NtpTrustPolicyFactory::PerWorkerClients(uint64_t clients_max,
                                                 size_t workers) {
  const uint64_t w = std::max<size_t>(workers, 1);
  return std::max<uint64_t>((clients_max + w - 1) / w, 1);
}

absl::StatusOr<std::unique_ptr<NtpRequestPolicy>> NtpTrustPolicyFactory::Create(
    const WorkerSetup& setup) {
  if (config_.rate_limit.has_value() && rate_ == nullptr) {
    ZG_RETURN_IF_ERROR(ConfigureShared({}));  // tests: SetConfig alone
  }
  // rte_lpm needs the EAL: the access list is built here, once.
  if (!access_.ntp.empty() && !acl_->configured()) {
    ZG_RETURN_IF_ERROR(acl_->Configure(access_));
  }
  if (!acl_->configured() && rate_ == nullptr && !config_.client_records) {
    return std::unique_ptr<NtpRequestPolicy>();
  }
  stats_.push_back(std::make_unique<NtpTrustWorkerStats>());
  // A per-start secret: clients cannot aim at one bucket to evict others.
  // One for the worker's rate table and records: a request is hashed once.
  const uint64_t seed = ((uint64_t{std::random_device{}()} << 32) ^
                         std::random_device{}() ^ setup.worker_index) |
                        1;
  ZG_ASSIGN_OR_RETURN(core::NtpClientRecords* const records,
                      CreateRecords(setup, seed));
  std::unique_ptr<core::NtpClientTable> table;
  if (rate_ != nullptr) {
    core::NtpClientTable::Options o;
    o.capacity = PerWorkerClients(config_.clients_max, WorkerLcores().size());
    o.limit = *config_.rate_limit;
    o.kod = config_.rate_kod;
    o.seed = seed;
    absl::StatusOr<std::unique_ptr<core::NtpClientTable>> t =
        core::NtpClientTable::Create(o);
    if (!t.ok()) {
      return absl::Status(t.status().code(),
                          absl::StrCat("worker ", setup.worker_index, ": ",
                                       t.status().message()));
    }
    table = std::move(*t);
    LogInfo(absl::StrCat("worker ", setup.worker_index, ": NTP client table ",
                         table->memory_bytes() >> 20, " MiB, ",
                         table->huge_page_bytes() >> 20,
                         " MiB of it on huge pages"));
  }
  return std::unique_ptr<NtpRequestPolicy>(std::make_unique<NtpTrustPolicy>(
      acl_->configured() ? acl_.get() : nullptr, rate_.get(), std::move(table),
      config_.prefetch, drops_, stats_.back().get(), records));
}

// ---- Client records ---------------------------------------------------------

absl::StatusOr<core::NtpClientRecords*> NtpTrustPolicyFactory::CreateRecords(
    const WorkerSetup& setup, uint64_t seed) {
  if (!config_.client_records) return nullptr;
  core::NtpClientRecords::Options o;
  o.capacity = PerWorkerClients(config_.clients_max, WorkerLcores().size());
  o.seed = seed;
  absl::StatusOr<std::unique_ptr<core::NtpClientRecords>> r =
      core::NtpClientRecords::Create(o);
  if (!r.ok()) {
    return absl::Status(r.status().code(),
                        absl::StrCat("worker ", setup.worker_index, ": ",
                                     r.status().message()));
  }
  LogInfo(absl::StrCat("worker ", setup.worker_index, ": NTP client records ",
                       (*r)->memory_bytes() >> 20, " MiB for ",
                       (*r)->capacity(), " clients"));
  core::NtpClientRecords* const records = r->get();
  absl::MutexLock lock(&records_mu_);
  records_.push_back(std::move(*r));
  return records;
}

std::vector<const core::NtpClientRecords*> NtpTrustPolicyFactory::RecordTables()
    const {
  absl::MutexLock lock(&records_mu_);
  std::vector<const core::NtpClientRecords*> out;
  out.reserve(records_.size());
  for (const auto& r : records_) out.push_back(r.get());
  return out;
}

void NtpTrustPolicyFactory::StartClientLog(const core::PublishedClock* clock) {
  if (client_log_ != nullptr || client_log_config_.path.empty() ||
      clock == nullptr || !config_.client_records) {
    return;
  }
  NtpClientLog::Options o;
  o.config = client_log_config_;
  o.tables = [this] { return RecordTables(); };
  o.clock = clock;
  absl::StatusOr<std::unique_ptr<NtpClientLog>> log =
      NtpClientLog::Start(std::move(o));
  if (!log.ok()) {
    LogError(
        absl::StrCat("ntp client log not started: ", log.status().message()));
    client_log_config_.path.clear();  // once
    return;
  }
  client_log_ = std::move(*log);
  LogInfo(absl::StrCat("ntp client log: ", client_log_config_.path, " every ",
                       absl::FormatDuration(client_log_config_.period)));
}

absl::StatusOr<nlohmann::json> NtpTrustPolicyFactory::QueryClients(
    const core::NtpClientQuery& query, const core::ClockModel& clock,
    core::TaiNs now) const {
  if (!records_enabled_.load(std::memory_order_acquire)) {
    return absl::FailedPreconditionError(
        "NTP client records are off (--ntp_client_records=false)");
  }
  const std::vector<const core::NtpClientRecords*> tables = RecordTables();
  return core::QueryNtpClients(tables, query, clock, now);
}

absl::StatusOr<nlohmann::json> NtpTrustPolicyFactory::QueryClients(
    const core::NtpClientQuery& query,
    const core::PublishedClock& clock) const {
  core::ClockModel model;
  if (!clock.TryRead(&model)) {
    return absl::UnavailableError(
        "the clock is not published yet (the daemon is starting); try again");
  }
  return QueryClients(query, model, model.RawToTai(core::ReadTsc()));
}

}  // namespace zg::dataplane
