// SPDX-License-Identifier: Apache-2.0
// zeitgeberd on a veth rig (tests/util/netns.h), in either deploy mode, and
// the real clients and tools the e2e tests drive against it.
//
// Deploy modes, both on net_af_xdp over the rig's host-side veth:
//   kDpdkOwnsPort  no xdp_prog: the PMD's default XDP program hands every
//                  frame to zeitgeberd, which answers ARP, ICMP, NS and NTP
//                  itself; the host-side veth has no address (as a port
//                  bound to vfio-pci, or owned by mlx5's PMD, would).
//   kXdpSteering   xdp_prog=zg_xdp.o: only NTP/PTP to --address reaches
//                  zeitgeberd; the kernel keeps the same addresses on the
//                  veth and answers ARP, ND and ping itself.
//
//   ZG_ASSIGN_OR_RETURN(auto rig, NetnsRig::Create(config));
//   ZG_ASSIGN_OR_RETURN(auto zg, Zeitgeberd::Start(*rig, config, {}));
//   ZG_ASSIGN_OR_RETURN(NtpdigSample s, Ntpdig(*rig, rig->server_ip()));
//   ZG_ASSIGN_OR_RETURN(std::string text, zg->ScrapeMetrics());
//   double n = MetricSum(text, "zeitgeber_frames_replied_total",
//                        {{"kind", "ntp"}});
//   // Counters are published once per --stats_interval: wait for the event
//   // (the counter reaching its value), then check it exactly.
//   ZG_ASSIGN_OR_RETURN(text, zg->WaitForMetrics(
//       {{"zeitgeber_frames_replied_total", {{"kind", "ntp"}}, 6}}));
//
// The binaries come from the environment meson sets: ZG_ZEITGEBERD and
// ZG_XDP_OBJ.
#ifndef ZG_TESTS_E2E_ZEITGEBERD_RIG_H_
#define ZG_TESTS_E2E_ZEITGEBERD_RIG_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "tests/util/netns.h"
#include "tests/util/subprocess.h"
#include "tests/util/temp_dir.h"

namespace zg::e2e {

enum class DeployMode { kDpdkOwnsPort, kXdpSteering };

// --idle_sleep in kXdpSteering (zeitgeberd_rig.cc says why); ptp_lib.sh
// passes the same.
inline constexpr char kE2eIdleSleep[] = "50us";
const char* DeployModeName(DeployMode mode);  // "dpdk_owns_port", ...

// The PMD on the host-side veth. net_af_xdp is how zeitgeberd is deployed;
// but DPDK 22.11's net_af_xdp takes its queue count from the interface's
// combined channels, which veth does not have, so on veth it runs one queue.
// net_af_packet (qpairs=N, PACKET_FANOUT_HASH: flows spread by hash, like
// RSS) is the multi-queue veth for tests of several workers; it behaves as
// kDpdkOwnsPort (the kernel keeps no address on the veth).
enum class Pmd { kAfXdp, kAfPacket };

struct ZeitgeberdOptions {
  DeployMode mode = DeployMode::kXdpSteering;
  Pmd pmd = Pmd::kAfXdp;
  int workers = 1;  // one RX/TX queue each; the rig needs as many queues
  // Scheduling priority (nice -20..19). A deployment gives each busy-polling
  // worker an isolated core; on a machine shared with builds, a niced worker
  // is what keeps a frame from waiting for the scheduler before its RX stamp
  // (which clients would see as path asymmetry).
  int nice = 0;
  std::vector<std::string> extra_flags;
};

// A counter that must reach `value`: the MetricSum of `name` over the
// samples with `labels`.
struct MetricTarget {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
};

class Zeitgeberd {
 public:
  // Starts zeitgeberd on rig.host_if() serving config's server addresses,
  // and waits (up to 30 s in all) until its workers run.
  static absl::StatusOr<std::unique_ptr<Zeitgeberd>> Start(
      const testutil::NetnsRig& rig, const testutil::RigConfig& config,
      const ZeitgeberdOptions& options);
  ~Zeitgeberd();  // SIGKILLs it if still running

