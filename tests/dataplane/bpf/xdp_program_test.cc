// SPDX-License-Identifier: Apache-2.0
// The XDP steering program (dataplane/bpf/zg_xdp.c), run by the kernel on
// crafted frames with BPF_PROG_TEST_RUN: which frames it steers towards the
// AF_XDP socket and which it leaves to the kernel. Its zg_stats counters tell
// the two apart (with no socket in xsks_map both end as XDP_PASS).
// Needs the privilege to load XDP programs (root, or CAP_BPF + CAP_NET_ADMIN):
// skipped only when a trivial XDP program is refused with EPERM and the
// process lacks those capabilities. Once that probe loads, a failure to load
// zg_xdp.o (a verifier rejection included) fails the test with libbpf's log.
// ZG_XDP_OBJ names the object.
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace xdp_program_test {
namespace {

enum Decision { kPassed, kSteered };

struct FrameSpec {
  int vlan = -1;  // -1: untagged
  bool ipv6 = false;
  uint8_t proto = 17;  // UDP
  uint16_t dst_port = 123;
  const char* dst = "10.1.0.1";
  uint16_t frag_off = 0;  // IPv4 flags+offset, host order
  uint8_t ipv4_ihl = 5;
  uint8_t ipv6_next = 17;
};

void Put16(std::vector<uint8_t>& f, uint16_t v) {
  f.push_back(static_cast<uint8_t>(v >> 8));
  f.push_back(static_cast<uint8_t>(v));
}

std::vector<uint8_t> Frame(const FrameSpec& s) {
  std::vector<uint8_t> f(12, 0x02);  // dst + src MAC
  if (s.vlan >= 0) {
    Put16(f, 0x8100);
    Put16(f, static_cast<uint16_t>(s.vlan));
  }
  Put16(f, s.ipv6 ? 0x86dd : 0x0800);
  if (!s.ipv6) {
    f.push_back(static_cast<uint8_t>(0x40 | s.ipv4_ihl));
    f.push_back(0);
    Put16(f, static_cast<uint16_t>(s.ipv4_ihl * 4 + 8 + 48));
    Put16(f, 0);
    Put16(f, s.frag_off);
    f.push_back(64);
    f.push_back(s.proto);
    Put16(f, 0);
    const uint8_t src[4] = {10, 1, 0, 2};
    f.insert(f.end(), src, src + 4);
    uint8_t dst[4];
    inet_pton(AF_INET, s.dst, dst);
    f.insert(f.end(), dst, dst + 4);
    f.resize(f.size() + (s.ipv4_ihl - 5) * 4, 1);  // options (NOPs)
  } else {
    Put16(f, 0x6000);
    Put16(f, 0);
    Put16(f, 8 + 48);
    f.push_back(s.ipv6_next);
    f.push_back(64);
    uint8_t addr[16];
    inet_pton(AF_INET6, "fd00::2", addr);
    f.insert(f.end(), addr, addr + 16);
    inet_pton(AF_INET6, s.dst, addr);
    f.insert(f.end(), addr, addr + 16);
  }
  Put16(f, 40000);
  Put16(f, s.dst_port);
  Put16(f, 8 + 48);
  Put16(f, 0);
  f.resize(f.size() + 48, 0);
  return f;
}

// Everything libbpf prints (warnings and the verifier log) while the object
// is opened and loaded, for the failure message.
std::string* g_libbpf_log = nullptr;

int CollectLibbpfLog(enum libbpf_print_level level, const char* format,
                     va_list args) {
  if (g_libbpf_log == nullptr || level == LIBBPF_DEBUG) return 0;
  char buf[4096];
  const int n = std::vsnprintf(buf, sizeof(buf), format, args);
  if (n > 0) g_libbpf_log->append(buf, std::min<size_t>(n, sizeof(buf) - 1));
  return n;
}

// Whether capability `cap` is in this process's effective set.
bool HasCapability(int cap) {
  __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};
  if (syscall(SYS_capget, &header, data) != 0) return false;
  return (data[cap / 32].effective & (1u << (cap % 32))) != 0;
}

// Loads the smallest XDP program there is ("return XDP_PASS"): whether this
// process may load XDP programs at all, independent of zg_xdp.o. Returns 0 or
// the errno of the refusal.
int ProbeXdpLoad() {
  const bpf_insn insns[] = {
      {.code = BPF_ALU64 | BPF_MOV | BPF_K,
       .dst_reg = BPF_REG_0,
       .imm = XDP_PASS},
      {.code = BPF_JMP | BPF_EXIT},
  };
  const int fd = bpf_prog_load(BPF_PROG_TYPE_XDP, "zg_probe", "GPL", insns,
                               sizeof(insns) / sizeof(insns[0]), nullptr);
  if (fd < 0) return -fd;
  close(fd);
  return 0;
}

class XdpProgramTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* path = std::getenv("ZG_XDP_OBJ");
    ASSERT_NE(path, nullptr) << "set ZG_XDP_OBJ to the built zg_xdp.o";
    // XDP programs need CAP_SYS_ADMIN, or CAP_BPF and CAP_NET_ADMIN.
    const bool privileged =
        HasCapability(CAP_SYS_ADMIN) ||
        (HasCapability(CAP_BPF) && HasCapability(CAP_NET_ADMIN));
    if (const int err = ProbeXdpLoad(); err != 0) {
      if (err == EPERM && !privileged) {
        GTEST_SKIP() << "no privilege to load XDP programs (euid " << geteuid()
                     << ", no CAP_SYS_ADMIN nor CAP_BPF + CAP_NET_ADMIN): "
                        "a trivial XDP program was refused with EPERM";
      }
      FAIL() << "a trivial XDP program failed to load: " << std::strerror(err)
             << " (euid " << geteuid() << ", "
             << (privileged ? "with" : "without")
             << " CAP_SYS_ADMIN or CAP_BPF + CAP_NET_ADMIN)";
    }
    std::string log;
    g_libbpf_log = &log;
    const libbpf_print_fn_t old_print = libbpf_set_print(CollectLibbpfLog);
    obj_ = bpf_object__open_file(path, nullptr);
    const int open_errno = errno;
    const int err = obj_ == nullptr ? 0 : bpf_object__load(obj_);
    libbpf_set_print(old_print);
    g_libbpf_log = nullptr;
    ASSERT_NE(obj_, nullptr)
        << "cannot open " << path << ": " << std::strerror(open_errno) << "\n"
        << log;
    ASSERT_EQ(err, 0) << "loading " << path << " failed ("
                      << std::strerror(-err)
                      << ") although this process may load XDP programs; "
                         "libbpf says:\n"
                      << log;
    prog_fd_ = bpf_program__fd(bpf_object__next_program(obj_, nullptr));
    ASSERT_GE(prog_fd_, 0);
    addrs4_ = MapFd("zg_addrs4");
    addrs6_ = MapFd("zg_addrs6");
    config_ = MapFd("zg_config");
    stats_ = MapFd("zg_stats");
    ASSERT_NE(MapFd("xsks_map"), -1) << "net_af_xdp requires xsks_map";
    uint32_t a4;
    inet_pton(AF_INET, "10.1.0.1", &a4);
    const uint8_t one = 1;
    ASSERT_EQ(bpf_map_update_elem(addrs4_, &a4, &one, BPF_ANY), 0);
    uint8_t a6[16];
    inet_pton(AF_INET6, "fd00::1", a6);
    ASSERT_EQ(bpf_map_update_elem(addrs6_, a6, &one, BPF_ANY), 0);
  }
  void TearDown() override {
    if (obj_ != nullptr) bpf_object__close(obj_);
  }

  int MapFd(const char* name) {
    bpf_map* m = bpf_object__find_map_by_name(obj_, name);
    return m == nullptr ? -1 : bpf_map__fd(m);
  }
  uint64_t Stat(uint32_t key) {
    std::vector<uint64_t> v(static_cast<size_t>(libbpf_num_possible_cpus()));
    EXPECT_EQ(bpf_map_lookup_elem(stats_, &key, v.data()), 0);
    uint64_t sum = 0;
    for (uint64_t x : v) sum += x;
    return sum;
  }
  void SetVlan(uint16_t vid, uint16_t flags = 0) {
    const uint32_t zero = 0;
    const uint16_t cfg[2] = {vid, flags};
    ASSERT_EQ(bpf_map_update_elem(config_, &zero, cfg, BPF_ANY), 0);
  }
  Decision Run(std::vector<uint8_t> frame) {
    const uint64_t steered = Stat(0), passed = Stat(1);
    LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame.data(),
                .data_size_in = static_cast<uint32_t>(frame.size()),
                .repeat = 1);
    EXPECT_EQ(bpf_prog_test_run_opts(prog_fd_, &opts), 0);
    EXPECT_EQ(opts.retval, XDP_PASS) << "empty xsks_map falls back to PASS";
    const uint64_t ds = Stat(0) - steered, dp = Stat(1) - passed;
    EXPECT_EQ(ds + dp, 1u);
    return ds == 1 ? kSteered : kPassed;
  }

  bpf_object* obj_ = nullptr;
  int prog_fd_ = -1, addrs4_ = -1, addrs6_ = -1, config_ = -1, stats_ = -1;
};

