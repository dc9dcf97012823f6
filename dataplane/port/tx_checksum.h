// Shared TX step for handlers that rewrite UDP replies: after the last byte of
// the reply is written (in FinaliseTx for NTP, whose transmit timestamp goes
// in last), either compute the IPv4 header and UDP checksums in software or
// hand them to the NIC where the port enabled the offloads. Hot path: no
// allocation, no syscalls.
//
//   void NtpHandler::FinaliseTx(Packet& pkt, const TxStamp& tx) {
//     WriteTransmitTimestamp(pkt, tx);
//     FinaliseUdpChecksums(pkt.mbuf, offloads_, l2_len, l3_len);
//   }
#ifndef ZG_DATAPLANE_PORT_TX_CHECKSUM_H_
#define ZG_DATAPLANE_PORT_TX_CHECKSUM_H_

#include <rte_mbuf.h>

#include <cstdint>

#include "core/net/frame.h"
#include "dataplane/worker/pipeline.h"

namespace zg::dataplane {

// The frame in `m` is Ethernet (+VLAN) in `l2_len` bytes, then an IPv4 or
// IPv6 header of `l3_len` bytes (IPv6: no extension headers), then UDP.
// Sets the IPv4 header checksum and the UDP checksum, or marks the mbuf for
// NIC offload (ol_flags, l2_len/l3_len, pseudo-header sum) where `offloads`
// allow. Returns true if the NIC will compute the UDP checksum.
bool FinaliseUdpChecksums(rte_mbuf* m, const TxOffloads& offloads,
                          uint16_t l2_len, uint16_t l3_len);

// The same for a UDP frame core/net/frame_build.h built (PrepareUdpReply's or
// BuildUdpFrame's FrameInfo), whose IPv4 header checksum is already set:
// computes the UDP checksum with core::FinalizeUdpChecksum, or stores the
// pseudo-header sum and marks the mbuf for NIC offload. Returns true if the
// NIC will compute it (a later payload change then needs no checksum update;
// otherwise use core::UpdateUdpChecksum).
bool FinaliseUdpChecksum(rte_mbuf* m, const core::FrameInfo& frame,
                         const TxOffloads& offloads);

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_PORT_TX_CHECKSUM_H_
