// SPDX-License-Identifier: Apache-2.0
// Symmetric-key authentication of NTP requests and replies in the workers
// (RFC 5905 MAC, RFC 8573 AES-CMAC), as chrony's server does it.
//
// NtpAuthFactory (control thread) holds the key table (--ntp_keys, loaded by
// dataplane/trust/ntp_keyfile.h), registers the drop reasons, builds one
// NtpWorkerAuth per worker (its own core::NtpMacer: every key schedule
// prepared there, nothing allocated per request) and exports the counters.
// NtpHandler (dataplane/ntp/ntp_handler.h) calls the worker side for a
// burst's requests together (their AES-CMACs interleaved: VerifyBatch in
// its burst step, SignBatch in EndFinalise):
//
//   request with a MAC (ValidateNtpRequest(..., NtpMacHandling::kReport))
//     known key, valid MAC   answered; the reply (48 bytes + the same key's
//                            MAC: never longer than the request) is MACed in
//                            FinaliseTx, after T3 is written
//     unknown key            dropped, ntp_auth_unknown_key
//     MAC of the wrong size  dropped, ntp_auth_bad_length
//       for its key's type
//     bad MAC                dropped, ntp_auth_bad_mac
//   without --ntp_keys       dropped, ntp_mac_present (as before)
//
// Silence, not a crypto-NAK, is what chrony does: NCR_ProcessRxUnknown
// (ntp_core.c) returns without a reply when NAU_CheckRequestAuth fails
// unless that returned a KoD, and only NTS does (ntp_auth.c:
// check_symmetric_auth fails for an unknown key, KEY_CheckAuth, or a MAC
// of the wrong length, check_auth; there is no kod for those). Without a
// keyfile chrony knows no key, so it is the same silence.
//
// Metrics (prefix zeitgeber_ntp_):
//   auth_replies_total {worker, algorithm}   authenticated replies sent
//   auth_keys                                keys loaded
// and the drops in zeitgeber_frames_dropped_total{reason="ntp_auth_..."}.
//
// Reload (SIGHUP, dataplane/trust/reload.h): the key table is immutable and
// built by one function from the flag (LoadNtpKeyFile). An NtpMacer's
// contexts are scratch state its worker mutates per request, so each worker
// has its own, in its own SwappableConfig (config_swap.h): Reload re-reads
// --ntp_keys (the same path too: rotating keys in place is the common case),
// builds one NtpMacer per worker (any error rejects the reload and the old
// keys stay), and stages their publication; workers switch at a burst
// boundary. The handler keeps the macer Verify used (in the TX note) for the
// reply's Sign in FinaliseTx, within the same burst, so a swap between the
// two cannot pair a key index with another table. Turning keys on or off
// needs a restart (the handlers are built with or without an authenticator).
//
//   NtpAuthFactory auth;
//   ZG_RETURN_IF_ERROR(auth.Configure(config));   // reads --ntp_keys
//   ProtocolPipelineFactory factory({.ntp_auth = &auth, ...});
#ifndef ZG_DATAPLANE_NTP_NTP_AUTH_H_
#define ZG_DATAPLANE_NTP_NTP_AUTH_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/ntp/ntp_keys.h"
#include "core/ntp/ntp_mac.h"
#include "core/ntp/ntp_wire.h"
#include "dataplane/trust/config_swap.h"
#include "dataplane/trust/reload.h"
#include "dataplane/worker/pipeline.h"
#include "dataplane/worker/worker_stats.h"

namespace prometheus {
class Collectable;
}  // namespace prometheus

namespace zg::dataplane {

struct DaemonConfig;  // dataplane/daemon/flags.h

// Counters of one worker's authentication. Written by: that worker. Read
// by: the control thread (exporter, report).
struct alignas(64) NtpAuthStats {
  // Authenticated replies, by core::NtpKeyType.
  std::array<SingleWriterCounter, core::kNtpKeyTypeCount> replies;
};

// CounterNames indices of the authentication drops.
struct NtpAuthDropIndex {
  uint8_t unknown_key = 0;
  uint8_t bad_length = 0;
  uint8_t bad_mac = 0;
};

// One worker's authenticator. Used by that worker alone; no locks,
// allocation or syscalls.
class NtpWorkerAuth {
 public:
  // `macer` (this worker's; published to by the factory on reload) and
  // `stats` must outlive this object.
  NtpWorkerAuth(const SwappableConfig<core::NtpMacer>* macer,
                NtpAuthStats* stats, NtpAuthDropIndex drops)
      : macer_(macer), stats_(stats), drops_(drops) {}