  // One scrape of /metrics, bounded by `timeout`.
  absl::StatusOr<std::string> ScrapeMetrics(
      absl::Duration timeout = absl::Seconds(10)) const;
  // Scrapes /metrics until every target has reached its value (>=: the
  // caller checks exact values on the scrape returned), within `timeout` in
  // all. DeadlineExceeded, naming each target short of its value with what
  // the last scrape showed, when the time runs out.
  absl::StatusOr<std::string> WaitForMetrics(
      const std::vector<MetricTarget>& targets,
      absl::Duration timeout = absl::Seconds(15)) const;
  // SIGTERM; OK if it exits with status 0 within 30 s.
  absl::Status Stop();
  // SIGHUP: reload (dataplane/daemon/config_reload.h).
  absl::Status Hangup() const;
  // SIGKILL, and reaped: no clean stop (the control socket file stays).
  void Kill();
  pid_t pid() const;
  // zgctl's way in: a socket of this instance's own (in a temporary
  // directory others may enter), unless extra_flags chose one.
  const std::string& control_socket() const { return control_socket_; }
  std::string Log() const;
  // The MAC of the port (the host-side veth's).
  const std::string& mac() const { return mac_; }

 private:
  Zeitgeberd() = default;
  std::unique_ptr<testutil::TempDir> socket_dir_;
  std::string control_socket_;
  std::unique_ptr<testutil::Subprocess> proc_;
  int metrics_port_ = 0;
  std::string mac_;
};

// The sum of every sample of `name` whose labels include all of `labels`
// (0 if none), from a Prometheus text exposition.
double MetricSum(const std::string& exposition, const std::string& name,
                 const std::map<std::string, std::string>& labels = {});

// ntpdig (ntpsec) once against `server` from the rig's namespace, at a
// real-time priority where chrt works (ntpdig is Python and reads its clock
// around user-space work: on a busy machine its own delays dominate).
struct NtpdigSample {
  double offset_s = 0;
  double distance_s = 0;  // ntpdig's synchronisation distance ("precision")
  int stratum = 0;
  std::string leap;
};
// Killed after `timeout` (ntpdig's own -t is at most 3 s).
absl::StatusOr<NtpdigSample> Ntpdig(const testutil::NetnsRig& rig,
                                    const std::string& server,
                                    absl::Duration timeout = absl::Seconds(20));

// chronyd -Q (measure only: the clock is never touched) against `server`
// from the rig's namespace, with its own temporary pid file and socket.
// Returns the offset it reports ("System clock wrong by X seconds"). Its
// own -t is `timeout` less 2 s (at least 3 s), and it is killed at
// `timeout`.
absl::StatusOr<double> ChronydOffset(
    const testutil::NetnsRig& rig, const std::string& server,
    absl::Duration timeout = absl::Seconds(22));

// A raw AF_PACKET socket on an interface inside a namespace, for frames no
// kernel socket would send (bad checksums, fragments).
class NamespacePacketSocket {
 public:
  static absl::StatusOr<NamespacePacketSocket> Open(const std::string& ns,
                                                    const std::string& ifname);
  NamespacePacketSocket(NamespacePacketSocket&& o) noexcept : fd_(o.fd_) {
    o.fd_ = -1;
  }
  NamespacePacketSocket(const NamespacePacketSocket&) = delete;
  ~NamespacePacketSocket();
  // Sends one Ethernet frame (no FCS).
  absl::Status Send(absl::Span<const uint8_t> frame) const;

 private:
  explicit NamespacePacketSocket(int fd) : fd_(fd) {}
  int fd_ = -1;
};

// tcpdump's closing statistics (its stderr at exit): "N packets dropped by
// kernel" (0 if absent) and "N packets received by filter" (-1 if absent).
double TcpdumpDropped(const std::string& tcpdump_stderr);
double FilterReceived(const std::string& tcpdump_stderr);

// The MAC of `ifname` ("aa:bb:..") in namespace `ns` ("" for this one).
absl::StatusOr<std::string> InterfaceMac(const std::string& ns,
                                         const std::string& ifname);

}  // namespace zg::e2e

#endif  // ZG_TESTS_E2E_ZEITGEBERD_RIG_H_
