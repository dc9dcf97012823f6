// Real NTP peers against the replies core/ntp_reply.h builds.
//
// The server under test is BuildNtpReply + StampNtpTransmit behind a plain
// kernel UDP socket on 127.0.0.1:123 (the data plane's DPDK path is tested
// elsewhere; this proves the payload). It runs inside a private network
// namespace the test process creates for itself with unshare(CLONE_NEWNET):
// nothing outside sees port 123, and the namespace vanishes with the process.
// Clients: ntpdig (ntpsec) and chronyd -Q (chrony), both from Debian. A third
// peer, tshark, dissects our reply bytes from a pcap the test writes.
//
// Needs root for the namespace (skipped otherwise); every client runs under
// `timeout`, so the test is bounded.
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
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "core/clock_model.h"
#include "core/ntp_client.h"
#include "core/ntp_reply.h"
#include "core/ntp_wire.h"
#include "core/seqlock.h"
#include "gtest/gtest.h"

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

// Output (stdout + stderr) and exit status of a shell command.
struct CommandResult {
  int status = -1;
  std::string output;
};
CommandResult RunCommand(const std::string& cmd) {
  CommandResult r;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (p == nullptr) return r;
  std::array<char, 512> chunk;
  size_t n;
  while ((n = fread(chunk.data(), 1, chunk.size(), p)) > 0) {
    r.output.append(chunk.data(), n);
  }
  r.status = pclose(p);
  return r;
}

bool HaveTool(const char* name) {
  return RunCommand(std::string("command -v ") + name).status == 0;
}

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
  const CommandResult r = RunCommand("timeout 20 ntpdig -j -t 3 127.0.0.1");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("\"stratum\":1,"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("\"leap\":\"no-leap\""), std::string::npos)
      << r.output;
  EXPECT_LT(std::abs(JsonNumber(r.output, "offset")), 0.05) << r.output;
  EXPECT_GT(server_->answered(), before);
}

TEST_F(NtpPeersTest, NtpdigSeesPendingLeapSecond) {
  if (!HaveTool("ntpdig")) GTEST_SKIP() << "ntpdig not installed";
  ClockModel m = RealtimeModel();
  m.leap = LeapPending::kInsert;
  m.leap_at = m.tai_anchor + 3600 * kS;
  server_->Publish(m);
  const CommandResult r = RunCommand("timeout 20 ntpdig -j -t 3 127.0.0.1");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("\"leap\":\"add-leap\""), std::string::npos)
      << r.output;
}

TEST_F(NtpPeersTest, NtpdigRejectsUnsynchronizedReply) {
  if (!HaveTool("ntpdig")) GTEST_SKIP() << "ntpdig not installed";
  // Anchored two hours ago, stale after one: we answer, LI=3 stratum 0.
  server_->Publish(RealtimeModel(2 * 3600 * kS));
  const uint64_t before = server_->answered();
  const CommandResult r = RunCommand("timeout 20 ntpdig -j -t 3 127.0.0.1");
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_EQ(r.output.find("\"offset\""), std::string::npos) << r.output;
  EXPECT_GT(server_->answered(), before);  // answered, and refused by ntpdig
}

TEST_F(NtpPeersTest, ChronydMeasuresOffsetNearZero) {
  if (!HaveTool("chronyd")) GTEST_SKIP() << "chronyd not installed";
  server_->Publish(RealtimeModel());
  const std::string pidfile =
      "/tmp/zg-ntp-peers-" + std::to_string(getpid()) + ".pid";
  const CommandResult r = RunCommand(
      "timeout 30 chronyd -Q -u root -t 20 -f /dev/null "
      "'server 127.0.0.1 iburst minpoll -4 maxpoll -4 maxsamples 4' "
      "'pidfile " +
      pidfile + "'");
  std::remove(pidfile.c_str());
  ASSERT_EQ(r.status, 0) << r.output;
  const size_t at = r.output.find("System clock wrong by ");
  ASSERT_NE(at, std::string::npos) << r.output;
  const double offset_s = std::strtod(r.output.c_str() + at + 22, nullptr);
  EXPECT_LT(std::abs(offset_s), 0.05) << r.output;
}

// ---- tshark
// ------------------------------------------------------------------