  struct Verdict {
    bool ok = false;
    uint8_t drop_reason = 0;  // !ok: a CounterNames index
    uint16_t key_index = 0;   // ok: for Sign, with `macer`
    // ok: the macer that checked it; valid until this worker's next burst
    // boundary (a reload swaps macers only between bursts).
    const core::NtpMacer* macer = nullptr;
  };
  // Checks each request's symmetric MAC (ops[i]: payload, trailer with
  // mac == kSymmetric) into out[i].
  void VerifyBatch(std::span<core::NtpMacVerifyOp> ops, Verdict* out) {
    const core::NtpMacer* m = Current();
    m->VerifyBatch(ops);
    for (size_t i = 0; i < ops.size(); ++i) out[i] = Of(ops[i].result, m);
  }
  Verdict Verify(const uint8_t* payload, const core::NtpRequestCheck& check) {
    core::NtpMacVerifyOp op{payload, check.trailer, {}};
    Verdict v;
    VerifyBatch({&op, 1}, &v);
    return v;
  }
  // Bytes the MAC trailer of key `key_index` takes (20 or 24).
  static uint32_t TrailerSize(const core::NtpMacer& m, uint16_t key_index) {
    return core::NtpKeyMacSize(m.type(key_index));
  }
  // MACs payload[0..data_len) with the key Verify found, appending key id +
  // digest; returns the trailer size (0 on an OpenSSL failure). Counts the
  // reply.
  uint32_t Sign(const core::NtpMacer& m, uint16_t key_index, uint8_t* payload,
                uint32_t data_len) {
    core::NtpMacSignOp op{key_index, payload, data_len, 0};
    SignBatch(m, {&op, 1});
    return op.trailer_size;
  }
  // Sign for each op (keys of `m`), their AES-CMACs interleaved.
  void SignBatch(const core::NtpMacer& m, std::span<core::NtpMacSignOp> ops) {
    m.SignBatch(ops);
    for (const core::NtpMacSignOp& op : ops) {
      if (op.trailer_size != 0) {
        stats_->replies[static_cast<size_t>(m.type(op.key_index))].Add(1);
      }
    }
  }

 private:
  Verdict Of(const core::NtpMacCheck& c, const core::NtpMacer* m) const {
    switch (c.verdict) {
      case core::NtpMacVerdict::kOk:
        return {true, 0, c.key_index, m};
      case core::NtpMacVerdict::kUnknownKey:
        return {false, drops_.unknown_key, 0, nullptr};
      case core::NtpMacVerdict::kBadLength:
        return {false, drops_.bad_length, 0, nullptr};
      case core::NtpMacVerdict::kBadMac:
        break;
    }
    return {false, drops_.bad_mac, 0, nullptr};
  }

  // The worker's macer for this burst (valid until its next boundary).
  const core::NtpMacer* Current() const { return macer_->Current(); }

  const SwappableConfig<core::NtpMacer>* macer_;
  NtpAuthStats* stats_;
  NtpAuthDropIndex drops_;
};

class NtpAuthFactory {
 public:
  NtpAuthFactory();
  ~NtpAuthFactory();

  // Loads config.ntp_keys (empty: authentication off). Control thread.
  absl::Status Configure(const DaemonConfig& config);
  // Uses `keys` (null or empty: off) instead of a file, for tests.
  void SetKeys(std::shared_ptr<const core::NtpKeyTable> keys) {
    keys_ = std::move(keys);
    PublishKeyCount();
  }
  bool enabled() const { return keys_ != nullptr && !keys_->empty(); }
  const std::shared_ptr<const core::NtpKeyTable>& keys() const { return keys_; }

  // The flag Reload applies (dataplane/daemon/config_reload.h).
  std::vector<std::string> ReloadableFlags() const { return {"ntp_keys"}; }
  // Re-reads reload.config->ntp_keys and stages the new keys for every
  // worker; an error (unreadable file, bad line, keys turned on or off)
  // rejects the reload. Control thread.
  absl::Status Reload(const ReloadArgs& reload);

  // Registers ntp_auth_{unknown_key,bad_length,bad_mac} (once).
  absl::Status RegisterNames(CounterNames& names);
  // One per worker; null when authentication is off.
  absl::StatusOr<std::unique_ptr<NtpWorkerAuth>> Create(
      const WorkerSetup& setup);

  // zeitgeber_ntp_auth_replies_total{worker, algorithm} and
  // zeitgeber_ntp_auth_keys, read when Prometheus scrapes. This object
  // must outlive the collectable's last Collect().
  std::shared_ptr<prometheus::Collectable> ScrapeCollectable() const;
  void Report();

  const NtpAuthDropIndex& drops() const { return drops_; }
  // Valid for the workers created so far (tests read them).
  const NtpAuthStats& stats(size_t worker) const { return *stats_[worker]; }

 private:
  // Control thread: the table in force (the workers' macers are built from
  // it) and the path it came from.
  std::shared_ptr<const core::NtpKeyTable> keys_;
  std::string keys_path_;
  NtpAuthDropIndex drops_;
  // One per worker created (in creation order). Written by: control thread
  // (Publish on reload). Read by: that worker (Current).
  std::vector<std::unique_ptr<SwappableConfig<core::NtpMacer>>> macers_;
  std::vector<std::unique_ptr<NtpAuthStats>> stats_;  // by creation order
  std::vector<unsigned> worker_index_;
  // The size of keys_. Written by: control thread. Read by: scrapes.
  std::atomic<size_t> key_count_{0};
  void PublishKeyCount() {
    key_count_.store(keys_ == nullptr ? 0 : keys_->size(),
                     std::memory_order_relaxed);
  }
};

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_NTP_NTP_AUTH_H_
