// SPDX-License-Identifier: Apache-2.0
// The NTS-KE server (RFC 8915 section 4): kernel TCP + TLS 1.3 on a thread
// of its own (never a worker, never the control thread). Each connection
// is: TLS handshake (ALPN "ntske/1", dataplane/nts/nts_ke_tls.h) -> one
// request (core/nts/nts_ke_records.h) -> one response with 8 cookies
// sealed by the current keystore -> close_notify and close.
//
// One epoll loop, non-blocking sockets. No single source (an IPv4
// address, an IPv6 /64) can starve the others (core/nts/
// nts_ke_admission.h), each accepted connection decided before any TLS:
//   - per source, chrony's ntsratelimit (--nts_ke_ratelimit, default one
//     connection per 64 s, bursts of 8, 1 in 4 past that let through):
//     over it, closed at once (connections_rejected_total{reason=
//     "rate_limited"});
//   - at most max_connections at once, shared fairly: when all are taken
//     the source holding the most gives up its connection idle the
//     longest (connections_cut_total) if it holds at least two more than
//     the newcomer would; else the newcomer is closed at once
//     (connections_rejected_total{reason="full"});
//   - a connection still in its handshake after handshake_timeout (2 s), or
//     one that has not been answered request_timeout (2 s) after its
//     handshake (slowloris), is cut off (timeouts_total{phase}).
// While connections are being refused, a warning (at the first refusal,
// then every 10 s) names the source refused most; refusals() gives the
// counts by reason and that source to the daemon's nts_ke_refusing alarm
// (dataplane/daemon/daemon_alarms.h). IPv4 and IPv6 listeners
// (IPV6_V6ONLY, so 0.0.0.0 and [::] coexist).
//
// Reload (SIGHUP, on the control thread): ReloadCertificate builds a new
// SSL_CTX from the files (any error keeps the old one) and swaps it in for
// new connections; established connections hold a reference to the one
// they started with (SSL_new takes one) and finish on it.
//
// Cookies come from `keystore()`, called once per request on the KE thread
// (zeitgeberd: the NTS factory's current keystore); null -> Internal Server
// Error (code 2). Cookie nonces: RAND_bytes.
//
// Metrics (prefix zeitgeber_nts_ke_):
//   handshakes_total{result="ok"|"failed"}   TLS handshakes finished
//   connections_active                       open connections
//   connections_rejected_total{reason}       closed at accept: rate_limited
//                                            (the source's bucket), full
//   connections_cut_total                    closed to let another source in
//   sources                                  sources with a record (rate)
//   timeouts_total{phase="handshake"|"request"}
//   records_errors_total{code="unrecognized_critical"|"bad_request"|
//                         "internal_server_error"}   Error records sent
//   responses_total{result="cookies"|"no_common"|"error"}
//   cookies_issued_total
//
//   ZG_ASSIGN_OR_RETURN(auto ke, NtsKeServer::Start(config.nts_ke,
//                                                   keystore_fn));
//   ... on SIGHUP: ke->ReloadCertificate(cert, key) (errors logged)
//   ke.reset();   // stops the thread, closes every socket
#ifndef ZG_DATAPLANE_NTS_NTS_KE_SERVER_H_
#define ZG_DATAPLANE_NTS_NTS_KE_SERVER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "core/nts/nts_cookie.h"
#include "core/nts/nts_ke_admission.h"
#include "core/nts/nts_ke_records.h"
#include "dataplane/nts/nts_ke_config.h"
#include "dataplane/nts/nts_ke_tls.h"
#include "dataplane/trust/reload.h"

namespace prometheus {
class Collectable;
}  // namespace prometheus

namespace zg::dataplane {

// Written by: the KE thread. Read by: metrics scrapes, tests.
struct NtsKeStats {
  std::atomic<uint64_t> handshakes_ok{0};
  std::atomic<uint64_t> handshakes_failed{0};
  std::atomic<uint64_t> connections_active{0};
  // By core::NtsKeRefusal (kNone unused).
  std::atomic<uint64_t> connections_rejected[core::kNtsKeRefusalCount] = {};
  std::atomic<uint64_t> connections_cut{0};  // fair share: another source
  std::atomic<uint64_t> sources{0};          // a level
  std::atomic<uint64_t> timeouts_handshake{0};
  std::atomic<uint64_t> timeouts_request{0};
  std::atomic<uint64_t> record_errors[core::kNtsKeErrorCodeCount] = {};
  std::atomic<uint64_t> responses_cookies{0};
  std::atomic<uint64_t> responses_no_common{0};
  std::atomic<uint64_t> cookies_issued{0};
};

// The answer to one complete request (or parse error): the bytes to send.
// Separate from the server so that the benchmark can time it alone. `keys`
// are the association's exported keys; `stats` may be null.
std::vector<uint8_t> AnswerNtsKeRequest(const core::NtsKeRequestParse& parse,
                                        const core::NtsKeys& keys,
                                        const core::NtsKeServerRecords& server,
                                        const core::NtsCookieKeystore* keystore,
                                        NtsKeStats* stats);

class NtsKeServer {
 public:
  // Loads the certificate and key, binds every address, starts the thread.
  static absl::StatusOr<std::unique_ptr<NtsKeServer>> Start(
      const NtsKeConfig& config, NtsKeystoreSource keystore);
  ~NtsKeServer();  // Stop()
  NtsKeServer(const NtsKeServer&) = delete;
  NtsKeServer& operator=(const NtsKeServer&) = delete;

