// SPDX-License-Identifier: Apache-2.0
#include "tests/e2e/zeitgeberd_rig.h"

#include <fcntl.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "nlohmann/json.hpp"
#include "tests/util/deadline.h"
#include "tests/util/temp_dir.h"

namespace zg::e2e {
namespace {

using testutil::CommandResult;

absl::StatusOr<std::string> EnvPath(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') {
    return absl::FailedPreconditionError(absl::StrCat(
        name,
        " is not set: run this test through `meson test` (it names the "
        "zeitgeberd binary and zg_xdp.o)"));
  }
  return std::string(v);
}

absl::Status RunOk(const std::vector<std::string>& argv) {
  absl::StatusOr<CommandResult> r =
      testutil::RunCommand(argv, absl::Seconds(20));
  if (!r.ok()) return r.status();
  if (!r->ok()) return absl::InternalError(r->Describe());
  return absl::OkStatus();
}

// EAL core options for `workers` workers plus the main lcore: one core
// each where the machine has them, else lcores sharing cores.
std::vector<std::string> LcoreArgs(int workers) {
  const int cpus = static_cast<int>(std::thread::hardware_concurrency());
  if (cpus >= workers + 1) return {"-l", absl::StrCat("0-", workers)};
  std::vector<std::string> map;
  for (int i = 0; i <= workers; ++i) {
    // Worker i+1 on core (i+1) % cpus: the main lcore mostly sleeps.
    map.push_back(absl::StrCat(i, "@", i % std::max(cpus, 1)));
  }
  return {absl::StrCat("--lcores=", absl::StrJoin(map, ","))};
}

}  // namespace

const char* DeployModeName(DeployMode mode) {
  return mode == DeployMode::kDpdkOwnsPort ? "dpdk_owns_port" : "xdp_steering";
}

