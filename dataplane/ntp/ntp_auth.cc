// SPDX-License-Identifier: Apache-2.0
#include "dataplane/ntp/ntp_auth.h"

#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"
#include "dataplane/daemon/flags.h"
#include "dataplane/daemon/log.h"
#include "dataplane/metrics/scrape_families.h"
#include "dataplane/trust/ntp_keyfile.h"

namespace zg::dataplane {

namespace {

bool SameKeys(const core::NtpKeyTable& a, const core::NtpKeyTable& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const core::NtpKey& x = a.keys()[i];
    const core::NtpKey& y = b.keys()[i];
    if (x.id != y.id || x.type != y.type || x.secret != y.secret) return false;
  }
  return true;
}

}  // namespace

NtpAuthFactory::NtpAuthFactory() = default;
NtpAuthFactory::~NtpAuthFactory() = default;

absl::Status NtpAuthFactory::Configure(const DaemonConfig& config) {
  if (config.ntp_keys.empty()) {
    keys_ = nullptr;
    PublishKeyCount();
    return absl::OkStatus();
  }
  ZG_ASSIGN_OR_RETURN(keys_, LoadNtpKeyFile(config.ntp_keys));
  keys_path_ = config.ntp_keys;
  if (keys_->empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--ntp_keys: ", config.ntp_keys,
        " holds no keys (leave --ntp_keys unset to serve without keys)"));
  }
  PublishKeyCount();
  LogInfo(absl::StrCat("NTP keys: ", keys_->size(), " loaded from ",
                       config.ntp_keys));
  // As chronyd warns (keys.c MIN_SECURE_KEY_LENGTH): under 80 bits a key
  // can be guessed offline from one MACed packet.
  for (const core::NtpKey& k : keys_->keys()) {
    if (k.secret.size() < 10) {
      LogWarning(absl::StrCat(
          "NTP key ", k.id, " (", core::NtpKeyTypeName(k.type), ") has only ",
          k.secret.size() * 8, " bits: use at least 80 (chronyc keygen)"));
    }
  }
  return absl::OkStatus();
}

absl::Status NtpAuthFactory::RegisterNames(CounterNames& names) {
  ZG_ASSIGN_OR_RETURN(
      const uint8_t base,
      names.AddDropReasons("ntp_auth",
                           {"unknown_key", "bad_length", "bad_mac"}));
  drops_ = {base, static_cast<uint8_t>(base + 1),
            static_cast<uint8_t>(base + 2)};
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<NtpWorkerAuth>> NtpAuthFactory::Create(
    const WorkerSetup& setup) {
  if (!enabled()) return std::unique_ptr<NtpWorkerAuth>();
  ZG_ASSIGN_OR_RETURN(std::unique_ptr<core::NtpMacer> macer,
                      core::NtpMacer::Create(*keys_));
  macers_.push_back(std::make_unique<SwappableConfig<core::NtpMacer>>(
      std::unique_ptr<const core::NtpMacer>(std::move(macer))));
  stats_.push_back(std::make_unique<NtpAuthStats>());
  worker_index_.push_back(setup.worker_index);
  return std::make_unique<NtpWorkerAuth>(macers_.back().get(),
                                         stats_.back().get(), drops_);
}

absl::Status NtpAuthFactory::Reload(const ReloadArgs& reload) {
  const std::string& path = reload.config->ntp_keys;
  if (path.empty() != !enabled()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "--ntp_keys: turning symmetric keys ", path.empty() ? "off" : "on",
        " needs a restart (a reload changes the keys, not whether there are "
        "any)"));
  }
  if (path.empty()) return absl::OkStatus();
  ZG_ASSIGN_OR_RETURN(std::shared_ptr<const core::NtpKeyTable> next,
                      LoadNtpKeyFile(path));
  if (next->empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--ntp_keys: ", path, " holds no keys"));
  }
  if (path == keys_path_ && SameKeys(*next, *keys_)) return absl::OkStatus();
  std::vector<std::unique_ptr<const core::NtpMacer>> built;
  for (size_t w = 0; w < macers_.size(); ++w) {
    ZG_ASSIGN_OR_RETURN(std::unique_ptr<core::NtpMacer> m,
                        core::NtpMacer::Create(*next));
    built.push_back(std::move(m));
  }
  reload.plan->Stage(absl::StrCat("ntp keys: ", next->size(), " from ", path),
                     [this, next, path, built = std::move(built)]() mutable {
                       for (size_t w = 0; w < built.size(); ++w) {
                         // Cannot fail: built[w] is not null.
                         macers_[w]->Publish(std::move(built[w])).IgnoreError();
                       }
                       keys_ = std::move(next);
                       keys_path_ = path;
                       PublishKeyCount();
                     });
  return absl::OkStatus();
}

std::shared_ptr<prometheus::Collectable> NtpAuthFactory::ScrapeCollectable()
    const {
  return std::make_shared<FamiliesCollectable>([this](ScrapeFamilies& f) {
    const char* replies = "zeitgeber_ntp_auth_replies_total";
    const char* help =
        "NTP replies authenticated with a symmetric key, by key type";
    f.Declare(replies, help, prometheus::MetricType::Counter);
    for (size_t w = 0; w < stats_.size(); ++w) {
      for (size_t t = 0; t < core::kNtpKeyTypeCount; ++t) {
        f.Counter(replies, help,
                  {{"worker", absl::StrCat(worker_index_[w])},
                   {"algorithm",
                    core::NtpKeyTypeName(static_cast<core::NtpKeyType>(t))}},
                  static_cast<double>(stats_[w]->replies[t].Load()));
      }
    }
    f.Gauge("zeitgeber_ntp_auth_keys", "Symmetric NTP keys loaded (--ntp_keys)",
            {},
            static_cast<double>(key_count_.load(std::memory_order_relaxed)));
  });
}

void NtpAuthFactory::Report() {
  if (!enabled()) return;
  std::string line;
  for (size_t t = 0; t < core::kNtpKeyTypeCount; ++t) {
    uint64_t n = 0;
    for (const auto& s : stats_) n += s->replies[t].Load();
    absl::StrAppend(&line, " ",
                    core::NtpKeyTypeName(static_cast<core::NtpKeyType>(t)), "=",
                    n);
  }
  LogInfo(absl::StrCat("NTP authenticated replies:", line));
}

}  // namespace zg::dataplane
