// SPDX-License-Identifier: Apache-2.0
// zgctl against a running zeitgeberd on the veth rig (AF_XDP with the XDP
// program): every command, in human and --json form, with values checked
// against what real peers and the daemon's own metrics say — ntpdig's
// stratum, pmc's PTP port state and identity, Prometheus' request counts,
// the audit log's records of each change (with the caller's uid).
//
// `clients`: ntpdig, chronyd -Q, chronyd -Q over NTS and a bounded flood,
// each from an address of its own in the client namespace, are listed with
// exactly the requests a tcpdump there saw each send, the flood with its
// rate-limit drops and KoD, the NTS client as NTS. `source`: a better sim:
// source added is selected, disabled and enabled, deleted hands back, with
// the discipline's step counter unchanged; a bad SPEC is refused with the
// sources in force unchanged; each change (and the refusal) is in the audit
// log with the caller's uid; `reload` says what it did to --source.
// `alarms`: the leap table's alarm, raised at start (the table in use has
// expired), and the draining alarm `drain` raises and `undrain` clears.
//
// Then the control socket under bad input from this process (malformed
// JSON, an unknown version and command, a 1 MiB request, 1000 connections
// at once, a client that never reads, one that leaves mid-reply): each gets
// an error or is cut off, zeitgeberd keeps its thread count, and its
// control thread's tick was never late (status.control_tick.late_ticks).
// A user in --control_group may read but not change; one outside it cannot
// connect. Last, zeitgeberd is killed under a zgctl waiting for its reply
// and under `audit --follow`: both end with exit code 4 and one line.
//
// One zeitgeberd serves every case (the fixture starts it once). Needs root
// (namespaces, XDP, setpriv); skipped otherwise. About 30 s.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "core/net/frame_build.h"
#include "core/net/net_headers.h"
#include "core/ptp/ptp_tlv.h"
#include "core/ptp/ptp_wire.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/e2e/nts_test_util.h"
#include "tests/e2e/zeitgeberd_rig.h"
#include "tests/util/deadline.h"
#include "tests/util/netns.h"
#include "tests/util/paths.h"
#include "tests/util/subprocess.h"
#include "tests/util/temp_dir.h"
#include "tests/util/unix_client.h"

namespace zg::e2e {
namespace zgctl_test {
namespace {

using nlohmann::json;
using testing::HasSubstr;
using testutil::CommandResult;
using testutil::NetnsRig;
using testutil::RigConfig;

// The control socket's group: a number, so no group has to exist.
constexpr char kGroup[] = "4242";
constexpr char kNobody[] = "65534";

// The client namespace's further addresses, one per client, so each has a
// record of its own (ntpdig sends from the namespace's own address).
constexpr char kChronyIp[] = "10.99.0.21";
constexpr char kNtsIp[] = "10.99.0.23";
constexpr char kFloodIp[] = "10.99.0.22";
constexpr int kFloodRequests = 300;

struct Zgctl {
  int rc = -1;
  std::string out;
  std::string err;
  json j;  // stdout parsed (with --json)
};

int StderrLines(const Zgctl& z) {
  return static_cast<int>(std::count(z.err.begin(), z.err.end(), '\n'));
}

class ZgctlE2eTest : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!testutil::CanCreateNamespaces()) return;
    absl::StatusOr<testutil::TempDir> d = testutil::TempDir::Create("zgctl");
    ASSERT_TRUE(d.ok()) << d.status();
    dir_ = new testutil::TempDir(std::move(*d));
    flagfile_ = dir_->File("zeitgeberd.flags");
    WriteFlagfile("--ntp_deny=198.51.100.0/24\n");
    config_.name = testutil::UniqueRigName("zgc");
    config_.server_cidr6.clear();
    absl::StatusOr<std::unique_ptr<NetnsRig>> rig = NetnsRig::Create(config_);
    ASSERT_TRUE(rig.ok()) << rig.status();
    rig_ = rig->release();
    ZeitgeberdOptions options;
    options.nice = -20;
    absl::StatusOr<TestPki> pki = MakeTestPki(*dir_, {kNtsName4});
    ASSERT_TRUE(pki.ok()) << pki.status();
    pki_ = *pki;
    absl::StatusOr<std::string> key = WriteMasterKey(*dir_, "master.key");
    ASSERT_TRUE(key.ok()) << key.status();
    absl::StatusOr<std::unique_ptr<NamespaceHosts>> hosts =
        NamespaceHosts::Create(rig_->ns(), {{rig_->server_ip(), kNtsName4}});
    ASSERT_TRUE(hosts.ok()) << hosts.status();
    hosts_ = hosts->release();
    for (const char* ip : {kChronyIp, kNtsIp, kFloodIp}) {
      absl::StatusOr<CommandResult> a =
          rig_->Run({"ip", "addr", "add", absl::StrCat(ip, "/24"), "dev",
                     rig_->client_if()},
                    absl::Seconds(10));
      ASSERT_TRUE(a.ok() && a->ok());
    }
    options.extra_flags =
        NtsServerFlags(*pki, *key, {rig_->server_ip() + ":4460"});
    for (std::string f : std::initializer_list<std::string>{
             "--source=sim:ref,priority=1,interval=200ms",
             "--source=system",
             "--audit_log=" + dir_->File("audit.jsonl"),
             "--audit_fsync=every_record",
             "--control_group=" + std::string(kGroup),
             // zgctl drain: DRAINING, then DRAINED after the grace.
             "--drain_grace=500ms",
             "--flagfile=" + flagfile_,
             "--ptp",
             "--ptp_transport=udp4",
             "--ptp_log_announce_interval=0",
             "--ptp_unicast_negotiation=on",
             // 4 a second after a burst of 16: ntpdig and chronyd -Q stay
             // within it, the flood does not.
             "--ntp_ratelimit=interval=-2,burst=16,leak=3",
             "--ntp_ratelimit_kod=true",
         }) {
      options.extra_flags.push_back(std::move(f));
    }
    absl::StatusOr<std::unique_ptr<Zeitgeberd>> zg =
        Zeitgeberd::Start(*rig_, config_, options);
    ASSERT_TRUE(zg.ok()) << zg.status();
    zg_ = zg->release();
    // pmc's management messages go to PTP's multicast group.
    absl::StatusOr<CommandResult> route = rig_->Run(
        {"ip", "route", "add", "224.0.0.0/4", "dev", rig_->client_if()},
        absl::Seconds(10));
    ASSERT_TRUE(route.ok() && route->ok());
  }
  static void TearDownTestSuite() {
    delete zg_;
    delete hosts_;
    delete rig_;
    delete dir_;
    zg_ = nullptr;
    hosts_ = nullptr;
    rig_ = nullptr;
    dir_ = nullptr;
  }
  void SetUp() override {
    if (!testutil::CanCreateNamespaces()) GTEST_SKIP() << "needs root";
    for (const char* tool : {"ntpdig", "pmc", "setpriv", "curl"}) {
      if (!testutil::ProgramAvailable(tool)) GTEST_SKIP() << tool << " missing";
    }
    ASSERT_NE(zg_, nullptr) << "zeitgeberd did not start";
  }

