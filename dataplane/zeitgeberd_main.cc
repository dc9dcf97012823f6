// zeitgeberd: the kernel-bypass NTP/PTP time server.
//
//   zeitgeberd [EAL options] -- [zeitgeberd flags]
//   zeitgeberd -l 0-2 -a 0000:3b:00.0 -- --address=192.0.2.10/24
//
// See doc/deployment.md for deployment modes, flags and exit codes.
#include "dataplane/daemon.h"

namespace {

// INTERIM, until the protocol pipeline is wired in (core/frame.h classifier;
// ARP/ICMP/ND, NTP and PTP handlers): no classifier and no handlers, so
// every received frame is counted and dropped as worker_unclassified. The
// integration replaces this class with one whose RegisterNames() names the
// core::FrameKind values and the modules' drop reasons, and whose Create()
// builds the classifier and one handler per FrameKind for each worker.
class UnwiredPipelineFactory final : public zg::dataplane::PipelineFactory {
 public:
  absl::Status RegisterNames(zg::dataplane::CounterNames&) override {
    return absl::OkStatus();
  }
  absl::StatusOr<zg::dataplane::Pipeline> Create(
      const zg::dataplane::WorkerSetup&) override {
    return zg::dataplane::Pipeline();
  }
};

}  // namespace

int main(int argc, char** argv) {
  UnwiredPipelineFactory factory;
  return zg::dataplane::RunDaemon(argc, argv, factory);
}
