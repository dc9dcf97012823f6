// SPDX-License-Identifier: Apache-2.0
// The NTS-KE server's metrics (dataplane/nts/nts_ke_server.h): the
// zeitgeber_nts_ke_* families, read from the counters the KE thread keeps
// when Prometheus scrapes, and the final log line.
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "dataplane/daemon/log.h"
#include "dataplane/metrics/scrape_families.h"
#include "dataplane/nts/nts_ke_server.h"

namespace zg::dataplane {

namespace {

double Load(const std::atomic<uint64_t>& v) {
  return static_cast<double>(v.load(std::memory_order_relaxed));
}

void CollectNtsKe(const NtsKeStats& st, ScrapeFamilies& f) {
  const char* hs = "zeitgeber_nts_ke_handshakes_total";
  const char* hs_help = "NTS-KE TLS handshakes finished, by result";
  f.Counter(hs, hs_help, {{"result", "ok"}}, Load(st.handshakes_ok));
  f.Counter(hs, hs_help, {{"result", "failed"}}, Load(st.handshakes_failed));
  f.Gauge("zeitgeber_nts_ke_connections_active", "NTS-KE connections open", {},
          Load(st.connections_active));
  for (core::NtsKeRefusal r :
       {core::NtsKeRefusal::kRateLimited, core::NtsKeRefusal::kFull}) {
    f.Counter("zeitgeber_nts_ke_connections_rejected_total",
              "NTS-KE connections closed at accept, by reason: rate_limited "
              "(the source's --nts_ke_ratelimit bucket), full (every "
              "--nts_ke_max_connections slot taken, none to reclaim fairly)",
              {{"reason", core::NtsKeRefusalName(r)}},
              Load(st.connections_rejected[static_cast<size_t>(r)]));
  }
  f.Counter("zeitgeber_nts_ke_connections_cut_total",
            "NTS-KE connections closed, idle, to let another source in when "
            "every slot was taken (the source holding the most gives one up)",
            {}, Load(st.connections_cut));
  f.Gauge("zeitgeber_nts_ke_sources",
          "NTS-KE sources (IPv4 addresses, IPv6 /64s) with a rate-limit "
          "record",
          {}, Load(st.sources));
  const char* to = "zeitgeber_nts_ke_timeouts_total";
  const char* to_help = "NTS-KE connections cut off at a timeout, by phase";
  f.Counter(to, to_help, {{"phase", "handshake"}}, Load(st.timeouts_handshake));
  f.Counter(to, to_help, {{"phase", "request"}}, Load(st.timeouts_request));
  double errors = 0;
  for (size_t i = 0; i < core::kNtsKeErrorCodeCount; ++i) {
    errors += Load(st.record_errors[i]);
    f.Counter("zeitgeber_nts_ke_records_errors_total",
              "NTS-KE Error records sent, by error code",
              {{"code", core::NtsKeErrorCodeName(
                            static_cast<core::NtsKeErrorCode>(i))}},
              Load(st.record_errors[i]));
  }
  const char* rs = "zeitgeber_nts_ke_responses_total";
  const char* rs_help = "NTS-KE responses sent, by kind";
  f.Counter(rs, rs_help, {{"result", "cookies"}}, Load(st.responses_cookies));
  f.Counter(rs, rs_help, {{"result", "no_common"}},
            Load(st.responses_no_common));
  f.Counter(rs, rs_help, {{"result", "error"}}, errors);
  f.Counter("zeitgeber_nts_ke_cookies_issued_total",
            "NTS cookies issued in NTS-KE responses", {},
            Load(st.cookies_issued));
}

}  // namespace

std::shared_ptr<prometheus::Collectable> NtsKeServer::ScrapeCollectable()
    const {
  return std::make_shared<FamiliesCollectable>(
      [stats = std::shared_ptr<const NtsKeStats>(stats_)](ScrapeFamilies& f) {
        CollectNtsKe(*stats, f);
      });
}

void NtsKeServer::Report() {
  LogInfo(absl::StrCat(
      "NTS-KE: handshakes ok=", stats_->handshakes_ok.load(),
      " failed=", stats_->handshakes_failed.load(), " rejected rate_limited=",
      stats_
          ->connections_rejected[static_cast<size_t>(
              core::NtsKeRefusal::kRateLimited)]
          .load(),
      " full=",
      stats_
          ->connections_rejected[static_cast<size_t>(core::NtsKeRefusal::kFull)]
          .load(),
      " cut=", stats_->connections_cut.load(),
      " timeouts handshake=", stats_->timeouts_handshake.load(),
      " request=", stats_->timeouts_request.load(),
      " cookies=", stats_->cookies_issued.load()));
}

}  // namespace zg::dataplane