  static void WriteFlagfile(const std::string& text) {
    std::ofstream(flagfile_) << text;
  }

  // zgctl ARGS (as root, or under `as`: setpriv ...).
  static Zgctl Run(std::vector<std::string> args,
                   std::vector<std::string> as = {},
                   absl::Duration timeout = absl::Seconds(30)) {
    std::vector<std::string> argv = std::move(as);
    argv.push_back(getenv("ZG_ZGCTL"));
    argv.push_back("--socket=" + zg_->control_socket());
    for (std::string& a : args) argv.push_back(std::move(a));
    absl::StatusOr<CommandResult> r = testutil::RunCommand(argv, timeout);
    Zgctl z;
    if (!r.ok()) {
      z.err = r.status().ToString();
      return z;
    }
    z.rc = r->exit_code;
    z.out = r->stdout_text;
    z.err = r->stderr_text;
    z.j = json::parse(z.out, nullptr, false);
    return z;
  }
  static json Json(const std::string& command,
                   std::vector<std::string> more = {}) {
    std::vector<std::string> args = {"--json", command};
    for (std::string& m : more) args.push_back(std::move(m));
    const Zgctl z = Run(args);
    EXPECT_EQ(z.rc, 0) << command << ": " << z.err;
    return z.j;
  }
  // Polls `zgctl --json command [more]` until pred holds (or the time runs
  // out).
  template <typename Pred>
  static json WaitFor(const std::string& command, Pred pred,
                      std::vector<std::string> more = {},
                      absl::Duration timeout = absl::Seconds(30)) {
    const absl::Time deadline = testutil::DeadlineIn(timeout);
    json j;
    while (absl::Now() < deadline) {
      j = Json(command, more);
      if (pred(j)) return j;
      absl::SleepFor(absl::Milliseconds(200));
    }
    ADD_FAILURE() << command << " never got there; last: " << j.dump();
    return j;
  }
  static std::vector<std::string> AsUser(const std::string& uid,
                                         const std::string& gid) {
    return {"setpriv", "--reuid=" + uid, "--regid=" + gid, "--clear-groups"};
  }
  static absl::StatusOr<NtpdigSample> QueryNtp() {
    ++ntp_queries_;
    return Ntpdig(*rig_, rig_->server_ip());
  }
  // Runs `run` with what the client namespace sends zeitgeberd leaving from
  // `ip` (a host route with that source address).
  static void FromAddress(const std::string& ip,
                          const std::function<void()>& run) {
    const std::string to = rig_->server_ip() + "/32";
    absl::StatusOr<CommandResult> r = rig_->Run(
        {"ip", "route", "replace", to, "dev", rig_->client_if(), "src", ip},
        absl::Seconds(10));
    ASSERT_TRUE(r.ok() && r->ok());
    run();
    r = rig_->Run({"ip", "route", "del", to}, absl::Seconds(10));
    EXPECT_TRUE(r.ok() && r->ok());
  }
  // chronyd -Q (measures, never sets the clock) with `directives`; true if
  // it measured an offset.
  static bool ChronydQ(const std::vector<std::string>& directives) {
    std::vector<std::string> argv = {"chronyd",
                                     "-Q",
                                     "-u",
                                     "root",
                                     "-t",
                                     "8",
                                     "-f",
                                     "/dev/null",
                                     "pidfile " + dir_->File("q.pid"),
                                     "bindcmdaddress " + dir_->File("q.sock"),
                                     "cmdport 0"};
    argv.insert(argv.end(), directives.begin(), directives.end());
    absl::StatusOr<CommandResult> r = rig_->Run(argv, absl::Seconds(12));
    EXPECT_TRUE(r.ok()) << r.status();
    if (!r.ok()) return false;
    const bool measured =
        r->ok() && absl::StrContains(r->stdout_text + r->stderr_text,
                                     "System clock wrong by");
    EXPECT_TRUE(measured) << r->Describe() << r->stdout_text << r->stderr_text;
    return measured;
  }

  static inline testutil::TempDir* dir_ = nullptr;
  static inline TestPki pki_;
  static inline NamespaceHosts* hosts_ = nullptr;
  static inline std::string flagfile_;
  static inline RigConfig config_;
  static inline NetnsRig* rig_ = nullptr;
  static inline Zeitgeberd* zg_ = nullptr;
  static inline int ntp_queries_ = 0;  // NTP requests sent by the test
};

TEST_F(ZgctlE2eTest, TrackingAgreesWithNtpdig) {
  const json t =
      WaitFor("tracking", [](const json& j) { return j["state"] == "LOCKED"; });
  EXPECT_EQ(t["selected_source"], "sim:ref");
  EXPECT_EQ(t["reference_id"], "SIM");
  EXPECT_EQ(t["stratum"], 1);
  EXPECT_EQ(t["leap"], "none");
  EXPECT_EQ(t["utc_offset_s"], 37);
  EXPECT_GT(t["error_bound_ns"].get<int64_t>(), 0);
  EXPECT_GT(t["uptime_s"].get<double>(), 0);
  EXPECT_TRUE(t["holdover"]["in_spec_left_s"].is_number());
  absl::StatusOr<NtpdigSample> ntp = QueryNtp();
  ASSERT_TRUE(ntp.ok()) << ntp.status();
  EXPECT_EQ(ntp->stratum, t["stratum"]);  // what clients get
  EXPECT_EQ(ntp->leap, "no-leap");

  const Zgctl human = Run({"tracking"});
  ASSERT_EQ(human.rc, 0) << human.err;
  EXPECT_THAT(human.out, HasSubstr("Reference ID    : SIM\n"));
  EXPECT_THAT(human.out, HasSubstr("Source          : sim:ref\n"));
  EXPECT_THAT(human.out, HasSubstr("State           : LOCKED"));
  EXPECT_THAT(human.out, HasSubstr("Stratum         : 1\n"));
  EXPECT_THAT(human.out, HasSubstr("TAI-UTC         : 37 s\n"));
}

