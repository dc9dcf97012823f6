// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's NTP request policy (dataplane/ntp/ntp_policy.h), per request:
//   1. the access list (--ntp_allow/--ntp_deny, dataplane/trust/
//      access_swap.h): denied -> dropped, or with --ntp_deny_action=kod a
//      KoD DENY, itself limited by the client's rate bucket when rate
//      limiting is on (a spoofed flood gets no more KoDs than answers);
//   2. per-client rate limiting with Kiss-o'-Death RATE, as chrony's
//      `ratelimit` does (core/ntp/ntp_client_table.h); replies carry a poll
//      of at least the interval.
//
// Configuration is one immutable NtpTrustConfig, built and validated from
// flag values by BuildNtpTrustConfig (dataplane/daemon/flags/trust.h
// reads the flags). On SIGHUP (Reload) the access list and the rate-limit
// parameters (--ntp_ratelimit, --ntp_ratelimit_kod) are rebuilt and
// published to the workers at a burst boundary (SwappableConfig); the client
// tables stay (their size, --ntp_clients_max, needs a restart, as does
// turning rate limiting or the access list on where it was off at start).
//
// Per worker: one NtpTrustPolicy with its own client table of
// clients_max / workers entries (RSS hashes source and destination IP only,
// dataplane/port/port.cc, so a client always reaches the same worker), and
// one NtpTrustWorkerStats. With neither configured Create returns no policy
// at all, so the NTP handler's path is unchanged.
//
// Client records (--ntp_client_records, zgctl clients): each worker's policy
// also keeps a core::NtpClientRecords table of as many clients, which the
// factory owns and QueryClients reads from any thread. Every request the
// policy sees is counted there (before the access list), with its drops by
// reason; the handler's NtpRequestOutcome adds KoDs, authentication failures,
// the key id and interleave. Records work with rate limiting off (their own
// lookup: the policy is then installed for them alone).
//
// Counters (exported by the plugin() side, all prefixed zeitgeber_ntp_):
//   clients_tracked                       clients in the workers' tables
//   client_evictions_total                replaced by a newer client
//   rate_limited_total {action}           leak | flood (answered anyway),
//                                         drop, kod
//   kod_sent_total {code}                 RATE, DENY
//   acl_total {verdict}                   allow_rule, allow_default,
//                                         deny_rule, deny_default
// Drops are also in zeitgeber_frames_dropped_total{reason=
// "ntp_rate_limited" | "ntp_acl_denied"}.
//
//   NtpTrustPolicyFactory trust;
//   ProtocolPipelineFactory::Options o;
//   o.ntp_policy = &trust;
//   o.plugins.push_back(trust.plugin());   // flags, metrics
#ifndef ZG_DATAPLANE_NTP_NTP_TRUST_POLICY_H_
#define ZG_DATAPLANE_NTP_NTP_TRUST_POLICY_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "core/ntp/ntp_client_query.h"
#include "core/ntp/ntp_client_records.h"
#include "core/ntp/ntp_client_table.h"
#include "core/ntp/ntp_rate_limit.h"
#include "core/time/clock_model.h"
#include "dataplane/ntp/ntp_client_log.h"
#include "dataplane/ntp/ntp_policy.h"
#include "dataplane/trust/access_swap.h"
#include "dataplane/trust/config_swap.h"
#include "dataplane/worker/protocol_pipeline.h"
#include "dataplane/worker/worker_stats.h"
#include "nlohmann/json.hpp"

