// SPDX-License-Identifier: Apache-2.0
#include "dataplane/port/tx_checksum.h"

#include "core/net/frame_build.h"

namespace zg::dataplane {

bool FinaliseUdpChecksum(rte_mbuf* m, const core::FrameInfo& frame,
                         const TxOffloads& offloads) {
  m->ol_flags &= ~(RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IPV6 |
                   RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_L4_MASK);
  uint8_t* data = rte_pktmbuf_mtod(m, uint8_t*);
  if (!offloads.udp_checksum) {
    core::FinaliseUdpChecksum(data, frame);
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