TEST_F(ZgctlE2eTest, SourcesAndSourcestats) {
  const json s = WaitFor("sources", [](const json& j) {
    return j["sources"].size() == 2 && j["sources"][0]["selected"] == true &&
           j["sources"][0]["reach"] == 255;
  });
  const json& sim = s["sources"][0];
  EXPECT_EQ(sim["name"], "sim:ref");
  EXPECT_EQ(sim["kind"], "sim");
  EXPECT_EQ(sim["priority"], 1);
  EXPECT_EQ(sim["health"], "up");
  EXPECT_EQ(sim["selection"], "selected");
  EXPECT_GT(sim["samples"].get<int>(), 0);
  EXPECT_TRUE(sim["last_offset_ns"].is_number());
  EXPECT_TRUE(sim["gnss"].is_null());
  const json& sys = s["sources"][1];
  EXPECT_EQ(sys["name"], "system:CLOCK_REALTIME");
  EXPECT_EQ(sys["kind"], "system");
  EXPECT_EQ(sys["priority"], 100);
  EXPECT_NE(sys["selection"], "selected");

  const Zgctl human = Run({"sources", "-v"});
  ASSERT_EQ(human.rc, 0) << human.err;
  EXPECT_THAT(human.out, HasSubstr("#* sim:ref"));
  EXPECT_THAT(human.out, HasSubstr("377"));  // reach, octal
  EXPECT_THAT(human.out, HasSubstr("system:CLOCK_REALTIME"));
  EXPECT_THAT(human.out, HasSubstr("Source state '*' = selected"));

  const json st = Json("sourcestats");
  ASSERT_EQ(st["sources"].size(), 2u);
  EXPECT_GE(st["sources"][0]["samples"].get<uint64_t>(),
            sim["samples"].get<uint64_t>());
  const Zgctl hs = Run({"sourcestats"});
  EXPECT_THAT(hs.out, HasSubstr("sim:ref"));
}

TEST_F(ZgctlE2eTest, ServerstatsCountTheRequestsClientsSent) {
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(QueryNtp().ok());
  const int sent = ntp_queries_;
  const json s = WaitFor("serverstats", [&](const json& j) {
    return j["frames"]["ntp"]["replied"] == sent;
  });
  EXPECT_EQ(s["frames"]["ntp"]["received"], sent);
  EXPECT_EQ(s["frames"]["ntp"]["replied"], sent);
  // The same counts as Prometheus.
  absl::StatusOr<std::string> m = zg_->WaitForMetrics(
      {{"zeitgeber_frames_replied_total", {{"kind", "ntp"}}, 1.0 * sent}});
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(MetricSum(*m, "zeitgeber_frames_handled_total", {{"kind", "ntp"}}),
            s["frames"]["ntp"]["received"].get<double>());
  EXPECT_TRUE(s["counters"]["ntp"].contains("kod_sent{code=RATE}"));
  EXPECT_TRUE(s["counters"]["ptp"].contains("messages_sent{type=ANNOUNCE}"));
  const Zgctl human = Run({"serverstats"});
  ASSERT_EQ(human.rc, 0);
  EXPECT_THAT(human.out, testing::ContainsRegex(
                             absl::StrCat("\nntp +", sent, " +", sent, "\n")));
}

// The NTP requests in a capture, by source address.
std::map<std::string, int> RequestsBySource(const std::string& pcap) {
  std::map<std::string, int> n;
  absl::StatusOr<CommandResult> r = testutil::RunCommand(
      {"tcpdump", "-r", pcap, "-n", "udp dst port 123"}, absl::Seconds(20));
  EXPECT_TRUE(r.ok() && r->ok());
  if (!r.ok()) return n;
  // "12:00:00.000000 IP 10.99.0.2.40000 > 10.99.0.1.123: NTPv4, Client..."
  for (absl::string_view line : absl::StrSplit(r->stdout_text, '\n')) {
    const size_t ip = line.find(" IP ");
    if (ip == absl::string_view::npos) continue;
    absl::string_view src = line.substr(ip + 4);
    src = src.substr(0, src.find(' '));
    src = src.substr(0, src.rfind('.'));  // the port
    ++n[std::string(src)];
  }
  return n;
}

// The record of `address` in a clients answer (null if absent).
json ClientOf(const json& answer, const std::string& address) {
  for (const json& c : answer["clients"]) {
    if (c["address"] == address) return c;
  }
  return nullptr;
}

