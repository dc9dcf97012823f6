// SPDX-License-Identifier: Apache-2.0
// NTS-protected NTP in the workers (RFC 8915 section 5): the worker side,
// NtsWorkerAuth, that NtpHandler (dataplane/ntp/ntp_handler.h) calls per
// request, and NtsFactory on the control thread, which derives the cookie
// keystore from --nts_master_key (dataplane/daemon/flags/nts.h), publishes
// one copy per worker, rotates it at period boundaries and reloads the
// master key on SIGHUP. It follows NtpAuthFactory (ntp_auth.h).
//
//   request with NTS fields (ValidateNtpRequest(..., NtpNtsHandling::kReport))
//     cookie opens, authenticator verifies   answered: UID + authenticator
//         with fresh cookies, sealed with S2C in FinaliseTx after T3
//     cookie of another size, unknown key id, bad tag, bad authenticator
//         NTS NAK (KoD NTSN with the UID), ntp_nts_naks_total{reason}
//     malformed, missing UID/cookie/authenticator, reply too long
//         dropped, frames_dropped_total{reason="ntp_nts_*"}
//   without --nts_master_key    dropped, ntp_nts_unsupported (as before)
// The per-request work is in core/nts/nts_server.h; here: the keystore in
// force, the worker's CSPRNG (core::AesCtrRandom, seeded from the OS when
// the worker is created), the S2C context and the seal jobs that wait for
// FinaliseTx.
//
// Metrics (prefix zeitgeber_ntp_nts_):
//   replies_total{worker}    authenticated NTS replies sent
//   naks_total{reason}       NTS NAKs (cookie_bad_length, cookie_unknown_key,
//                            cookie_bad_tag, bad_authenticator), all workers
//   key_id                   the key id (period) cookies are sealed with
//
// Keys: NtsFactory::Configure derives the keystore of the current period
// (core::NtsCookieKeystore::Derive: HKDF from the master key, the window of
// --nts_key_window) and logs the key id. ControlStep (every publish interval)
// derives the next one once the period has ended and publishes it to every
// worker (SwappableConfig: workers switch at a burst boundary), recording
// the key id in the audit log (config_change), as it does for the first.
// Reload (SIGHUP) re-reads --nts_master_key and the period and window flags
// and stages the new keystore; turning NTS on or off needs a restart. A
// new master key does not strand the clients: the key it replaced still
// opens cookies (never seals) for as long as cookies it sealed can be in
// the window (to the end of the reload's period plus window_past periods),
// then the rotation at that boundary drops it. One previous key is kept: a
// second change within that time drops the oldest.
// CurrentKeystore() hands the same keystore to the NTS-KE server (any
// thread; a mutex: KE is not the hot path).
//
//   NtsFactory nts;
//   ProtocolPipelineFactory factory({..., .nts = &nts});
//   ke_server.SetKeystore([&nts] { return nts.CurrentKeystore(); });
#ifndef ZG_DATAPLANE_NTP_NTS_AUTH_H_
#define ZG_DATAPLANE_NTP_NTS_AUTH_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/crypto/aes_ctr_random.h"
#include "core/crypto/aes_siv.h"
#include "core/nts/nts_cookie.h"
#include "core/nts/nts_server.h"
#include "dataplane/trust/config_swap.h"
#include "dataplane/trust/reload.h"
#include "dataplane/worker/pipeline.h"
#include "dataplane/worker/worker_stats.h"

namespace prometheus {
class Collectable;
}  // namespace prometheus

namespace zg::dataplane {

struct DaemonConfig;  // dataplane/daemon/flags.h

// The four NAK reasons, in NtsFailure order (kCookieBadLength first).
inline constexpr size_t kNtsNakReasons = 4;
static_assert(static_cast<size_t>(core::NtsFailure::kBadAuthenticator) -
                      static_cast<size_t>(core::NtsFailure::kCookieBadLength) +
                      1 ==
                  kNtsNakReasons,
              "the NAK reasons are contiguous in NtsFailure");

// Counters of one worker's NTS. Written by: that worker. Read by: the
// control thread (exporter, report).
struct alignas(64) NtsWorkerStats {
  SingleWriterCounter replies;  // authenticated replies sealed
  std::array<SingleWriterCounter, kNtsNakReasons> naks;
};

// CounterNames index of each NtsFailure that is a drop (0 for the others).
struct NtsDropIndex {
  std::array<uint8_t, core::kNtsFailureCount> of{};
  uint8_t Of(core::NtsFailure f) const { return of[static_cast<size_t>(f)]; }
};

// Reads --nts_master_key (dataplane/trust/nts_master_key.h: raw bytes or
// hex, owner-only) into the bytes the factory derives keystores from.
absl::StatusOr<std::vector<uint8_t>> ReadNtsMasterKey(const std::string& path);

// One worker's NTS: used by that worker alone; no locks, allocation or
// syscalls per request. A burst's requests go through it together, so
// their AES interleaves (core/nts/nts_server.h):
//   BeginBurst   CheckBatch(requests)   cookies opened, C2S keys set up,
//                                       authenticators verified
//                QueueReply(each answer) its fields, nonces, cookie fields
//                FinishReplies()        every new cookie sealed, every
//                                       S2C key schedule prepared
//   FinaliseTx   QueueSeal(each reply, after its T3)
//   EndFinalise  SealQueued()           the queued replies sealed
class NtsWorkerAuth {
 public:
  // Seal slots (a reply's S2C key schedule and seal job, from QueueReply
  // to SealQueued): one per frame of a burst; a slot is reused only by a
  // later burst, after its seal.
  static constexpr size_t kSealSlots = kBurstSize;

