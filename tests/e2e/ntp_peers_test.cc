// SPDX-License-Identifier: Apache-2.0
// Real NTP peers against the replies core/ntp/ntp_reply.h builds.
//
// The server under test is BuildNtpReply + StampNtpTransmit behind a plain
// kernel UDP socket on 127.0.0.1:123 (the data plane's DPDK path is tested
// elsewhere; this proves the payload). It runs inside a private network
// namespace the test process creates for itself with unshare(CLONE_NEWNET):
// nothing outside sees port 123, and the namespace vanishes with the process.
// Clients: ntpdig (ntpsec) and chronyd -Q (chrony), both from Debian. (tshark
// dissects our replies in the unit suite: tests/core/ntp/ntp_tshark_test.cc.)
//
// Needs root for the namespace (skipped otherwise); every client runs with a
// deadline (zg_testutil RunCommand), so the test is bounded.
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

#include "core/base/seqlock.h"
#include "core/ntp/ntp_client.h"
#include "core/ntp/ntp_reply.h"
#include "core/ntp/ntp_wire.h"
#include "core/time/clock_model.h"
#include "gtest/gtest.h"
#include "tests/util/subprocess.h"

namespace zg::core {
namespace {

constexpr int64_t kS = kNanosPerSecond;

// Raw ticks of the test server: CLOCK_REALTIME nanoseconds.
uint64_t RawNow() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * kS + ts.tv_nsec;
}

// A model that maps CLOCK_REALTIME to TAI exactly (TAI-UTC 37 s), so a
// client on this machine should see an offset near zero.
ClockModel RealtimeModel(int64_t anchor_age_ns = 0) {
  const uint64_t now = RawNow();
  ClockModel m;
  m.raw_anchor = now - anchor_age_ns;
  m.tai_anchor = TaiNs{static_cast<int64_t>(m.raw_anchor) + 37 * kS};
  m.ns_per_tick_q32 = uint64_t{1} << 32;
  m.error_bound_ns = 1'000;
  m.error_growth_ns_per_s = 10;
  m.max_extrapolation_ns = 3600 * kS;
  m.utc_offset_s = 37;
  m.state = SyncState::kLocked;
  m.stratum = 1;
  m.precision_log2 = -20;
  m.reference_id = NtpRefId("GPS\0");
  m.reference_time = m.tai_anchor;
  return m;
}

// Runs a peer to completion or `timeout` (zg_testutil: its own process
// group, killed on timeout); stdout and stderr together in *output.
testutil::CommandResult RunPeer(const std::vector<std::string>& argv,
                                absl::Duration timeout, std::string* output) {
  absl::StatusOr<testutil::CommandResult> r =
      testutil::RunCommand(argv, timeout);
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok()) return {};
  *output = r->stdout_text + r->stderr_text;
  return *std::move(r);
}

bool HaveTool(const char* name) { return testutil::ProgramAvailable(name); }

const std::vector<std::string> kNtpdig = {"ntpdig", "-j", "-t", "3",
                                          "127.0.0.1"};

// The server: one thread answering on 127.0.0.1:123 from the published model.
class LoopbackNtpServer {
 public:
  bool Start(std::string* error) {
    fd_ = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd_ < 0) return Fail(error, "socket");
    timeval tv{0, 100'000};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(123);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
      return Fail(error, "bind 127.0.0.1:123");
    }
    thread_ = std::thread([this] { Serve(); });
    return true;
  }
  ~LoopbackNtpServer() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    if (fd_ >= 0) close(fd_);
  }
  void Publish(const ClockModel& m) { published_.Write(m); }
  uint64_t answered() const { return answered_; }
  uint64_t dropped() const { return dropped_; }

 private:
  static bool Fail(std::string* error, const char* what) {
    *error = std::string(what) + ": " + std::strerror(errno);
    return false;
  }
  void Serve() {
    ClockReader reader(&published_);
    std::array<uint8_t, 2048> buf;
    while (!stop_) {
      sockaddr_in peer{};
      socklen_t peer_len = sizeof(peer);
      const ssize_t n = recvfrom(fd_, buf.data(), buf.size(), 0,
                                 reinterpret_cast<sockaddr*>(&peer), &peer_len);
      const uint64_t rx_raw = RawNow();
      if (n < 0) continue;
      const ClockModel& model = reader.Refresh();
      uint32_t reply_len = 0;
      if (BuildNtpReply(buf.data(), static_cast<uint32_t>(n),
                        model.RawToTai(rx_raw), model,
                        &reply_len) != NtpDrop::kNone) {
        ++dropped_;
        continue;
      }
      StampNtpTransmit(buf.data(), model.RawToTai(RawNow()), model);
      sendto(fd_, buf.data(), reply_len, 0, reinterpret_cast<sockaddr*>(&peer),
             peer_len);
      ++answered_;
    }
  }

  int fd_ = -1;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> answered_{0};
  std::atomic<uint64_t> dropped_{0};
  PublishedClock published_;
};