TEST_F(ZgctlE2eTest, ClientsShowWhatEachAddressSent) {
  for (const char* tool : {"chronyd", "tcpdump", "python3"}) {
    if (!testutil::ProgramAvailable(tool)) GTEST_SKIP() << tool << " missing";
  }
  // Every NTP request the client namespace sends from here on.
  const std::string pcap = dir_->File("ntp.pcap");
  absl::StatusOr<std::unique_ptr<testutil::Subprocess>> tcpdump = rig_->Start(
      {"tcpdump", "--immediate-mode", "-B", "65536", "-i", rig_->client_if(),
       "-n", "-U", "-w", pcap, "udp dst port 123"});
  ASSERT_TRUE(tcpdump.ok()) << tcpdump.status();
  ASSERT_TRUE(testutil::PollUntil(testutil::DeadlineIn(absl::Seconds(20)), [&] {
    return absl::StrContains((*tcpdump)->Stderr(), "listening on") ||
           !(*tcpdump)->Running();
  })) << (*tcpdump)->Stderr();
  const int ntpdig_before = ntp_queries_;
  ASSERT_TRUE(QueryNtp().ok());
  ASSERT_TRUE(QueryNtp().ok());
  const std::string server = rig_->server_ip();
  FromAddress(kChronyIp, [&] {
    ChronydQ({"server " + server +
              " iburst minpoll -4 maxpoll -4 "
              "maxsamples 4"});
  });
  FromAddress(kNtsIp, [&] {
    ChronydQ({"ntstrustedcerts " + pki_.ca_pem,
              absl::StrCat("server ", kNtsName4,
                           " iburst nts minpoll -4 maxpoll -4 maxsamples 4")});
  });
  FromAddress(kFloodIp, [&] {
    absl::StatusOr<CommandResult> burst = rig_->Run(
        {"python3", testutil::SourceRoot() + "/tests/e2e/ntp_burst.py", server,
         absl::StrCat(kFloodRequests), "3000"},
        absl::Seconds(30));
    ASSERT_TRUE(burst.ok() && burst->ok());
  });
  absl::SleepFor(absl::Milliseconds(300));
  const CommandResult capture = (*tcpdump)->Stop();
  ASSERT_EQ(TcpdumpDropped(capture.stderr_text), 0) << capture.stderr_text;
  std::map<std::string, int> sent = RequestsBySource(pcap);
  EXPECT_EQ(sent[rig_->client_ip()], ntp_queries_ - ntpdig_before);
  EXPECT_EQ(sent[kFloodIp], kFloodRequests);
  EXPECT_GT(sent[kChronyIp], 0);
  EXPECT_GT(sent[kNtsIp], 0);
  std::printf(
      "sent: ntpdig %d (%d since start), chronyd %d, chronyd NTS %d, "
      "flood %d\n",
      sent[rig_->client_ip()], ntp_queries_, sent[kChronyIp], sent[kNtsIp],
      sent[kFloodIp]);

  // Each address with exactly what it sent (ntpdig's address: every
  // ntpdig this test ran); a worker may count a drop or KoD a moment after
  // the request.
  const std::vector<std::pair<std::string, int>> expected = {
      {rig_->client_ip(), ntp_queries_},
      {kChronyIp, sent[kChronyIp]},
      {kNtsIp, sent[kNtsIp]},
      {kFloodIp, kFloodRequests}};
  const json c = WaitFor("clients",
                         [&](const json& j) {
                           for (const auto& [address, n] : expected) {
                             const json r = ClientOf(j, address);
                             if (r.is_null() || r["requests"] != n)
                               return false;
                           }
                           const json f = ClientOf(j, kFloodIp);
                           return f["kod"].get<int>() > 0;
                         },
                         {"--top", "10"});
  for (const char* quiet : {kChronyIp, kNtsIp}) {
    const json r = ClientOf(c, quiet);
    EXPECT_EQ(r["drops"], (json{{"rate_limit", 0}, {"acl", 0}, {"auth", 0}}))
        << r.dump();
    EXPECT_EQ(r["kod"], 0);
    EXPECT_EQ(r["mode"], "basic");
  }
  const json ntpdig = ClientOf(c, rig_->client_ip());
  EXPECT_EQ(ntpdig["auth"], "none");
  EXPECT_EQ(ntpdig["drops"]["rate_limit"], 0);
  EXPECT_GT(ntpdig["interval_s"].get<double>(), 0.0);
  EXPECT_EQ(ClientOf(c, kChronyIp)["auth"], "none");
  EXPECT_EQ(ClientOf(c, kNtsIp)["auth"], "nts");
  const json flood = ClientOf(c, kFloodIp);
  const int limited = flood["drops"]["rate_limit"];
  const int kod = flood["kod"];
  std::printf("flood: %d requests, %d rate-limit drops, %d KoD\n",
              kFloodRequests, limited, kod);
  EXPECT_GT(limited, kFloodRequests / 2) << flood.dump();
  EXPECT_GE(kod, 1);
  EXPECT_LE(limited + kod, kFloodRequests - 16) << "the burst was answered";
  EXPECT_EQ(flood["auth"], "none");
  EXPECT_GE(c["tracked"].get<int>(), 4);

  // The sort orders and the address filter pick the flood, or only one.
  for (const char* sort : {"drops", "kod"}) {
    const Zgctl z = Run({"--json", "clients", "--sort", sort, "--top", "1"});
    ASSERT_EQ(z.rc, 0) << z.err;
    ASSERT_EQ(z.j["clients"].size(), 1u);
    EXPECT_EQ(z.j["clients"][0]["address"], kFloodIp) << sort;
  }
  Zgctl z =
      Run({"--json", "clients", "--address", absl::StrCat(kNtsIp, "/32")});
  ASSERT_EQ(z.rc, 0) << z.err;
  EXPECT_EQ(z.j["matched"], 1);
  ASSERT_EQ(z.j["clients"].size(), 1u);
  EXPECT_EQ(z.j["clients"][0]["address"], kNtsIp);
  const Zgctl human = Run({"clients"});
  ASSERT_EQ(human.rc, 0) << human.err;
  EXPECT_THAT(human.out,
              testing::ContainsRegex(absl::StrCat(
                  "10\\.99\\.0\\.22 +", kFloodRequests, " +", limited, " +",
                  limited, " +0 +0 +", kod, " +none +basic")));
  EXPECT_THAT(human.out, testing::ContainsRegex("10\\.99\\.0\\.23 +[0-9]+ .* "
                                                "nts +basic"));
  z = Run({"clients", "--top", "0"});
  EXPECT_EQ(z.rc, 2);
  EXPECT_EQ(StderrLines(z), 1) << z.err;
  EXPECT_THAT(z.err, HasSubstr("top"));
  z = Run({"clients", "--sort", "name"});
  EXPECT_EQ(z.rc, 2);
  EXPECT_THAT(z.err, HasSubstr("sort"));
}

// The selected source's name in a `sources` answer ("" for none).
std::string SelectedOf(const json& sources) {
  for (const json& s : sources["sources"]) {
    if (s["selected"] == true) return s["name"];
  }
  return "";
}

