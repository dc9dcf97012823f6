// SPDX-License-Identifier: Apache-2.0
#include "dataplane/ntp/nts_auth.h"

#include <openssl/crypto.h>

#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "core/base/status_macros.h"
#include "dataplane/daemon/flags.h"
#include "dataplane/daemon/log.h"
#include "dataplane/metrics/scrape_families.h"
#include "dataplane/trust/nts_master_key.h"
#include "dataplane/worker/worker.h"

namespace zg::dataplane {

namespace {

void Wipe(std::vector<uint8_t>& v) {
  OPENSSL_cleanse(v.data(), v.size());
  v.clear();
}

}  // namespace

absl::StatusOr<std::vector<uint8_t>> ReadNtsMasterKey(const std::string& path) {
  ZG_ASSIGN_OR_RETURN(const NtsMasterKey key, LoadNtsMasterKey(path));
  return std::vector<uint8_t>(key.bytes().begin(), key.bytes().end());
}

NtsFactory::NtsFactory()
    : unix_now_([] { return absl::ToUnixSeconds(absl::Now()); }) {}

NtsFactory::~NtsFactory() {
  Wipe(master_);
  Wipe(previous_master_);
}

absl::Status NtsFactory::Configure(const DaemonConfig& config) {
  if (!config.nts.enabled()) return absl::OkStatus();
  ZG_ASSIGN_OR_RETURN(std::vector<uint8_t> master,
                      ReadNtsMasterKey(config.nts.master_key));
  master_path_ = config.nts.master_key;
  max_cookies_ = config.nts.max_cookies_per_reply;
  ZG_RETURN_IF_ERROR(SetMasterKey(std::move(master), config.nts.keystore));
  LogInfo(absl::StrCat("NTS: cookie keys from ", master_path_, ", period ",
                       config_.period_s, " s, window -", config_.window_past,
                       "/+", config_.window_future, ", key id ",
                       CurrentKeystore()->current_key_id(), ", at most ",
                       max_cookies_, " cookies per reply"));
  return absl::OkStatus();
}

absl::Status NtsFactory::SetMasterKey(std::vector<uint8_t> master,
                                      const core::NtsKeystoreConfig& config) {
  Wipe(master_);
  master_ = std::move(master);
  config_ = config;
  pending_audit_ = "start";
  return Install();
}

absl::Status NtsFactory::Install() {
  const int64_t now = unix_now_();
  if (!previous_master_.empty() && now >= previous_until_unix_s_) {
    Wipe(previous_master_);
    LogInfo(
        "NTS: cookies of the previous master key have left the window: no "
        "longer accepted");
  }
  ZG_ASSIGN_OR_RETURN(
      core::NtsCookieKeystore ks,
      core::NtsCookieKeystore::Derive(master_, config_, now, previous_master_));
  auto shared = std::make_shared<const core::NtsCookieKeystore>(ks);
  period_end_unix_s_ = ks.current_period_end_unix_s();
  for (auto& k : keystores_) {
    // Cannot fail: not null.
    k->Publish(std::make_unique<const core::NtsCookieKeystore>(ks))
        .IgnoreError();
  }
  current_key_id_.store(shared->current_key_id(), std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(current_mu_);
  current_ = std::move(shared);
  return absl::OkStatus();
}

absl::Status NtsFactory::RegisterNames(CounterNames& names) {
  if (registered_) return absl::OkStatus();
  std::vector<absl::string_view> reasons;
  std::vector<core::NtsFailure> failures;
  for (size_t i = 1; i < core::kNtsFailureCount; ++i) {
    const auto f = static_cast<core::NtsFailure>(i);
    if (core::NtsFailureIsNak(f)) continue;
    reasons.push_back(core::NtsFailureName(f));
    failures.push_back(f);
  }
  ZG_ASSIGN_OR_RETURN(const uint8_t base,
                      names.AddDropReasonList("ntp_nts", reasons));
  for (size_t i = 0; i < failures.size(); ++i) {
    drops_.of[static_cast<size_t>(failures[i])] =
        static_cast<uint8_t>(base + i);
  }
  registered_ = true;
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<NtsWorkerAuth>> NtsFactory::Create(
    const WorkerSetup& setup) {
  if (!enabled()) return std::unique_ptr<NtsWorkerAuth>();
  ZG_ASSIGN_OR_RETURN(core::AesCtrRandom random, core::AesCtrRandom::FromOs());
  std::shared_ptr<const core::NtsCookieKeystore> ks = CurrentKeystore();
  keystores_.push_back(
      std::make_unique<SwappableConfig<core::NtsCookieKeystore>>(
          std::make_unique<const core::NtsCookieKeystore>(*ks)));
  stats_.push_back(std::make_unique<NtsWorkerStats>());
  worker_index_.push_back(setup.worker_index);
  return std::make_unique<NtsWorkerAuth>(keystores_.back().get(),
                                         std::move(random), stats_.back().get(),
                                         drops_, max_cookies_);
}

void NtsFactory::Audit(const ControlTick& tick, const std::string& why) {
  const std::shared_ptr<const core::NtsCookieKeystore> ks = CurrentKeystore();
  LogInfo(absl::StrCat("NTS: cookie key id ", ks->current_key_id(), " (", why,
                       ")"));
  if (!tick.audit) return;
  tick.audit({{"component", std::string("nts")},
              {"reason", why},
              {"nts_key_id", static_cast<int64_t>(ks->current_key_id())},
              {"nts_key_period_s", static_cast<int64_t>(config_.period_s)}});
}

void NtsFactory::ControlStep(const ControlTick& tick) {
  if (!enabled()) return;
  if (unix_now_() >= period_end_unix_s_) {
    const absl::Status s = Install();
    if (!s.ok()) {
      // Derive fails only for a bad master key or config, which
      // SetMasterKey already accepted: keep the old keys, say so.
      LogWarning(absl::StrCat("NTS: key rotation failed: ", s.message()));
      period_end_unix_s_ = unix_now_() + 1;
      return;
    }
    ++rotations_;
    pending_audit_ = "rotation";
  }
  if (!pending_audit_.empty()) {
    Audit(tick, pending_audit_);
    pending_audit_.clear();
  }
}

absl::Status NtsFactory::Reload(const ReloadArgs& reload) {
  const NtsConfig& c = reload.config->nts;
  if (c.enabled() != enabled()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "--nts_master_key: turning NTS ", c.enabled() ? "on" : "off",
        " needs a restart (a reload changes the key, not whether there is "
        "one)"));
  }
  if (!c.enabled()) return absl::OkStatus();
  ZG_ASSIGN_OR_RETURN(std::vector<uint8_t> next,
                      ReadNtsMasterKey(c.master_key));
  // Validate now (Derive checks the key and the window); publish at commit.
  if (next == master_ && c.keystore.period_s == config_.period_s &&
      c.keystore.window_past == config_.window_past &&
      c.keystore.window_future == config_.window_future) {
    Wipe(next);
    return absl::OkStatus();  // unchanged: nothing to publish or audit
  }
  ZG_RETURN_IF_ERROR(
      core::NtsCookieKeystore::Derive(next, c.keystore, unix_now_()).status());
  auto shared = std::make_shared<std::vector<uint8_t>>(std::move(next));
  reload.plan->Stage(
      absl::StrCat("nts master key: ", c.master_key, ", period ",
                   c.keystore.period_s, " s, window -", c.keystore.window_past,
                   "/+", c.keystore.window_future),
      [this, shared, c]() mutable {
        if (*shared != master_) KeepAsPrevious();
        Wipe(master_);
        master_ = std::move(*shared);
        config_ = c.keystore;
        master_path_ = c.master_key;
        if (Install().ok()) pending_audit_ = "reload (SIGHUP)";
      });
  return absl::OkStatus();
}

void NtsFactory::KeepAsPrevious() {
  // The last cookies master_ sealed carry the current period; they stay in
  // the window until window_past more periods have ended.
  const std::shared_ptr<const core::NtsCookieKeystore> ks = CurrentKeystore();
  const uint64_t last_period = ks->current_period() + config_.window_past;
  const uint64_t limit =
      static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  previous_until_unix_s_ =
      last_period + 1 > limit / config_.period_s
          ? std::numeric_limits<int64_t>::max()
          : static_cast<int64_t>((last_period + 1) * config_.period_s);
  Wipe(previous_master_);
  previous_master_ = master_;
  LogInfo(absl::StrCat(
      "NTS: master key replaced; cookies of the previous one are accepted "
      "until unix time ",
      previous_until_unix_s_));
}

std::shared_ptr<const core::NtsCookieKeystore> NtsFactory::CurrentKeystore()
    const {
  std::lock_guard<std::mutex> lock(current_mu_);
  return current_;
}

std::shared_ptr<prometheus::Collectable> NtsFactory::ScrapeCollectable() const {
  return std::make_shared<FamiliesCollectable>([this](ScrapeFamilies& f) {
    const char* replies = "zeitgeber_ntp_nts_replies_total";
    const char* replies_help = "NTS-authenticated NTP replies sent";
    f.Declare(replies, replies_help, prometheus::MetricType::Counter);
    for (size_t w = 0; w < stats_.size(); ++w) {
      f.Counter(replies, replies_help,
                {{"worker", absl::StrCat(worker_index_[w])}},
                static_cast<double>(stats_[w]->replies.Load()));
    }
    for (size_t r = 0; r < kNtsNakReasons; ++r) {
      const auto why = static_cast<core::NtsFailure>(
          static_cast<size_t>(core::NtsFailure::kCookieBadLength) + r);
      uint64_t naks = 0;
      for (const auto& st : stats_) naks += st->naks[r].Load();
      f.Counter("zeitgeber_ntp_nts_naks_total",
                "NTS NAKs (KoD NTSN) sent, by why the cookie was refused",
                {{"reason", core::NtsFailureName(why)}},
                static_cast<double>(naks));
    }
    f.Gauge(
        "zeitgeber_ntp_nts_key_id",
        "Key id (period number) new NTS cookies are sealed with", {},
        static_cast<double>(current_key_id_.load(std::memory_order_relaxed)));
  });
}

void NtsFactory::Report() {
  if (!enabled()) return;
  uint64_t replies = 0, naks = 0;
  for (const auto& s : stats_) {
    replies += s->replies.Load();
    for (const auto& n : s->naks) naks += n.Load();
  }
  LogInfo(absl::StrCat("NTS: replies=", replies, " naks=", naks,
                       " key rotations=", rotations_));
}

}  // namespace zg::dataplane
