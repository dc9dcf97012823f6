// SPDX-License-Identifier: Apache-2.0
// GpsdSource against a scripted gpsd on a loopback TCP socket (real socket
// I/O, simulated clocks). The end-to-end test against the real gpsd is
// gpsd_e2e_test.cc.
#include "servo/sources/gpsd_source.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <thread>

#include "absl/strings/str_cat.h"
#include "core/time/time_format.h"
#include "gtest/gtest.h"
#include "tests/servo/fake_clocks.h"

namespace zg::servo {
namespace gpsd_source_test {
namespace {

using testing::FakeRawClock;
using testing::FakeSystemClockOps;
using testing::SimWorld;

constexpr int64_t kS = core::kNanosPerSecond;

// A scripted gpsd: one listening socket on 127.0.0.1, one client at a time.
class ScriptedGpsd {
 public:
  ScriptedGpsd() {
    listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a = {};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a));
    listen(listen_fd_, 4);
    socklen_t len = sizeof(a);
    getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
  }
  ~ScriptedGpsd() {
    CloseClient();
    if (listen_fd_ >= 0) close(listen_fd_);
  }
  uint16_t port() const { return port_; }
  bool Accept() {
    pollfd p = {listen_fd_, POLLIN, 0};
    if (poll(&p, 1, 2000) != 1) return false;
    client_fd_ = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    return client_fd_ >= 0;
  }
  // What the client sent so far (waits up to 2 s for something).
  std::string Received() {
    std::string out;
    char buf[4096];
    pollfd p = {client_fd_, POLLIN, 0};
    while (poll(&p, 1, out.empty() ? 2000 : 50) == 1) {
      const ssize_t n = recv(client_fd_, buf, sizeof(buf), 0);
      if (n <= 0) break;
      out.append(buf, static_cast<size_t>(n));
    }
    return out;
  }
  void Send(const std::string& s) {
    ASSERT_EQ(send(client_fd_, s.data(), s.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(s.size()));
  }
  void CloseClient() {
    if (client_fd_ >= 0) close(client_fd_);
    client_fd_ = -1;
  }
  void CloseListener() {
    close(listen_fd_);
    listen_fd_ = -1;
  }

 private:
  int listen_fd_ = -1;
  int client_fd_ = -1;
  uint16_t port_ = 0;
};

std::string Tpv(int mode, int64_t utc_s) {
  return absl::StrCat(R"({"class":"TPV","device":"/dev/ttyACM0","mode":)", mode,
                      R"(,"time":")",
                      core::FormatUtc(core::UtcNs{utc_s * kS}).substr(0, 19),
                      R"(.000Z","ept":0.005})", "\n");
}
std::string TimeMsg(const char* cls, int64_t real_s, int64_t clock_ns) {
  return absl::StrCat(
      R"({"class":")", cls, R"(","device":"/dev/ttyACM0","real_sec":)", real_s,
      R"(,"real_nsec":0,"clock_sec":)", clock_ns / kS, R"(,"clock_nsec":)",
      clock_ns % kS, R"(,"precision":-20})", "\n");
}

class GpsdSourceTest : public ::testing::Test {
 protected:
  GpsdSourceTest() : tsc_(&w_), ops_(&w_) {}