TEST_F(ZgctlE2eTest, LiveSourcesThroughZgctl) {
  const json before = WaitFor("tracking", [](const json& j) {
    return j["state"] == "LOCKED" && j["selected_source"] == "sim:ref";
  });
  const int64_t steps = before["steps"];

  // A better source (a lower priority) is selected in the step that adds it.
  Zgctl z =
      Run({"--json", "source", "add", "sim:better,priority=0,interval=200ms"});
  ASSERT_EQ(z.rc, 0) << z.err;
  EXPECT_EQ(z.j["ok"], true);
  EXPECT_EQ(z.j["selected"], "sim:better");
  EXPECT_EQ(z.j["persistent"], false) << "only the flagfile survives";
  EXPECT_EQ(z.j["changes"][0]["change"], "added");
  json s = Json("sources");
  EXPECT_EQ(s["sources"].size(), 3u);
  EXPECT_EQ(SelectedOf(s), "sim:better");

  // Disabled, then enabled: the selection follows at once.
  z = Run({"source", "disable", "sim:better"});
  ASSERT_EQ(z.rc, 0) << z.err;
  EXPECT_THAT(z.out, HasSubstr("Source change   : disable: done, lost at "
                               "the next restart or reload"));
  EXPECT_THAT(z.out, HasSubstr("Selected        : sim:ref\n"));
  z = Run({"--json", "source", "enable", "sim:better"});
  ASSERT_EQ(z.rc, 0) << z.err;
  EXPECT_EQ(z.j["selected"], "sim:better");

  // Deleted while selected: handed back as on a loss, without a step.
  z = Run({"--json", "source", "delete", "sim:better"});
  ASSERT_EQ(z.rc, 0) << z.err;
  EXPECT_EQ(z.j["selected"], "sim:ref");
  EXPECT_EQ(z.j["changes"][0]["change"], "removed");
  const json after = Json("tracking");
  EXPECT_EQ(after["state"], "LOCKED");
  EXPECT_EQ(after["selected_source"], "sim:ref");
  EXPECT_EQ(after["steps"], steps) << "no step for any of the changes";

  // A bad SPEC: refused, one line, the sources in force unchanged.
  z = Run({"source", "add", "sim:x,bogus=1"});
  EXPECT_EQ(z.rc, 1);
  EXPECT_EQ(StderrLines(z), 1) << z.err;
  EXPECT_THAT(z.err, HasSubstr("unknown option 'bogus'"));
  EXPECT_THAT(z.out, HasSubstr("add: refused, the sources in force stay"));
  s = Json("sources");
  ASSERT_EQ(s["sources"].size(), 2u);
  EXPECT_EQ(s["sources"][0]["name"], "sim:ref");
  EXPECT_EQ(SelectedOf(s), "sim:ref");
  EXPECT_EQ(Run({"source", "delete"}).rc, 2);
  EXPECT_EQ(Run({"source", "priority", "sim:ref", "high"}).rc, 2);

  // Only root or zeitgeberd's user may change them.
  z = Run({"source", "delete", "sim:ref"}, AsUser(kNobody, kGroup));
  EXPECT_EQ(z.rc, 3);
  EXPECT_EQ(StderrLines(z), 1) << z.err;

  // Each change and the refusal in the audit log, with who asked. A refusal
  // is answered at once and audited by the control thread at its next tick.
  const json a = WaitFor(
      "audit",
      [](const json& j) {
        for (const json& r : j["records"]) {
          const json& v = r["values"];
          if (v.value("origin", "") == "zgctl" &&
              v.value("outcome", "") == "rejected") {
            return true;
          }
        }
        return false;
      },
      {"--kind", "source_change"}, absl::Seconds(10));
  std::vector<std::string> seen;
  for (const json& r : a["records"]) {
    const json& v = r["values"];
    if (v.value("origin", "") != "zgctl") continue;
    seen.push_back(absl::StrCat(v.value("action", ""), " ",
                                r.value("source", ""), " ",
                                v.value("outcome", "")));
    EXPECT_EQ(v["uid"], 0) << r.dump();
  }
  EXPECT_THAT(
      seen, testing::ElementsAre("add sim:better ok", "disable sim:better ok",
                                 "enable sim:better ok", "delete sim:better ok",
                                 testing::StartsWith("add ")));
  EXPECT_THAT(seen.back(), testing::EndsWith(" rejected"));

  // reload re-reads --source and says what it did to the sources.
  std::string flags;
  {
    std::ifstream in(flagfile_);
    flags.assign(std::istreambuf_iterator<char>(in), {});
  }
  WriteFlagfile(flags + "--source=sim:flag,priority=50,interval=200ms\n");
  z = Run({"--json", "reload"});
  ASSERT_EQ(z.rc, 0) << z.err;
  ASSERT_TRUE(z.j["sources"].is_object()) << z.j.dump();
  EXPECT_EQ(z.j["sources"]["persistent"], true);
  // Every source in force, each with what the reload did to it.
  std::map<std::string, std::string> change;
  for (const json& c : z.j["sources"]["changes"]) {
    change[c["source"].get<std::string>()] = c["change"].get<std::string>();
  }
  EXPECT_THAT(change, testing::ElementsAre(
                          testing::Pair("sim:flag", "added"),
                          testing::Pair("sim:ref", "unchanged"),
                          testing::Pair("system:CLOCK_REALTIME", "unchanged")));
  WriteFlagfile(flags);
  z = Run({"reload"});
  ASSERT_EQ(z.rc, 0) << z.err;
  EXPECT_THAT(z.out, HasSubstr("Sources         : sim:flag removed\n"));
  z = Run({"--json", "reload"});
  EXPECT_TRUE(z.j["sources"].is_null()) << "nothing changed: " << z.j.dump();
}

TEST_F(ZgctlE2eTest, AlarmsShowWhatIsRaised) {
  // The leap table in use has expired (the built-in one, or the
  // distribution's file at this machine's date): raised from the start.
  json a = Json("alarms");
  bool leap = false;
  for (const json& r : a["alarms"]) {
    EXPECT_EQ(r["active"], true) << "without --all, only the raised";
    if (r["name"] == "leap_table_expiring") leap = true;
  }
  EXPECT_TRUE(leap) << a.dump();
  EXPECT_EQ(a["active"], a["alarms"].size());
  EXPECT_THAT(Run({"alarms"}).out,
              testing::ContainsRegex("\n[a-z]+ +leap_table_expiring "));

  // drain raises "draining", undrain clears it.
  auto draining = [](const json& j) {
    for (const json& r : j["alarms"]) {
      if (r["name"] == "draining") return r["active"] == true;
    }
    return false;
  };
  ASSERT_EQ(Run({"drain"}).rc, 0);
  WaitFor("alarms", draining);
  ASSERT_EQ(Run({"undrain"}).rc, 0);
  a = WaitFor("alarms", [&](const json& j) { return !draining(j); }, {"--all"});
  bool cleared = false;
  for (const json& r : a["alarms"]) {
    if (r["name"] == "draining") cleared = r["active"] == false;
  }
  EXPECT_TRUE(cleared) << "--all lists the cleared ones: " << a.dump();
  std::vector<std::string> events;
  for (const json& e : a["events"]) {
    if (e["name"] == "draining") events.push_back(e["state"]);
  }
  EXPECT_THAT(events, testing::ElementsAre("raised", "cleared"));
  EXPECT_EQ(Run({"alarms", "--bogus"}).rc, 2);
}

TEST_F(ZgctlE2eTest, WorkersAndPorts) {
  const json w = Json("workers");
  ASSERT_EQ(w["workers"].size(), 1u);
  const json& w0 = w["workers"][0];
  EXPECT_EQ(w0["index"], 0);
  EXPECT_GT(w0["rx_packets"].get<uint64_t>(), 0u);
  EXPECT_GT(w0["tx_packets"].get<uint64_t>(), 0u);
  // A running worker's heartbeat is fresh (it sleeps 50 us when idle).
  EXPECT_LT(w0["last_progress_age_s"].get<double>(), 5.0);
  EXPECT_TRUE(w0["last_progress_utc"].is_string());
  const json p = Json("ports");
  ASSERT_EQ(p["ports"].size(), 1u);
  EXPECT_EQ(p["ports"][0]["driver"], "net_af_xdp");
  EXPECT_EQ(p["ports"][0]["link_up"], true);
  EXPECT_TRUE(p["ports"][0]["stamping"]["ntp_rx"].is_string());
  EXPECT_GT(p["ports"][0]["ipackets"].get<uint64_t>(), 0u);
  EXPECT_THAT(Run({"workers"}).out, HasSubstr("Last progress"));
  EXPECT_THAT(Run({"ports"}).out, HasSubstr("net_af_xdp0 stamping: ntp_rx="));
}