TEST_F(XdpProgramTest, SteersNtpAndPtpToServedIpv4Addresses) {
  EXPECT_EQ(Run(Frame({})), kSteered);
  EXPECT_EQ(Run(Frame({.dst_port = 319})), kSteered);
  EXPECT_EQ(Run(Frame({.dst_port = 320})), kSteered);
  EXPECT_EQ(Run(Frame({.ipv4_ihl = 6})), kSteered) << "IPv4 options";
  EXPECT_EQ(Run(Frame({.dst_port = 22})), kPassed);
  EXPECT_EQ(Run(Frame({.dst_port = 5000})), kPassed);
  EXPECT_EQ(Run(Frame({.dst = "10.1.0.9"})), kPassed) << "not our address";
  EXPECT_EQ(Run(Frame({.proto = 6})), kPassed) << "TCP 123";
  EXPECT_EQ(Run(Frame({.proto = 1})), kPassed) << "ICMP";
  EXPECT_EQ(Run(Frame({.frag_off = 0x2000})), kPassed) << "first fragment";
  EXPECT_EQ(Run(Frame({.frag_off = 0x0010})), kPassed) << "later fragment";
  EXPECT_EQ(Run(Frame({.frag_off = 0x4000})), kSteered) << "DF is fine";
}

TEST_F(XdpProgramTest, SteersServedIpv6AddressesWithoutExtensionHeaders) {
  EXPECT_EQ(Run(Frame({.ipv6 = true, .dst = "fd00::1"})), kSteered);
  EXPECT_EQ(Run(Frame({.ipv6 = true, .dst_port = 320, .dst = "fd00::1"})),
            kSteered);
  EXPECT_EQ(Run(Frame({.ipv6 = true, .dst = "fd00::9"})), kPassed);
  EXPECT_EQ(Run(Frame({.ipv6 = true, .dst = "ff02::101"})), kPassed);
  EXPECT_EQ(Run(Frame({.ipv6 = true, .dst = "fd00::1", .ipv6_next = 0})),
            kPassed)
      << "hop-by-hop header: left to the kernel";
  EXPECT_EQ(
      Run(Frame(
          {.ipv6 = true, .proto = 58, .dst = "fd00::1", .ipv6_next = 58})),
      kPassed)
      << "ICMPv6 (ND) stays with the kernel";
}

