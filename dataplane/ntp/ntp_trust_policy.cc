#include "dataplane/ntp/ntp_trust_policy.h"

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>

#include <algorithm>
#include <random>

#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"
#include "dataplane/daemon/log.h"
#include "dataplane/daemon/ntp_trust_flags.h"
#include "dataplane/worker/worker.h"

namespace zg::dataplane {

absl::StatusOr<NtpTrustConfig> BuildNtpTrustConfig(absl::string_view ratelimit,
                                                   bool rate_kod,
                                                   uint64_t clients_max) {
  NtpTrustConfig c;
  c.rate_kod = rate_kod;
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

NtpPolicyVerdict NtpTrustPolicy::CheckHinted(
    const core::FrameInfo& request, const core::NtpRequestCheck& /*check*/,
    core::TaiNs rx_time, NtpPolicyHint hint) {
  if (acl_ != nullptr) {
    const AccessPolicy* acl = acl_->Current();
    const core::AccessVerdict v = request.ip_version == 6
                                      ? acl->list->Check(request.src_ipv6)
                                      : acl->list->Check(request.src_ipv4);
    stats_->acl[static_cast<size_t>(v)].Add(1);
    if (!core::IsAllowed(v)) return Denied(*acl, request, rx_time, hint);
  }
  if (table_ == nullptr) return NtpPolicyVerdict::Answer();
  const core::NtpRateVerdict v = RateLimit(request, rx_time, hint);
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
                                        const core::FrameInfo& request,
                                        core::TaiNs rx, NtpPolicyHint hint) {
  if (acl.deny_action == NtpDenyAction::kKod) {
    const bool budget =
        table_ == nullptr ||
        RateLimit(request, rx, hint).decision != core::NtpRateDecision::kDrop;
    if (budget) {
      stats_->kod_deny.Add(1);
      return NtpPolicyVerdict::Kiss(core::kNtpKissDeny, 0);
    }
  }
  return NtpPolicyVerdict::Drop(drops_.acl_denied);
}

core::NtpRateVerdict NtpTrustPolicy::RateLimit(const core::FrameInfo& request,
                                               core::TaiNs rx,
                                               NtpPolicyHint hint) {
  // Reloaded parameters: one load of a line that changes only on SIGHUP.
  const NtpRateParams* params = rate_->Current();
  if (params->generation != rate_generation_) {
    table_->SetLimit(params->limit, params->kod);
    rate_generation_ = params->generation;
  }
  // The hash Prefetch computed, or (no prefetch) computed now: once.
  const core::NtpClientHash h = hint.valid ? core::NtpClientHash{hint.value}
                                           : table_->HashOf(KeyOf(request));
  const core::NtpRateVerdict v = table_->Check(h, rx);
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
    factory_->SetConfig(std::move(c));
    return factory_->ConfigureShared(config.access);
  }
  absl::Status AddMetrics(prometheus::Registry& r) override;
  void UpdateMetrics() override;
  void Report() override;

 private:
  struct Total {
    prometheus::Counter* counter = nullptr;
    double last = 0;
    void Set(double v) {
      if (v > last) counter->Increment(v - last);
      last = v;
    }
  };
  template <typename F>
  uint64_t Sum(F field) const {
    uint64_t n = 0;
    for (const auto& s : factory_->worker_stats())
      n += (s.get()->*field).Load();
    return n;
  }

  NtpTrustPolicyFactory* factory_;
  prometheus::Gauge* tracked_ = nullptr;
  Total evictions_, leak_, flood_, dropped_, kod_action_, kod_rate_, kod_deny_;
  std::array<Total, core::kAccessVerdictCount> acl_;
};

absl::Status NtpTrustPolicyFactory::Plugin::AddMetrics(
    prometheus::Registry& r) {
  using prometheus::BuildCounter;
  using prometheus::BuildGauge;
  tracked_ = &BuildGauge()
                  .Name("zeitgeber_ntp_clients_tracked")
                  .Help(
                      "NTP clients in the rate limiter's tables (all "
                      "workers)")
                  .Register(r)
                  .Add({});
  evictions_.counter =
      &BuildCounter()
           .Name("zeitgeber_ntp_client_evictions_total")
           .Help("NTP clients replaced in a full rate-limiter bucket")
           .Register(r)
           .Add({});
  auto& limited =
      BuildCounter()
          .Name("zeitgeber_ntp_rate_limited_total")
          .Help(
              "NTP requests past their client's rate limit, by what was "
              "done: leak/flood (answered anyway), drop, kod")
          .Register(r);
  leak_.counter = &limited.Add({{"action", "leak"}});
  flood_.counter = &limited.Add({{"action", "flood"}});
  dropped_.counter = &limited.Add({{"action", "drop"}});
  kod_action_.counter = &limited.Add({{"action", "kod"}});
  auto& kod = BuildCounter()
                  .Name("zeitgeber_ntp_kod_sent_total")
                  .Help("NTP Kiss-o'-Death replies sent, by kiss code")
                  .Register(r);
  kod_rate_.counter = &kod.Add({{"code", "RATE"}});
  kod_deny_.counter = &kod.Add({{"code", "DENY"}});
  auto& acl = BuildCounter()
                  .Name("zeitgeber_ntp_acl_total")
                  .Help(
                      "NTP requests checked against the access list "
                      "(--ntp_allow/--ntp_deny), by verdict: which rule "
                      "kind or the default decided")
                  .Register(r);
  for (int v = 0; v < core::kAccessVerdictCount; ++v) {
    acl_[v].counter = &acl.Add(
        {{"verdict",
          core::AccessVerdictName(static_cast<core::AccessVerdict>(v))}});
  }
  return absl::OkStatus();
}

void NtpTrustPolicyFactory::Plugin::UpdateMetrics() {
  if (tracked_ == nullptr) return;
  tracked_->Set(double(Sum(&NtpTrustWorkerStats::clients_tracked)));
  evictions_.Set(double(Sum(&NtpTrustWorkerStats::client_evictions)));
  leak_.Set(double(Sum(&NtpTrustWorkerStats::rate_answered_leak)));
  flood_.Set(double(Sum(&NtpTrustWorkerStats::rate_answered_flood)));
  dropped_.Set(double(Sum(&NtpTrustWorkerStats::rate_dropped)));
  const double kod_rate = double(Sum(&NtpTrustWorkerStats::kod_rate));
  kod_action_.Set(kod_rate);
  kod_rate_.Set(kod_rate);
  kod_deny_.Set(double(Sum(&NtpTrustWorkerStats::kod_deny)));
  for (size_t v = 0; v < acl_.size(); ++v) {
    uint64_t n = 0;
    for (const auto& s : factory_->worker_stats()) n += s->acl[v].Load();
    acl_[v].Set(double(n));
  }
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
  if (!acl_->configured() && rate_ == nullptr) {
    return std::unique_ptr<NtpRequestPolicy>();
  }
  stats_.push_back(std::make_unique<NtpTrustWorkerStats>());
  std::unique_ptr<core::NtpClientTable> table;
  if (rate_ != nullptr) {
    core::NtpClientTable::Options o;
    o.capacity = PerWorkerClients(config_.clients_max, WorkerLcores().size());
    o.limit = *config_.rate_limit;
    o.kod = config_.rate_kod;
    // A per-start secret: clients cannot aim at one bucket to evict others.
    o.seed = (uint64_t{std::random_device{}()} << 32) ^ std::random_device{}() ^
             setup.worker_index;
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
      config_.prefetch, drops_, stats_.back().get()));
}

}  // namespace zg::dataplane
