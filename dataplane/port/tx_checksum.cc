#include "dataplane/port/tx_checksum.h"

#include <rte_ip.h>
#include <rte_udp.h>

#include "core/net/frame_build.h"

namespace zg::dataplane {

bool FinaliseUdpChecksums(rte_mbuf* m, const TxOffloads& offloads,
                          uint16_t l2_len, uint16_t l3_len) {
  uint8_t* l3 = rte_pktmbuf_mtod(m, uint8_t*) + l2_len;
  auto* udp = reinterpret_cast<rte_udp_hdr*>(l3 + l3_len);
  const bool ipv4 = (l3[0] >> 4) == 4;
  m->ol_flags &= ~(RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IPV6 |
                   RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_L4_MASK);
  if (ipv4) {
    auto* ip = reinterpret_cast<rte_ipv4_hdr*>(l3);
    ip->hdr_checksum = 0;
    if (offloads.ipv4_checksum) {
      m->ol_flags |= RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM;
    } else {
      ip->hdr_checksum = rte_ipv4_cksum(ip);
    }
    if (offloads.udp_checksum) {
      m->ol_flags |= RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_UDP_CKSUM;
      m->l2_len = l2_len;
      m->l3_len = l3_len;
      udp->dgram_cksum = rte_ipv4_phdr_cksum(ip, m->ol_flags);
      return true;
    }
    udp->dgram_cksum = 0;
    udp->dgram_cksum = rte_ipv4_udptcp_cksum(ip, udp);
    return false;
  }
  auto* ip6 = reinterpret_cast<rte_ipv6_hdr*>(l3);
  if (offloads.udp_checksum) {
    m->ol_flags |= RTE_MBUF_F_TX_IPV6 | RTE_MBUF_F_TX_UDP_CKSUM;
    m->l2_len = l2_len;
    m->l3_len = l3_len;
    udp->dgram_cksum = rte_ipv6_phdr_cksum(ip6, m->ol_flags);
    return true;
  }
  udp->dgram_cksum = 0;
  udp->dgram_cksum = rte_ipv6_udptcp_cksum(ip6, udp);  // never 0 for UDP
  return false;
}

bool FinaliseUdpChecksum(rte_mbuf* m, const core::FrameInfo& frame,
                         const TxOffloads& offloads) {
  m->ol_flags &= ~(RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IPV6 |
                   RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_L4_MASK);
  uint8_t* data = rte_pktmbuf_mtod(m, uint8_t*);
  if (!offloads.udp_checksum) {
    core::FinalizeUdpChecksum(data, frame);
    return false;
  }
  core::PrepareUdpChecksumOffload(data, frame);
  m->ol_flags |=
      RTE_MBUF_F_TX_UDP_CKSUM |
      (frame.ip_version == 4 ? RTE_MBUF_F_TX_IPV4 : RTE_MBUF_F_TX_IPV6);
  m->l2_len = frame.l3_offset;
  m->l3_len = frame.l4_offset - frame.l3_offset;
  return true;
}

}  // namespace zg::dataplane
