// SPDX-License-Identifier: Apache-2.0
// zeitgeberd's per-client NTP rate limit (--ntp_ratelimit,
// --ntp_ratelimit_kod; dataplane/ntp/ntp_trust_policy.h) on the veth rig
// against real clients:
//  - one abusive source (an address of its own on the client side) floods
//    raw NTP requests at 200k/s (sendmmsg, paced; at least 100k/s is
//    required, the rate reached is printed) while about 50 polite
//    clients on other addresses poll (48 one-shot sockets, ntpdig, chronyd
//    -Q): every polite client is answered; the abuser gets KoD RATE (at most
//    one a second) and no more answers than its bucket plus the leak; the
//    replies and KoDs in a client-side capture equal zeitgeberd's counters.
//  - chronyd, as a client polling faster than the limit, receives KoD RATE
//    and backs off (its log says so; its requests are counted).
//  - the NTP access list (--ntp_allow/--ntp_deny): a denied address gets
//    nothing, or KoD DENY with --ntp_deny_action=kod; an allowed one is
//    served; zeitgeber_ntp_acl_total counts both.
#include <fcntl.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/net/frame.h"
#include "core/net/frame_build.h"
#include "core/net/net_headers.h"
#include "core/ntp/ntp_client.h"
#include "core/ntp/ntp_wire.h"
#include "gtest/gtest.h"
#include "tests/e2e/zeitgeberd_rig.h"
#include "tests/util/deadline.h"
#include "tests/util/netns.h"
#include "tests/util/paths.h"
#include "tests/util/pcap.h"
#include "tests/util/subprocess.h"
#include "tests/util/temp_dir.h"

namespace zg::e2e {
namespace ntp_rate_limit_test {
namespace {

using testutil::CommandResult;
using testutil::NetnsRig;

constexpr char kAbuser[] = "10.99.0.200";
constexpr int kPoliteSockets = 48;          // on 10.99.0.10 .. 10.99.0.57
constexpr double kFloodPerSecond = 200000;  // the abuser's paced rate

class NtpRateLimitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testutil::CanCreateNamespaces()) GTEST_SKIP() << "needs root";
    for (const char* tool :
         {"ntpdig", "chronyd", "tcpdump", "curl", "python3"}) {
      if (!testutil::ProgramAvailable(tool)) GTEST_SKIP() << tool << " missing";
    }
  }
  void StartServer(std::vector<std::string> flags) {
    config_.name = testutil::UniqueRigName("zgrl");
    absl::StatusOr<std::unique_ptr<NetnsRig>> rig = NetnsRig::Create(config_);
    ASSERT_TRUE(rig.ok()) << rig.status();
    rig_ = std::move(*rig);
    ZeitgeberdOptions o;
    o.nice = -20;
    o.extra_flags = std::move(flags);
    absl::StatusOr<std::unique_ptr<Zeitgeberd>> zg =
        Zeitgeberd::Start(*rig_, config_, o);
    ASSERT_TRUE(zg.ok()) << zg.status();
    zg_ = std::move(*zg);
  }
  // tcpdump on the client side, capturing `filter`, once it listens.
  std::unique_ptr<testutil::Subprocess> Capture(const std::string& pcap,
                                                const std::string& filter) {
    absl::StatusOr<std::unique_ptr<testutil::Subprocess>> t =
        rig_->Start({"tcpdump", "--immediate-mode", "-B", "16384", "-i",
                     rig_->client_if(), "-n", "-U", "-w", pcap, filter});
    EXPECT_TRUE(t.ok()) << t.status();
    if (!t.ok()) return nullptr;
    EXPECT_TRUE(
        testutil::PollUntil(testutil::DeadlineIn(absl::Seconds(20)), [&] {
          return absl::StrContains((*t)->Stderr(), "listening on") ||
                 !(*t)->Running();
        }));
    return std::move(*t);
  }

  testutil::RigConfig config_;
  std::unique_ptr<NetnsRig> rig_;  // destroyed after zg_
  std::unique_ptr<Zeitgeberd> zg_;
};

