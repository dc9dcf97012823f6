// SPDX-License-Identifier: Apache-2.0
// Loopback ports for tests that start a server of their own (gpsd, a
// metrics endpoint): a TCP port the kernel just handed out and released.
//
//   const uint16_t port = testutil::FreeLoopbackPort();
//   // start gpsd -S port ...
#ifndef ZG_TESTS_UTIL_PORTS_H_
#define ZG_TESTS_UTIL_PORTS_H_

#include <cstdint>

namespace zg::testutil {

// A TCP port on 127.0.0.1 that was free a moment ago (bind to port 0, read
// it back, close). Aborts, saying why, if the kernel will not give one.
uint16_t FreeLoopbackPort();

}  // namespace zg::testutil

#endif  // ZG_TESTS_UTIL_PORTS_H_
