// SPDX-License-Identifier: Apache-2.0
// The pipeline's handler for the L2/L3 housekeeping a kernel-bypass port
// answers itself (core/net/l2l3_responder.h): ARP requests, ICMP and ICMPv6
// echo requests and IPv6 neighbour solicitations for our addresses, so kernel
// clients on the wire reach zeitgeberd without static neighbour entries.
// Registered for FrameKind kArpRequest, kIcmpEchoRequest, kIcmp6EchoRequest
// and kNeighborSolicitation; reads the ParsedFrame the CoreFrameClassifier
// left (dataplane/worker/frame_classifier.h) and rewrites the frame in place.
// The responder computes every checksum, so no late-TX step is needed.
//
//   ZG_RETURN_IF_ERROR(pipeline.SetHandler(core::FrameKind::kArpRequest,
//                                          std::make_unique<L2L3Handler>(drops)));
#ifndef ZG_DATAPLANE_WORKER_L2L3_HANDLER_H_
#define ZG_DATAPLANE_WORKER_L2L3_HANDLER_H_

#include "core/net/l2l3_responder.h"
#include "dataplane/worker/frame_classifier.h"
#include "dataplane/worker/pipeline.h"

namespace zg::dataplane {

class L2L3Handler final : public FrameHandler {
 public:
  explicit L2L3Handler(FrameDropIndex drops) : drops_(drops) {}

  HandleResult Handle(Packet& pkt, const BurstContext& /*burst*/) override {
    const ParsedFrame& p = pkt.ParseAs<ParsedFrame>();
    core::FrameDrop why = core::FrameDrop::kNone;
    const uint32_t len =
        core::AnswerL2L3(pkt.data(), pkt.capacity(), p.info, *p.local, &why);
    if (len == 0) return HandleResult::Drop(drops_.Of(why));
    // Within capacity(): AnswerL2L3 was given it as the buffer size.
    (void)pkt.Resize(len);
    return HandleResult::Transmit();
  }

 private:
  FrameDropIndex drops_;
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_WORKER_L2L3_HANDLER_H_
