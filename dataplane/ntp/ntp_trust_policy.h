// zeitgeberd's NTP request policy (dataplane/ntp/ntp_policy.h): per-client
// rate limiting with Kiss-o'-Death RATE, as chrony's `ratelimit` does
// (core/ntp/ntp_client_table.h), and the place where the access list runs
// first once it exists (order: ACL -> deny: drop or KoD DENY; then the rate
// limit).
//
// Configuration is one immutable NtpTrustConfig, built and validated from
// flag values by BuildNtpTrustConfig (dataplane/daemon/ntp_trust_flags.h
// reads the flags), so a reload can build a new one the same way.
//
// Per worker: one NtpTrustPolicy with its own client table of
// clients_max / workers entries (RSS hashes source and destination IP only,
// dataplane/port/port.cc, so a client always reaches the same worker), and
// one NtpTrustWorkerStats. With nothing configured Create returns no policy
// at all, so the NTP handler's path is unchanged.
//
// Counters (exported by the plugin() side, all prefixed zeitgeber_ntp_):
//   clients_tracked                       clients in the workers' tables
//   client_evictions_total                replaced by a newer client
//   rate_limited_total {action}           leak | flood (answered anyway),
//                                         drop, kod
//   kod_sent_total {code}                 RATE, DENY
// Drops are also in zeitgeber_frames_dropped_total{reason="ntp_rate_limited"}.
//
//   NtpTrustPolicyFactory trust;
//   ProtocolPipelineFactory::Options o;
//   o.ntp_policy = &trust;
//   o.plugins.push_back(trust.plugin());   // flags, metrics
#ifndef ZG_DATAPLANE_NTP_NTP_TRUST_POLICY_H_
#define ZG_DATAPLANE_NTP_NTP_TRUST_POLICY_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/ntp/ntp_client_table.h"
#include "core/ntp/ntp_rate_limit.h"
#include "dataplane/ntp/ntp_policy.h"
#include "dataplane/worker/protocol_pipeline.h"
#include "dataplane/worker/worker_stats.h"

namespace zg::dataplane {

inline constexpr uint64_t kNtpClientsMaxDefault = 1'000'000;
inline constexpr uint64_t kNtpClientsMaxLimit = uint64_t{1} << 30;

struct NtpTrustConfig {
  std::optional<core::NtpRateLimitConfig> rate_limit;  // nullopt: off
  bool rate_kod = false;  // excess requests get KoD RATE (limited per client)
  uint64_t clients_max = kNtpClientsMaxDefault;  // all workers together
  bool prefetch = true;  // prefetch each burst's buckets (benchmarks: off)

  bool any() const { return rate_limit.has_value(); }
};

// From the flag values: --ntp_ratelimit ("" or "off": off; "on": chrony's
// defaults; else interval=I,burst=B,leak=L), --ntp_ratelimit_kod,
// --ntp_clients_max. Errors name the flag.
absl::StatusOr<NtpTrustConfig> BuildNtpTrustConfig(absl::string_view ratelimit,
                                                   bool rate_kod,
                                                   uint64_t clients_max);

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
};

// One worker's policy: used by that worker alone.
class NtpTrustPolicy final : public NtpRequestPolicy {
 public:
  NtpTrustPolicy(std::unique_ptr<core::NtpClientTable> table, bool prefetch,
                 uint8_t drop_rate_limited, NtpTrustWorkerStats* stats)
      : table_(std::move(table)),
        prefetch_(prefetch),
        drop_rate_limited_(drop_rate_limited),
        stats_(stats) {}

  NtpPolicyVerdict Check(const core::FrameInfo& request,
                         const core::NtpRequestCheck& check,
                         core::TaiNs rx_time) override;
  bool WantsPrefetch() const override { return prefetch_ && table_; }
  void Prefetch(const core::FrameInfo& request) override {
    table_->Prefetch(KeyOf(request));
  }

  static core::NtpClientKey KeyOf(const core::FrameInfo& f) {
    return f.ip_version == 6 ? core::NtpClientKey::V6(f.src_ipv6)
                             : core::NtpClientKey::V4(f.src_ipv4);
  }
  const core::NtpClientTable* table() const { return table_.get(); }

 private:
  NtpPolicyVerdict RateLimit(const core::FrameInfo& request, core::TaiNs rx);

  std::unique_ptr<core::NtpClientTable> table_;  // null: no rate limit
  bool prefetch_;
  uint8_t drop_rate_limited_;
  NtpTrustWorkerStats* stats_;  // owned by the factory
  uint64_t seen_inserted_ = 0;  // table inserts already in stats_
};

class NtpTrustPolicyFactory final : public NtpPolicyFactory {
 public:
  NtpTrustPolicyFactory();
  ~NtpTrustPolicyFactory() override;

  // Sets the configuration (tests, benchmarks; the daemon's comes from the
  // flags through plugin()->Configure). Before Create.
  void SetConfig(NtpTrustConfig config) { config_ = std::move(config); }
  const NtpTrustConfig& config() const { return config_; }

  absl::Status RegisterNames(CounterNames& names) override;
  // Null when nothing is configured.
  absl::StatusOr<std::unique_ptr<NtpRequestPolicy>> Create(
      const WorkerSetup& setup) override;

  // The control side as a pipeline plugin (no handlers of its own):
  // Configure reads the flags, AddMetrics/UpdateMetrics export the counters.
  ProtocolPlugin* plugin();

  // Every worker's counters (control thread, tests).
  const std::vector<std::unique_ptr<NtpTrustWorkerStats>>& worker_stats()
      const {
    return stats_;
  }
  uint8_t drop_rate_limited() const { return drop_rate_limited_; }
  // The table size each worker gets.
  static uint64_t PerWorkerClients(uint64_t clients_max, size_t workers);

 private:
  class Plugin;
  NtpTrustConfig config_;
  uint8_t drop_rate_limited_ = 0;
  std::vector<std::unique_ptr<NtpTrustWorkerStats>> stats_;
  std::unique_ptr<Plugin> plugin_;
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_NTP_NTP_TRUST_POLICY_H_