  // `keystore` (this worker's; published to by the factory) and `stats`
  // must outlive this object. At most `max_cookies` (1..8) cookies per
  // reply (--nts_max_cookies_per_reply).
  NtsWorkerAuth(const SwappableConfig<core::NtsCookieKeystore>* keystore,
                core::AesCtrRandom random, NtsWorkerStats* stats,
                NtsDropIndex drops,
                uint32_t max_cookies = core::kNtsMaxReplyCookies)
      : keystore_(keystore),
        random_(std::move(random)),
        server_(&random_),
        stats_(stats),
        drops_(drops),
        max_cookies_(max_cookies) {}
  NtsWorkerAuth(const NtsWorkerAuth&) = delete;  // server_ points at random_
  NtsWorkerAuth& operator=(const NtsWorkerAuth&) = delete;

  struct Verdict {
    enum class Action : uint8_t { kAnswer, kNak, kDrop };
    Action action = Action::kDrop;
    uint8_t drop_reason = 0;  // kDrop: a CounterNames index
  };
  // Checks each request (ops[i]: payload, length, state; NTS fields
  // reported) into out[i], counting the NAKs.
  void CheckBatch(std::span<core::NtsCheckOp> ops, Verdict* out) {
    server_.CheckBatch(ops, *keystore_->Current());
    for (size_t i = 0; i < ops.size(); ++i) out[i] = Of(ops[i].result);
  }
  // After WriteNtpReply: the reply's NTS fields; its cookies are sealed and
  // its S2C key schedule (in *slot) prepared by FinishReplies. `st` and the
  // payload must stay until then. Returns the reply length, or 0: drop as
  // reply_too_long().
  uint32_t QueueReply(uint8_t* payload, uint32_t len,
                      const core::NtsRequestState& st, uint16_t* slot) {
    *slot = static_cast<uint16_t>(next_slot_++ % kSealSlots);
    SealSlot& s = slots_[*slot];
    const uint32_t n = server_.QueueReply(
        payload, len, st, *keystore_->Current(), &s.job, max_cookies_);
    if (n != 0) keying_[n_keying_++] = *slot;
    return n;
  }
  void FinishReplies() {
    server_.SealCookies(*keystore_->Current());
    core::AesSiv* sivs[kSealSlots];
    const uint8_t* keys[kSealSlots];
    for (size_t i = 0; i < n_keying_; ++i) {
      sivs[i] = &slots_[keying_[i]].s2c;
      keys[i] = slots_[keying_[i]].job.s2c.data();
    }
    core::AesSiv::SetKeyBatch({sivs, n_keying_}, {keys, n_keying_});
    n_keying_ = 0;
  }
  uint8_t reply_too_long() const {
    return drops_.Of(core::NtsFailure::kReplyTooLong);
  }
  // FinaliseTx, right after T3: the reply waits for SealQueued.
  void QueueSeal(uint8_t* payload, uint16_t slot) {
    if (n_sealing_ == sealing_.size()) SealQueued();
    const SealSlot& s = slots_[slot];
    sealing_[n_sealing_++] = {&s.s2c, payload, &s.job};
  }
  // EndFinalise: the queued replies sealed together; counts them and
  // returns how many.
  size_t SealQueued() {
    const size_t n = n_sealing_;
    core::SealNtsReplies({sealing_.data(), n});
    stats_->replies.Add(n);
    n_sealing_ = 0;
    return n;
  }

  static size_t NakIndex(core::NtsFailure f) {
    return static_cast<size_t>(f) -
           static_cast<size_t>(core::NtsFailure::kCookieBadLength);
  }

 private:
  Verdict Of(core::NtsFailure f) {
    if (f == core::NtsFailure::kNone) return {Verdict::Action::kAnswer, 0};
    if (core::NtsFailureIsNak(f)) {
      stats_->naks[NakIndex(f)].Add(1);
      return {Verdict::Action::kNak, 0};
    }
    return {Verdict::Action::kDrop, drops_.Of(f)};
  }