TEST_F(ZgctlE2eTest, PtpAgreesWithPmc) {
  const json p = WaitFor("ptp", [](const json& j) {
    return j.contains("ports") && j["ports"].size() == 1 &&
           j["ports"][0]["port_state"] == "MASTER";
  });
  EXPECT_EQ(p["enabled"], true);
  EXPECT_EQ(p["domain"], 0);
  const json& port = p["ports"][0];
  EXPECT_EQ(port["port"], "ptp0");
  EXPECT_EQ(port["interface"], "net_af_xdp0");
  EXPECT_GT(port["messages_sent"]["ANNOUNCE"].get<uint64_t>(), 0u);
  EXPECT_EQ(p["grandmaster"]["priority1"], 128);
  absl::StatusOr<CommandResult> pmc =
      rig_->Run({"timeout", "5", "pmc", "-4", "-i", rig_->client_if(), "-d",
                 "0", "-b", "0", "GET PORT_DATA_SET", "GET DEFAULT_DATA_SET"},
                absl::Seconds(10));
  ASSERT_TRUE(pmc.ok()) << pmc.status();
  const std::string& out = pmc->stdout_text;
  EXPECT_THAT(out,
              testing::ContainsRegex("portIdentity +" +
                                     port["port_identity"].get<std::string>()));
  EXPECT_THAT(out, testing::ContainsRegex("portState +MASTER"));
  EXPECT_THAT(out,
              testing::ContainsRegex(absl::StrCat(
                  "clockClass +", p["grandmaster"]["clock_class"].dump())));
  const Zgctl human = Run({"ptp"});
  EXPECT_THAT(human.out, HasSubstr("PTP port ptp0 on net_af_xdp0"));
  EXPECT_THAT(human.out, HasSubstr("Port state      : MASTER"));
  EXPECT_THAT(human.out, HasSubstr(port["port_identity"].get<std::string>()));
}

// Eight unicast subscribers negotiate Syncs (REQUEST_UNICAST_TRANSMISSION
// from 10.99.0.100+i, 2^-(i % 4) s): `ptp subscribers --top 3` lists the
// busiest, in order, from the worker's own table.
TEST_F(ZgctlE2eTest, PtpSubscribers) {
  absl::StatusOr<NamespacePacketSocket> sock =
      NamespacePacketSocket::Open(rig_->ns(), rig_->client_if());
  ASSERT_TRUE(sock.ok()) << sock.status();
  absl::StatusOr<std::string> client_mac =
      InterfaceMac(rig_->ns(), rig_->client_if());
  ASSERT_TRUE(client_mac.ok());
  core::UdpFrameSpec spec;
  spec.src_mac = *core::ParseMacAddr(*client_mac);
  spec.dst_mac = *core::ParseMacAddr(zg_->mac());
  spec.dst_ip = *core::ParseIpAddress(rig_->server_ip());
  spec.src_port = spec.dst_port = core::kPtpGeneralPort;
  for (uint8_t i = 0; i < 8; ++i) {
    std::vector<uint8_t> tlv(32);
    tlv.resize(core::WritePtpUnicastRequestTlv(
        {core::PtpMessageType::kSync, static_cast<int8_t>(-(i % 4)), 300},
        tlv));
    core::PtpMessage m;
    m.header.source_port_identity.clock_identity.octets = {0x02, 0, 0, 0xFF,
                                                           0xFE, 0, 0, i};
    m.header.source_port_identity.port_number = 1;
    m.header.sequence_id = i;
    m.header.flags.Set(core::PtpFlag::kUnicast);
    m.body = core::PtpSignaling{};
    m.header.control_field =
        core::PtpControlFieldFor(core::PtpBodyType(m.body));
    m.tlvs = tlv;
    std::vector<uint8_t> ptp(256);
    ptp.resize(core::SerializePtpMessage(m, ptp));
    ASSERT_GT(ptp.size(), 0u);
    spec.src_ip = *core::ParseIpAddress(absl::StrCat("10.99.0.", 100 + i));
    std::vector<uint8_t> frame(512);
    core::FrameInfo info;
    const uint32_t len =
        core::BuildUdpFrame(frame.data(), frame.size(), spec,
                            static_cast<uint16_t>(ptp.size()), &info);
    ASSERT_GT(len, 0u);
    std::copy(ptp.begin(), ptp.end(), frame.begin() + info.payload_offset);
    core::FinaliseUdpChecksum(frame.data(), info);
    frame.resize(len);
    ASSERT_TRUE(sock->Send(frame).ok());
  }
  // The worker counts its subscribers every 1024 polls (about a second).
  WaitFor("ptp", [](const json& j) {
    return j.contains("ports") && j["ports"].size() == 1 &&
           j["ports"][0]["unicast"]["subscribers"] == 8;
  });
  const Zgctl z = Run({"--json", "ptp", "subscribers", "--top", "3"});
  ASSERT_EQ(z.rc, 0) << z.err;
  EXPECT_EQ(z.j["total"], 8);
  const json& top = z.j["subscribers"];
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0]["address"], "10.99.0.103");  // 2^-3 s: 8 Syncs/s
  EXPECT_EQ(top[1]["address"], "10.99.0.107");
  EXPECT_EQ(top[2]["address"], "10.99.0.102");  // 4/s, the lower address
  EXPECT_EQ(top[0]["rate"], 8);
  EXPECT_EQ(top[2]["rate"], 4);
  EXPECT_EQ(top[0]["transport"], "udp4");
  EXPECT_EQ(top[0]["port"], "ptp0");
  EXPECT_EQ(top[0]["port_identity"], "020000.fffe.000003-1");
  EXPECT_EQ(top[0]["grants"]["SYNC"]["log_interval"], -3);
  EXPECT_GT(top[0]["grants"]["SYNC"]["expires_in_s"].get<int>(), 250);
  const Zgctl human = Run({"ptp", "subscribers", "--top", "3"});
  EXPECT_THAT(human.out, HasSubstr("10.99.0.103"));
  EXPECT_THAT(human.out, testing::ContainsRegex("ptp0 +10.99.0.103"));
  EXPECT_THAT(human.out, HasSubstr("3 of 8 subscribers"));
  EXPECT_EQ(Run({"ptp", "subscribers", "--top", "0"}).rc, 2);
}

TEST_F(ZgctlE2eTest, LeapAndStatus) {
  const json l = Json("leap");
  EXPECT_EQ(l["utc_offset_s"], 37);
  EXPECT_TRUE(l["expiry_utc"].is_string());
  EXPECT_THAT(l["table"].get<std::string>(), HasSubstr("TAI-UTC 37 s"));
  EXPECT_THAT(Run({"leap"}).out, HasSubstr("TAI-UTC         : 37 s\n"));
  const json s = Json("status");
  EXPECT_EQ(s["pid"], zg_->pid());
  EXPECT_EQ(s["uid"], 0);
  EXPECT_EQ(s["control_socket"], zg_->control_socket());
  EXPECT_EQ(s["drain"]["state"], "SERVING");
  EXPECT_EQ(s["control_tick"]["interval_ns"], 100'000'000);
  EXPECT_GT(s["control_tick"]["ticks"].get<uint64_t>(), 10u);
  EXPECT_THAT(Run({"status"}).out,
              HasSubstr(absl::StrCat("PID             : ", zg_->pid())));
}

