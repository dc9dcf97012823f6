// SPDX-License-Identifier: Apache-2.0
// The PTP handler and frame source of a worker that serves PTP on several
// ports (PtpPlugin with several --port): the worker has one PtpWorker per
// port, and each frame goes to the one of the port it arrived on
// (BurstContext::port_id, Packet::port_id), each poll of a port's queue to
// the one of that port (SourceContext::port_id). With one port the plugin
// uses the PtpWorker's own adapters instead (no lookup).
//
// The lookup is a scan of a few entries (one per port), on the worker's
// thread: no locks, no allocation.
//
//   pipeline.SetHandler(kPtpEvent, MakePtpPortMuxHandler(workers, drop));
//   pipeline.SetSource(MakePtpPortMuxSource(workers));
#ifndef ZG_DATAPLANE_PTP_PTP_PORT_MUX_H_
#define ZG_DATAPLANE_PTP_PTP_PORT_MUX_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "dataplane/ptp/ptp_worker.h"
#include "dataplane/worker/pipeline.h"

namespace zg::dataplane {

// A frame from a port none of `workers` serves is dropped with
// `unknown_port_drop` (a CounterNames drop reason).
std::unique_ptr<FrameHandler> MakePtpPortMuxHandler(
    std::vector<std::shared_ptr<PtpWorker>> workers, uint8_t unknown_port_drop);
std::unique_ptr<FrameSource> MakePtpPortMuxSource(
    std::vector<std::shared_ptr<PtpWorker>> workers);

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_PTP_PTP_PORT_MUX_H_