// An AF_PACKET socket in `ns` sending one frame many times per syscall.
class Flooder {
 public:
  static absl::StatusOr<Flooder> Open(const std::string& ns,
                                      const std::string& ifname) {
    absl::StatusOr<int> fd = absl::InternalError("not run");
    std::thread t([&] {  // setns moves only this thread
      const int nsfd = open(absl::StrCat("/run/netns/", ns).c_str(), O_RDONLY);
      if (nsfd < 0 || setns(nsfd, CLONE_NEWNET) != 0) {
        fd = absl::InternalError(absl::StrCat("setns ", ns));
        if (nsfd >= 0) close(nsfd);
        return;
      }
      close(nsfd);
      const int s = socket(AF_PACKET, SOCK_RAW, 0);
      const int one = 1;  // straight to the veth, past the qdisc
      if (s >= 0) {
        setsockopt(s, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));
      }
      sockaddr_ll a{};
      a.sll_family = AF_PACKET;
      a.sll_ifindex = static_cast<int>(if_nametoindex(ifname.c_str()));
      if (s < 0 || bind(s, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
        fd = absl::InternalError(absl::StrCat("AF_PACKET on ", ifname));
        if (s >= 0) close(s);
        return;
      }
      fd = s;
    });
    t.join();
    if (!fd.ok()) return fd.status();
    return Flooder(*fd);
  }
  Flooder(Flooder&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  ~Flooder() {
    if (fd_ >= 0) close(fd_);
  }
  // Sends `frame` 256 times; returns how many went.
  int SendBatch(std::vector<uint8_t>& frame) {
    constexpr int kBatch = 64;
    iovec iov{frame.data(), frame.size()};
    mmsghdr msgs[kBatch] = {};
    for (mmsghdr& m : msgs) {
      m.msg_hdr.msg_iov = &iov;
      m.msg_hdr.msg_iovlen = 1;
    }
    const int n = sendmmsg(fd_, msgs, kBatch, 0);
    return n < 0 ? 0 : n;
  }

 private:
  explicit Flooder(int fd) : fd_(fd) {}
  int fd_ = -1;
};

// An NTP client request from the abuser's address.
std::vector<uint8_t> AbuserRequest(const NetnsRig& rig, const Zeitgeberd& zg) {
  core::UdpFrameSpec spec;
  spec.src_mac =
      core::ParseMacAddr(*InterfaceMac(rig.ns(), rig.client_if())).value();
  spec.dst_mac = core::ParseMacAddr(zg.mac()).value();
  spec.src_ip = core::ParseIpAddress(kAbuser).value();
  spec.dst_ip = core::ParseIpAddress(rig.server_ip()).value();
  spec.src_port = 40999;
  spec.dst_port = 123;
  std::vector<uint8_t> f(128);
  core::FrameInfo info;
  const uint32_t len = core::BuildUdpFrame(f.data(), uint32_t(f.size()), spec,
                                           core::kNtpHeaderSize, &info);
  core::BuildNtpClientRequest(f.data() + info.payload_offset, 4, 0,
                              core::NtpTimestamp{0xe8fe6f80u, 12345});
  core::FinaliseUdpChecksum(f.data(), info);
  f.resize(len);
  return f;
}

// What the capture holds from the server to one address.
struct Replies {
  uint64_t answers = 0;  // mode 4, stratum 1..15
  uint64_t kisses = 0;   // KoD RATE
};
std::map<std::string, Replies> RepliesByClient(const std::string& pcap) {
  std::map<std::string, Replies> out;
  absl::StatusOr<testutil::PcapFile> f = testutil::ReadPcapFile(pcap);
  EXPECT_TRUE(f.ok()) << f.status();
  if (!f.ok()) return out;
  for (const testutil::PcapRecord& r : f->records) {
    if (r.data.size() < 14 + 20 + 8 + core::kNtpHeaderSize) continue;
    const uint8_t* ip = r.data.data() + 14;
    if (r.data[12] != 0x08 || r.data[13] != 0x00) continue;  // IPv4 only
    const std::string dst =
        absl::StrCat(ip[16], ".", ip[17], ".", ip[18], ".", ip[19]);
    const uint8_t* ntp = ip + (ip[0] & 0xf) * 4 + 8;
    core::NtpHeader h;
    if (!core::ParseNtpHeader(ntp, core::kNtpHeaderSize, &h)) continue;
    if (core::ClassifyNtpKiss(h) == core::NtpKiss::kRate) {
      ++out[dst].kisses;
    } else if (h.stratum >= 1 && h.stratum <= 15) {
      ++out[dst].answers;
    }
  }
  return out;
}

TEST_F(NtpRateLimitTest, AbuserIsLimitedWhilePoliteClientsAreAnswered) {
  // 16 replies/s per client, bursts of 8, 1 in 16 excess requests answered.
  ASSERT_NO_FATAL_FAILURE(
      // The exporter refreshes every 100 ms, so the settle check's two
      // scrapes a second apart span ten refreshes (at the default 1 s a
      // late control-thread refresh let both show the same stale values).
      // Busy polling (--idle_sleep=0, over the rig's default), as a
      // deployment would: the worker is never idle under this flood.
      StartServer({"--ntp_ratelimit=interval=-4,burst=8,leak=4",
                   "--ntp_ratelimit_kod=true", "--ntp_clients_max=4096",
                   "--stats_interval=100ms", "--idle_sleep=0"}));
  absl::StatusOr<CommandResult> r =
      rig_->Run({"sh", "-c",
                 absl::StrCat("for i in $(seq 10 ", 9 + kPoliteSockets,
                              "); do ip addr add 10.99.0.$i/24 dev ",
                              rig_->client_if(), " || exit 1; done")},
                absl::Seconds(20));
  ASSERT_TRUE(r.ok() && r->ok()) << (r.ok() ? r->Describe() : "");
  absl::StatusOr<testutil::TempDir> dir = testutil::TempDir::Create("zgrl");
  ASSERT_TRUE(dir.ok());
  const std::string pcap = dir->File("replies.pcap");
  std::unique_ptr<testutil::Subprocess> tcpdump =
      Capture(pcap, "udp src port 123");
  ASSERT_NE(tcpdump, nullptr);

  absl::StatusOr<Flooder> flooder =
      Flooder::Open(rig_->ns(), rig_->client_if());
  ASSERT_TRUE(flooder.ok()) << flooder.status();
  std::vector<uint8_t> request = AbuserRequest(*rig_, *zg_);
  std::atomic<bool> stop{false};
  uint64_t sent = 0;
  const absl::Time flood_start = absl::Now();
  absl::Time flood_end;
  std::thread flood([&] {
    const absl::Time min_end = flood_start + absl::Seconds(3);
    const absl::Time deadline = testutil::DeadlineIn(absl::Seconds(30));
    while ((!stop.load() || absl::Now() < min_end) && absl::Now() < deadline) {
      sent += flooder->SendBatch(request);
      // Paced: past the rate the rig itself (the veth backlog, the AF_XDP
      // ring) starts losing frames before zeitgeberd sees them, polite
      // ones included, which no server could answer.
      const absl::Time due =
          flood_start + absl::Seconds(double(sent) / kFloodPerSecond);
      if (const absl::Time now = absl::Now(); due > now) {
        absl::SleepFor(due - now);
      }
    }
    flood_end = absl::Now();
  });

  // The polite clients, during the flood.
  std::vector<std::string> cmd = {
      "python3", testutil::SourceRoot() + "/tests/e2e/ntp_many_clients.py",
      rig_->server_ip(), rig_->server_ip6(), "1"};
  for (int i = 0; i < kPoliteSockets; ++i) {
    cmd.push_back(absl::StrCat("10.99.0.", 10 + i));
  }
  absl::StatusOr<CommandResult> polite = rig_->Run(cmd, absl::Seconds(30));
  absl::StatusOr<NtpdigSample> dig = Ntpdig(*rig_, rig_->server_ip());
  absl::StatusOr<double> chronyd = ChronydOffset(*rig_, rig_->server_ip());
  stop.store(true);
  flood.join();
  const double seconds = absl::ToDoubleSeconds(flood_end - flood_start);
  std::printf("abuser %s: %llu requests in %.1f s (%.0f/s)\n", kAbuser,
              static_cast<unsigned long long>(sent), seconds, sent / seconds);
  EXPECT_GE(sent / seconds, 100'000) << "the flood the issue asks for";

  ASSERT_TRUE(polite.ok()) << polite.status();
  std::printf("polite: %s", polite->stdout_text.c_str());
  EXPECT_TRUE(polite->ok())
      << "every polite socket answered: " << polite->Describe()
      << polite->stdout_text;
  EXPECT_TRUE(dig.ok()) << "ntpdig during the flood: " << dig.status();
  EXPECT_TRUE(chronyd.ok())
      << "chronyd -Q during the flood: " << chronyd.status();

  // Every reply sent is in the capture once zeitgeberd's counter shows it.
  std::string metrics = zg_->ScrapeMetrics().value_or("");
  const bool settled = testutil::PollUntil(
      testutil::DeadlineIn(absl::Seconds(10)),
      [&] {
        const absl::StatusOr<std::string> m = zg_->ScrapeMetrics();
        if (!m.ok()) return false;
        const bool same =
            MetricSum(*m, "zeitgeber_frames_replied_total",
                      {{"kind", "ntp"}}) ==
                MetricSum(metrics, "zeitgeber_frames_replied_total",
                          {{"kind", "ntp"}}) &&
            MetricSum(*m, "zeitgeber_rx_packets_total") ==
                MetricSum(metrics, "zeitgeber_rx_packets_total") &&
            MetricSum(*m, "zeitgeber_ntp_kod_sent_total") ==
                MetricSum(metrics, "zeitgeber_ntp_kod_sent_total");
        metrics = *m;
        return same;
      },
      absl::Seconds(1));
  EXPECT_TRUE(settled);
  absl::SleepFor(absl::Milliseconds(500));
  const CommandResult capture_end = tcpdump->Stop();
  const std::map<std::string, Replies> captured = RepliesByClient(pcap);
  uint64_t answers = 0, kisses = 0;
  for (const auto& [dst, n] : captured) {
    answers += n.answers;
    kisses += n.kisses;
  }
  const Replies abuser =
      captured.count(kAbuser) ? captured.at(kAbuser) : Replies{};
  const double leak = MetricSum(metrics, "zeitgeber_ntp_rate_limited_total",
                                {{"action", "leak"}});
  const double dropped = MetricSum(metrics, "zeitgeber_ntp_rate_limited_total",
                                   {{"action", "drop"}});
  const double kod =
      MetricSum(metrics, "zeitgeber_ntp_kod_sent_total", {{"code", "RATE"}});
  std::printf(
      "capture: %llu answers + %llu KoD RATE in all; to the abuser %llu "
      "answers, %llu KoD\nzeitgeberd: rate limited %.0f leaked, %.0f "
      "dropped, %.0f KoD RATE; %.0f NTP replies\n",
      static_cast<unsigned long long>(answers),
      static_cast<unsigned long long>(kisses),
      static_cast<unsigned long long>(abuser.answers),
      static_cast<unsigned long long>(abuser.kisses), leak, dropped, kod,
      MetricSum(metrics, "zeitgeber_frames_replied_total", {{"kind", "ntp"}}));

  // The counters match the capture. The flood fills the client-side veth's
  // backlog (net.core.netdev_max_backlog) on this loaded machine, and
  // tcpdump may drop too (it says how many), so some replies zeitgeberd
  // sent can be missing from the capture: the capture is at most the
  // counters, short by that loss (printed) and no more than 10%.
  const double replied =
      MetricSum(metrics, "zeitgeber_frames_replied_total", {{"kind", "ntp"}});
  const double lost = replied - double(answers + kisses);
  std::printf("replies missing from the capture: %.0f of %.0f; tcpdump: %s\n",
              lost, replied, capture_end.stderr_text.c_str());
  // The other way, the scrape can lag what zeitgeberd transmitted (see the
  // exact check against its final report below). Held to 5%; `extra`
  // widens the per-reason bounds below.
  // Short by no more than 10%, plus what tcpdump itself says it dropped
  // (its buffer overflows when the machine is busy: 20251 of 35255 in one
  // CI run; the exact check against the final report below holds that
  // count to the frames really missing).
  EXPECT_GE(lost, -0.05 * replied);
  EXPECT_LE(lost, 0.10 * replied + TcpdumpDropped(capture_end.stderr_text));
  const double missing = std::max(lost, 0.0);
  const double extra = std::max(-lost, 0.0);
  // tcpdump's "received by filter" (captured + the kernel's drop count) is
  // printed but not held to the counters: at the idle-machine flood rate
  // (~500k/s) the kernel's drop count ran past what was really missing
  // (6194 drops for 3672 missing replies in one CI run), and replies lost
  // in the veth backlog never reach the filter at all. What holds is the
  // bracket above: the capture never shows more than zeitgeberd counted,
  // and at most 10% fewer.
  EXPECT_GE(FilterReceived(capture_end.stderr_text), double(answers + kisses));
  EXPECT_LE(double(kisses), kod + extra);
  EXPECT_GE(double(kisses), kod - missing);
  EXPECT_EQ(abuser.kisses, kisses) << "only the abuser is kissed";
  // KoD RATE, at most one a second.
  EXPECT_GE(abuser.kisses, 1u);
  EXPECT_LE(double(abuser.kisses), seconds + 2);
  // Answers: the bucket (8 + 16/s) plus the leak, which is 1/16 of the
  // excess (bounded here by 5 sigma over what was sent).
  const double bucket = 8 + 16 * (seconds + 1);
  EXPECT_LE(double(abuser.answers) - leak, bucket + extra);
  EXPECT_GE(double(abuser.answers), leak - missing);
  EXPECT_LE(leak, sent / 16.0 + 5 * std::sqrt(sent / 16.0) + 1);
  EXPECT_GT(dropped, 0);
  EXPECT_GT(MetricSum(metrics, "zeitgeber_ntp_clients_tracked"),
            kPoliteSockets);
  EXPECT_TRUE(zg_->Stop().ok()) << zg_->Log();
  // The exact check: zeitgeberd's final report (after its workers stopped)
  // against the capture. The scrape above can lag it (up to 2.5% seen at
  // this rate, with the exporter's values unchanged over a whole second:
  // left open), the final report does not.
  double tx_final = -1;
  for (absl::string_view line : absl::StrSplit(zg_->Log(), '\n')) {
    const size_t at = line.find("final counters:");
    if (at == line.npos) continue;
    const size_t tx = line.find(" tx_packets=", at);
    if (tx == line.npos) continue;
    absl::string_view v = line.substr(tx + 12);
    v = v.substr(0, v.find(' '));
    if (!absl::SimpleAtod(v, &tx_final)) tx_final = -1;
  }
  const double captured_total = double(answers + kisses);
  const double tcpdump_dropped = TcpdumpDropped(capture_end.stderr_text);
  std::printf(
      "final report: %.0f frames transmitted; captured %.0f, "
      "tcpdump dropped %.0f\n",
      tx_final, captured_total, tcpdump_dropped);
  EXPECT_GE(tx_final, captured_total)
      << "the capture shows no reply zeitgeberd "
         "did not transmit";
  EXPECT_LE(tx_final - captured_total, tcpdump_dropped + 0.001 * tx_final)
      << "every transmitted reply is in the capture, or tcpdump says it "
         "dropped it";
}

TEST_F(NtpRateLimitTest, ChronydBacksOffOnKissOfDeath) {
  // One reply per 8 s: chronyd polling every second is told to slow down.
  ASSERT_NO_FATAL_FAILURE(
      StartServer({"--ntp_ratelimit=interval=3,burst=1,leak=4",
                   "--ntp_ratelimit_kod=true"}));
  absl::StatusOr<testutil::TempDir> dir = testutil::TempDir::Create("zgrl");
  ASSERT_TRUE(dir.ok());
  const std::string pcap = dir->File("chronyd.pcap");
  std::unique_ptr<testutil::Subprocess> tcpdump =
      Capture(pcap, absl::StrCat("udp port 123 and host ", rig_->client_ip()));
  ASSERT_NE(tcpdump, nullptr);
  absl::StatusOr<std::unique_ptr<testutil::Subprocess>> chronyd = rig_->Start(
      {"chronyd", "-d", "-x", "-u", "root", "-f", "/dev/null",
       absl::StrCat("server ", rig_->server_ip(), " minpoll 0 maxpoll 0"),
       absl::StrCat("pidfile ", dir->File("chronyd.pid")),
       absl::StrCat("bindcmdaddress ", dir->File("chronyd.sock")),
       "cmdport 0"});
  ASSERT_TRUE(chronyd.ok()) << chronyd.status();
  constexpr int kSeconds = 12;
  const bool kissed =
      testutil::PollUntil(testutil::DeadlineIn(absl::Seconds(kSeconds)), [&] {
        return absl::StrContains((*chronyd)->Stderr(), "Received KoD RATE");
      });
  absl::SleepFor(absl::Seconds(kSeconds) / 2);
  const std::string log = (*chronyd)->Stderr();
  const CommandResult done = (*chronyd)->Stop();
  absl::SleepFor(absl::Milliseconds(300));
  tcpdump->Stop();
  EXPECT_TRUE(kissed) << "chronyd's log:\n" << log << done.stderr_text;
  absl::StatusOr<testutil::PcapFile> f = testutil::ReadPcapFile(pcap);
  ASSERT_TRUE(f.ok()) << f.status();
  size_t requests = 0;
  for (const testutil::PcapRecord& r : f->records) {
    if (r.data.size() > 37 && r.data[36] == 0 && r.data[37] == 123) ++requests;
  }
  std::printf("chronyd: %zu requests in %d s at minpoll 0; log:\n%s\n",
              requests, kSeconds + kSeconds / 2, log.c_str());
  EXPECT_LT(requests, size_t{kSeconds}) << "backed off from one a second";
  EXPECT_TRUE(zg_->Stop().ok()) << zg_->Log();
}

// One request from `source` (an address on the client side): the reply's
// JSON from tests/e2e/ntp_query_from.py.
std::string QueryFrom(const NetnsRig& rig, const std::string& source) {
  absl::StatusOr<CommandResult> r = rig.Run(
      {"python3", testutil::SourceRoot() + "/tests/e2e/ntp_query_from.py",
       rig.server_ip(), source, "2"},
      absl::Seconds(10));
  EXPECT_TRUE(r.ok() && r->ok()) << (r.ok() ? r->Describe() : "");
  return r.ok() ? r->stdout_text : "";
}

TEST_F(NtpRateLimitTest, AccessListDeniesOrKissesAndServesTheAllowed) {
  for (const char* action : {"drop", "kod"}) {
    SCOPED_TRACE(action);
    ASSERT_NO_FATAL_FAILURE(
        StartServer({"--ntp_allow=10.99.0.0/24", "--ntp_deny=10.99.0.60/32",
                     absl::StrCat("--ntp_deny_action=", action)}));
    for (const char* a : {"10.99.0.60/24", "10.99.0.61/24"}) {
      absl::StatusOr<CommandResult> r =
          rig_->Run({"ip", "addr", "add", a, "dev", rig_->client_if()},
                    absl::Seconds(10));
      ASSERT_TRUE(r.ok() && r->ok()) << (r.ok() ? r->Describe() : "");
    }
    const std::string denied = QueryFrom(*rig_, "10.99.0.60");
    const std::string allowed = QueryFrom(*rig_, "10.99.0.61");
    std::printf("--ntp_deny_action=%s: denied %s allowed %s", action,
                denied.c_str(), allowed.c_str());
    if (std::string(action) == "drop") {
      EXPECT_TRUE(absl::StrContains(denied, "\"reply\": false")) << denied;
    } else {
      EXPECT_TRUE(absl::StrContains(denied, "\"stratum\": 0") &&
                  absl::StrContains(denied, "\"refid\": \"DENY\""))
          << denied;
    }
    EXPECT_TRUE(absl::StrContains(allowed, "\"reply\": true") &&
                absl::StrContains(allowed, "\"origin_ok\": true") &&
                !absl::StrContains(allowed, "\"stratum\": 0"))
        << allowed;
    const std::string metrics =
        zg_->WaitForMetrics(
               {{"zeitgeber_ntp_acl_total", {{"verdict", "deny_rule"}}, 1},
                {"zeitgeber_ntp_acl_total", {{"verdict", "allow_rule"}}, 1}})
            .value_or("");
    EXPECT_EQ(MetricSum(metrics, "zeitgeber_ntp_acl_total",
                        {{"verdict", "deny_rule"}}),
              1);
    EXPECT_EQ(
        MetricSum(metrics, "zeitgeber_ntp_kod_sent_total", {{"code", "DENY"}}),
        std::string(action) == "kod" ? 1 : 0);
    EXPECT_TRUE(zg_->Stop().ok()) << zg_->Log();
    zg_.reset();
    rig_.reset();
  }
}

}  // namespace
}  // namespace ntp_rate_limit_test
}  // namespace zg::e2e
