// SPDX-License-Identifier: Apache-2.0
// zg_xdp_hwts.o (dataplane/bpf/zg_xdp_hwts.c) on a real veth pair: loaded
// device-bound (the RX metadata kfunc requires it, so the kernel refuses it
// otherwise, which is why DPDK's PMD cannot load it), attached to one end in
// native mode, and a frame sent from the other end: the frame the kernel
// then sees carries the stamp header, and its tag says which clock it came
// from. veth implements bpf_xdp_metadata_rx_timestamp by returning the
// skb's hardware stamp, which is 0 for frames a veth peer sent: the program
// falls back to bpf_ktime_get_ns and tags the stamp as the kernel's.
// Runs in a network namespace of its own (removed at the end). Needs root;
// skipped without it. ZG_XDP_HWTS_OBJ and ZG_XDP_OBJ name the objects; the
// last test swaps zg_xdp.o for it as zeitgeberd --xdp_rx_metadata does.
#include "dataplane/port/xdp_hwts.h"

#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <fcntl.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include "core/net/xdp_stamp.h"
#include "gtest/gtest.h"

#ifndef BPF_F_XDP_DEV_BOUND_ONLY
#define BPF_F_XDP_DEV_BOUND_ONLY (1U << 6)
#endif

namespace xdp_hwts_test {
namespace {

std::string g_log;
int Collect(enum libbpf_print_level level, const char* fmt, va_list args) {
  if (level == LIBBPF_DEBUG) return 0;
  char buf[4096];
  const int n = std::vsnprintf(buf, sizeof(buf), fmt, args);
  if (n > 0) g_log.append(buf, std::min<size_t>(n, sizeof(buf) - 1));
  return n;
}

int Sh(const std::string& cmd) { return std::system(cmd.c_str()); }

uint64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL +
         static_cast<uint64_t>(ts.tv_nsec);
}

// An Ethernet/IPv4/UDP NTP request to 10.1.0.1:123 from `src_mac`.
std::vector<uint8_t> NtpFrame(const uint8_t dst_mac[6],
                              const uint8_t src_mac[6]) {
  std::vector<uint8_t> f(dst_mac, dst_mac + 6);
  f.insert(f.end(), src_mac, src_mac + 6);
  const uint8_t rest[] = {
      0x08, 0x00,  // IPv4
      0x45, 0,    0, 20 + 8 + 48, 0,  0,      0, 0,
      64,   17,   0, 0,                               // no checksum
      10,   1,    0, 2,           10, 1,      0, 1,   // src, dst
      0x9c, 0x40, 0, 123,         0,  8 + 48, 0, 0};  // UDP 40000 -> 123
  f.insert(f.end(), rest, rest + sizeof(rest));
  f.resize(f.size() + 48, 0);
  f[f.size() - 48] = 0x23;  // NTPv4 client
  return f;
}

class XdpHwtsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = std::getenv("ZG_XDP_HWTS_OBJ");
    ASSERT_NE(path_, nullptr) << "set ZG_XDP_HWTS_OBJ to zg_xdp_hwts.o";
    if (geteuid() != 0) GTEST_SKIP() << "needs root (netns, XDP)";
    ns_ = "zgh" + std::to_string(getpid());
    ASSERT_EQ(Sh("ip netns add " + ns_), 0);
    made_ns_ = true;
    ASSERT_EQ(Sh("ip -n " + ns_ + " link add zgha type veth peer name zghb"),
              0);
    ASSERT_EQ(Sh("ip -n " + ns_ + " link set zgha address 02:5a:47:00:01:0a"),
              0);
    ASSERT_EQ(Sh("ip -n " + ns_ + " link set zghb address 02:5a:47:00:01:0b"),
              0);
    ASSERT_EQ(Sh("ip -n " + ns_ + " link set zgha up"), 0);
    ASSERT_EQ(Sh("ip -n " + ns_ + " link set zghb up"), 0);
    // Into the namespace (this thread): ifindexes, sockets, XDP attach.
    root_ns_ = open("/proc/self/ns/net", O_RDONLY);
    ASSERT_GE(root_ns_, 0);
    const int fd = open(("/var/run/netns/" + ns_).c_str(), O_RDONLY);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(setns(fd, CLONE_NEWNET), 0) << std::strerror(errno);
    close(fd);
    ifa_ = static_cast<int>(if_nametoindex("zgha"));
    ifb_ = static_cast<int>(if_nametoindex("zghb"));
    ASSERT_GT(ifa_, 0);
    ASSERT_GT(ifb_, 0);
  }
  void TearDown() override {
    if (obj_ != nullptr) bpf_object__close(obj_);
    if (root_ns_ >= 0) {
      EXPECT_EQ(setns(root_ns_, CLONE_NEWNET), 0);
      close(root_ns_);
    }
    if (made_ns_) Sh("ip netns del " + ns_);  // takes the veth pair along
  }

  // Opens the object; `dev_bound`: for zgha's driver. Returns the load
  // status (libbpf's log in g_log).
  int Load(bool dev_bound) {
    obj_ = bpf_object__open_file(path_, nullptr);
    if (obj_ == nullptr) return -errno;
    bpf_program* prog = bpf_object__next_program(obj_, nullptr);
    if (dev_bound) {
      bpf_program__set_ifindex(prog, ifa_);
      bpf_program__set_flags(prog, BPF_F_XDP_DEV_BOUND_ONLY);
    }
    g_log.clear();
    const libbpf_print_fn_t old = libbpf_set_print(Collect);
    const int rc = bpf_object__load(obj_);
    libbpf_set_print(old);
    return rc;
  }
  int MapFd(const char* name) {
    return bpf_map__fd(bpf_object__find_map_by_name(obj_, name));
  }
  uint64_t Stat(uint32_t key) {
    std::vector<uint64_t> v(static_cast<size_t>(libbpf_num_possible_cpus()));
    EXPECT_EQ(bpf_map_lookup_elem(MapFd("zg_stats"), &key, v.data()), 0);
    uint64_t sum = 0;
    for (uint64_t x : v) sum += x;
    return sum;
  }

  // Sends an NTP request from zghb and returns the stamp header of the
  // frame the kernel then saw on zgha (XDP_PASS: no AF_XDP socket), with
  // CLOCK_MONOTONIC read before the send and after the capture.
  std::optional<zg::core::XdpStamp> SendAndCapture(uint64_t& before,
                                                   uint64_t& after) {
    const int rx = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
    EXPECT_GE(rx, 0);
    sockaddr_ll at{};
    at.sll_family = AF_PACKET;
    at.sll_protocol = htons(ETH_P_ALL);
    at.sll_ifindex = ifa_;
    EXPECT_EQ(bind(rx, reinterpret_cast<sockaddr*>(&at), sizeof(at)), 0);
    const int tx = socket(AF_PACKET, SOCK_RAW, 0);
    EXPECT_GE(tx, 0);
    const uint8_t mac_a[6] = {0x02, 0x5a, 0x47, 0x00, 0x01, 0x0a};
    const uint8_t mac_b[6] = {0x02, 0x5a, 0x47, 0x00, 0x01, 0x0b};
    const std::vector<uint8_t> frame = NtpFrame(mac_a, mac_b);
    sockaddr_ll to{};
    to.sll_family = AF_PACKET;
    to.sll_ifindex = ifb_;
    to.sll_halen = 6;
    std::memcpy(to.sll_addr, mac_a, 6);
    before = MonotonicNs();
    EXPECT_EQ(sendto(tx, frame.data(), frame.size(), 0,
                     reinterpret_cast<sockaddr*>(&to), sizeof(to)),
              static_cast<ssize_t>(frame.size()))
        << std::strerror(errno);

    // The frame as the kernel got it on zgha (XDP_PASS: no AF_XDP socket).
    std::optional<zg::core::XdpStamp> stamp;
    for (int tries = 0; tries < 20 && !stamp.has_value(); ++tries) {
      pollfd p{rx, POLLIN, 0};
      if (poll(&p, 1, 100) <= 0) continue;
      uint8_t buf[2048];
      const ssize_t n = recv(rx, buf, sizeof(buf), 0);
      if (n <= 0) continue;
      stamp = zg::core::ParseXdpStamp(
          std::span<const uint8_t>(buf, static_cast<size_t>(n)));
      if (stamp.has_value()) {
        EXPECT_EQ(static_cast<size_t>(n),
                  zg::core::kXdpStampLen + frame.size());
        EXPECT_EQ(std::memcmp(buf + zg::core::kXdpStampLen, frame.data(),
                              frame.size()),
                  0);
      }
    }
    after = MonotonicNs();
    close(rx);
    close(tx);
    return stamp;
  }

  const char* path_ = nullptr;
  std::string ns_;
  bool made_ns_ = false;
  int root_ns_ = -1, ifa_ = 0, ifb_ = 0;
  bpf_object* obj_ = nullptr;
};