TEST_F(ZgctlE2eTest, ChangesAreAppliedAndAudited) {
  Zgctl z = Run({"drain"});
  ASSERT_EQ(z.rc, 0) << z.err;
  EXPECT_THAT(z.out, HasSubstr("Drain state     : DRAINING"));
  WaitFor("status",
          [](const json& j) { return j["drain"]["state"] == "DRAINED"; });
  z = Run({"--json", "undrain"});
  ASSERT_EQ(z.rc, 0) << z.err;
  EXPECT_EQ(z.j["drain"]["state"], "SERVING");

  z = Run({"--json", "loglevel", "warning"});
  ASSERT_EQ(z.rc, 0) << z.err;
  EXPECT_EQ(z.j["level"], "warning");
  EXPECT_EQ(z.j["previous"], "info");
  EXPECT_EQ(Json("loglevel")["level"], "warning");
  EXPECT_EQ(Json("status")["log_level"], "warning");
  ASSERT_EQ(Run({"loglevel", "info"}).rc, 0);
  z = Run({"loglevel", "loud"});
  EXPECT_EQ(z.rc, 2);
  EXPECT_THAT(z.err, HasSubstr("one of info, warning, error"));

  // reload: a reloadable flag changed in the flagfile, then a broken one
  // (counted from here: other cases reload too).
  absl::StatusOr<std::string> before = zg_->ScrapeMetrics();
  ASSERT_TRUE(before.ok()) << before.status();
  const double ok_before =
      MetricSum(*before, "zeitgeber_config_reloads_total", {{"outcome", "ok"}});
  const double rejected_before = MetricSum(
      *before, "zeitgeber_config_reloads_total", {{"outcome", "rejected"}});
  WriteFlagfile("--ntp_deny=198.51.100.0/25\n");
  z = Run({"--json", "reload"});
  ASSERT_EQ(z.rc, 0) << z.err;
  EXPECT_EQ(z.j["outcome"], "ok");
  std::printf("reload took %s s on the control thread\n",
              z.j["duration_s"].dump().c_str());
  ASSERT_EQ(z.j["changed"].size(), 1u);
  EXPECT_THAT(z.j["changed"][0].get<std::string>(), HasSubstr("ntp_deny"));
  WriteFlagfile("--ntp_deny=198.51.100.0/25\n--no_such_flag=1\n");
  z = Run({"reload"});
  EXPECT_EQ(z.rc, 1);
  EXPECT_EQ(StderrLines(z), 1) << z.err;
  EXPECT_THAT(z.err, HasSubstr("reload rejected, the old configuration stays"));
  EXPECT_THAT(z.err, HasSubstr("no_such_flag"));
  EXPECT_THAT(z.out, HasSubstr("Reload          : rejected ("));
  WriteFlagfile("--ntp_deny=198.51.100.0/25\n");
  absl::StatusOr<std::string> m = zg_->WaitForMetrics(
      {{"zeitgeber_config_reloads_total", {{"outcome", "ok"}}, ok_before + 1},
       {"zeitgeber_config_reloads_total",
        {{"outcome", "rejected"}},
        rejected_before + 1}});
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(
      MetricSum(*m, "zeitgeber_config_reloads_total", {{"outcome", "ok"}}),
      ok_before + 1);

  // Every change in the audit log, with who asked.
  const json a = Json("audit", {"--kind", "config_change"});
  std::vector<std::string> reasons;
  for (const json& r : a["records"]) {
    const json& v = r["values"];
    if (!v.contains("reason")) continue;
    const std::string reason = v["reason"].get<std::string>();
    if (!absl::StartsWith(reason, "zgctl")) continue;
    reasons.push_back(reason);
    if (v.contains("uid")) {
      EXPECT_EQ(v["uid"], 0) << r.dump();
    }
  }
  EXPECT_THAT(reasons, testing::IsSupersetOf(
                           {"zgctl drain", "zgctl undrain", "zgctl loglevel"}));
  EXPECT_THAT(absl::StrJoin(reasons, "|"), HasSubstr("zgctl reload (uid 0"));
  const Zgctl human =
      Run({"audit", "--kind", "config_change", "--limit", "50"});
  EXPECT_THAT(human.out, HasSubstr("config_change drain_state=DRAINING"));
  EXPECT_THAT(human.out, HasSubstr("reason=zgctl drain uid=0"));
  EXPECT_EQ(Json("audit", {"--kind", "start"})["records"].size(), 1u);
}

TEST_F(ZgctlE2eTest, BadCommandsGetOneLineAndTheirExitCode) {
  Zgctl z = Run({"bogus"});
  EXPECT_EQ(z.rc, 2);
  EXPECT_EQ(StderrLines(z), 1) << z.err;
  z = Run({"sources", "--nope"});
  EXPECT_EQ(z.rc, 2);
  EXPECT_EQ(StderrLines(z), 1) << z.err;
  z = Run({"audit", "--kind", "sourcedown"});
  EXPECT_EQ(z.rc, 2);
  EXPECT_THAT(z.err, HasSubstr("unknown audit kind"));
  EXPECT_EQ(StderrLines(z), 1) << z.err;
}

// ---- Bad input on the socket ------------------------------------------------

// Sends `request` (if any), then reads one reply line (bounded), or "".
std::string Exchange(int fd, const std::string& request) {
  if (!request.empty()) testutil::SendAll(fd, request);
  return testutil::ReadLine(fd, absl::Seconds(10));
}

std::string ErrorCodeOf(const std::string& line) {
  const json j = json::parse(line, nullptr, false);
  if (!j.is_object() || !j.contains("error")) return "";
  return j["error"]["code"].get<std::string>();
}

int Threads(pid_t pid) {
  int n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(
           absl::StrCat("/proc/", pid, "/task"))) {
    ++n;
  }
  return n;
}

int64_t RssKib(pid_t pid) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/status"));
  std::string key;
  while (in >> key) {
    int64_t kib = 0;
    if (key == "VmRSS:" && in >> kib) return kib;
  }
  return -1;
}

