// FinaliseUdpChecksums: software checksums that a receiver accepts, or the
// mbuf fields a NIC needs to compute them, for IPv4 and IPv6.
#include "dataplane/port/tx_checksum.h"

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include <cstring>

#include "dataplane/port/mempools.h"
#include "gtest/gtest.h"

namespace zg::dataplane {
namespace {

constexpr uint16_t kL2 = sizeof(rte_ether_hdr);

class TxChecksumTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto mp = pools_.Dedicated("txck", SOCKET_ID_ANY, 255);
    ASSERT_TRUE(mp.ok()) << mp.status();
    pool_ = *mp;
  }
  void TearDown() override { rte_pktmbuf_free(m_); }

  // Ethernet + IP + UDP + 48 payload bytes with garbage checksums.
  void Build(bool ipv6) {
    m_ = rte_pktmbuf_alloc(pool_);
    ASSERT_NE(m_, nullptr);
    l3_len_ = ipv6 ? sizeof(rte_ipv6_hdr) : sizeof(rte_ipv4_hdr);
    const uint16_t len = kL2 + l3_len_ + sizeof(rte_udp_hdr) + 48;
    uint8_t* f = reinterpret_cast<uint8_t*>(rte_pktmbuf_append(m_, len));
    std::memset(f, 0xa5, len);
    l3_ = f + kL2;
    udp_ = reinterpret_cast<rte_udp_hdr*>(l3_ + l3_len_);
    if (ipv6) {
      auto* ip = reinterpret_cast<rte_ipv6_hdr*>(l3_);
      ip->vtc_flow = rte_cpu_to_be_32(6u << 28);
      ip->payload_len = rte_cpu_to_be_16(8 + 48);
      ip->proto = IPPROTO_UDP;
    } else {
      auto* ip = reinterpret_cast<rte_ipv4_hdr*>(l3_);
      ip->version_ihl = RTE_IPV4_VHL_DEF;
      ip->total_length = rte_cpu_to_be_16(20 + 8 + 48);
      ip->next_proto_id = IPPROTO_UDP;
      ip->fragment_offset = 0;
    }
    udp_->dgram_len = rte_cpu_to_be_16(8 + 48);
  }

  // What a receiver does: the one's-complement sum over the data with the
  // checksum in place is 0xffff (the rte_*_udptcp_cksum_verify rule).
  bool UdpVerifies() {
    const uint16_t saved = udp_->dgram_cksum;
    udp_->dgram_cksum = 0;
    const uint16_t expect =
        (l3_[0] >> 4) == 4
            ? rte_ipv4_udptcp_cksum(reinterpret_cast<rte_ipv4_hdr*>(l3_), udp_)
            : rte_ipv6_udptcp_cksum(reinterpret_cast<rte_ipv6_hdr*>(l3_), udp_);
    udp_->dgram_cksum = saved;
    return saved != 0 && saved == expect;
  }

  MbufPools pools_{0};
  rte_mempool* pool_ = nullptr;
  rte_mbuf* m_ = nullptr;
  uint8_t* l3_ = nullptr;
  uint16_t l3_len_ = 0;
  rte_udp_hdr* udp_ = nullptr;
};

TEST_F(TxChecksumTest, Ipv4InSoftware) {
  Build(false);
  EXPECT_FALSE(FinaliseUdpChecksums(m_, {}, kL2, l3_len_));
  EXPECT_TRUE(UdpVerifies());
  auto* ip = reinterpret_cast<rte_ipv4_hdr*>(l3_);
  EXPECT_EQ(rte_ipv4_cksum(ip), 0) << "header checksum verifies";
  EXPECT_EQ(m_->ol_flags & RTE_MBUF_F_TX_L4_MASK, 0u);
}

TEST_F(TxChecksumTest, Ipv4Offloaded) {
  Build(false);
  EXPECT_TRUE(FinaliseUdpChecksums(m_, {true, true}, kL2, l3_len_));
  EXPECT_EQ(m_->ol_flags & RTE_MBUF_F_TX_L4_MASK, RTE_MBUF_F_TX_UDP_CKSUM);
  EXPECT_NE(m_->ol_flags & RTE_MBUF_F_TX_IP_CKSUM, 0u);
  EXPECT_NE(m_->ol_flags & RTE_MBUF_F_TX_IPV4, 0u);
  EXPECT_EQ(m_->l2_len, kL2);
  EXPECT_EQ(m_->l3_len, l3_len_);
  auto* ip = reinterpret_cast<rte_ipv4_hdr*>(l3_);
  EXPECT_EQ(ip->hdr_checksum, 0) << "left for the NIC";
  EXPECT_EQ(udp_->dgram_cksum, rte_ipv4_phdr_cksum(ip, m_->ol_flags));
}

TEST_F(TxChecksumTest, Ipv4UdpOffloadWithSoftwareHeader) {
  Build(false);
  EXPECT_TRUE(FinaliseUdpChecksums(m_, {false, true}, kL2, l3_len_));
  EXPECT_EQ(m_->ol_flags & RTE_MBUF_F_TX_IP_CKSUM, 0u);
  EXPECT_EQ(rte_ipv4_cksum(reinterpret_cast<rte_ipv4_hdr*>(l3_)), 0);
}

TEST_F(TxChecksumTest, Ipv6InSoftwareAndOffloaded) {
  Build(true);
  EXPECT_FALSE(FinaliseUdpChecksums(m_, {}, kL2, l3_len_));
  EXPECT_TRUE(UdpVerifies());
  EXPECT_TRUE(FinaliseUdpChecksums(m_, {true, true}, kL2, l3_len_));
  EXPECT_NE(m_->ol_flags & RTE_MBUF_F_TX_IPV6, 0u);
  EXPECT_EQ(m_->ol_flags & RTE_MBUF_F_TX_L4_MASK, RTE_MBUF_F_TX_UDP_CKSUM);
  EXPECT_EQ(
      udp_->dgram_cksum,
      rte_ipv6_phdr_cksum(reinterpret_cast<rte_ipv6_hdr*>(l3_), m_->ol_flags));
}

}  // namespace
}  // namespace zg::dataplane
