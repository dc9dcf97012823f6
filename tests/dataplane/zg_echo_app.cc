// TEST-ONLY program: zeitgeberd's daemon (EAL, port, clocks, workers,
// metrics, XDP steering, clean stop) with the UDP echo pipeline of
// tests/dataplane/testing/udp_echo.h instead of the protocol handlers, for
// the AF_XDP rig test (tests/e2e/af_xdp_steering_test.sh). Delete with the
// echo pipeline once zeitgeberd answers NTP itself.
//
//   zg_echo_app --vdev=net_af_xdp0,iface=zgt1h,xdp_prog=zg_xdp.o -l 0-1
//       --no-huge -m 512 -- --port=net_af_xdp0 --address=10.99.0.1/24
#include "dataplane/daemon.h"
#include "tests/dataplane/testing/udp_echo.h"

int main(int argc, char** argv) {
  zg::dataplane::testing::UdpEchoFactory factory;
  return zg::dataplane::RunDaemon(argc, argv, factory);
}