namespace zg::dataplane {

inline constexpr uint64_t kNtpClientsMaxDefault = 1'000'000;
inline constexpr uint64_t kNtpClientsMaxLimit = uint64_t{1} << 30;

struct NtpTrustConfig {
  std::optional<core::NtpRateLimitConfig> rate_limit;  // nullopt: off
  bool rate_kod = false;  // excess requests get KoD RATE (limited per client)
  uint64_t clients_max = kNtpClientsMaxDefault;  // all workers together
  bool prefetch = true;  // prefetch each burst's buckets (benchmarks: off)
  // Per-client records for zgctl clients (the daemon's flag defaults to on).
  bool client_records = false;
};

// From the flag values: --ntp_ratelimit ("" or "off": off; "on": chrony's
// defaults; else interval=I,burst=B,leak=L), --ntp_ratelimit_kod,
// --ntp_clients_max. Errors name the flag.
absl::StatusOr<NtpTrustConfig> BuildNtpTrustConfig(absl::string_view ratelimit,
                                                   bool rate_kod,
                                                   uint64_t clients_max,
                                                   bool client_records = false);

// Counters of one worker's policy. Written by: that worker. Read by: the
// control thread (exporter).
struct alignas(64) NtpTrustWorkerStats {
  SingleWriterCounter clients_tracked;  // a level (Set), not a total
  SingleWriterCounter client_evictions;
  SingleWriterCounter rate_answered_leak;
  SingleWriterCounter rate_answered_flood;
  SingleWriterCounter rate_dropped;
  SingleWriterCounter kod_rate;
  SingleWriterCounter kod_deny;
  // By core::AccessVerdict (deny_default, allow_default, deny_rule,
  // allow_rule).
  std::array<SingleWriterCounter, core::kAccessVerdictCount> acl;
};

// The rate-limit parameters the workers read; replaced on reload.
struct NtpRateParams {
  core::NtpRateLimitConfig limit;
  bool kod = false;
  uint64_t generation = 0;  // changes with every publication
};

// Counter indices of the policy's drop reasons.
struct NtpTrustDrops {
  uint8_t rate_limited = 0;
  uint8_t acl_denied = 0;
};

// One worker's policy: used by that worker alone.
class NtpTrustPolicy final : public NtpRequestPolicy {
 public:
  // `acl` and `rate` (null: none) are the factory's; `table` is null
  // exactly when `rate` is. `records` (null: none) is the factory's, written
  // by this policy alone.
  NtpTrustPolicy(const ReloadableAccessList* acl,
                 const SwappableConfig<NtpRateParams>* rate,
                 std::unique_ptr<core::NtpClientTable> table, bool prefetch,
                 NtpTrustDrops drops, NtpTrustWorkerStats* stats,
                 core::NtpClientRecords* records = nullptr)
      : acl_(acl),
        rate_(rate),
        table_(std::move(table)),
        prefetch_(prefetch),
        drops_(drops),
        stats_(stats),
        records_(records) {}

  NtpPolicyVerdict Check(const core::FrameInfo& request,
                         const core::NtpRequestCheck& check,
                         core::TaiNs rx_time) override;
  bool WantsPrefetch() const override {
    return prefetch_ && (table_ || records_);
  }
  void Prefetch(const core::FrameInfo& request) override {
    const core::NtpClientKey key = KeyOf(request);
    if (table_) table_->Prefetch(key);
    if (records_) records_->Prefetch(key);
  }
  bool WantsOutcome() const override { return records_ != nullptr; }
  void Outcome(const NtpRequestOutcome& outcome) override;
  // The burst's new clients' records (NtpClientRecords::Flush).
  bool WantsEndBurst() const override { return records_ != nullptr; }
  void EndBurst() override { records_->Flush(); }

  static core::NtpClientKey KeyOf(const core::FrameInfo& f) {
    return f.ip_version == 6 ? core::NtpClientKey::V6(f.src_ipv6)
                             : core::NtpClientKey::V4(f.src_ipv4);
  }
  const core::NtpClientTable* table() const { return table_.get(); }

 private:
  core::NtpRateVerdict RateLimit(const core::FrameInfo& request,
                                 core::TaiNs rx);
  NtpPolicyVerdict Denied(const AccessPolicy& acl,
                          const core::FrameInfo& request, core::TaiNs rx);

  const ReloadableAccessList* acl_;              // null: no access list
  const SwappableConfig<NtpRateParams>* rate_;   // null: no rate limit
  std::unique_ptr<core::NtpClientTable> table_;  // null: no rate limit
  bool prefetch_;
  NtpTrustDrops drops_;
  NtpTrustWorkerStats* stats_;       // owned by the factory
  uint64_t rate_generation_ = 0;     // of the NtpRateParams table_ applies
  uint64_t seen_inserted_ = 0;       // table inserts already in stats_
  core::NtpClientRecords* records_;  // owned by the factory; null: none
  uint32_t record_slot_ = 0;         // the record of the request being checked
};

class NtpTrustPolicyFactory final : public NtpPolicyFactory {
 public:
  NtpTrustPolicyFactory();
  ~NtpTrustPolicyFactory() override;

  // Sets the configuration (tests, benchmarks; the daemon's comes from the
  // flags through plugin()->Configure). Before Create.
  void SetConfig(NtpTrustConfig config) {
    config_ = std::move(config);
    records_enabled_.store(config_.client_records, std::memory_order_release);
  }
  const NtpTrustConfig& config() const { return config_; }

