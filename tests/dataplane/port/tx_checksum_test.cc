// SPDX-License-Identifier: Apache-2.0
// FinaliseUdpChecksum on an mbuf: a software checksum that a receiver
// accepts, or the mbuf fields and pseudo-header sum a NIC needs to compute
// it, for IPv4 and IPv6 frames core/net/frame_build.h built.
#include "dataplane/port/tx_checksum.h"

#include <rte_ip.h>
#include <rte_udp.h>

#include <cstring>

#include "core/net/frame_build.h"
#include "dataplane/port/mempools.h"
#include "gtest/gtest.h"

namespace zg::dataplane {
namespace tx_checksum_test {
namespace {

class TxChecksumTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto mp = pools_.Dedicated("txck", SOCKET_ID_ANY, 255);
    ASSERT_TRUE(mp.ok()) << mp.status();
    pool_ = *mp;
  }
  void TearDown() override { rte_pktmbuf_free(m_); }

  // Ethernet + IP + UDP + 48 payload bytes, a stale UDP checksum and stale
  // offload flags, as a reused mbuf may hold.
  void Build(bool ipv6) {
    core::UdpFrameSpec spec;
    spec.src_mac = core::MacAddr{{0x02, 0, 0, 0, 0, 1}};
    spec.dst_mac = core::MacAddr{{0x02, 0, 0, 0, 0, 2}};
    spec.src_ip = *core::ParseIpAddress(ipv6 ? "2001:db8::1" : "192.0.2.1");
    spec.dst_ip = *core::ParseIpAddress(ipv6 ? "2001:db8::2" : "192.0.2.2");
    spec.src_port = 123;
    spec.dst_port = 40000;
    m_ = rte_pktmbuf_alloc(pool_);
    ASSERT_NE(m_, nullptr);
    uint8_t* f = reinterpret_cast<uint8_t*>(rte_pktmbuf_append(m_, 128));
    ASSERT_NE(f, nullptr);
    const uint32_t len = core::BuildUdpFrame(f, 128, spec, 48, &info_);
    ASSERT_NE(len, 0u);
    rte_pktmbuf_trim(m_, static_cast<uint16_t>(128 - len));
    std::memset(f + info_.payload_offset, 0xa5, 48);
    l3_ = f + info_.l3_offset;
    udp_ = reinterpret_cast<rte_udp_hdr*>(f + info_.l4_offset);
    udp_->dgram_cksum = 0x1234;
    m_->ol_flags |= RTE_MBUF_F_TX_IP_CKSUM;
  }

  // What a receiver does: the one's-complement sum over the data with the
  // checksum in place is 0xffff (the rte_*_udptcp_cksum_verify rule).
  bool UdpVerifies() {
    const uint16_t saved = udp_->dgram_cksum;
    udp_->dgram_cksum = 0;
    const uint16_t expect =
        info_.ip_version == 4
            ? rte_ipv4_udptcp_cksum(reinterpret_cast<rte_ipv4_hdr*>(l3_), udp_)
            : rte_ipv6_udptcp_cksum(reinterpret_cast<rte_ipv6_hdr*>(l3_), udp_);
    udp_->dgram_cksum = saved;
    return saved != 0 && saved == expect;
  }

  MbufPools pools_{0};
  rte_mempool* pool_ = nullptr;
  rte_mbuf* m_ = nullptr;
  core::FrameInfo info_;
  uint8_t* l3_ = nullptr;
  rte_udp_hdr* udp_ = nullptr;
};

TEST_F(TxChecksumTest, Ipv4InSoftware) {
  Build(false);
  EXPECT_FALSE(FinaliseUdpChecksum(m_, info_, {}));
  EXPECT_TRUE(UdpVerifies());
  EXPECT_EQ(rte_ipv4_cksum(reinterpret_cast<rte_ipv4_hdr*>(l3_)), 0)
      << "the header checksum BuildUdpFrame set still verifies";
  EXPECT_EQ(m_->ol_flags & (RTE_MBUF_F_TX_L4_MASK | RTE_MBUF_F_TX_IP_CKSUM), 0u)
      << "stale offload flags cleared";
}

TEST_F(TxChecksumTest, Ipv4Offloaded) {
  Build(false);
  EXPECT_TRUE(FinaliseUdpChecksum(m_, info_, {true, true}));
  EXPECT_EQ(m_->ol_flags & RTE_MBUF_F_TX_L4_MASK, RTE_MBUF_F_TX_UDP_CKSUM);
  EXPECT_NE(m_->ol_flags & RTE_MBUF_F_TX_IPV4, 0u);
  EXPECT_EQ(m_->ol_flags & RTE_MBUF_F_TX_IP_CKSUM, 0u)
      << "the IPv4 header checksum is already set";
  EXPECT_EQ(m_->l2_len, info_.l3_offset);
  EXPECT_EQ(m_->l3_len, sizeof(rte_ipv4_hdr));
  EXPECT_EQ(
      udp_->dgram_cksum,
      rte_ipv4_phdr_cksum(reinterpret_cast<rte_ipv4_hdr*>(l3_), m_->ol_flags));
}

TEST_F(TxChecksumTest, Ipv6InSoftwareAndOffloaded) {
  Build(true);
  EXPECT_FALSE(FinaliseUdpChecksum(m_, info_, {}));
  EXPECT_TRUE(UdpVerifies());
  EXPECT_TRUE(FinaliseUdpChecksum(m_, info_, {true, true}));
  EXPECT_NE(m_->ol_flags & RTE_MBUF_F_TX_IPV6, 0u);
  EXPECT_EQ(m_->ol_flags & RTE_MBUF_F_TX_L4_MASK, RTE_MBUF_F_TX_UDP_CKSUM);
  EXPECT_EQ(m_->l2_len, info_.l3_offset);
  EXPECT_EQ(m_->l3_len, sizeof(rte_ipv6_hdr));
  EXPECT_EQ(
      udp_->dgram_cksum,
      rte_ipv6_phdr_cksum(reinterpret_cast<rte_ipv6_hdr*>(l3_), m_->ol_flags));
}

}  // namespace
}  // namespace tx_checksum_test
}  // namespace zg::dataplane