  const SwappableConfig<core::NtsCookieKeystore>* keystore_;
  core::AesCtrRandom random_;  // this worker's CSPRNG (nonces)
  core::NtsServer server_;     // C2S contexts, queued cookies; uses random_
  struct SealSlot {
    core::AesSiv s2c;  // SetKey(job.s2c) in FinishReplies, used in SealQueued
    core::NtsSealJob job;
  };
  std::array<SealSlot, kSealSlots> slots_;
  uint32_t next_slot_ = 0;
  std::array<uint16_t, kSealSlots> keying_;  // slots FinishReplies keys
  size_t n_keying_ = 0;
  std::array<core::NtsReplySealOp, kSealSlots> sealing_;  // for SealQueued
  size_t n_sealing_ = 0;
  NtsWorkerStats* stats_;
  NtsDropIndex drops_;
  uint32_t max_cookies_;
};

class NtsFactory {
 public:
  NtsFactory();
  ~NtsFactory();

  // Reads config.nts (no master key: NTS off) and derives the keystore of
  // the current period. Control thread.
  absl::Status Configure(const DaemonConfig& config);
  // Uses `master` instead of a file (tests, benchmarks).
  absl::Status SetMasterKey(std::vector<uint8_t> master,
                            const core::NtsKeystoreConfig& config);
  // At most this many cookies per reply (--nts_max_cookies_per_reply,
  // 1..8), for the workers created after it.
  void SetMaxCookiesPerReply(uint32_t n) { max_cookies_ = n; }
  // The clock periods are counted on (Unix seconds; default the system
  // clock). Tests set it before Configure/SetMasterKey.
  void SetClock(std::function<int64_t()> unix_now) {
    unix_now_ = std::move(unix_now);
  }
  bool enabled() const { return !master_.empty(); }

  std::vector<std::string> ReloadableFlags() const {
    return {"nts_master_key", "nts_key_period", "nts_key_window"};
  }
  // Re-reads the master key and the period and window, and stages the new
  // keystore for every worker (and KE); an error rejects the reload.
  absl::Status Reload(const ReloadArgs& reload);

  // Registers ntp_nts_<reason> for the drop reasons (once).
  absl::Status RegisterNames(CounterNames& names);
  // One per worker; null when NTS is off.
  absl::StatusOr<std::unique_ptr<NtsWorkerAuth>> Create(
      const WorkerSetup& setup);
  // Rotates at period boundaries; audits the key id in force (the first
  // call: the key at start). Control thread.
  void ControlStep(const ControlTick& tick);

  // The keystore in force, for the NTS-KE server. Any thread.
  std::shared_ptr<const core::NtsCookieKeystore> CurrentKeystore() const;

  // zeitgeber_ntp_nts_{replies_total{worker},naks_total{reason},key_id},
  // read when Prometheus scrapes; created after the workers (Create). This
  // object must outlive the collectable's last Collect().
  std::shared_ptr<prometheus::Collectable> ScrapeCollectable() const;
  void Report();

  const NtsDropIndex& drops() const { return drops_; }
  // Valid for the workers created so far (tests read them).
  const NtsWorkerStats& stats(size_t worker) const { return *stats_[worker]; }
  // Rotations done by ControlStep (tests).
  uint64_t rotations() const { return rotations_; }

 private:
  // Derives the keystore of `now` and publishes it (workers and KE).
  absl::Status Install();
  // Before a reload replaces master_: keep it as previous_master_, until
  // its last cookies leave the window.
  void KeepAsPrevious();
  void Audit(const ControlTick& tick, const std::string& why);

  // Control thread.
  std::vector<uint8_t> master_;  // zeroed on replacement and destruction
  // The master key a reload replaced (empty: none), accepted for opening
  // until previous_until_unix_s_. Zeroed like master_.
  std::vector<uint8_t> previous_master_;
  int64_t previous_until_unix_s_ = 0;
  std::string master_path_;
  core::NtsKeystoreConfig config_;
  uint32_t max_cookies_ = core::kNtsMaxReplyCookies;
  std::function<int64_t()> unix_now_;
  int64_t period_end_unix_s_ = 0;  // rotate once now >= this
  uint64_t rotations_ = 0;
  std::string pending_audit_;  // what the next ControlStep records
  NtsDropIndex drops_;
  bool registered_ = false;
  // One per worker created. Written by: control thread (Publish). Read by:
  // that worker (Current).
  std::vector<std::unique_ptr<SwappableConfig<core::NtsCookieKeystore>>>
      keystores_;
  std::vector<std::unique_ptr<NtsWorkerStats>> stats_;  // by creation order
  std::vector<unsigned> worker_index_;
  // Written by: control thread. Read by: the KE thread (CurrentKeystore).
  mutable std::mutex current_mu_;
  std::shared_ptr<const core::NtsCookieKeystore> current_
      ABSL_GUARDED_BY(current_mu_);
  // current_'s key id (0: none yet). Written by: control thread. Read by:
  // scrapes.
  std::atomic<uint32_t> current_key_id_{0};
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_NTP_NTS_AUTH_H_
