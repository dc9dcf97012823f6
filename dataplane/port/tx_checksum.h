// SPDX-License-Identifier: Apache-2.0
// Shared TX step for handlers that rewrite UDP replies: after the last byte of
// the reply is written (in FinaliseTx for NTP, whose transmit timestamp goes
// in last), either compute the UDP checksum in software or hand it to the
// NIC where the port enabled the offload. Hot path: no allocation, no
// syscalls.
//
//   void NtpHandler::FinaliseTx(Packet& pkt, const TxStamp& tx) {
//     WriteTransmitTimestamp(pkt, tx);
//     FinaliseUdpChecksum(pkt.mbuf, reply, offloads);
//   }
#ifndef ZG_DATAPLANE_PORT_TX_CHECKSUM_H_
#define ZG_DATAPLANE_PORT_TX_CHECKSUM_H_

#include <rte_mbuf.h>

#include <cstdint>

#include "core/net/frame.h"
#include "dataplane/worker/pipeline.h"

namespace zg::dataplane {

// For a UDP frame core/net/frame_build.h built (PrepareUdpReply's or
// BuildUdpFrame's FrameInfo), whose IPv4 header checksum is already set:
// computes the UDP checksum with core::FinaliseUdpChecksum, or stores the
// pseudo-header sum and marks the mbuf for NIC offload. Returns true if the
// NIC will compute it (a later payload change then needs no checksum update;
// otherwise use core::UpdateUdpChecksum).
bool FinaliseUdpChecksum(rte_mbuf* m, const core::FrameInfo& frame,
                         const TxOffloads& offloads);

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_PORT_TX_CHECKSUM_H_