// Wraps UDP payloads (127.0.0.1:123 -> :40000) in IPv4 and writes a pcap
// (LINKTYPE_RAW) that tshark can dissect.
void WritePcap(const std::string& path,
               const std::vector<std::vector<uint8_t>>& payloads) {
  std::ofstream f(path, std::ios::binary);
  auto put32 = [&](uint32_t v) { f.write(reinterpret_cast<char*>(&v), 4); };
  auto put16 = [&](uint16_t v) { f.write(reinterpret_cast<char*>(&v), 2); };
  put32(0xa1b2c3d4);
  put16(2);
  put16(4);
  put32(0);
  put32(0);
  put32(65535);
  put32(101);  // LINKTYPE_RAW
  for (const auto& p : payloads) {
    const uint16_t udp_len = static_cast<uint16_t>(8 + p.size());
    const uint16_t ip_len = static_cast<uint16_t>(20 + udp_len);
    put32(0);
    put32(0);
    put32(ip_len);
    put32(ip_len);
    const uint8_t ip[20] = {0x45,
                            0,
                            static_cast<uint8_t>(ip_len >> 8),
                            static_cast<uint8_t>(ip_len),
                            0,
                            0,
                            0x40,
                            0,
                            64,
                            17,
                            0,
                            0,
                            127,
                            0,
                            0,
                            1,
                            127,
                            0,
                            0,
                            1};
    const uint8_t udp[8] = {0,
                            123,
                            0x9c,
                            0x40,
                            static_cast<uint8_t>(udp_len >> 8),
                            static_cast<uint8_t>(udp_len),
                            0,
                            0};
    f.write(reinterpret_cast<const char*>(ip), sizeof(ip));
    f.write(reinterpret_cast<const char*>(udp), sizeof(udp));
    f.write(reinterpret_cast<const char*>(p.data()),
            static_cast<std::streamsize>(p.size()));
  }
}

std::vector<uint8_t> ReplyBytes(const ClockModel& m, TaiNs rx) {
  uint8_t req[kNtpHeaderSize];
  BuildNtpClientRequest(req, 4, 6, NtpTimestamp{0xe8fe6f80u, 0x80000000u});
  const NtpReplyPacket r = BuildNtpReply(req, rx, rx + 1000, m);
  EXPECT_EQ(r.drop, NtpDrop::kNone);
  return std::vector<uint8_t>(r.bytes.begin(), r.bytes.begin() + r.size);
}

TEST(NtpTsharkTest, TsharkDissectsOurReplies) {
  if (!HaveTool("tshark")) GTEST_SKIP() << "tshark not installed";
  // Synced stratum 1 in 2023; unsynchronised; and era 1 (2040).
  ClockModel synced = RealtimeModel();
  synced.tai_anchor = TaiNs{(1'700'000'000 + 37) * kS};
  synced.reference_time = synced.tai_anchor;
  ClockModel stale = synced;
  stale.max_extrapolation_ns = 0;
  ClockModel era1 = synced;
  era1.tai_anchor = TaiNs{(2'208'988'800 + 37) * kS};
  era1.reference_time = era1.tai_anchor;
  const std::string pcap =
      "/tmp/zg-ntp-tshark-" + std::to_string(getpid()) + ".pcap";
  WritePcap(pcap, {ReplyBytes(synced, synced.tai_anchor),
                   ReplyBytes(stale, stale.tai_anchor + kS),
                   ReplyBytes(era1, era1.tai_anchor)});
  const CommandResult r = RunCommand(
      "timeout 60 tshark -n -r " + pcap +
      " -d udp.port==123,ntp -T fields -E separator=, -e ntp.flags.li "
      "-e ntp.flags.vn -e ntp.flags.mode -e ntp.stratum -e ntp.refid "
      "-e ntp.rootdispersion -e ntp.rec");
  std::remove(pcap.c_str());
  ASSERT_EQ(r.status, 0) << r.output;
  // One line per packet; tshark's warnings (e.g. running as root) are not.
  std::vector<std::string> lines;
  size_t start = 0, end;
  while ((end = r.output.find('\n', start)) != std::string::npos) {
    const std::string line = r.output.substr(start, end - start);
    if (line.find(',') != std::string::npos) lines.push_back(line);
    start = end + 1;
  }
  ASSERT_EQ(lines.size(), 3u) << r.output;
  // li,vn,mode,stratum,refid,root dispersion (2^-16 s),receive time.
  EXPECT_EQ(lines[0], "0,4,4,1,47505300,1,Nov 14, 2023 22:13:20.000000000 UTC");
  EXPECT_EQ(lines[1],
            "3,4,4,0,00000000,1048576,Nov 14, 2023 22:13:21.000000000 UTC");
  EXPECT_EQ(lines[2], "0,4,4,1,47505300,1,Jan  1, 2040 00:00:00.000000000 UTC");
}

}  // namespace
}  // namespace zg::core