TEST_F(XdpProgramTest, VlanMustMatchTheConfiguredId) {
  EXPECT_EQ(Run(Frame({.vlan = 5})), kPassed) << "untagged configured";
  SetVlan(5);
  EXPECT_EQ(Run(Frame({.vlan = 5})), kSteered);
  EXPECT_EQ(Run(Frame({.vlan = 5, .ipv6 = true, .dst = "fd00::1"})), kSteered);
  EXPECT_EQ(Run(Frame({.vlan = 0x2005})), kSteered) << "PCP bits ignored";
  EXPECT_EQ(Run(Frame({.vlan = 6})), kPassed);
  EXPECT_EQ(Run(Frame({})), kPassed) << "untagged while VLAN 5 configured";
}

TEST_F(XdpProgramTest, ArpAndTruncatedFramesGoToTheKernel) {
  std::vector<uint8_t> arp(12, 0xff);
  Put16(arp, 0x0806);
  arp.resize(60, 0);
  EXPECT_EQ(Run(arp), kPassed);
  std::vector<uint8_t> full = Frame({});
  for (size_t len : {14u, 20u, 33u, 34u, 41u}) {
    EXPECT_EQ(Run(std::vector<uint8_t>(full.begin(), full.begin() + len)),
              kPassed)
        << "truncated to " << len;
  }
}