TEST_F(XdpHwtsTest, RefusedUnlessDeviceBound) {
  const int rc = Load(/*dev_bound=*/false);
  EXPECT_NE(rc, 0);
  EXPECT_NE(g_log.find("metadata kfuncs require device-bound program"),
            std::string::npos)
      << g_log;
}

TEST_F(XdpHwtsTest, VethFrameGetsAKernelTaggedStamp) {
  ASSERT_EQ(Load(/*dev_bound=*/true), 0) << g_log;
  const int prog_fd = bpf_program__fd(bpf_object__next_program(obj_, nullptr));
  uint32_t a4;
  inet_pton(AF_INET, "10.1.0.1", &a4);
  const uint8_t one = 1;
  ASSERT_EQ(bpf_map_update_elem(MapFd("zg_addrs4"), &a4, &one, BPF_ANY), 0);
  const uint32_t zero = 0;
  const uint16_t cfg[2] = {0, 2};  // untagged, ZG_FLAG_RX_STAMP
  ASSERT_EQ(bpf_map_update_elem(MapFd("zg_config"), &zero, cfg, BPF_ANY), 0);
  // Device-bound programs attach in native mode only.
  ASSERT_EQ(bpf_xdp_attach(ifa_, prog_fd, XDP_FLAGS_DRV_MODE, nullptr), 0);

  uint64_t before = 0, after = 0;
  const std::optional<zg::core::XdpStamp> stamp = SendAndCapture(before, after);
  ASSERT_TRUE(stamp.has_value()) << "no stamped frame seen on zgha";
  // veth: the kfunc answers with the skb's hardware stamp, 0 here, so the
  // program fell back to the kernel clock.
  EXPECT_EQ(stamp->clock, zg::core::XdpClock::kKernel);
  EXPECT_GE(stamp->ns, before);
  EXPECT_LE(stamp->ns, after);
  EXPECT_EQ(Stat(0), 1u);  // steered
  EXPECT_EQ(Stat(2), 0u);  // hardware-stamped
}