// Enters a fresh network namespace with loopback up. Root only.
bool EnterPrivateNetns(std::string* error) {
  if (unshare(CLONE_NEWNET) != 0) {
    *error = std::string("unshare(CLONE_NEWNET): ") + std::strerror(errno);
    return false;
  }
  const int s = socket(AF_INET, SOCK_DGRAM, 0);
  ifreq ifr{};
  std::strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
  const bool ok = s >= 0 && ioctl(s, SIOCGIFFLAGS, &ifr) == 0 &&
                  (ifr.ifr_flags |= IFF_UP, ioctl(s, SIOCSIFFLAGS, &ifr) == 0);
  if (!ok) *error = std::string("bringing lo up: ") + std::strerror(errno);
  if (s >= 0) close(s);
  return ok;
}

class NtpPeersTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (geteuid() != 0) {
      skip_reason_ = "needs root for a private network namespace";
      return;
    }
    std::string error;
    if (!EnterPrivateNetns(&error)) {
      skip_reason_ = error;
      return;
    }
    server_ = new LoopbackNtpServer;
    if (!server_->Start(&error)) {
      skip_reason_ = error;
      delete server_;
      server_ = nullptr;
    }
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override {
    if (server_ == nullptr) GTEST_SKIP() << skip_reason_;
  }

  static inline LoopbackNtpServer* server_ = nullptr;
  static inline std::string skip_reason_;
};

// The number after `"key":` in ntpdig's JSON line.
double JsonNumber(const std::string& json, const std::string& key) {
  const size_t at = json.find("\"" + key + "\":");
  if (at == std::string::npos) return 1e9;
  return std::strtod(json.c_str() + at + key.size() + 3, nullptr);
}

TEST_F(NtpPeersTest, NtpdigAcceptsSynchronizedReply) {
  if (!HaveTool("ntpdig")) GTEST_SKIP() << "ntpdig not installed";
  server_->Publish(RealtimeModel());
  const uint64_t before = server_->answered();
  std::string out;
  const testutil::CommandResult r = RunPeer(kNtpdig, absl::Seconds(20), &out);
  ASSERT_TRUE(r.ok()) << r.Describe() << out;
  EXPECT_NE(out.find("\"stratum\":1,"), std::string::npos) << out;
  EXPECT_NE(out.find("\"leap\":\"no-leap\""), std::string::npos) << out;
  EXPECT_LT(std::abs(JsonNumber(out, "offset")), 0.05) << out;
  EXPECT_GT(server_->answered(), before);
}

TEST_F(NtpPeersTest, NtpdigSeesPendingLeapSecond) {
  if (!HaveTool("ntpdig")) GTEST_SKIP() << "ntpdig not installed";
  ClockModel m = RealtimeModel();
  m.leap = LeapPending::kInsert;
  m.leap_at = m.tai_anchor + 3600 * kS;
  server_->Publish(m);
  std::string out;
  const testutil::CommandResult r = RunPeer(kNtpdig, absl::Seconds(20), &out);
  ASSERT_TRUE(r.ok()) << r.Describe() << out;
  EXPECT_NE(out.find("\"leap\":\"add-leap\""), std::string::npos) << out;
}

TEST_F(NtpPeersTest, NtpdigRejectsUnsynchronizedReply) {
  if (!HaveTool("ntpdig")) GTEST_SKIP() << "ntpdig not installed";
  // Anchored two hours ago, stale after one: we answer, LI=3 stratum 0.
  server_->Publish(RealtimeModel(2 * 3600 * kS));
  const uint64_t before = server_->answered();
  std::string out;
  const testutil::CommandResult r = RunPeer(kNtpdig, absl::Seconds(20), &out);
  EXPECT_FALSE(r.ok()) << out;
  EXPECT_FALSE(r.timed_out) << out;
  EXPECT_EQ(out.find("\"offset\""), std::string::npos) << out;
  EXPECT_GT(server_->answered(), before);  // answered, and refused by ntpdig
}

TEST_F(NtpPeersTest, ChronydMeasuresOffsetNearZero) {
  if (!HaveTool("chronyd")) GTEST_SKIP() << "chronyd not installed";
  server_->Publish(RealtimeModel());
  const std::string pidfile =
      "/tmp/zg-ntp-peers-" + std::to_string(getpid()) + ".pid";
  std::string out;
  const testutil::CommandResult r =
      RunPeer({"chronyd", "-Q", "-u", "root", "-t", "20", "-f", "/dev/null",
               "server 127.0.0.1 iburst minpoll -4 maxpoll -4 maxsamples 4",
               "pidfile " + pidfile},
              absl::Seconds(30), &out);
  std::remove(pidfile.c_str());
  ASSERT_TRUE(r.ok()) << r.Describe() << out;
  const size_t at = out.find("System clock wrong by ");
  ASSERT_NE(at, std::string::npos) << out;
  const double offset_s = std::strtod(out.c_str() + at + 22, nullptr);
  EXPECT_LT(std::abs(offset_s), 0.05) << out;
}

}  // namespace
}  // namespace zg::core