TEST_F(XdpProgramTest, NothingIsSteeredBeforeAddressesAreConfigured) {
  uint32_t a4;
  inet_pton(AF_INET, "10.1.0.1", &a4);
  ASSERT_EQ(bpf_map_delete_elem(addrs4_, &a4), 0);
  EXPECT_EQ(Run(Frame({})), kPassed);
}

TEST_F(XdpProgramTest, PtpGroupsAndEthernetOnlyWhenAsked) {
  const std::vector<uint8_t> group4 =
      Frame({.dst_port = 319, .dst = "224.0.1.129"});
  const std::vector<uint8_t> pdelay4 =
      Frame({.dst_port = 319, .dst = "224.0.0.107"});
  const std::vector<uint8_t> group6 =
      Frame({.ipv6 = true, .dst_port = 320, .dst = "ff0e::181"});
  std::vector<uint8_t> l2(12, 0x01);
  Put16(l2, 0x88f7);
  l2.resize(60, 0);
  EXPECT_EQ(Run(group4), kPassed) << "PTP groups off by default";
  EXPECT_EQ(Run(l2), kPassed);
  SetVlan(0, /*flags=*/1);
  EXPECT_EQ(Run(group4), kSteered);
  EXPECT_EQ(Run(pdelay4), kSteered);
  EXPECT_EQ(Run(Frame({.dst_port = 320, .dst = "224.0.1.129"})), kSteered);
  EXPECT_EQ(Run(group6), kSteered);
  EXPECT_EQ(Run(Frame({.ipv6 = true, .dst_port = 320, .dst = "ff05::181"})),
            kSteered)
      << "any scope";
  EXPECT_EQ(Run(Frame({.ipv6 = true, .dst_port = 319, .dst = "ff02::6b"})),
            kSteered);
  EXPECT_EQ(Run(l2), kSteered);
  EXPECT_EQ(Run(Frame({.dst_port = 123, .dst = "224.0.1.129"})), kPassed)
      << "NTP to a PTP group";
  EXPECT_EQ(Run(Frame({.dst_port = 319, .dst = "224.0.0.251"})), kPassed)
      << "another group";
  EXPECT_EQ(Run(Frame({.ipv6 = true, .dst_port = 319, .dst = "ff02::1:6b"})),
            kPassed);
  EXPECT_EQ(Run(Frame({})), kSteered) << "our unicast address still";
}

// With the RX-stamp flag, a steered frame gets a 16-byte header in front:
// the magic, then bpf_ktime_get_ns() (CLOCK_MONOTONIC) on entry; the frame
// follows unchanged. Also for a 58-byte PTP-over-Ethernet Delay_Req, to
// which veth's copy left too little tailroom for a trailer (doc/ptp.md).
TEST_F(XdpProgramTest, RxStampHeaderPrecedesShortEthernetFrames) {
  std::vector<uint8_t> l2(12, 0x01);
  Put16(l2, 0x88f7);
  l2.resize(58, 0x11);
  SetVlan(0, /*flags=*/1 | 2);
  std::vector<uint8_t> out(l2.size() + 64);
  timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = l2.data(),
              .data_out = out.data(),
              .data_size_in = static_cast<uint32_t>(l2.size()),
              .data_size_out = static_cast<uint32_t>(out.size()), .repeat = 1);
  ASSERT_EQ(bpf_prog_test_run_opts(prog_fd_, &opts), 0);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  ASSERT_EQ(opts.data_size_out, l2.size() + 16);
  uint64_t magic, ns;
  std::memcpy(&magic, out.data(), 8);
  std::memcpy(&ns, out.data() + 8, 8);
  EXPECT_EQ(magic, 0x7a67727873746d70ULL);
  const auto to_ns = [](const timespec& t) {
    return static_cast<uint64_t>(t.tv_sec) * 1'000'000'000ULL +
           static_cast<uint64_t>(t.tv_nsec);
  };
  EXPECT_GE(ns, to_ns(t0));
  EXPECT_LE(ns, to_ns(t1));
  EXPECT_EQ(std::memcmp(out.data() + 16, l2.data(), l2.size()), 0);
}

}  // namespace
}  // namespace xdp_program_test
