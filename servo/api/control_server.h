// SPDX-License-Identifier: Apache-2.0
// ControlServer: zeitgeberd's control socket (zgctl's way in). A Unix stream
// socket served by one thread of its own — never a worker, never the control
// thread — speaking servo/api/control_protocol.h (newline-delimited JSON, one
// reply per request) and dispatching through a CommandTable.
//
// Access: the socket file is mode 0660 (--control_socket_mode) in group
// --control_group, so only that group (and root) can connect at all; the
// peer's credentials (SO_PEERCRED) then decide what it may run
// (CommandTable: reads for everyone connected, changes for root and the
// daemon's own uid).
//
// Bounded against bad clients, on one thread, with non-blocking sockets and
// epoll:
//   - at most max_connections at once; one more is accepted, told
//     too_many_connections, and closed;
//   - a request line over max_request_bytes: too_large, then closed;
//   - malformed JSON, an unknown version or command: an error reply, and the
//     connection stays usable;
//   - no complete request within idle_timeout (connect-and-wait,
//     slowloris): closed;
//   - a reply the client does not read within write_timeout: closed;
//   - a client gone mid-reply (EPIPE, ECONNRESET): closed, counted;
//   - a change the control thread has not run within reply_timeout: timeout.
// Memory: at most max_connections x (max_request_bytes + max_reply_bytes).
//
// Start-up: a stale socket (nobody listening) is replaced; a live one (another
// zeitgeberd) is an error, as is a path that is not a socket. The socket is
// bound under a temporary name, given its mode and group, then renamed into
// place, so it never exists with looser permissions. The destructor stops
// the thread and removes the socket if it is still ours.
//
//   ZG_ASSIGN_OR_RETURN(auto server, ControlServer::Start(
//       {.path = "/run/zeitgeber/zeitgeberd.sock", .group = "zeitgeber"},
//       &table));
#ifndef ZG_SERVO_API_CONTROL_SERVER_H_
#define ZG_SERVO_API_CONTROL_SERVER_H_

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "servo/api/command_table.h"
#include "servo/api/control_protocol.h"

namespace zg::servo {

struct ControlServerOptions {
  std::string path;
  std::string group;  // a group name or number; "": the daemon's own
  mode_t mode = 0660;
  size_t max_connections = 16;
  size_t max_request_bytes = kMaxControlRequestBytes;
  size_t max_reply_bytes = 4 << 20;
  int64_t idle_timeout_ns = 10'000'000'000;
  int64_t write_timeout_ns = 10'000'000'000;
  int64_t reply_timeout_ns = 15'000'000'000;
  // Problems worth the operator's log (accept failing); may be empty.
  std::function<void(const std::string&)> log;
};

// Written by: the server thread. Read by: anyone (relaxed).
struct ControlServerStats {
  std::atomic<uint64_t> accepted{0};
  std::atomic<uint64_t> refused{0};  // over max_connections
  std::atomic<uint64_t> active{0};
  std::atomic<uint64_t> requests{0};
  std::atomic<uint64_t> errors{0};  // error replies, every code
  std::atomic<uint64_t> too_large{0};
  std::atomic<uint64_t> idle_timeouts{0};
  std::atomic<uint64_t> write_timeouts{0};
  std::atomic<uint64_t> reply_timeouts{0};
  std::atomic<uint64_t> disconnects{0};  // the client left mid-reply
};

class ControlServer {
 public:
  // `table` must outlive the server.
  static absl::StatusOr<std::unique_ptr<ControlServer>> Start(
      ControlServerOptions options, const CommandTable* table);
  ~ControlServer();
  ControlServer(const ControlServer&) = delete;
  ControlServer& operator=(const ControlServer&) = delete;

  const ControlServerStats& stats() const { return stats_; }
  const std::string& path() const { return options_.path; }

 private:
  struct Conn;
  class Wake;
  ControlServer(ControlServerOptions options, const CommandTable* table);
  absl::Status Bind();
  void Run();
  void Accept(int64_t now);
  void OnEvents(Conn& c, uint32_t events, int64_t now);
  void ReadRequests(Conn& c, int64_t now);
  void Process(Conn& c, std::string line, int64_t now);
  void QueueReply(Conn& c, const Reply& reply, int64_t now);
  void Flush(Conn& c, int64_t now);
  void Sweep(int64_t now);
  void Watch(Conn& c, uint32_t events);
  void Close(uint64_t id);

  ControlServerOptions options_;
  const CommandTable* table_;
  int listen_fd_ = -1;
  int epoll_fd_ = -1;
  uint64_t socket_inode_ = 0;  // to remove only our own socket
  std::shared_ptr<Wake> wake_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  // Server thread only.
  std::map<uint64_t, std::unique_ptr<Conn>> conns_;
  std::vector<uint64_t> ready_;  // buffered requests to read again
  uint64_t next_id_ = 2;         // 0: the listener, 1: the wake eventfd
  int64_t accept_paused_until_ = 0;
  ControlServerStats stats_;
};

}  // namespace zg::servo

#endif  // ZG_SERVO_API_CONTROL_SERVER_H_
