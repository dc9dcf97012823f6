// SPDX-License-Identifier: Apache-2.0
// A raw Unix stream client for tests of the control socket
// (servo/api/control_server.h): connect, send, read one reply line, and
// see whether the server closed the connection — what zgctl would never
// do on purpose (half requests, floods, clients that do not read).
//
//   int fd = ConnectUnix(path);
//   SendAll(fd, "{\"version\":1,\"command\":\"tracking\"}\n");
//   std::string line = ReadLine(fd, absl::Seconds(10));
#ifndef ZG_TESTS_UTIL_UNIX_CLIENT_H_
#define ZG_TESTS_UTIL_UNIX_CLIENT_H_

#include <string>

#include "absl/time/time.h"

namespace zg::testutil {

// A connected socket, or -1 (errno says why: EAGAIN when a non-blocking
// connect finds the listener's backlog full).
int ConnectUnix(const std::string& path, bool nonblocking = false);
// Sends all of `s` (MSG_NOSIGNAL); false when the peer is gone.
bool SendAll(int fd, const std::string& s);
// One line without its newline; what was read when EOF, an error or the
// timeout came first ("" if nothing).
std::string ReadLine(int fd, absl::Duration timeout = absl::Seconds(10));
// Whether the peer closed the connection within `timeout` (data before the
// close is read and dropped).
bool ClosedWithin(int fd, absl::Duration timeout);

}  // namespace zg::testutil

#endif  // ZG_TESTS_UTIL_UNIX_CLIENT_H_