  absl::Status RegisterNames(CounterNames& names) override;
  // Null when nothing is configured.
  absl::StatusOr<std::unique_ptr<NtpRequestPolicy>> Create(
      const WorkerSetup& setup) override;
  // SIGHUP: the access list and the rate-limit parameters, re-read.
  // --ntp_allow, --ntp_deny, --ntp_deny_action, --ntp_ratelimit,
  // --ntp_ratelimit_kod (dataplane/daemon/config_reload.h).
  std::vector<std::string> ReloadableFlags() const override;
  absl::Status Reload(const ReloadArgs& reload) override;
  // Frees the access list's tables while the EAL still runs (also after a
  // failed start, where Report does not run), and writes the client log's
  // last summary (the workers have stopped).
  void Shutdown() override {
    Release();
    client_log_.reset();
  }
  // The access list and the rate parameters from the daemon's config
  // (control thread, after SetConfig, before Create).
  absl::Status ConfigureShared(const AccessConfig& access);

  // The control side as a pipeline plugin (no handlers of its own):
  // Configure reads the flags, ScrapeCollectables exports the counters (read
  // at scrape time), Observe sets ntp_rate_limit_saturated.
  ProtocolPlugin* plugin();

  // Every worker's counters (control thread, tests).
  const std::vector<std::unique_ptr<NtpTrustWorkerStats>>& worker_stats()
      const {
    return stats_;
  }
  uint8_t drop_rate_limited() const { return drops_.rate_limited; }
  uint8_t drop_acl_denied() const { return drops_.acl_denied; }
  // Frees the access list's DPDK tables (at shutdown, after the workers
  // stopped and before the EAL is cleaned up; zeitgeberd's Daemon owns the
  // EAL and is gone before main's factories are destroyed).
  void Release() { acl_.reset(); }
  // The table size each worker gets.
  static uint64_t PerWorkerClients(uint64_t clients_max, size_t workers);

  // ---- Client records (zgctl clients); any thread -------------------------

  // Whether the workers keep client records (after Configure/SetConfig).
  bool client_records() const { return config_.client_records; }
  // The workers' record tables (a copy of the pointers, taken under the
  // lock Create holds while it adds one; the tables live as long as the
  // factory). Readers read them without any lock (ntp_client_records.h).
  std::vector<const core::NtpClientRecords*> RecordTables() const;
  // zgctl clients: the answer (doc/zgctl.md), with `now` and `clock` for
  // the times; FailedPrecondition when records are off.
  absl::StatusOr<nlohmann::json> QueryClients(const core::NtpClientQuery& query,
                                              const core::ClockModel& clock,
                                              core::TaiNs now) const;
  // The same, timed by the published clock now (the daemon's TSC clock).
  absl::StatusOr<nlohmann::json> QueryClients(
      const core::NtpClientQuery& query,
      const core::PublishedClock& clock) const override;

  // --ntp_client_log (dataplane/ntp/ntp_client_log.h): set with the
  // configuration, started by the first control tick (control thread),
  // stopped with a last summary by Shutdown. Null while not running.
  void SetClientLog(NtpClientLogConfig config) {
    client_log_config_ = std::move(config);
  }
  void StartClientLog(const core::PublishedClock* clock);
  NtpClientLog* client_log() const { return client_log_.get(); }

 private:
  class Plugin;
  // The worker's client records (config_.client_records), or null.
  absl::StatusOr<core::NtpClientRecords*> CreateRecords(
      const WorkerSetup& setup);

  NtpTrustConfig config_;
  std::atomic<bool> records_enabled_{false};  // config_.client_records
  NtpTrustDrops drops_;
  AccessConfig access_;  // from Configure; the list is built by Create
  // A pointer so Release() can free its rte_lpm tables before the EAL goes.
  std::unique_ptr<ReloadableAccessList> acl_ =
      std::make_unique<ReloadableAccessList>(AccessProtocol::kNtp);
  std::unique_ptr<SwappableConfig<NtpRateParams>> rate_;
  uint64_t rate_generation_ = 0;
  std::vector<std::unique_ptr<NtpTrustWorkerStats>> stats_;
  // The workers' client records: added by Create (control thread), read by
  // RecordTables on any thread.
  mutable absl::Mutex records_mu_;
  std::vector<std::unique_ptr<core::NtpClientRecords>> records_
      ABSL_GUARDED_BY(records_mu_);
  NtpClientLogConfig client_log_config_;
  std::unique_ptr<NtpClientLog> client_log_;
  std::unique_ptr<Plugin> plugin_;
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_NTP_NTP_TRUST_POLICY_H_