// What zeitgeberd --xdp_rx_metadata does after the PMD attached zg_xdp.o:
// SwapInXdpHwts (dataplane/port/xdp_hwts.h) replaces it by zg_xdp_hwts.o,
// device-bound, on the same maps: the addresses and config written into
// zg_xdp.o's maps still steer, and its stats map counts.
TEST_F(XdpHwtsTest, SwapReplacesZgXdpOnTheSameMaps) {
  const char* plain_path = std::getenv("ZG_XDP_OBJ");
  ASSERT_NE(plain_path, nullptr) << "set ZG_XDP_OBJ to zg_xdp.o";
  // As the PMD loads it: plain load, attached without a mode (native on
  // veth).
  obj_ = bpf_object__open_file(plain_path, nullptr);
  ASSERT_NE(obj_, nullptr);
  ASSERT_EQ(bpf_object__load(obj_), 0);
  const int plain_fd = bpf_program__fd(bpf_object__next_program(obj_, nullptr));
  ASSERT_EQ(
      bpf_xdp_attach(ifa_, plain_fd, XDP_FLAGS_UPDATE_IF_NOEXIST, nullptr), 0);
  uint32_t plain_id = 0;
  ASSERT_EQ(bpf_xdp_query_id(ifa_, 0, &plain_id), 0);
  uint32_t a4;
  inet_pton(AF_INET, "10.1.0.1", &a4);
  const uint8_t one = 1;
  ASSERT_EQ(bpf_map_update_elem(MapFd("zg_addrs4"), &a4, &one, BPF_ANY), 0);
  const uint32_t zero = 0;
  const uint16_t cfg[2] = {0, 2};  // untagged, ZG_FLAG_RX_STAMP
  ASSERT_EQ(bpf_map_update_elem(MapFd("zg_config"), &zero, cfg, BPF_ANY), 0);

  const absl::Status swapped = zg::dataplane::SwapInXdpHwts("zgha", path_);
  ASSERT_TRUE(swapped.ok()) << swapped;
  uint32_t now_id = 0;
  ASSERT_EQ(bpf_xdp_query_id(ifa_, 0, &now_id), 0);
  EXPECT_NE(now_id, plain_id);
  EXPECT_NE(now_id, 0u);
  uint64_t before = 0, after = 0;
  const std::optional<zg::core::XdpStamp> stamp = SendAndCapture(before, after);
  ASSERT_TRUE(stamp.has_value()) << "no stamped frame seen on zgha";
  EXPECT_EQ(stamp->clock, zg::core::XdpClock::kKernel);  // veth: no HW stamp
  EXPECT_GE(stamp->ns, before);
  EXPECT_LE(stamp->ns, after);
  EXPECT_EQ(Stat(0), 1u);  // zg_xdp.o's stats map, counted by zg_xdp_hwts.o
  // Swapping again finds zg_xdp_hwts.o's (same) maps and works too; a
  // missing object fails and leaves the program attached.
  EXPECT_FALSE(zg::dataplane::SwapInXdpHwts("zgha", "/nonexistent.o").ok());
  uint32_t still = 0;
  ASSERT_EQ(bpf_xdp_query_id(ifa_, 0, &still), 0);
  EXPECT_EQ(still, now_id);
  // veth has no PHC: zeitgeberd would not have swapped here.
  EXPECT_FALSE(zg::dataplane::InterfacePhc("zgha").has_value());
}

}  // namespace
}  // namespace xdp_hwts_test