  // Stops the thread and closes every connection and listener. Idempotent.
  void Stop();

  // New connections get a context built from these files; an error keeps
  // the one in force. Any thread.
  absl::Status ReloadCertificate(const std::string& cert_path,
                                 const std::string& key_path);
  // The reload protocol of dataplane/trust/reload.h: the flags it applies
  // and Reload, which builds the context from reload.config->nts_ke and
  // stages its swap.
  std::vector<std::string> ReloadableFlags() const {
    return {"nts_cert", "nts_key"};
  }
  absl::Status Reload(const ReloadArgs& reload);

  // The ports bound, in address order (port 0 in the config: the kernel's).
  const std::vector<uint16_t>& ports() const { return ports_; }
  const NtsKeStats& stats() const { return *stats_; }
  // The refusals since start, by reason, and the source refused most in
  // the latest report (the log's warning; empty before the first). Any
  // thread.
  struct Refusals {
    uint64_t rate_limited = 0;
    uint64_t full = 0;
    std::string top_source;
  };
  Refusals refusals() const;
  // How often the log names the source refused most, at most.
  static constexpr absl::Duration kRefusalReportEvery = absl::Seconds(10);

  // The zeitgeber_nts_ke_* families, read when Prometheus scrapes. The
  // collectable shares the counters, so it may outlive this server.
  std::shared_ptr<prometheus::Collectable> ScrapeCollectable() const;
  void Report();  // the final log line

 private:
  struct Conn;
  explicit NtsKeServer(const NtsKeConfig& config, NtsKeystoreSource keystore);
  absl::Status Listen();
  void Loop();
  void Accept(int listen_fd);
  void Drive(Conn& c);
  bool Handshake(Conn& c);
  bool ReadRequest(Conn& c);
  bool WriteResponse(Conn& c);
  void Watch(Conn& c, bool want_write);
  void PauseAccepting(const std::string& why);
  void SetListening(bool on);
  void Close(Conn& c);  // c stays valid until the end of the event batch
  // The open connection of `source` idle the longest (handshake first).
  Conn* Idlest(const core::NtsKeSource& source);
  void Refused(core::NtsKeRefusal reason, absl::Time now);
  void ReportRefusals(absl::Time now);  // at most every kRefusalReportEvery
  void ExpireTimeouts();
  int WaitMs() const;

  const NtsKeConfig config_;
  const core::NtsKeServerRecords records_;
  NtsKeystoreSource keystore_;
  std::vector<int> listeners_;  // KE thread (after Start)
  std::vector<uint16_t> ports_;
  int epoll_fd_ = -1;
  int stop_fd_ = -1;  // eventfd: Stop() writes, the KE thread wakes
  // Written by: ReloadCertificate (control thread). Read by: the KE thread
  // (one SSL_new per accept). Guarded by ctx_mu_.
  std::mutex ctx_mu_;
  SslCtxPtr ctx_;
  // KE thread only.
  std::vector<std::unique_ptr<Conn>> conns_;  // open connections, by slot
  std::vector<std::unique_ptr<Conn>> dead_;   // closed in this event batch
  core::NtsKeAdmission admission_;
  absl::Time last_refusal_report_ = absl::InfinitePast();
  absl::Time first_unreported_ = absl::InfinitePast();  // refusal
  uint64_t refused_since_report_ = 0;
  // Written by: the KE thread (ReportRefusals). Read by: refusals().
  mutable std::mutex top_refused_mu_;
  std::string top_refused_;  // guarded by top_refused_mu_
  absl::Time next_deadline_ = absl::InfiniteFuture();      // earliest, or later
  absl::Time accept_paused_until_ = absl::InfinitePast();  // past: accepting
  absl::Time last_pause_log_ = absl::InfinitePast();
  // Shared with the metrics' collectable.
  std::shared_ptr<NtsKeStats> stats_ = std::make_shared<NtsKeStats>();
  std::thread thread_;
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_NTS_NTS_KE_SERVER_H_
