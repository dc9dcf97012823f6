// SPDX-License-Identifier: Apache-2.0
// The NTS-KE server's metrics (dataplane/nts/nts_ke_server.h): the
// zeitgeber_nts_ke_* families, advanced on the control thread from the
// counters the KE thread keeps, and the final log line.
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "dataplane/daemon/log.h"
#include "dataplane/nts/nts_ke_server.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"

namespace zg::dataplane {

// The exported series and the totals they were last advanced to.
struct NtsKeServer::Series {
  prometheus::Counter* handshakes_ok = nullptr;
  prometheus::Counter* handshakes_failed = nullptr;
  prometheus::Gauge* active = nullptr;
  prometheus::Counter* rejected = nullptr;
  prometheus::Counter* timeouts_handshake = nullptr;
  prometheus::Counter* timeouts_request = nullptr;
  prometheus::Counter* record_errors[core::kNtsKeErrorCodeCount] = {};
  prometheus::Counter* responses_cookies = nullptr;
  prometheus::Counter* responses_no_common = nullptr;
  prometheus::Counter* responses_error = nullptr;
  prometheus::Counter* cookies = nullptr;
  std::vector<double> last = std::vector<double>(16, 0.0);
};

void NtsKeServer::SeriesDeleter::operator()(Series* s) const { delete s; }

absl::Status NtsKeServer::AddMetrics(prometheus::Registry& registry) {
  series_.reset(new Series);
  Series& s = *series_;
  auto& hs = prometheus::BuildCounter()
                 .Name("zeitgeber_nts_ke_handshakes_total")
                 .Help("NTS-KE TLS handshakes finished, by result")
                 .Register(registry);
  s.handshakes_ok = &hs.Add({{"result", "ok"}});
  s.handshakes_failed = &hs.Add({{"result", "failed"}});
  s.active = &prometheus::BuildGauge()
                  .Name("zeitgeber_nts_ke_connections_active")
                  .Help("NTS-KE connections open")
                  .Register(registry)
                  .Add({});
  s.rejected = &prometheus::BuildCounter()
                    .Name("zeitgeber_nts_ke_connections_rejected_total")
                    .Help(
                        "NTS-KE connections closed at accept: over "
                        "--nts_ke_max_connections")
                    .Register(registry)
                    .Add({});
  auto& to = prometheus::BuildCounter()
                 .Name("zeitgeber_nts_ke_timeouts_total")
                 .Help("NTS-KE connections cut off at a timeout, by phase")
                 .Register(registry);
  s.timeouts_handshake = &to.Add({{"phase", "handshake"}});
  s.timeouts_request = &to.Add({{"phase", "request"}});
  auto& re = prometheus::BuildCounter()
                 .Name("zeitgeber_nts_ke_records_errors_total")
                 .Help("NTS-KE Error records sent, by error code")
                 .Register(registry);
  for (size_t i = 0; i < core::kNtsKeErrorCodeCount; ++i) {
    s.record_errors[i] = &re.Add(
        {{"code",
          core::NtsKeErrorCodeName(static_cast<core::NtsKeErrorCode>(i))}});
  }
  auto& rs = prometheus::BuildCounter()
                 .Name("zeitgeber_nts_ke_responses_total")
                 .Help("NTS-KE responses sent, by kind")
                 .Register(registry);
  s.responses_cookies = &rs.Add({{"result", "cookies"}});
  s.responses_no_common = &rs.Add({{"result", "no_common"}});
  s.responses_error = &rs.Add({{"result", "error"}});
  s.cookies = &prometheus::BuildCounter()
                   .Name("zeitgeber_nts_ke_cookies_issued_total")
                   .Help("NTS cookies issued in NTS-KE responses")
                   .Register(registry)
                   .Add({});
  UpdateMetrics();
  return absl::OkStatus();
}

void NtsKeServer::UpdateMetrics() {
  if (series_ == nullptr) return;
  Series& s = *series_;
  uint64_t errors = 0;
  for (const auto& e : stats_.record_errors) errors += e.load();
  const std::pair<prometheus::Counter*, uint64_t> counters[] = {
      {s.handshakes_ok, stats_.handshakes_ok.load()},
      {s.handshakes_failed, stats_.handshakes_failed.load()},
      {s.rejected, stats_.connections_rejected.load()},
      {s.timeouts_handshake, stats_.timeouts_handshake.load()},
      {s.timeouts_request, stats_.timeouts_request.load()},
      {s.record_errors[0], stats_.record_errors[0].load()},
      {s.record_errors[1], stats_.record_errors[1].load()},
      {s.record_errors[2], stats_.record_errors[2].load()},
      {s.responses_cookies, stats_.responses_cookies.load()},
      {s.responses_no_common, stats_.responses_no_common.load()},
      {s.responses_error, errors},
      {s.cookies, stats_.cookies_issued.load()},
  };
  for (size_t i = 0; i < std::size(counters); ++i) {
    const double v = static_cast<double>(counters[i].second);
    if (v > s.last[i]) counters[i].first->Increment(v - s.last[i]);
    s.last[i] = v;
  }
  s.active->Set(static_cast<double>(stats_.connections_active.load()));
}

void NtsKeServer::Report() {
  LogInfo(absl::StrCat("NTS-KE: handshakes ok=", stats_.handshakes_ok.load(),
                       " failed=", stats_.handshakes_failed.load(),
                       " rejected=", stats_.connections_rejected.load(),
                       " timeouts handshake=", stats_.timeouts_handshake.load(),
                       " request=", stats_.timeouts_request.load(),
                       " cookies=", stats_.cookies_issued.load()));
}

}  // namespace zg::dataplane
