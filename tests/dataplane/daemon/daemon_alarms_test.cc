// SPDX-License-Identifier: Apache-2.0
// DaemonAlarms: link down per port, a stalled worker (its heartbeat older
// than a second), a rejected reload, NTS-KE refusals and an expiring
// certificate raise their alarms on the AlarmSet, and clear.
#include "dataplane/daemon/daemon_alarms.h"

#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/util/subprocess.h"
#include "tests/util/temp_dir.h"

namespace zg::dataplane {
namespace daemon_alarms_test {
namespace {

using servo::AlarmId;
using ::testing::HasSubstr;

constexpr int64_t kS = 1'000'000'000;

bool Active(const servo::AlarmSet& a, AlarmId id, const std::string& inst) {
  for (const servo::AlarmRow& r : a.Table().rows) {
    if (r.id == id && r.instance == inst) return r.active;
  }
  ADD_FAILURE() << "no row";
  return false;
}

TEST(DaemonAlarmsTest, LinksWorkersReloads) {
  servo::AlarmSet a({.hysteresis = {{AlarmId::kLinkDown, {0, 0}},
                                    {AlarmId::kWorkerStalled, {0, 0}}}});
  DaemonAlarms d(&a, {"p0", "p1"}, 2, 1e9);  // a 1 GHz TSC
  d.UpdateLinks({true, false}, 0);
  d.UpdateWorkers(std::vector<uint64_t>{10 * kS, 7 * kS}, 10 * kS, 0);
  d.OnReload(false, "--ntp_ratelimit: bad", 0);
  std::vector<servo::AlarmEvent> e = a.Evaluate(0, {1}, {1});
  EXPECT_FALSE(Active(a, AlarmId::kLinkDown, "p0"));
  EXPECT_TRUE(Active(a, AlarmId::kLinkDown, "p1"));
  EXPECT_FALSE(Active(a, AlarmId::kWorkerStalled, "0"));
  EXPECT_TRUE(Active(a, AlarmId::kWorkerStalled, "1"));
  EXPECT_TRUE(Active(a, AlarmId::kConfigReloadFailed, ""));
  ASSERT_EQ(e.size(), 3u);
  for (const servo::AlarmEvent& ev : e) {
    if (ev.id == AlarmId::kWorkerStalled) {
      EXPECT_THAT(ev.message, HasSubstr("worker 1 has not looped for 3.0 s"));
    } else if (ev.id == AlarmId::kConfigReloadFailed) {
      EXPECT_THAT(ev.message, HasSubstr("--ntp_ratelimit: bad"));
    }
  }
  d.UpdateLinks({true, true}, kS);
  d.UpdateWorkers(std::vector<uint64_t>{11 * kS, 11 * kS}, 11 * kS, kS);
  d.OnReload(true, "", kS);
  e = a.Evaluate(kS, {2}, {2});
  EXPECT_EQ(e.size(), 3u);
  EXPECT_EQ(a.Table().ActiveCount(), 0);
}

TEST(DaemonAlarmsTest, NtsKeRefusalsAndCertificate) {
  servo::AlarmSet a({});
  DaemonAlarms d(&a, {}, 0, 1e9);
  const core::UtcNs now{1'800'000'000 * kS};
  d.UpdateNtsKe({3, 2, ""}, core::UtcNs{now.value + 30 * 86400 * kS}, now, 0);
  a.Evaluate(0, {1}, {1});
  EXPECT_FALSE(Active(a, AlarmId::kNtsKeRefusing, "")) << "the first count";
  EXPECT_FALSE(Active(a, AlarmId::kNtsKeCertificateExpiring, ""));
  d.UpdateNtsKe({6, 3, "192.0.2.7"}, core::UtcNs{now.value + 3 * 86400 * kS},
                now, kS);
  const std::vector<servo::AlarmEvent> e = a.Evaluate(kS, {2}, {2});
  EXPECT_TRUE(Active(a, AlarmId::kNtsKeRefusing, ""));
  bool raised = false;
  for (const servo::AlarmEvent& ev : e) {
    if (ev.id != AlarmId::kNtsKeRefusing) continue;
    raised = true;
    EXPECT_THAT(ev.message, HasSubstr("4 NTS-KE connection(s) refused: 3 "
                                      "over a source's rate limit"));
    EXPECT_THAT(ev.message, HasSubstr("1 with every slot taken"));
    EXPECT_THAT(ev.message, HasSubstr("refused most: 192.0.2.7"));
  }
  EXPECT_TRUE(raised);
  EXPECT_TRUE(Active(a, AlarmId::kNtsKeCertificateExpiring, ""));
}

TEST(DaemonAlarmsTest, ReadsACertificatesNotAfter) {
  auto dir = testutil::TempDir::Create("cert");
  ASSERT_TRUE(dir.ok());
  const std::string cert = dir->File("c.pem");
  auto r = testutil::RunCommand(
      {"openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
       "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", dir->File("k.pem"),
       "-out", cert, "-subj", "/CN=t", "-days", "10"},
      absl::Seconds(30));
  ASSERT_TRUE(r.ok() && r->ok()) << (r.ok() ? r->Describe() : "");
  absl::StatusOr<core::UtcNs> t = CertificateNotAfter(cert);
  ASSERT_TRUE(t.ok()) << t.status();
  const int64_t days = (t->value - absl::GetCurrentTimeNanos()) / (86400 * kS);
  EXPECT_TRUE(days == 9 || days == 10) << days;
  EXPECT_FALSE(CertificateNotAfter(dir->File("none.pem")).ok());
}

}  // namespace
}  // namespace daemon_alarms_test
}  // namespace zg::dataplane