absl::StatusOr<std::unique_ptr<Zeitgeberd>> Zeitgeberd::Start(
    const testutil::NetnsRig& rig, const testutil::RigConfig& config,
    const ZeitgeberdOptions& options) {
  absl::StatusOr<std::string> bin = EnvPath("ZG_ZEITGEBERD");
  if (!bin.ok()) return bin.status();
  std::unique_ptr<Zeitgeberd> z(new Zeitgeberd());
  absl::StatusOr<std::string> mac = InterfaceMac("", rig.host_if());
  if (!mac.ok()) return mac.status();
  z->mac_ = *mac;
  const bool af_xdp = options.pmd == Pmd::kAfXdp;
  const std::string port = af_xdp ? "net_af_xdp0" : "net_af_packet0";
  std::string devargs = absl::StrCat(port, ",iface=", rig.host_if());
  if (options.workers > 1) {
    absl::StrAppend(&devargs,
                    af_xdp ? ",queue_count=" : ",qpairs=", options.workers);
  }
  if (af_xdp && options.mode == DeployMode::kXdpSteering) {
    absl::StatusOr<std::string> obj = EnvPath("ZG_XDP_OBJ");
    if (!obj.ok()) return obj.status();
    absl::StrAppend(&devargs, ",xdp_prog=", *obj);
    // The kernel keeps the served addresses: it answers ARP, ND and ping.
    if (absl::Status s = RunOk(
            {"ip", "addr", "add", config.server_cidr, "dev", rig.host_if()});
        !s.ok()) {
      return s;
    }
    if (!config.server_cidr6.empty()) {
      if (absl::Status s =
              RunOk({"ip", "-6", "addr", "add", config.server_cidr6, "dev",
                     rig.host_if(), "nodad"});
          !s.ok()) {
        return s;
      }
    }
  }
  static std::atomic<int> instance{0};
  std::vector<std::string> argv = {
      *bin,
      "--no-huge",
      "-m",
      "1024",
      "--no-shconf",
      "--no-pci",
      "--no-telemetry",
      absl::StrCat("--file-prefix=zge", getpid(), "_", instance++),
      "--log-level=lib.eal:warning"};
  for (std::string& a : LcoreArgs(options.workers)) argv.push_back(a);
  for (std::string a : {absl::StrCat("--vdev=", devargs), std::string("--"),
                        absl::StrCat("--port=", port),
                        absl::StrCat("--address=", config.server_cidr),
                        std::string("--metrics_address=127.0.0.1:0"),
                        // The host's clock is the reference whether or not an
                        // NTP client disciplines it (doc/deployment.md).
                        std::string("--require_system_clock_sync=false")}) {
    argv.push_back(a);
  }
  if (!config.server_cidr6.empty()) {
    argv.push_back(absl::StrCat("--address=", config.server_cidr6));
  }
  if (af_xdp && options.mode == DeployMode::kXdpSteering) {
    // An idle worker sleeps instead of spinning (CI shares 2 cores with
    // the sanitizer builds). RX stamps here are the XDP hook's, taken as
    // the frame arrives, so a frame waiting out a sleep keeps its stamp;
    // the other modes stamp at rx_burst and keep busy polling.
    argv.push_back(std::string("--idle_sleep=") + kE2eIdleSleep);
  }
  // A test that proves a family is read at scrape time sets a long
  // --stats_interval of its own.
  if (std::none_of(options.extra_flags.begin(), options.extra_flags.end(),
                   [](const std::string& f) {
                     return absl::StartsWith(f, "--stats_interval=");
                   })) {
    argv.push_back("--stats_interval=100ms");
  }
  const bool own_socket =
      std::none_of(options.extra_flags.begin(), options.extra_flags.end(),
                   [](const std::string& f) {
                     return absl::StartsWith(f, "--control_socket=");
                   });
  if (own_socket) {
    absl::StatusOr<testutil::TempDir> dir = testutil::TempDir::Create("zgsock");
    if (!dir.ok()) return dir.status();
    chmod(dir->path().c_str(), 0755);  // tests run zgctl as other users
    z->control_socket_ = dir->File("zeitgeberd.sock");
    z->socket_dir_ = std::make_unique<testutil::TempDir>(std::move(*dir));
    argv.push_back(absl::StrCat("--control_socket=", z->control_socket_));
  }
  // The status page is on by default on 127.0.0.1:9124, which two daemons
  // in this (the host's) namespace cannot share: off unless a test asks.
  if (std::none_of(options.extra_flags.begin(), options.extra_flags.end(),
                   [](const std::string& f) {
                     return absl::StartsWith(f, "--status_address=");
                   })) {
    argv.push_back("--status_address=");
  }
  for (const std::string& f : options.extra_flags) {
    argv.push_back(f);
    if (absl::StartsWith(f, "--control_socket=")) {
      z->control_socket_ = f.substr(strlen("--control_socket="));
    }
  }
  if (options.nice != 0) {
    argv.insert(argv.begin(), {"nice", "-n", absl::StrCat(options.nice)});
  }
  absl::StatusOr<std::unique_ptr<testutil::Subprocess>> proc =
      testutil::Subprocess::Start(argv);
  if (!proc.ok()) return proc.status();
  z->proc_ = std::move(*proc);
  // Start-up takes 1-3 s here (EAL, the AF_XDP socket, the first clock
  // model).
  const absl::Time deadline = testutil::DeadlineIn(absl::Seconds(30));
  while (z->Log().find("zeitgeberd running") == std::string::npos) {
    if (!z->proc_->Running() || absl::Now() > deadline) {
      return absl::InternalError(absl::StrCat("zeitgeberd did not start (",
                                              absl::StrJoin(argv, " "), "):\n",
                                              z->Log()));
    }
    absl::SleepFor(absl::Milliseconds(100));
  }
  const std::string log = z->Log();
  const size_t at = log.find("/metrics (port ");
  if (at == std::string::npos ||
      !absl::SimpleAtoi(log.substr(at + 15, log.find(')', at) - at - 15),
                        &z->metrics_port_)) {
    return absl::InternalError(
        absl::StrCat("no metrics port in zeitgeberd's log:\n", log));
  }
  return z;
}

Zeitgeberd::~Zeitgeberd() = default;  // the Subprocess kills what is left

absl::StatusOr<std::string> Zeitgeberd::ScrapeMetrics(
    absl::Duration timeout) const {
  // curl's own limit first (whole seconds, at least 1), so that it reports
  // what went wrong before the process deadline kills it.
  const int64_t curl_s =
      std::max<int64_t>(1, absl::ToInt64Seconds(timeout - absl::Seconds(1)));
  absl::StatusOr<CommandResult> r = testutil::RunCommand(
      {"curl", "-sf", "--max-time", absl::StrCat(curl_s),
       absl::StrCat("http://127.0.0.1:", metrics_port_, "/metrics")},
      std::max(timeout, absl::Seconds(curl_s) + absl::Milliseconds(500)));
  if (!r.ok()) return r.status();
  if (!r->ok()) return absl::InternalError(r->Describe());
  return r->stdout_text;
}

