// SPDX-License-Identifier: Apache-2.0
// The pipeline's one classify step: core::ClassifyFrame (core/net/frame.h)
// behind the FrameClassifier interface of dataplane/worker/pipeline.h, with the
// counter names of every frame drop reason.
//
// Per frame it finds the LocalAddresses of the port the frame arrived on
// (Packet::port_id), passes the NIC's checksum-good hints from ol_flags, and
// leaves a ParsedFrame (the FrameInfo and the LocalAddresses used) in
// Packet::parse for the handler of the frame's kind, so no handler parses
// again. Verdicts:
//   FrameKind (ARP, ICMP/ICMPv6 echo, NS, NTP, PTP event/general/L2)
//       -> dispatched to that kind's handler (a kind without one is counted
//          as worker_no_handler)
//   FrameKind::kOther (valid and ours, nothing we answer: other UDP ports,
//       TCP, ARP replies, ICMP errors, ...)      -> drop "frame_not_served"
//   a core::FrameDrop                           -> drop "frame_<reason>"
//   a port with no configured addresses         -> drop "frame_unknown_port"
//
//   ZG_ASSIGN_OR_RETURN(FrameDropIndex drops, RegisterFrameNames(names));
//   ZG_ASSIGN_OR_RETURN(PortAddressTable table, BuildPortAddresses(setup));
//   pipeline.SetClassifier(std::make_unique<CoreFrameClassifier>(
//       std::move(table), drops));
//   ... in a handler:  const ParsedFrame& p = pkt.ParseAs<ParsedFrame>();
#ifndef ZG_DATAPLANE_WORKER_FRAME_CLASSIFIER_H_
#define ZG_DATAPLANE_WORKER_FRAME_CLASSIFIER_H_

#include <rte_mbuf.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/net/frame.h"
#include "core/net/local_addresses.h"
#include "dataplane/worker/pipeline.h"
#include "dataplane/worker/worker_stats.h"

namespace zg::dataplane {

// The classifier's parse result, read by every handler of the pipeline.
// Written by: the classifier (and rewritten by a handler that turns the
// request into its reply). Read by: the handler and its FinaliseTx.
struct ParsedFrame {
  core::FrameInfo info;
  const core::LocalAddresses* local = nullptr;  // owned by the classifier
};
static_assert(sizeof(ParsedFrame) <= kParseScratchBytes);

// Counter indices of the classifier's drop reasons (RegisterFrameNames).
struct FrameDropIndex {
  uint8_t base = 0;  // the "frame" block: FrameDrop d is base + d - 1

  uint8_t Of(core::FrameDrop d) const {
    return static_cast<uint8_t>(base + static_cast<uint8_t>(d) - 1);
  }
  uint8_t not_served() const {
    return static_cast<uint8_t>(base + core::kFrameDropCount - 1);
  }
  uint8_t unknown_port() const {
    return static_cast<uint8_t>(base + core::kFrameDropCount);
  }
};

// Names every core::FrameKind (the kind index is the enum value) and
// registers the "frame" drop reasons. Control thread, before workers start.
absl::StatusOr<FrameDropIndex> RegisterFrameNames(CounterNames& names);

// Our addresses per DPDK port id. Built on the control thread; each worker's
// classifier owns a copy (read-only afterwards).
using PortAddressTable = std::vector<std::pair<uint16_t, core::LocalAddresses>>;

// --address / --vlan of `setup`, on each of its ports (with that port's MAC).
absl::StatusOr<PortAddressTable> BuildPortAddresses(const WorkerSetup& setup);

// ClassifyFrame's rx_flags from an mbuf's RX checksum offload flags: the
// checks the NIC already passed are skipped.
inline uint32_t RxChecksumHints(uint64_t ol_flags) {
  uint32_t hints = 0;
  if ((ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) == RTE_MBUF_F_RX_IP_CKSUM_GOOD)
    hints |= core::kRxIpv4ChecksumGood;
  if ((ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) == RTE_MBUF_F_RX_L4_CKSUM_GOOD)
    hints |= core::kRxL4ChecksumGood;
  return hints;
}

class CoreFrameClassifier final : public FrameClassifier {
 public:
  CoreFrameClassifier(PortAddressTable ports, FrameDropIndex drops)
      : ports_(std::move(ports)), drops_(drops) {}

  Verdict Classify(Packet& pkt) override {
    ParsedFrame& p = pkt.ParseAs<ParsedFrame>();
    p.local = Lookup(pkt.port_id);
    if (p.local == nullptr) return Verdict::Drop(drops_.unknown_port());
    p.info = core::ClassifyFrame(pkt.data(), pkt.length(), *p.local,
                                 RxChecksumHints(pkt.mbuf->ol_flags));
    switch (p.info.kind) {
      case core::FrameKind::kDrop:
        return Verdict::Drop(drops_.Of(p.info.drop));
      case core::FrameKind::kOther:
        return Verdict::Drop(drops_.not_served());
      default:
        return Verdict::Kind(p.info.kind);
    }
  }

 private:
  const core::LocalAddresses* Lookup(uint16_t port) const {
    for (const auto& [id, local] : ports_) {
      if (id == port) return &local;
    }
    return nullptr;
  }

  PortAddressTable ports_;
  FrameDropIndex drops_;
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_WORKER_FRAME_CLASSIFIER_H_
