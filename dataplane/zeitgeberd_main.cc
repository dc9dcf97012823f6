// zeitgeberd: the kernel-bypass NTP/PTP time server.
//
//   zeitgeberd [EAL options] -- [zeitgeberd flags]
//   zeitgeberd -l 0-2 -a 0000:3b:00.0 -- --address=192.0.2.10/24
//
// See doc/deployment.md for deployment modes, flags and exit codes.
#include "dataplane/daemon.h"
#include "dataplane/protocol_pipeline.h"

int main(int argc, char** argv) {
  // ARP/ICMP/ND and NTP; PTP joins through ProtocolPipelineFactory::Options.
  zg::dataplane::ProtocolPipelineFactory factory;
  return zg::dataplane::RunDaemon(argc, argv, factory);
}