absl::StatusOr<std::string> Zeitgeberd::WaitForMetrics(
    const std::vector<MetricTarget>& targets, absl::Duration timeout) const {
  const absl::Time start = absl::Now();
  const absl::Time deadline = testutil::DeadlineIn(timeout);
  std::string last_error = "no scrape yet";
  for (;;) {
    const absl::Duration left = deadline - absl::Now();
    absl::StatusOr<std::string> m =
        ScrapeMetrics(std::clamp(left, absl::Seconds(1), absl::Seconds(5)));
    if (m.ok()) {
      std::vector<std::string> short_of;
      for (const MetricTarget& t : targets) {
        const double have = MetricSum(*m, t.name, t.labels);
        if (have >= t.value) continue;
        std::vector<std::string> labels;
        for (const auto& [k, v] : t.labels) {
          labels.push_back(absl::StrCat(k, "=\"", v, "\""));
        }
        short_of.push_back(absl::StrCat(t.name, "{", absl::StrJoin(labels, ","),
                                        "} is ", have, ", want ", t.value));
      }
      if (short_of.empty()) return *std::move(m);
      last_error = absl::StrJoin(short_of, "; ");
    } else {
      last_error = m.status().ToString();
    }
    if (absl::Now() >= deadline) {
      return absl::DeadlineExceededError(
          absl::StrCat("metrics not reached after ",
                       absl::FormatDuration(absl::Trunc(
                           absl::Now() - start, absl::Milliseconds(100))),
                       ": ", last_error));
    }
    // About one --stats_interval (100 ms): the next publication.
    absl::SleepFor(std::min(absl::Milliseconds(100), deadline - absl::Now()));
  }
}

absl::Status Zeitgeberd::Stop() {
  const CommandResult r = proc_->Stop(absl::Seconds(30));
  if (r.exit_code != 0 || r.term_signal != 0) {
    return absl::InternalError(absl::StrCat(
        "zeitgeberd did not stop cleanly on SIGTERM (exit ", r.exit_code,
        ", signal ", r.term_signal, "):\n", r.stdout_text, r.stderr_text));
  }
  return absl::OkStatus();
}