TEST_F(ZgctlE2eTest, BadInputIsRefusedAndTheTickStaysOnTime) {
  const json before = Json("status");
  const uint64_t late_before = before["control_tick"]["late_ticks"];
  const int threads = Threads(zg_->pid());
  const int64_t rss = RssKib(zg_->pid());
  const std::string& path = zg_->control_socket();

  // Malformed JSON, an unknown version, an unknown command: errors, and
  // the connection still answers.
  int fd = testutil::ConnectUnix(path, false);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(ErrorCodeOf(Exchange(fd, "{\"version\":1,\"comm\n")),
            "bad_request");
  EXPECT_EQ(ErrorCodeOf(Exchange(fd,
                                 "{\"version\":2,\"command\":\"tracking\"}"
                                 "\n")),
            "unsupported_version");
  EXPECT_EQ(ErrorCodeOf(Exchange(fd, "{\"version\":1,\"command\":\"rm\"}\n")),
            "unknown_command");
  EXPECT_EQ(json::parse(Exchange(fd,
                                 "{\"version\":1,\"command\":\"leap\"}"
                                 "\n"))["ok"],
            true);
  close(fd);

  // 1 MiB without a newline: too_large, then cut.
  fd = testutil::ConnectUnix(path, false);
  std::thread big([fd] {
    const std::string mib(1 << 20, '{');
    testutil::SendAll(fd, mib);
  });
  EXPECT_EQ(ErrorCodeOf(Exchange(fd, "")), "too_large");
  shutdown(fd, SHUT_RDWR);
  big.join();
  close(fd);

  // A client that asks and never reads, and one that leaves mid-reply.
  const int never_reads = testutil::ConnectUnix(path, false);
  const std::string audit_all =
      "{\"version\":1,\"command\":\"audit\",\"args\":{\"limit\":10000}}\n";
  testutil::SendAll(never_reads, audit_all);
  fd = testutil::ConnectUnix(path, false);
  testutil::SendAll(fd, audit_all);
  char some[16];
  recv(fd, some, sizeof(some), 0);
  close(fd);

  // 1000 connections at once, each asking for tracking.
  rlimit lim{};
  getrlimit(RLIMIT_NOFILE, &lim);
  lim.rlim_cur =
      std::max<rlim_t>(lim.rlim_cur, std::min<rlim_t>(lim.rlim_max, 4096));
  setrlimit(RLIMIT_NOFILE, &lim);
  std::vector<int> fds;
  int kernel_refused = 0;
  for (int i = 0; i < 1000; ++i) {
    const int c = testutil::ConnectUnix(path, true);
    if (c < 0) {
      ++kernel_refused;
      continue;
    }
    fds.push_back(c);
  }
  const std::string tracking = "{\"version\":1,\"command\":\"tracking\"}\n";
  for (int c : fds) testutil::SendAll(c, tracking);
  int ok = 0, too_many = 0, other = 0;
  for (int c : fds) {
    fcntl(c, F_SETFL, 0);
    const std::string line = Exchange(c, "");
    const json j = json::parse(line, nullptr, false);
    if (j.is_object() && j["ok"] == true) {
      ++ok;
    } else if (ErrorCodeOf(line) == "too_many_connections") {
      ++too_many;
    } else {
      ++other;
    }
    close(c);
  }
  std::printf(
      "1000 connections: %d answered, %d told too_many_connections, "
      "%d refused by the kernel's backlog, %d other\n",
      ok, too_many, kernel_refused, other);
  EXPECT_GE(ok, 1);
  EXPECT_EQ(ok + too_many + kernel_refused, 1000);
  EXPECT_EQ(other, 0);
  close(never_reads);

  // Still serving: NTP and zgctl; threads and memory bounded; no tick late.
  EXPECT_TRUE(QueryNtp().ok());
  const json after = Json("status");
  EXPECT_EQ(Threads(zg_->pid()), threads);
  const int64_t rss_after = RssKib(zg_->pid());
  std::printf(
      "zeitgeberd RSS %lld -> %lld KiB; control tick max lateness "
      "%s ns, late ticks %s -> %s\n",
      static_cast<long long>(rss), static_cast<long long>(rss_after),
      after["control_tick"]["max_lateness_ns"].dump().c_str(),
      std::to_string(late_before).c_str(),
      after["control_tick"]["late_ticks"].dump().c_str());
  for (absl::string_view line : absl::StrSplit(zg_->Log(), '\n')) {
    if (absl::StrContains(line, "tick began")) {
      std::printf("zeitgeberd: %s\n", std::string(line).c_str());
    }
  }
  EXPECT_LT(rss_after - rss, 64 * 1024);
  EXPECT_EQ(after["control_tick"]["late_ticks"], late_before)
      << "the control thread missed a tick while the socket was under load";
}

TEST_F(ZgctlE2eTest, ReadsForTheGroupChangesForRootNoneForOthers) {
  Zgctl z = Run({"--json", "tracking"}, AsUser(kNobody, kGroup));
  EXPECT_EQ(z.rc, 0) << z.err;
  EXPECT_EQ(z.j["stratum"], 1);
  z = Run({"drain"}, AsUser(kNobody, kGroup));
  EXPECT_EQ(z.rc, 3);
  EXPECT_EQ(StderrLines(z), 1) << z.err;
  EXPECT_THAT(z.err, HasSubstr("changes the server"));
  EXPECT_THAT(z.err, HasSubstr("you are uid 65534"));
  EXPECT_EQ(Json("status")["drain"]["state"], "SERVING");
  z = Run({"tracking"}, AsUser(kNobody, kNobody));
  EXPECT_EQ(z.rc, 3);
  EXPECT_EQ(StderrLines(z), 1) << z.err;
  EXPECT_THAT(z.err, HasSubstr("permission denied"));
}

// Last: zeitgeberd goes away.
TEST_F(ZgctlE2eTest, KillingZeitgeberdMidCommand) {
  absl::StatusOr<std::unique_ptr<testutil::Subprocess>> follow =
      testutil::Subprocess::Start({getenv("ZG_ZGCTL"),
                                   "--socket=" + zg_->control_socket(), "audit",
                                   "--kind", "start", "--follow"});
  ASSERT_TRUE(follow.ok()) << follow.status();
  const absl::Time deadline = testutil::DeadlineIn(absl::Seconds(10));
  while ((*follow)->Stdout().find(" start") == std::string::npos &&
         absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(50));
  }
  ASSERT_THAT((*follow)->Stdout(), HasSubstr(" start"));
  // A command in flight: zeitgeberd stopped, the request taken by the
  // kernel and unanswered, then killed.
  ASSERT_EQ(kill(zg_->pid(), SIGSTOP), 0);
  absl::StatusOr<std::unique_ptr<testutil::Subprocess>> waiting =
      testutil::Subprocess::Start({getenv("ZG_ZGCTL"),
                                   "--socket=" + zg_->control_socket(),
                                   "tracking"});
  ASSERT_TRUE(waiting.ok());
  absl::SleepFor(absl::Milliseconds(500));
  zg_->Kill();
  const CommandResult w = (*waiting)->Wait(absl::Seconds(10));
  EXPECT_EQ(w.exit_code, 4) << w.stderr_text;
  EXPECT_THAT(w.stderr_text, HasSubstr("before its reply was complete"));
  EXPECT_EQ(std::count(w.stderr_text.begin(), w.stderr_text.end(), '\n'), 1);
  const CommandResult f = (*follow)->Wait(absl::Seconds(10));
  EXPECT_EQ(f.exit_code, 4) << f.stderr_text;
  // Between polls (not running) or inside one (closed before the reply).
  EXPECT_THAT(f.stderr_text, testing::ContainsRegex(
                                 "zeitgeberd is not running|before its reply"));
  // Afterwards: the socket file is left behind; nobody listens.
  const Zgctl z = Run({"tracking"});
  EXPECT_EQ(z.rc, 4);
  EXPECT_THAT(z.err, HasSubstr("nothing listens on"));
}

}  // namespace
}  // namespace zgctl_test
}  // namespace zg::e2e
