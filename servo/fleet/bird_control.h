// SPDX-License-Identifier: Apache-2.0
// BirdControl: drives the anycast route through a BIRD 2 speaker's control
// socket, on a thread of its own, so that the control thread never waits
// for BIRD.
//
// The mechanism: bird.conf holds the service route in a static protocol
// that starts `disabled` (doc/anycast.md has the sample); zeitgeberd
// announces the route with `enable <protocol>` and withdraws it with
// `disable <protocol>`, and BIRD's BGP sessions export it or not. Chosen
// over the alternatives because:
//   - it fails safe: a BIRD that restarts (or starts before zeitgeberd)
//     comes up withdrawn until zeitgeberd, healthy, enables the route;
//   - it is observable: every exchange says whether BIRD is reachable and
//     what state the protocol is in, so "BIRD unreachable" is reported and
//     alarmed, and a BIRD restarted behind our back is put right within a
//     check interval;
//   - it needs no privilege but the socket, no file zeitgeberd writes into
//     BIRD's configuration and no reconfiguration (`birdc configure`
//     re-reads everything and can fail on an unrelated edit);
//   - it keeps the served address where it must be in either mode: on the
//     serving interface in AF_XDP mode (the kernel answers ARP), owned by
//     DPDK otherwise; a dummy-interface address that BIRD's direct protocol
//     exports could do neither and says nothing about BIRD's health.
// What it cannot do alone: if zeitgeberd dies, BIRD keeps the route; the
// systemd unit's ExecStopPost disables it (doc/anycast.md), and zeitgeberd
// disables it at start until healthy.
//
// The thread re-sends the wanted command (idempotent: "already enabled")
// and reads `show protocols <protocol>` every check interval and at once
// after each Want() change, with every socket wait bounded by io_timeout.
//
//   ZG_ASSIGN_OR_RETURN(auto bird, BirdControl::Start(
//       {.socket_path = "/run/bird/bird.ctl", .protocol = "zg_anycast"}));
//   bird->Want(true);                               // control thread
//   std::shared_ptr<const BirdStatus> s = bird->Status();  // any thread
#ifndef ZG_SERVO_FLEET_BIRD_CONTROL_H_
#define ZG_SERVO_FLEET_BIRD_CONTROL_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "servo/control/snapshot_cell.h"
#include "servo/fleet/bird_cli.h"

namespace zg::servo {

struct BirdStatus {
  bool want_announce = false;  // what the thread was last asked
  bool reachable = false;      // the last exchange with BIRD succeeded
  std::string state;           // the protocol's state as BIRD said ("": none)
  bool announced = false;      // BIRD says the protocol is up
  // What BIRD does matches what was asked (the route is where we want it).
  bool in_effect = false;
  std::string error;       // the last failure ("" after a success)
  std::string version;     // BIRD's welcome line ("BIRD 2.0.12 ready.")
  uint64_t exchanges = 0;  // commands answered
  uint64_t failures = 0;   // connects, commands or replies that failed
  uint64_t connects = 0;
  // When in_effect last became true for the current want (monotonic ns).
  int64_t in_effect_mono_ns = 0;
  uint64_t want_generation = 0;  // Want() calls the status reflects
};

class BirdControl {
 public:
  struct Options {
    std::string socket_path;  // BIRD's control socket (bird -s)
    std::string protocol;     // the static protocol holding the route
    absl::Duration check_interval = absl::Seconds(1);
    absl::Duration io_timeout = absl::Seconds(1);
    // Called on the BIRD thread: reachability changes, BIRD's answers.
    std::function<void(const std::string&)> log;
  };

  static absl::StatusOr<std::unique_ptr<BirdControl>> Start(Options options);
  ~BirdControl();  // stops and joins the thread (within io_timeout)
  BirdControl(const BirdControl&) = delete;
  BirdControl& operator=(const BirdControl&) = delete;

  // Control thread: announce (true) or withdraw (false). Never blocks: an
  // atomic store and an eventfd write wake the BIRD thread.
  void Want(bool announce);
  // Any thread; null before the thread's first exchange attempt.
  std::shared_ptr<const BirdStatus> Status() const { return status_.Load(); }
  const Options& options() const { return options_; }

 private:
  explicit BirdControl(Options options) : options_(std::move(options)) {}
  void Run();
  // One round: connect if needed, send the wanted command, read the state.
  void Round(BirdStatus& st, bool want);
  bool Connect(BirdStatus& st);
  void Disconnect();
  // Sends `command` and reads its reply; false (st.error set) on failure.
  bool Exchange(BirdStatus& st, const std::string& command, BirdReply& reply);
  bool ReadLine(std::string& line, int64_t deadline_mono_ns);
  bool Fail(BirdStatus& st, std::string error);
  void Log(const std::string& m) const {
    if (options_.log) options_.log(m);
  }

  Options options_;
  int wake_fd_ = -1;  // eventfd: Want() and the destructor
  int sock_ = -1;     // BIRD thread only
  std::string inbuf_;
  // Written by: control thread (Want), destructor. Read by: BIRD thread.
  std::atomic<bool> want_{false};
  std::atomic<uint64_t> want_gen_{0};
  std::atomic<bool> stop_{false};
  // Written by: BIRD thread. Read by: any thread.
  SnapshotCell<BirdStatus> status_;
  std::thread thread_;
};

}  // namespace zg::servo

#endif  // ZG_SERVO_FLEET_BIRD_CONTROL_H_
