// SPDX-License-Identifier: Apache-2.0
// The frame around one emulated PTP subscriber's message
// (ptp_subscribers.h): zg-loadgen's lanes, and the in-process rigs that put
// the engine in front of the real worker (tests, benchmarks), frame
// subscriber messages one way. DPDK-free: the caller owns the buffer.
//
//   core::UdpFrameSpec spec = ...;  // MACs, VLAN, the server's address
//   uint32_t len = FramePtpSubscriberMessage(m, first, payload, &spec, buf,
//                                            room);
#ifndef ZG_BENCH_LOADGEN_PTP_SUBSCRIBER_FRAME_H_
#define ZG_BENCH_LOADGEN_PTP_SUBSCRIBER_FRAME_H_

#include <cstdint>

#include "bench/loadgen/ptp_subscribers.h"
#include "core/net/frame_build.h"

namespace zg::bench {

// Writes the Ethernet/IP/UDP headers of subscriber message `m` into `buf`
// (`room` bytes) and its UDP checksum. `spec` gives the MACs, VLAN and the
// server's address; its source address (`first` + m.address_offset) and
// ports (m.port both ways, as ptp4l sends) are set here. The payload is
// copied from `payload`, or, when that is null, is already in `buf` at the
// frame's payload offset (the engine wrote it there). Returns the frame's
// length; 0 when it does not fit (nothing useful in `buf`).
uint32_t FramePtpSubscriberMessage(const PtpSubscriberMessage& m,
                                   const core::IpAddress& first,
                                   const uint8_t* payload,
                                   core::UdpFrameSpec* spec, uint8_t* buf,
                                   uint32_t room);

}  // namespace zg::bench

#endif  // ZG_BENCH_LOADGEN_PTP_SUBSCRIBER_FRAME_H_
