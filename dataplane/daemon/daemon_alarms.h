// SPDX-License-Identifier: Apache-2.0
// DaemonAlarms: the alarm conditions only the data plane can judge, set on
// the control plane's AlarmSet (servo/alarms/alarm_set.h) from the control
// thread between Ticks:
//   link_down                    per port, from the polled link state
//   worker_stalled               per worker, heartbeat older than 1 s
//   config_reload_failed         the last SIGHUP reload's outcome
//   nts_ke_refusing              NTS-KE connections refused lately (by
//                                reason, and the source refused most)
//   nts_ke_certificate_expiring  --nts_cert's notAfter within 14 days
//   draining, withdrawn,         the fleet's inputs (SetDraining/
//   bgp_speaker_unreachable      SetWithdrawn/SetBgpSpeakerUnreachable),
//                                cleared until it sets them
//
//   DaemonAlarms alarms(&control->alarms(), {"port0"}, workers, tsc_hz);
//   alarms.UpdateLinks({port->link().up}, mono_ns);     // each loop
//   alarms.UpdateWorkers(heartbeats, ReadTsc(), mono_ns);
//
// Control thread only.
#ifndef ZG_DATAPLANE_DAEMON_DAEMON_ALARMS_H_
#define ZG_DATAPLANE_DAEMON_DAEMON_ALARMS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/time/time_types.h"
#include "servo/alarms/alarm_set.h"

namespace zg::dataplane {

// The NTS-KE server's refusals since start (NtsKeServer::refusals()).
struct NtsKeRefusalCounts {
  uint64_t rate_limited = 0;  // a source over --nts_ke_ratelimit
  uint64_t full = 0;          // every --nts_ke_max_connections slot taken
  std::string top_source;     // refused most lately ("": not known)
  uint64_t total() const { return rate_limited + full; }
};

// A worker whose heartbeat is older than this is stalled.
inline constexpr int64_t kWorkerStallNs = 1'000'000'000;

class DaemonAlarms {
 public:
  DaemonAlarms(servo::AlarmSet* alarms, std::vector<std::string> ports,
               size_t workers, double tsc_hz);

  // link_up[i]: port i's link now.
  void UpdateLinks(const std::vector<bool>& link_up, int64_t mono_ns);
  // heartbeat_tsc[i]: worker i's last loop (0: not started yet).
  void UpdateWorkers(absl::Span<const uint64_t> heartbeat_tsc, uint64_t now_tsc,
                     int64_t mono_ns);
  // A SIGHUP reload's outcome: ok, or rejected with `error`.
  void OnReload(bool ok, const std::string& error, int64_t mono_ns);
  // NTS-KE: its refusals and the certificate's expiry. The alarm is
  // noticed whenever the refusals grew since the previous call.
  void UpdateNtsKe(const NtsKeRefusalCounts& refused,
                   std::optional<core::UtcNs> certificate_not_after,
                   core::UtcNs now, int64_t mono_ns);
  // The fleet's inputs (the anycast/drain control sets them).
  void SetDraining(bool draining, const std::string& why, int64_t mono_ns);
  void SetWithdrawn(bool withdrawn, const std::string& why, int64_t mono_ns);
  void SetBgpSpeakerUnreachable(bool unreachable, const std::string& why,
                                int64_t mono_ns);

 private:
  servo::AlarmSet* alarms_;
  std::vector<std::string> ports_;
  double tsc_hz_;
  NtsKeRefusalCounts nts_refused_;
  bool nts_seen_ = false;
};

// The notAfter of the first certificate in a PEM file (--nts_cert).
absl::StatusOr<core::UtcNs> CertificateNotAfter(const std::string& pem_path);

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_DAEMON_ALARMS_H_
