// SPDX-License-Identifier: Apache-2.0
// DaemonAlarms (daemon_alarms.h): the data plane's alarm conditions.
#include "dataplane/daemon/daemon_alarms.h"

#include <openssl/asn1.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/time/time_format.h"
#include "servo/alarms/clock_alarms.h"

namespace zg::dataplane {

using servo::AlarmId;

DaemonAlarms::DaemonAlarms(servo::AlarmSet* alarms,
                           std::vector<std::string> ports, size_t workers,
                           double tsc_hz)
    : alarms_(alarms), ports_(std::move(ports)), tsc_hz_(tsc_hz) {
  for (const std::string& p : ports_) alarms_->Slot(AlarmId::kLinkDown, p);
  for (size_t i = 0; i < workers; ++i) {
    alarms_->Slot(AlarmId::kWorkerStalled, absl::StrCat(i));
  }
}

void DaemonAlarms::UpdateLinks(const std::vector<bool>& link_up,
                               int64_t mono_ns) {
  for (size_t i = 0; i < ports_.size() && i < link_up.size(); ++i) {
    alarms_->Set(
        AlarmId::kLinkDown, ports_[i], !link_up[i],
        absl::StrCat("port ", ports_[i], " link ", link_up[i] ? "up" : "down"),
        mono_ns);
  }
}

void DaemonAlarms::UpdateWorkers(absl::Span<const uint64_t> heartbeat_tsc,
                                 uint64_t now_tsc, int64_t mono_ns) {
  for (size_t i = 0; i < heartbeat_tsc.size(); ++i) {
    const uint64_t beat = heartbeat_tsc[i];
    const double age_s = beat == 0 || now_tsc < beat
                             ? 0.0
                             : static_cast<double>(now_tsc - beat) / tsc_hz_;
    const bool stalled = age_s * 1e9 > static_cast<double>(kWorkerStallNs);
    alarms_->Set(
        AlarmId::kWorkerStalled, absl::StrCat(i), stalled,
        stalled ? absl::StrFormat("worker %d has not looped for %.1f s: its "
                                  "queue is not served",
                                  i, age_s)
                : absl::StrCat("worker ", i, " looping"),
        mono_ns);
  }
}

void DaemonAlarms::OnReload(bool ok, const std::string& error,
                            int64_t mono_ns) {
  alarms_->Set(AlarmId::kConfigReloadFailed, "", !ok,
               ok ? std::string("configuration reloaded")
                  : absl::StrCat("reload rejected, the previous configuration "
                                 "stays: ",
                                 error),
               mono_ns);
}

void DaemonAlarms::UpdateNtsKe(const NtsKeRefusalCounts& refused,
                               std::optional<core::UtcNs> not_after,
                               core::UtcNs now, int64_t mono_ns) {
  if (nts_seen_ && refused.total() > nts_refused_.total()) {
    alarms_->Notice(
        AlarmId::kNtsKeRefusing, "",
        absl::StrCat(refused.total() - nts_refused_.total(),
                     " NTS-KE connection(s) refused: ",
                     refused.rate_limited - nts_refused_.rate_limited,
                     " over a source's rate limit (--nts_ke_ratelimit), ",
                     refused.full - nts_refused_.full,
                     " with every slot taken (--nts_ke_max_connections)",
                     refused.top_source.empty()
                         ? ""
                         : absl::StrCat("; refused most: ", refused.top_source),
                     " (", refused.total(), " since start)"),
        mono_ns);
  }
  nts_seen_ = true;
  nts_refused_ = refused;
  if (!not_after.has_value()) return;
  const int64_t left = not_after->value - now.value;
  alarms_->Set(
      AlarmId::kNtsKeCertificateExpiring, "", left < servo::kExpiryWarningNs,
      absl::StrCat("NTS-KE certificate ", left < 0 ? "expired " : "expires ",
                   core::FormatUtc(*not_after)),
      mono_ns);
}

void DaemonAlarms::SetDraining(bool draining, const std::string& why,
                               int64_t mono_ns) {
  alarms_->Set(AlarmId::kDraining, "", draining, why, mono_ns);
}

void DaemonAlarms::SetWithdrawn(bool withdrawn, const std::string& why,
                                int64_t mono_ns) {
  alarms_->Set(AlarmId::kWithdrawn, "", withdrawn, why, mono_ns);
}

void DaemonAlarms::SetBgpSpeakerUnreachable(bool unreachable,
                                            const std::string& why,
                                            int64_t mono_ns) {
  alarms_->Set(AlarmId::kBgpSpeakerUnreachable, "", unreachable, why, mono_ns);
}

absl::StatusOr<core::UtcNs> CertificateNotAfter(const std::string& pem_path) {
  FILE* f = std::fopen(pem_path.c_str(), "r");
  if (f == nullptr) {
    return absl::NotFoundError(absl::StrCat("cannot open ", pem_path));
  }
  X509* cert = PEM_read_X509(f, nullptr, nullptr, nullptr);
  std::fclose(f);
  if (cert == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(pem_path, ": no PEM certificate"));
  }
  struct tm tm = {};
  const int ok = ASN1_TIME_to_tm(X509_get0_notAfter(cert), &tm);
  X509_free(cert);
  if (ok != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(pem_path, ": unreadable notAfter"));
  }
  return core::UtcNs{int64_t{timegm(&tm)} * 1'000'000'000};
}

}  // namespace zg::dataplane
