// SPDX-License-Identifier: Apache-2.0
// The body of zeitgeberd: EAL, port, NIC clock, the control plane
// (servo::ControlPlane: sources, discipline, audit log), workers, metrics,
// the control loop and a clean shutdown, around a PipelineFactory that supplies
// the protocol handlers. zeitgeberd_main.cc passes the real pipeline; test
// programs pass theirs and get exactly the daemon's behaviour otherwise.
//
//   int main(int argc, char** argv) {
//     MyPipelineFactory factory;
//     return zg::dataplane::RunDaemon(argc, argv, factory);
//   }
//
// Exit codes (also in doc/deployment.md):
//   0  stopped by SIGINT/SIGTERM or --run_for, after workers drained
//   1  invalid flags or configuration (abseil's own flag errors also exit 1)
//   2  EAL initialisation failed (hugepages, devices, lcores, privileges)
//   3  port or XDP-steering setup failed, or another zeitgeberd holds the
//      port (dataplane/port/port_claim.h)
//   4  the metrics exporter could not start (address in use or invalid)
//   5  the protocol pipeline could not be built
//   6  the control plane could not start (a reference source, the audit
//      log, the TSC)
//   7  the control socket could not be created (another zeitgeberd serves
//      --control_socket, a bad --control_group, ...)
#ifndef ZG_DATAPLANE_DAEMON_DAEMON_H_
#define ZG_DATAPLANE_DAEMON_DAEMON_H_

#include "dataplane/nts/nts_ke_config.h"
#include "dataplane/worker/pipeline.h"

namespace zg::dataplane {

enum ExitCode : int {
  kExitOk = 0,
  kExitConfig = 1,
  kExitEal = 2,
  kExitPort = 3,
  kExitMetrics = 4,
  kExitPipeline = 5,
  kExitControl = 6,
  kExitControlSocket = 7,
  kExitStatusPage = 8,
};

// Runs zeitgeberd: `zeitgeberd [EAL options] -- [flags]`. Returns an
// ExitCode. `nts_keystore`: the cookie keystore the NTS-KE server seals
// with (--nts_ke_address; dataplane/nts/nts_ke_server.h); empty with
// --nts_ke_address set is a configuration error.
int RunDaemon(int argc, char** argv, PipelineFactory& factory,
              NtsKeystoreSource nts_keystore = {});

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_DAEMON_H_
