// SPDX-License-Identifier: Apache-2.0
#include "bench/loadgen/ptp_subscriber_frame.h"

#include <cstring>

#include "bench/loadgen/lane_network.h"

namespace zg::bench {

uint32_t FramePtpSubscriberMessage(const PtpSubscriberMessage& m,
                                   const core::IpAddress& first,
                                   const uint8_t* payload,
                                   core::UdpFrameSpec* spec, uint8_t* buf,
                                   uint32_t room) {
  spec->src_ip = AddressAt(first, m.address_offset);
  spec->src_port = m.port;
  spec->dst_port = m.port;
  core::FrameInfo info;
  const uint32_t len =
      core::BuildUdpFrame(buf, room, *spec, m.payload_len, &info);
  if (len == 0) return 0;
  if (payload != nullptr) {
    std::memcpy(buf + info.payload_offset, payload, m.payload_len);
  }
  core::FinaliseUdpChecksum(buf, info);
  return len;
}

}  // namespace zg::bench
