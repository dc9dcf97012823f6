// SPDX-License-Identifier: Apache-2.0
// The per-client decision point of the NTP handler: between validating a
// request and answering it, a policy may answer, drop (counted under a reason
// it registered) or send a Kiss-o'-Death (RATE, DENY, RSTR). This is where
// per-client rate limiting and access control plug in; zeitgeberd installs
// none yet, so every valid request is answered.
//
// One policy object per worker (NtpPolicyFactory::Create), so a policy keeps
// its per-client tables without synchronisation. Check() runs on the hot
// path: no locks, allocation, syscalls or exceptions.
//
//   class RateLimiter final : public NtpRequestPolicy {
//     NtpPolicyVerdict Check(const core::FrameInfo& req,
//                            const core::NtpRequestCheck& check,
//                            core::TaiNs rx) override {
//       if (OverRate(req.src_ipv4, rx)) {
//         return NtpPolicyVerdict::Kiss(core::kNtpKissRate, /*min_poll=*/6);
//       }
//       return NtpPolicyVerdict::Answer();
//     }
//   };
#ifndef ZG_DATAPLANE_NTP_NTP_POLICY_H_
#define ZG_DATAPLANE_NTP_NTP_POLICY_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/net/frame.h"
#include "core/ntp/ntp_wire.h"
#include "core/time/time_types.h"
#include "dataplane/worker/pipeline.h"
#include "dataplane/worker/worker_stats.h"
#include "nlohmann/json.hpp"

namespace zg::dataplane {

struct NtpPolicyVerdict {
  enum class Action : uint8_t { kAnswer, kDrop, kKiss };
  Action action = Action::kAnswer;
  uint8_t drop_reason = 0;  // kDrop: a CounterNames index the policy owns
  uint32_t kiss_code = 0;   // kKiss: core::kNtpKissRate, kNtpKissDeny, ...
  int8_t kiss_min_poll_log2 = 0;  // kKiss: the poll the client must back off to
  // kAnswer: the reply's poll is raised to at least this (rate limiting:
  // the interval it allows); kNoMinPoll leaves the request's.
  int8_t answer_min_poll_log2 = kNoMinPoll;
  static constexpr int8_t kNoMinPoll = INT8_MIN;

  static constexpr NtpPolicyVerdict Answer() { return {}; }
  static constexpr NtpPolicyVerdict AnswerWithPoll(int8_t min_poll_log2) {
    return {Action::kAnswer, 0, 0, 0, min_poll_log2};
  }
  static constexpr NtpPolicyVerdict Drop(uint8_t reason) {
    return {Action::kDrop, reason, 0, 0, kNoMinPoll};
  }
  static constexpr NtpPolicyVerdict Kiss(uint32_t code, int8_t min_poll_log2) {
    return {Action::kKiss, 0, code, min_poll_log2, kNoMinPoll};
  }
};

// What the NTP handler did with a request its policy let through, once
// authentication and the reply's mode are known (per-client records).
struct NtpRequestOutcome {
  enum class Result : uint8_t {
    kAnswered,    // a reply (basic or interleaved)
    kKissed,      // the policy's Kiss-o'-Death was sent
    kAuthFailed,  // dropped for its MAC or NTS fields, or NTS NAK
  };
  Result result = Result::kAnswered;
  bool interleaved = false;  // kAnswered: the reply was interleaved
  uint32_t key_id = 0;       // a request with a symmetric MAC: its key id
};

class NtpRequestPolicy {
 public:
  virtual ~NtpRequestPolicy() = default;
  // `request` is the classified frame (client address in src_ipv4/src_ipv6,
  // port in src_port), `check` the validated NTP header, `rx_time` its
  // receive stamp.
  virtual NtpPolicyVerdict Check(const core::FrameInfo& request,
                                 const core::NtpRequestCheck& check,
                                 core::TaiNs rx_time) = 0;
  // Whether Prefetch does anything (asked once, when the worker starts).
  virtual bool WantsPrefetch() const { return false; }
  // Called for every NTP frame of a burst before the first Check of that
  // burst: starts loading what Check(request) will read (its client's
  // table bucket), so the burst's cache misses overlap.
  virtual void Prefetch(const core::FrameInfo& /*request*/) {}
  // Whether Outcome does anything (asked once, when the handler is built).
  virtual bool WantsOutcome() const { return false; }
  // Called after Check for the same request when Check did not drop it and
  // the request was authenticated (MAC or NTS), kissed, or answered with
  // interleaved mode on: what became of it. A plain request answered in
  // basic mode gets no call.
  virtual void Outcome(const NtpRequestOutcome& /*outcome*/) {}
  // Whether EndBurst does anything (asked once); EndBurst runs once per
  // burst after its replies were sent (FrameHandler::EndBurst).
  virtual bool WantsEndBurst() const { return false; }
  virtual void EndBurst() {}
};

class NtpPolicyFactory {
 public:
  virtual ~NtpPolicyFactory() = default;
  // Registers the policy's drop reasons (control thread, once).
  virtual absl::Status RegisterNames(CounterNames& names) = 0;
  // One policy per worker.
  virtual absl::StatusOr<std::unique_ptr<NtpRequestPolicy>> Create(
      const WorkerSetup& setup) = 0;
  // SIGHUP (control thread): see PipelineFactory::ReloadableFlags/Reload.
  virtual std::vector<std::string> ReloadableFlags() const { return {}; }
  virtual absl::Status Reload(const ReloadArgs& /*reload*/) {
    return absl::OkStatus();
  }
  // Workers stopped, EAL still up: see PipelineFactory::Shutdown.
  virtual void Shutdown() {}
  // Any thread: zgctl clients (PipelineFactory::QueryNtpClients).
  virtual absl::StatusOr<nlohmann::json> QueryClients(
      const core::NtpClientQuery& /*query*/,
      const core::PublishedClock& /*clock*/) const {
    return absl::UnavailableError("this NTP policy keeps no client records");
  }
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_NTP_NTP_POLICY_H_
