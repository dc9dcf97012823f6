// SPDX-License-Identifier: Apache-2.0
// Metrics that equal the wire: a burst of NTP requests from the rig's
// client namespace to zeitgeberd (AF_XDP, XDP steering, per-client rate
// limiting with KoD) while tcpdump captures every reply on the client's
// veth; a scrape taken right after the burst must equal zeitgeberd's final
// counters and the capture, exactly: frames sent, NTP replies, KoD RATE.
// --stats_interval is 60 s, so only counters read at scrape time
// (dataplane/metrics/worker_collector.h, the NTP rate limiter's collector)
// can pass: a timer-fed exporter would still show zero.
//
// Suite e2e (root: network namespaces). About 8 s.
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "tests/e2e/zeitgeberd_rig.h"
#include "tests/util/deadline.h"
#include "tests/util/netns.h"
#include "tests/util/paths.h"
#include "tests/util/pcap.h"
#include "tests/util/subprocess.h"
#include "tests/util/temp_dir.h"

namespace zg::e2e {
namespace metrics_wire_test {
namespace {

constexpr int kRequests = 20000;
constexpr int kRatePerSecond = 20000;

// zeitgeberd's "final counters: ... NAME=N ..." value, or -1.
double FinalCounter(const std::string& log, const std::string& name) {
  const size_t line = log.find("final counters:");
  if (line == std::string::npos) return -1;
  const size_t at = log.find(" " + name + "=", line);
  if (at == std::string::npos) return -1;
  double v = -1;
  const size_t start = at + name.size() + 2;
  const size_t end = log.find_first_of(" \n", start);
  return absl::SimpleAtod(log.substr(start, end - start), &v) ? v : -1;
}

struct Captured {
  uint64_t replies = 0;  // UDP from port 123 of the server
  uint64_t kisses = 0;   // of which KoD RATE (stratum 0, refid "RATE")
};
Captured CapturedReplies(const std::string& pcap, const std::string& server) {
  absl::StatusOr<testutil::PcapFile> f = testutil::ReadPcapFile(pcap);
  EXPECT_TRUE(f.ok()) << f.status();
  Captured n;
  if (!f.ok()) return n;
  for (const testutil::PcapRecord& r : f->records) {
    if (r.data.size() < 14 + 20 + 8 || r.data[12] != 0x08 ||
        r.data[13] != 0x00) {
      continue;
    }
    const uint8_t* ip = r.data.data() + 14;
    const uint8_t* udp = ip + (ip[0] & 0xf) * 4;
    const std::string src =
        absl::StrCat(ip[12], ".", ip[13], ".", ip[14], ".", ip[15]);
    if (ip[9] != 17 || src != server || udp[0] != 0 || udp[1] != 123) continue;
    ++n.replies;
    const uint8_t* ntp = udp + 8;
    if (r.data.size() >= static_cast<size_t>(ntp - r.data.data()) + 16 &&
        ntp[1] == 0 &&
        std::string(reinterpret_cast<const char*>(ntp + 12), 4) == "RATE") {
      ++n.kisses;
    }
  }
  return n;
}

TEST(MetricsWireTest, ScrapeAfterABurstEqualsFinalCountersAndCapture) {
  if (!testutil::CanCreateNamespaces()) GTEST_SKIP() << "needs root";
  for (const char* tool : {"tcpdump", "curl", "python3"}) {
    if (!testutil::ProgramAvailable(tool)) GTEST_SKIP() << tool << " missing";
  }
  testutil::RigConfig config;
  config.name = testutil::UniqueRigName("zgmw");
  config.server_cidr6.clear();
  auto rig = testutil::NetnsRig::Create(config);
  ASSERT_TRUE(rig.ok()) << rig.status();
  ZeitgeberdOptions o;
  o.nice = -20;
  o.extra_flags = {"--stats_interval=60s",
                   "--ntp_ratelimit=interval=-4,burst=8,leak=4",
                   "--ntp_ratelimit_kod=true"};
  auto zg = Zeitgeberd::Start(**rig, config, o);
  ASSERT_TRUE(zg.ok()) << zg.status();
  auto dir = testutil::TempDir::Create("metrics-wire");
  ASSERT_TRUE(dir.ok());
  const std::string pcap = dir->File("replies.pcap");
  auto tcpdump = (*rig)->Start({"tcpdump", "--immediate-mode", "-B", "65536",
                                "-i", (*rig)->client_if(), "-n", "-U", "-w",
                                pcap, "udp and src port 123"});
  ASSERT_TRUE(tcpdump.ok()) << tcpdump.status();
  ASSERT_TRUE(testutil::PollUntil(testutil::DeadlineIn(absl::Seconds(20)), [&] {
    return absl::StrContains((*tcpdump)->Stderr(), "listening on") ||
           !(*tcpdump)->Running();
  })) << (*tcpdump)->Stderr();

  auto burst = (*rig)->Run(
      {"python3", testutil::SourceRoot() + "/tests/e2e/ntp_burst.py",
       (*rig)->server_ip(), absl::StrCat(kRequests),
       absl::StrCat(kRatePerSecond)},
      absl::Seconds(30));
  ASSERT_TRUE(burst.ok() && burst->ok())
      << (burst.ok() ? burst->Describe()
                     : std::string(burst.status().message()));
  // The last replies are on the veth within microseconds; give the worker
  // and tcpdump a moment, then scrape once.
  absl::SleepFor(absl::Milliseconds(300));
  auto scrape = (*zg)->ScrapeMetrics();
  ASSERT_TRUE(scrape.ok()) << scrape.status();
  const double tx_scraped = MetricSum(*scrape, "zeitgeber_tx_packets_total");
  const double replied_scraped =
      MetricSum(*scrape, "zeitgeber_frames_replied_total", {{"kind", "ntp"}});
  const double rx_scraped = MetricSum(*scrape, "zeitgeber_rx_packets_total");
  const double kod_scraped =
      MetricSum(*scrape, "zeitgeber_ntp_kod_sent_total", {{"code", "RATE"}});

  absl::SleepFor(absl::Milliseconds(300));
  const testutil::CommandResult capture = (*tcpdump)->Stop();
  ASSERT_TRUE((*zg)->Stop().ok());
  const std::string log = (*zg)->Log();
  const double tx_final = FinalCounter(log, "tx_packets");
  const double rx_final = FinalCounter(log, "rx_packets");
  const Captured captured = CapturedReplies(pcap, (*rig)->server_ip());
  const double dropped = TcpdumpDropped(capture.stderr_text);
  std::printf(
      "%d requests sent (%s); scrape: rx %.0f tx %.0f ntp replies %.0f "
      "KoD %.0f; final: rx %.0f tx %.0f; capture: %llu replies (%llu KoD), "
      "tcpdump dropped %.0f\n",
      kRequests,
      std::string(absl::StripAsciiWhitespace(burst->stdout_text)).c_str(),
      rx_scraped, tx_scraped, replied_scraped, kod_scraped, rx_final, tx_final,
      static_cast<unsigned long long>(captured.replies),
      static_cast<unsigned long long>(captured.kisses), dropped);
  ASSERT_EQ(dropped, 0) << "tcpdump lost frames: the capture cannot be "
                           "compared exactly; "
                        << capture.stderr_text;
  EXPECT_EQ(rx_scraped, kRequests) << log;
  EXPECT_GT(tx_scraped, 0) << log;
  EXPECT_GT(kod_scraped, 0) << "the flood was rate limited with KoD";
  EXPECT_EQ(tx_scraped, tx_final) << "the scrape lags the final counters";
  EXPECT_EQ(rx_scraped, rx_final);
  EXPECT_EQ(replied_scraped, tx_scraped) << "every frame sent was an NTP reply";
  EXPECT_EQ(static_cast<double>(captured.replies), tx_scraped)
      << "the scrape differs from the wire";
  EXPECT_EQ(static_cast<double>(captured.kisses), kod_scraped)
      << "the KoD counter differs from the wire";
}

}  // namespace
}  // namespace metrics_wire_test
}  // namespace zg::e2e