  void Connect(GpsdSourceOptions o = {}) {
    o.port = gpsd_.port();
    if (!o.tai_minus_utc) o.tai_minus_utc = FixedTaiMinusUtc(37);
    auto src = GpsdSource::Create(&tsc_, o, &ops_);
    ASSERT_TRUE(src.ok()) << src.status();
    src_ = std::move(*src);
    std::vector<ReferenceSample> out;
    (void)src_->Poll(&out);  // starts the connect
    ASSERT_TRUE(gpsd_.Accept());
    PollUntil([&] { return src_->gnss().connected; });
    EXPECT_EQ(gpsd_.Received(),
              "?WATCH={\"enable\":true,\"json\":true,\"pps\":true};\n");
  }
  // Polls (with short real sleeps for the loopback socket) until `done`.
  void PollUntil(const std::function<bool()>& done,
                 std::vector<ReferenceSample>* out = nullptr) {
    std::vector<ReferenceSample> scratch;
    for (int i = 0; i < 200 && !done(); ++i) {
      (void)src_->Poll(out ? out : &scratch);
      if (!done()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ASSERT_TRUE(done());
  }

  SimWorld w_;
  FakeRawClock tsc_;
  FakeSystemClockOps ops_;
  ScriptedGpsd gpsd_;
  std::unique_ptr<GpsdSource> src_;
};

TEST_F(GpsdSourceTest, TracksFixSatellitesAndEmitsToffSamples) {
  Connect();
  const int64_t fix_s = 1'710'072'001;
  gpsd_.Send(R"({"class":"VERSION","release":"3.22","proto_major":3})"
             "\n");
  gpsd_.Send(Tpv(3, fix_s));
  gpsd_.Send(
      R"({"class":"SKY","device":"/dev/ttyACM0","satellites":[)"
      R"({"PRN":2,"used":true,"gnssid":0},{"PRN":9,"used":false,"gnssid":0},)"
      R"({"PRN":406,"used":true,"gnssid":3},{"PRN":31,"used":true,"gnssid":2},)"
      R"({"PRN":70,"used":false}]})"
      "\n");
  const int64_t received_at = w_.Realtime();
  gpsd_.Send(TimeMsg("TOFF", fix_s, received_at));
  std::vector<ReferenceSample> out;
  PollUntil([&] { return src_->gnss().toff_messages == 1; }, &out);
  const GnssStatus& g = src_->gnss();
  EXPECT_EQ(g.gpsd_release, "3.22");
  EXPECT_EQ(g.fix_mode, 3);
  EXPECT_EQ(g.last_fix_time->value, fix_s * kS);
  EXPECT_EQ(g.of(GnssSystem::kGps), (SatelliteCounts{2, 1}));
  EXPECT_EQ(g.of(GnssSystem::kBeidou), (SatelliteCounts{1, 1}));
  EXPECT_EQ(g.of(GnssSystem::kGalileo), (SatelliteCounts{1, 1}));
  EXPECT_EQ(g.of(GnssSystem::kGlonass), (SatelliteCounts{1, 0}));
  EXPECT_EQ(g.satellites_seen, 5);
  EXPECT_EQ(g.satellites_used, 3);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].reference_tai.value, (fix_s + 37) * kS);
  // The raw tick is when the system clock read `received_at`.
  EXPECT_LE(std::llabs(w_.TrueUtcAtTicks(out[0].raw_ticks) -
                       (received_at - w_.realtime_error_ns)),
            100);
  EXPECT_GE(out[0].uncertainty_ns, 500'000'000);
  EXPECT_EQ(src_->health(), SourceHealth::kUp);
}