absl::Status Zeitgeberd::Hangup() const {
  if (proc_ == nullptr || kill(proc_->pid(), SIGHUP) != 0) {
    return absl::InternalError(
        absl::StrCat("SIGHUP to zeitgeberd: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

void Zeitgeberd::Kill() {
  if (proc_ == nullptr) return;
  kill(proc_->pid(), SIGKILL);
  proc_->Wait(absl::Seconds(10));
}

pid_t Zeitgeberd::pid() const { return proc_ == nullptr ? 0 : proc_->pid(); }

std::string Zeitgeberd::Log() const {
  return proc_ == nullptr ? "" : proc_->Stdout() + proc_->Stderr();
}

double MetricSum(const std::string& exposition, const std::string& name,
                 const std::map<std::string, std::string>& labels) {
  double sum = 0;
  for (absl::string_view line : absl::StrSplit(exposition, '\n')) {
    if (line.empty() || line[0] == '#') continue;
    if (!absl::ConsumePrefix(&line, name)) continue;
    std::map<std::string, std::string> have;
    if (absl::ConsumePrefix(&line, "{")) {
      const size_t end = line.find('}');
      if (end == absl::string_view::npos) continue;
      for (absl::string_view kv :
           absl::StrSplit(line.substr(0, end), ',', absl::SkipEmpty())) {
        std::pair<std::string, std::string> p = absl::StrSplit(kv, '=');
        have[p.first] = std::string(
            absl::StripSuffix(absl::StripPrefix(p.second, "\""), "\""));
      }
      line.remove_prefix(end + 1);
    }
    if (!absl::ConsumePrefix(&line, " ")) continue;  // a longer name
    bool match = true;
    for (const auto& [k, v] : labels) {
      auto it = have.find(k);
      match = match && it != have.end() && it->second == v;
    }
    double value = 0;
    if (match && absl::SimpleAtod(line, &value)) sum += value;
  }
  return sum;
}

absl::StatusOr<NtpdigSample> Ntpdig(const testutil::NetnsRig& rig,
                                    const std::string& server,
                                    absl::Duration timeout) {
  std::vector<std::string> argv = {"ntpdig", "-j", "-t", "3", server};
  if (testutil::ProgramAvailable("chrt")) {
    argv.insert(argv.begin(), {"chrt", "-f", "10"});
  }
  absl::StatusOr<CommandResult> r = rig.Run(argv, timeout);
  if (!r.ok()) return r.status();
  if (!r->ok()) return absl::UnavailableError(r->Describe());
  for (absl::string_view line : absl::StrSplit(r->stdout_text, '\n')) {
    if (!absl::StartsWith(line, "{")) continue;
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.contains("offset")) continue;
    NtpdigSample s;
    s.offset_s = j["offset"].get<double>();
    s.distance_s = j["precision"].get<double>();
    s.stratum = j["stratum"].get<int>();
    s.leap = j["leap"].get<std::string>();
    return s;
  }
  return absl::InternalError(
      absl::StrCat("no JSON sample in ntpdig's output: ", r->stdout_text));
}

absl::StatusOr<double> ChronydOffset(const testutil::NetnsRig& rig,
                                     const std::string& server,
                                     absl::Duration timeout) {
  const int64_t own_s = std::max<int64_t>(3, absl::ToInt64Seconds(timeout) - 2);
  absl::StatusOr<testutil::TempDir> dir = testutil::TempDir::Create("chronyd");
  if (!dir.ok()) return dir.status();
  // SCHED_FIFO (-P), as for ntpdig: its transmit timestamp falls back to
  // a user-space reading when the kernel's comes late.
  absl::StatusOr<CommandResult> r = rig.Run(
      {"chronyd", "-Q", "-P", "10", "-u", "root", "-t", absl::StrCat(own_s),
       "-f", "/dev/null",
       absl::StrCat("server ", server,
                    " iburst minpoll -4 maxpoll -4 maxsamples 8"),
       absl::StrCat("pidfile ", dir->File("chronyd.pid")),
       absl::StrCat("bindcmdaddress ", dir->File("chronyd.sock")), "cmdport 0"},
      std::max(timeout, absl::Seconds(own_s + 1)));
  if (!r.ok()) return r.status();
  const std::string out = r->stdout_text + r->stderr_text;
  const std::string key = "System clock wrong by ";
  const size_t at = out.find(key);
  if (!r->ok() || at == std::string::npos) {
    return absl::UnavailableError(absl::StrCat(
        "chronyd -Q measured nothing: ", r->Describe(), "\n", out));
  }
  return std::strtod(out.c_str() + at + key.size(), nullptr);
}

absl::StatusOr<NamespacePacketSocket> NamespacePacketSocket::Open(
    const std::string& ns, const std::string& ifname) {
  // setns() moves only the calling thread: do it on a thread of its own;
  // the socket stays in the namespace it was created in.
  absl::StatusOr<int> fd = absl::InternalError("not run");
  std::thread t([&] {
    const int nsfd =
        open(absl::StrCat("/run/netns/", ns).c_str(), O_RDONLY | O_CLOEXEC);
    if (nsfd < 0 || setns(nsfd, CLONE_NEWNET) != 0) {
      fd = absl::InternalError(
          absl::StrCat("entering namespace ", ns, ": ", std::strerror(errno)));
      if (nsfd >= 0) close(nsfd);
      return;
    }
    close(nsfd);
    const int s = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);  // send only
    sockaddr_ll addr{};
    addr.sll_family = AF_PACKET;
    addr.sll_ifindex = static_cast<int>(if_nametoindex(ifname.c_str()));
    if (s < 0 || addr.sll_ifindex == 0 ||
        bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
      fd = absl::InternalError(absl::StrCat("AF_PACKET socket on ", ifname,
                                            ": ", std::strerror(errno)));
      if (s >= 0) close(s);
      return;
    }
    fd = s;
  });
  t.join();
  if (!fd.ok()) return fd.status();
  return NamespacePacketSocket(*fd);
}

NamespacePacketSocket::~NamespacePacketSocket() {
  if (fd_ >= 0) close(fd_);
}

absl::Status NamespacePacketSocket::Send(
    absl::Span<const uint8_t> frame) const {
  const ssize_t n = send(fd_, frame.data(), frame.size(), 0);
  if (n != static_cast<ssize_t>(frame.size())) {
    return absl::InternalError(
        absl::StrCat("send on AF_PACKET socket: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> InterfaceMac(const std::string& ns,
                                         const std::string& ifname) {
  const std::string path = absl::StrCat("/sys/class/net/", ifname, "/address");
  std::string text;
  if (ns.empty()) {
    absl::StatusOr<std::string> f = testutil::ReadFileToString(path);
    if (!f.ok()) return f.status();
    text = *f;
  } else {
    absl::StatusOr<CommandResult> r =
        testutil::RunInNamespace(ns, {"cat", path}, absl::Seconds(10));
    if (!r.ok()) return r.status();
    if (!r->ok()) return absl::InternalError(r->Describe());
    text = r->stdout_text;
  }
  return std::string(absl::StripAsciiWhitespace(text));
}

double TcpdumpDropped(const std::string& tcpdump_stderr) {
  for (absl::string_view line : absl::StrSplit(tcpdump_stderr, '\n')) {
    if (absl::EndsWith(line, " packets dropped by kernel")) {
      double n = 0;
      return absl::SimpleAtod(line.substr(0, line.find(' ')), &n) ? n : 0;
    }
  }
  return 0;
}

double FilterReceived(const std::string& tcpdump_stderr) {
  for (absl::string_view line : absl::StrSplit(tcpdump_stderr, '\n')) {
    if (absl::EndsWith(line, " packets received by filter")) {
      double n = -1;
      return absl::SimpleAtod(line.substr(0, line.find(' ')), &n) ? n : -1;
    }
  }
  return -1;
}

}  // namespace zg::e2e
