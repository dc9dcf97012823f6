// SPDX-License-Identifier: Apache-2.0
// GpsdSource against the real gpsd: gpsfake (Debian's gpsd-clients) starts
// its own gpsd on a free loopback port and replays
// tests/data/gpsd_gps_beidou.nmea (GPS + BeiDou; see
// tests/data/make_gps_beidou_nmea.py). gpsfake replays the log's own time
// (2024-03-10T12:00:00Z..04Z), which gpsd reports in TPV and TOFF.
//
// Suite 'e2e': needs root (skips otherwise) and gpsfake. Every process it
// starts runs in its own process group and is killed on exit, pass or fail.
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "servo/clock/tsc_clock.h"
#include "servo/sources/gpsd_source.h"
#include "tests/util/deadline.h"
#include "tests/util/ports.h"
#include "tests/util/signal_cleanup.h"

namespace zg::servo {
namespace {

constexpr int64_t kS = core::kNanosPerSecond;
constexpr int64_t kLogStart = 1'710'072'000;  // 2024-03-10T12:00:00Z

bool OnPath(const std::string& prog) {
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= p.size()) {
    size_t end = p.find(':', start);
    if (end == std::string::npos) end = p.size();
    const std::string candidate = p.substr(start, end - start) + "/" + prog;
    if (access(candidate.c_str(), X_OK) == 0) return true;
    start = end + 1;
  }
  return false;
}

// gpsfake (and the gpsd it starts) in a process group of their own.
class GpsFake {
 public:
  ~GpsFake() { Stop(); }

  bool Start(uint16_t port, const std::string& log) {
    log_path_ = absl::StrCat("/tmp/zg-gpsfake-", getpid(), ".log");
    pid_ = fork();
    if (pid_ < 0) return false;
    if (pid_ == 0) {
      setpgid(0, 0);
      const int out = open(log_path_.c_str(),
                           O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
      if (out >= 0) {
        dup2(out, STDOUT_FILENO);
        dup2(out, STDERR_FILENO);
      }
      const std::string p = std::to_string(port);
      execlp("gpsfake", "gpsfake", "-P", p.c_str(), "-1", "-q", "-c", "0.05",
             log.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    setpgid(pid_, pid_);
    // gpsd too, if the test is killed by SIGTERM (PR_SET_PDEATHSIG would
    // not reach it).
    group_ = testutil::CleanupRegistration::ProcessGroup(pid_);
    return true;
  }

  void Stop() {
    if (pid_ <= 0) return;
    kill(-pid_, SIGTERM);
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(2);
    bool exited = false;
    while (!exited && std::chrono::steady_clock::now() < deadline) {
      exited = waitpid(pid_, nullptr, WNOHANG) == pid_;
      if (!exited) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    kill(-pid_, SIGKILL);  // gpsd too, if it outlived gpsfake
    group_.Release();      // before the reap: its pid may be reused after
    if (!exited) waitpid(pid_, nullptr, 0);
    unlink(absl::StrCat("/tmp/gpsfake-", pid_, ".sock").c_str());
    unlink(log_path_.c_str());
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
  testutil::CleanupRegistration group_;
  std::string log_path_;
};

TEST(GpsdE2eTest, ReceivesTimeFixAndSatellitesFromGpsfake) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root (gpsfake starts gpsd)";
  if (!OnPath("gpsfake")) {
    GTEST_SKIP() << "gpsfake not installed (Debian: gpsd gpsd-clients)";
  }
  const char* data_dir = std::getenv("ZG_TEST_DATA_DIR");
  ASSERT_NE(data_dir, nullptr) << "run through meson test";
  const std::string log = std::string(data_dir) + "/gpsd_gps_beidou.nmea";
  ASSERT_EQ(access(log.c_str(), R_OK), 0) << log;

  absl::StatusOr<std::unique_ptr<TscClock>> tsc =
      TscClock::Create({.initial_calibration_ns = 20'000'000,
                        .initial_point_spacing_ns = 2'000'000});
  ASSERT_TRUE(tsc.ok()) << tsc.status();

  const uint16_t port = testutil::FreeLoopbackPort();
  GpsFake fake;
  ASSERT_TRUE(fake.Start(port, log));

  GpsdSourceOptions o;
  o.port = port;
  o.tai_minus_utc = FixedTaiMinusUtc(37);
  o.reconnect_min_ns = 100'000'000;
  o.reconnect_max_ns = 500'000'000;
  auto src = GpsdSource::Create(tsc->get(), o);
  ASSERT_TRUE(src.ok()) << src.status();

  const core::UtcNs last_epoch{(kLogStart + 4) * kS};
  std::vector<ReferenceSample> samples;
  auto done = [&] {
    const GnssStatus& g = (*src)->gnss();
    return g.last_fix_time == last_epoch && g.satellites_used == 9 &&
           !samples.empty();
  };
  // The whole log replays in about 2 s (-c 0.05).
  testutil::PollUntil(
      testutil::DeadlineIn(absl::Seconds(20)),
      [&] {
        (void)(*src)->Poll(&samples);
        return done();
      },
      absl::Milliseconds(20));
  const GnssStatus& g = (*src)->gnss();
  EXPECT_TRUE(done()) << "problem: " << (*src)->problem() << ", connects "
                      << g.connects << ", TPVs " << g.tpv_messages;
  EXPECT_FALSE(g.gpsd_release.empty());
  EXPECT_EQ(g.parse_errors, 0u);
  EXPECT_EQ(g.fix_mode, 3);
  EXPECT_EQ(g.last_fix_time, last_epoch);
  EXPECT_EQ(g.of(GnssSystem::kGps), (SatelliteCounts{7, 5, 5}));
  EXPECT_EQ(g.of(GnssSystem::kBeidou), (SatelliteCounts{6, 4, 4}));
  EXPECT_EQ(g.of(GnssSystem::kGalileo), (SatelliteCounts{0, 0}));
  EXPECT_EQ(g.satellites_seen, 13);
  EXPECT_GE(g.toff_messages, 1u);
  // TOFF samples: the log's UTC seconds + 37 s, stamped at receipt (now-ish
  // on the TSC), with the coarse serial-time error.
  ASSERT_FALSE(samples.empty());
  const uint64_t now = (*tsc)->NowTicks();
  for (const ReferenceSample& s : samples) {
    const int64_t utc_s = s.reference_tai.value / kS - 37;
    EXPECT_EQ(s.reference_tai.value % kS, 0);
    EXPECT_GE(utc_s, kLogStart);
    EXPECT_LE(utc_s, kLogStart + 4);
    EXPECT_GE(s.uncertainty_ns, o.toff_error_ns);
    EXPECT_LT(static_cast<double>(now - s.raw_ticks) / (*tsc)->NominalHz(),
              30.0);
  }
  EXPECT_EQ((*src)->health(), SourceHealth::kUp);
}

}  // namespace
}  // namespace zg::servo