TEST_F(GpsdSourceTest, PpsSamplesArePreciseAndPreferred) {
  Connect();
  const int64_t s = 1'710'072'010;
  gpsd_.Send(Tpv(3, s));
  const int64_t edge_realtime = w_.Realtime();
  gpsd_.Send(TimeMsg("PPS", s, edge_realtime));
  gpsd_.Send(TimeMsg("TOFF", s, edge_realtime + 150'000'000));
  std::vector<ReferenceSample> out;
  PollUntil([&] { return src_->gnss().toff_messages == 1; }, &out);
  ASSERT_EQ(out.size(), 1u);  // the TOFF sample is suppressed
  EXPECT_EQ(out[0].reference_tai.value, (s + 37) * kS);
  EXPECT_LT(out[0].uncertainty_ns, 2'000);  // 2^-20 s ~ 954 ns floor 1 us
  EXPECT_GE(out[0].uncertainty_ns, 1'000);
  EXPECT_LE(std::llabs(w_.TrueUtcAtTicks(out[0].raw_ticks) - edge_realtime),
            100);
}

TEST_F(GpsdSourceTest, NoFixIsDownAndEmitsNothing) {
  Connect();
  gpsd_.Send(Tpv(1, 1'710'072'001));
  gpsd_.Send(TimeMsg("TOFF", 1'710'072'001, w_.Realtime()));
  std::vector<ReferenceSample> out;
  PollUntil([&] { return src_->gnss().toff_messages == 1; }, &out);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(src_->health(), SourceHealth::kDown);
  EXPECT_NE(src_->problem().message().find("no fix"), std::string::npos)
      << src_->problem();
  EXPECT_FALSE(src_->CoarseUtcAt(core::UtcNs{w_.Realtime()}).ok());
  // A 2D fix: samples, but degraded.
  gpsd_.Send(Tpv(2, 1'710'072'002));
  gpsd_.Send(TimeMsg("TOFF", 1'710'072'002, w_.Realtime()));
  PollUntil([&] { return src_->gnss().toff_messages == 2; }, &out);
  EXPECT_EQ(out.size(), 1u);
  EXPECT_EQ(src_->health(), SourceHealth::kDegraded);
}

TEST_F(GpsdSourceTest, CoarseUtcForPps) {
  Connect();
  gpsd_.Send(Tpv(3, 1'710'072'001));
  // gpsd received the 12:00:01 fix 120 ms after the second, system time.
  const int64_t received = w_.Realtime();
  gpsd_.Send(TimeMsg("TOFF", 1'710'072'001, received));
  PollUntil([&] { return src_->gnss().toff_messages == 1; });
  const absl::StatusOr<core::UtcNs> coarse =
      src_->CoarseUtcAt(core::UtcNs{received + 500'000'000});
  ASSERT_TRUE(coarse.ok()) << coarse.status();
  EXPECT_EQ(coarse->value, 1'710'072'001 * kS + 500'000'000);
}

TEST_F(GpsdSourceTest, StaleStampsAndImplausibleTimesAreNotUsed) {
  Connect();
  gpsd_.Send(Tpv(3, 1'710'072'001));
  // gpsd stamped this a minute ago (or its clock_sec is garbage).
  gpsd_.Send(TimeMsg("TOFF", 1'710'072'001, w_.Realtime() - 60 * kS));
  std::vector<ReferenceSample> out;
  PollUntil([&] { return src_->gnss().toff_messages == 1; }, &out);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(src_->gnss().stale_stamps, 1u);
  // A receiver that says 2255 is no coarse reference.
  gpsd_.Send(TimeMsg("TOFF", 8'999'999'999, w_.Realtime()));
  PollUntil([&] { return src_->gnss().toff_messages == 2; }, &out);
  EXPECT_EQ(src_->CoarseUtcAt(core::UtcNs{w_.Realtime()}).status().code(),
            absl::StatusCode::kOutOfRange);
}

TEST_F(GpsdSourceTest, ReassemblesLinesAndCountsGarbage) {
  Connect();
  const std::string tpv = Tpv(3, 1'710'072'001);
  gpsd_.Send(tpv.substr(0, 20));
  std::vector<ReferenceSample> out;
  (void)src_->Poll(&out);
  EXPECT_EQ(src_->gnss().tpv_messages, 0u);
  // The rest of the line with CRLF, a garbage line, an oversized line, and a
  // valid line after it.
  std::string rest = tpv.substr(20);
  rest.insert(rest.size() - 1, "\r");
  gpsd_.Send(rest + "this is not json\n" + std::string(40'000, 'x') + "\n" +
             Tpv(3, 1'710'072'002));
  PollUntil([&] { return src_->gnss().tpv_messages == 2; });
  EXPECT_EQ(src_->gnss().parse_errors, 1u);
  EXPECT_EQ(src_->gnss().oversized_lines, 1u);
  EXPECT_EQ(src_->gnss().last_fix_time->value, 1'710'072'002 * kS);
}

TEST_F(GpsdSourceTest, DeviceFilterAndWatchDevice) {
  GpsdSourceOptions o;
  o.device = "/dev/ttyACM0";
  o.port = gpsd_.port();
  o.tai_minus_utc = FixedTaiMinusUtc(37);
  auto src = GpsdSource::Create(&tsc_, o, &ops_);
  ASSERT_TRUE(src.ok());
  src_ = std::move(*src);
  std::vector<ReferenceSample> out;
  (void)src_->Poll(&out);
  ASSERT_TRUE(gpsd_.Accept());
  PollUntil([&] { return src_->gnss().connected; });
  EXPECT_EQ(gpsd_.Received(),
            "?WATCH={\"enable\":true,\"json\":true,\"pps\":true,"
            "\"device\":\"/dev/ttyACM0\"};\n");
  src_->HandleLine(R"({"class":"TPV","device":"/dev/ttyUSB1","mode":3})", 0,
                   &out);
  EXPECT_EQ(src_->gnss().tpv_messages, 0u);
  src_->HandleLine(R"({"class":"TPV","device":"/dev/ttyACM0","mode":3})", 0,
                   &out);
  EXPECT_EQ(src_->gnss().tpv_messages, 1u);
}

TEST_F(GpsdSourceTest, ReconnectsWithBackoffAfterGpsdGoesAway) {
  Connect();
  gpsd_.CloseClient();
  std::vector<ReferenceSample> out;
  PollUntil([&] { return !src_->gnss().connected; });
  EXPECT_EQ(src_->gnss().disconnects, 1u);
  const absl::Status s = src_->Poll(&out);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(s.message().find("gpsd closed the connection"), std::string::npos)
      << s;
  EXPECT_NE(s.message().find("gpspipe -w"), std::string::npos);
  EXPECT_EQ(src_->health(), SourceHealth::kDown);
  // Not before the backoff (500 ms) has passed on the monotonic clock.
  (void)src_->Poll(&out);
  EXPECT_EQ(src_->gnss().connects, 1u);
  w_.Advance(600'000'000);
  (void)src_->Poll(&out);
  ASSERT_TRUE(gpsd_.Accept());
  PollUntil([&] { return src_->gnss().connected; });
  EXPECT_EQ(src_->gnss().connects, 2u);
}

TEST_F(GpsdSourceTest, UnreachableGpsdIsDownWithAHint) {
  const uint16_t port = gpsd_.port();
  gpsd_.CloseListener();  // nothing listens there now
  GpsdSourceOptions o;
  o.port = port;
  o.tai_minus_utc = FixedTaiMinusUtc(37);
  auto src = GpsdSource::Create(&tsc_, o, &ops_);
  ASSERT_TRUE(src.ok());
  std::vector<ReferenceSample> out;
  absl::Status s;
  for (int i = 0; i < 50; ++i) {
    s = (*src)->Poll(&out);
    if (s.message().find("refused") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(s.message().find(absl::StrCat("127.0.0.1:", port)),
            std::string::npos)
      << s;
  EXPECT_NE(s.message().find("refused"), std::string::npos) << s;
  EXPECT_EQ((*src)->health(), SourceHealth::kDown);
  EXPECT_EQ((*src)->gnss().connects, 0u);
}

TEST_F(GpsdSourceTest, SetupIsValidated) {
  GpsdSourceOptions o;
  EXPECT_EQ(GpsdSource::Create(&tsc_, o, &ops_).status().code(),
            absl::StatusCode::kInvalidArgument);  // no leap table
  o.tai_minus_utc = FixedTaiMinusUtc(37);
  o.host = "no such host.invalid";
  const absl::Status s = GpsdSource::Create(&tsc_, o, &ops_).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("cannot resolve"), std::string::npos) << s;
}

}  // namespace
}  // namespace gpsd_source_test
}  // namespace zg::servo
