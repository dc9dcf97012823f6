// SPDX-License-Identifier: Apache-2.0
#include "bench/loadgen/report.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace zg::bench {
namespace report_test {
namespace {

RunSummary Sample() {
  RunSummary s;
  s.target = "10.99.0.1:123";
  s.mix = "ntp4:1";
  s.offered_pps = 1e6;
  s.lanes = 2;
  s.clients = 256;
  s.timeout_s = 0.2;
  s.sending_s = 10;
  s.counts = {.sent = 10'000'000,
              .answered = 9'990'000,
              .kod = 1000,
              .bad_reply = 2000,
              .late = 3000,
              .lost = 4000,
              .in_flight = 0,
              .duplicate = 5,
              .unmatched = 6,
              .skipped = 7};
  s.invalid = {{"unsynchronized", 2000}, {"too_short", 6}};
  s.kod_codes = {{"RATE", 1000}};
  auto rtt = std::make_unique<LogHistogram>();
  for (uint64_t v = 1000; v <= 100'000; v += 10) rtt->Record(v);
  s.rtt_ns = Summarize(*rtt);
  auto off = std::make_unique<SignedHistogram>();
  for (int64_t v = -500; v <= 300; ++v) off->Record(v);
  s.offset_ns = Summarize(*off);
  return s;
}

TEST(RequestCountsTest, ConsistencyAndLoss) {
  RequestCounts c = Sample().counts;
  EXPECT_TRUE(c.Consistent());
  EXPECT_DOUBLE_EQ(c.Loss(), 10'000.0 / 10'000'000);
  c.in_flight = 1;
  EXPECT_FALSE(c.Consistent());
  RequestCounts sum;
  sum += Sample().counts;
  sum += Sample().counts;
  EXPECT_EQ(sum.sent, 20'000'000u);
  EXPECT_EQ(sum.skipped, 14u);
  EXPECT_TRUE(sum.Consistent());
  EXPECT_EQ(RequestCounts().Loss(), 0);
}

TEST(SummarizeTest, MatchesTheHistogram) {
  auto h = std::make_unique<LogHistogram>();
  for (uint64_t v = 1; v <= 200; ++v) h->Record(v);
  const Distribution d = Summarize(*h);
  EXPECT_EQ(d.count, 200u);
  EXPECT_EQ(d.min, 1);
  EXPECT_EQ(d.p50, 100);
  EXPECT_EQ(d.p90, 180);
  EXPECT_EQ(d.p99, 198);
  EXPECT_EQ(d.p999, 200);
  EXPECT_EQ(d.max, 200);
  EXPECT_DOUBLE_EQ(d.mean, 100.5);
  const Distribution off = Summarize(*std::make_unique<SignedHistogram>());
  EXPECT_EQ(off.count, 0u);
}

TEST(FormatTest, RatesAndDurations) {
  EXPECT_EQ(FormatRate(1234567), "1.235 Mpps");
  EXPECT_EQ(FormatRate(12345), "12.345 kpps");
  EXPECT_EQ(FormatRate(12), "12 pps");
  EXPECT_EQ(FormatNanos(12), "12 ns");
  EXPECT_EQ(FormatNanos(1500), "1.50 us");
  EXPECT_EQ(FormatNanos(-1500), "-1.50 us");
  EXPECT_EQ(FormatNanos(2'500'000), "2.500 ms");
  EXPECT_EQ(FormatNanos(3e9), "3.000 s");
}

TEST(FormatSummaryTest, SaysWhatHappened) {
  const std::string text = FormatSummary(Sample());
  for (const char* needle : {"10.99.0.1:123",
                             "offered 1.000 Mpps",
                             "sent        10000000",
                             "1.000 Mpps over 10.000 s",
                             "7 skipped",
                             "answered    9990000",
                             "loss        0.1000 %",
                             "lost 4000",
                             "late 3000",
                             "kod 1000",
                             "bad_reply 2000",
                             "duplicate 5",
                             "unmatched 6",
                             "unsynchronized=2000, too_short=6",
                             "RATE=1000",
                             "round trip",
                             "p99.9",
                             "residence   no samples",
                             "offset",
                             "share a clock"}) {
    EXPECT_TRUE(absl::StrContains(text, needle))
        << "missing '" << needle << "' in:\n"
        << text;
  }
  EXPECT_FALSE(absl::StrContains(text, "sweep"));
  EXPECT_FALSE(absl::StrContains(text, "reflector"));
  EXPECT_FALSE(absl::StrContains(text, "generator:"));
}

TEST(FormatSummaryTest, ReflectorModeAndGeneratorCounters) {
  RunSummary s = Sample();
  s.reflector = true;
  s.generator = {{"tx_refused", 12}, {"arp_answered", 3}};
  const std::string text = FormatSummary(s);
  EXPECT_TRUE(absl::StrContains(text, "reflector mode")) << text;
  EXPECT_TRUE(absl::StrContains(text, "tx_refused=12, arp_answered=3")) << text;
  const nlohmann::json j = nlohmann::json::parse(SummaryToJson(s));
  EXPECT_TRUE(j["reflector"].get<bool>());
  EXPECT_EQ(j["generator"]["tx_refused"], 12u);
}

TEST(FormatSummaryTest, SweepTable) {
  RunSummary s = Sample();
  SweepResult sweep;
  sweep.trials = {{0, 9e6, 9'000'000, 8'000'000},
                  {4.5e6, 4.5e6, 4'500'000, 4'500'000}};
  sweep.found = true;
  sweep.best = sweep.trials[1];
  s.sweep = sweep;
  const std::string text = FormatSummary(s);
  EXPECT_TRUE(absl::StrContains(text, "no-drop rate 4.500 Mpps")) << text;
  EXPECT_TRUE(absl::StrContains(text, "fail")) << text;
  EXPECT_TRUE(absl::StrContains(text, "max")) << text;
  s.sweep->found = false;
  EXPECT_TRUE(absl::StrContains(FormatSummary(s), "no rate passed"));
}

TEST(JsonTest, RoundTripsThroughAParser) {
  RunSummary s = Sample();
  SweepResult sweep;
  sweep.trials = {{0, 9e6, 9'000'000, 8'000'000},
                  {4.5e6, 4.5e6, 4'500'000, 4'500'000}};
  sweep.found = true;
  sweep.best = sweep.trials[1];
  s.sweep = sweep;
  const nlohmann::json j = nlohmann::json::parse(SummaryToJson(s));
  EXPECT_EQ(j["target"], "10.99.0.1:123");
  EXPECT_EQ(j["counts"]["sent"], 10'000'000u);
  EXPECT_EQ(j["counts"]["lost"], 4000u);
  EXPECT_EQ(j["counts"]["skipped"], 7u);
  EXPECT_DOUBLE_EQ(j["achieved_pps"].get<double>(), 1e6);
  EXPECT_DOUBLE_EQ(j["loss"].get<double>(), 1e-3);
  EXPECT_EQ(j["invalid"]["unsynchronized"], 2000u);
  EXPECT_EQ(j["kod_codes"]["RATE"], 1000u);
  EXPECT_EQ(j["rtt_ns"]["p50"], s.rtt_ns.p50);
  EXPECT_EQ(j["rtt_ns"]["p99_9"], s.rtt_ns.p999);
  EXPECT_EQ(j["offset_ns"]["min"], -500);
  EXPECT_EQ(j["residence_ns"]["count"], 0u);
  EXPECT_TRUE(j["sweep"]["found"].get<bool>());
  EXPECT_DOUBLE_EQ(j["sweep"]["no_drop_pps"].get<double>(), 4.5e6);
  ASSERT_EQ(j["sweep"]["trials"].size(), 2u);
  EXPECT_FALSE(j["sweep"]["trials"][0]["pass"].get<bool>());
  EXPECT_TRUE(j["sweep"]["trials"][1]["pass"].get<bool>());
}

TEST(JsonTest, PtpUnicastSubscribersSection) {
  RunSummary s = Sample();
  PtpSubscriberSummary p;
  p.counts.subscribers = 100;
  p.counts.asked = {100, 100, 100};
  p.counts.granted = {100, 90, 100};
  p.counts.refused = {0, 10, 0};
  p.counts.delay_reqs = 500;
  p.counts.delay_resps_answered = 499;
  p.sync_rates = {1.0, 0.98, 1.01};
  p.sync_lateness_ns.Record(1000);
  s.ptp_unicast = p;
  const std::string text = FormatSummary(s);
  EXPECT_TRUE(absl::StrContains(text, "ptp unicast subscribers: 100")) << text;
  EXPECT_TRUE(absl::StrContains(text, "0.980 / 1.000 / 1.010 per s")) << text;
  EXPECT_TRUE(absl::StrContains(text, "500 sent, 499 answered")) << text;
  EXPECT_FALSE(absl::StrContains(text, "  loss ")) << text;
  const nlohmann::json j = nlohmann::json::parse(SummaryToJson(s));
  EXPECT_EQ(j["ptp_unicast"]["grants"]["sync"]["refused"], 10u);
  EXPECT_EQ(j["ptp_unicast"]["grants"]["announce"]["granted"], 100u);
  EXPECT_EQ(j["ptp_unicast"]["delay_req"]["answered"], 499u);
  EXPECT_EQ(j["ptp_unicast"]["sync"]["rate_per_subscriber"]["min"], 0.98);
  EXPECT_EQ(j["ptp_unicast"]["sync"]["lateness_ns"]["max"], 1000);
  EXPECT_EQ(j["target"], "10.99.0.1:123");  // the rest as before
  EXPECT_FALSE(
      nlohmann::json::parse(SummaryToJson(Sample())).contains("ptp_unicast"));
}

TEST(JsonTest, EscapesNames) {
  RunSummary s;
  s.target = "a\"b\\c\n";
  s.invalid = {{"we\"ird", 1}};
  const nlohmann::json j = nlohmann::json::parse(SummaryToJson(s));
  EXPECT_EQ(j["target"], "a\"b\\c\n");
  EXPECT_EQ(j["invalid"]["we\"ird"], 1);
  EXPECT_FALSE(j.contains("sweep"));
}

TEST(JsonTest, WritesAFileOrSaysWhyNot) {
  char dir[] = "/tmp/zg_report_test_XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/out.json";
  ASSERT_TRUE(WriteJsonFile(path, Sample()).ok());
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(nlohmann::json::parse(ss.str())["clients"], 256);
  std::remove(path.c_str());
  rmdir(dir);
  const absl::Status bad = WriteJsonFile("/nonexistent-dir/x.json", Sample());
  EXPECT_FALSE(bad.ok());
  EXPECT_TRUE(absl::StrContains(bad.message(), "--json=/nonexistent-dir"))
      << bad;
}

TEST(ProgressTest, RatesOverTheInterval) {
  ProgressSample a;
  a.t_s = 1;
  a.counts.sent = 1'000'000;
  a.counts.answered = 1'000'000;
  ProgressSample b;
  b.t_s = 2;
  b.counts.sent = 2'000'000;
  b.counts.answered = 1'999'000;
  b.counts.in_flight = 500;
  b.counts.lost = 500;
  b.invalid = 3;
  const std::string line = FormatProgressLine(a, b);
  EXPECT_TRUE(absl::StrContains(line, "[   2.0s]")) << line;
  EXPECT_TRUE(absl::StrContains(line, "sent 1.000 Mpps")) << line;
  EXPECT_TRUE(absl::StrContains(line, "answered 999.000 kpps")) << line;
  EXPECT_TRUE(absl::StrContains(line, "loss 0.100 %")) << line;
  EXPECT_TRUE(absl::StrContains(line, "in flight 500")) << line;
  EXPECT_TRUE(absl::StrContains(line, "invalid 3")) << line;
}

}  // namespace
}  // namespace report_test
}  // namespace zg::bench
