// SPDX-License-Identifier: Apache-2.0
// Where a software NTP transmit stamp (T3) is placed relative to tx_burst,
// and the running estimate that makes "after" and "midpoint" possible.
//
// T3 must be written into the frame before tx_burst, but the frame leaves
// during tx_burst (net_af_xdp: inside its sendto kick; veth delivers the
// frame to the peer synchronously there). A stamp read before tx_burst is
// early by the rest of the batch's finalising plus (part of) the call. So
// the worker stamps before, and adds an estimate of how long the bracket
// lasts, learnt from the brackets it measured on earlier batches:
//
//   stamp ----- finalise (T3, MAC/NTS seals) ----- entry == tx_burst == return
//   |<------------ finalise_ticks ------------>|<--- kick_ticks --->|
//
//   kBefore:   T3 = stamp
//   kMidpoint: T3 = stamp + finalise + kick / 2
//   kAfter:    T3 = stamp + finalise + kick
//
// All values are TSC ticks (the worker turns stamp + estimate into TAI with
// its TSC model, core::ClockModel::RawToTai, so no rate conversion happens
// here). One estimate per batch size 1..kMaxBatch: the kick's length grows
// with the frames it copies (doc/timestamps.md, "NTP software stamps").
// Each is a running median (steps of 2^-kShift of the current value towards
// each sample: robust to the long tail of calls preempted after the frame
// left, which a mean follows); brackets longer than max_sample_ticks are
// dropped and counted.
//
// Owned by one worker (Record and the getters run on its lcore); pure
// arithmetic: no allocation, no syscalls.
//
//   TxKickEstimate est(TxStampPlacement::kMidpoint, max_ticks);
//   uint64_t stamp = ReadTsc();  // T3 = RawToTai(stamp + est.LeaveTicks(n))
//   uint64_t entry = ReadTsc(); tx_burst(...); uint64_t ret = ReadTsc();
//   est.Record(n, stamp, entry, ret);
#ifndef ZG_CORE_TIME_TX_KICK_ESTIMATE_H_
#define ZG_CORE_TIME_TX_KICK_ESTIMATE_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace zg::core {

enum class TxStampPlacement : uint8_t { kBefore, kMidpoint, kAfter };

// "before", "midpoint", "after".
const char* TxStampPlacementName(TxStampPlacement p);
std::optional<TxStampPlacement> ParseTxStampPlacement(std::string_view s);

class TxKickEstimate {
 public:
  static constexpr uint16_t kMaxBatch = 64;
  static constexpr uint32_t kShift = 5;  // median step: 1/32 of the value

  // `max_sample_ticks`: brackets (stamp to return) longer than this are
  // outliers (0: none is).
  explicit TxKickEstimate(
      TxStampPlacement placement = TxStampPlacement::kBefore,
      uint64_t max_sample_ticks = 0);

  TxStampPlacement placement() const { return placement_; }

  // One measured bracket for a batch of `n` frames: the batch's stamp, the
  // TSC read just before tx_burst and the one when it returned (each >= the
  // one before; a bracket that runs backwards is dropped as an outlier).
  void Record(uint16_t n, uint64_t stamp_tsc, uint64_t entry_tsc,
              uint64_t return_tsc);

  // Ticks to add to the batch's stamp for a frame of a batch of `n`
  // (0 for kBefore, or before any bracket was measured).
  uint64_t LeaveTicks(uint16_t n) const;
  // Ticks to add to a stamp read at the end of the frame's finalising (an
  // authenticated reply's own fresh stamp): the kick part alone.
  uint64_t KickTicks(uint16_t n) const;

  // The current averages for batches of `n` (ticks; 0 before any sample).
  uint64_t FinaliseAverage(uint16_t n) const;
  uint64_t KickAverage(uint16_t n) const;
  uint64_t samples() const { return samples_; }
  uint64_t outliers() const { return outliers_; }

 private:
  struct Bucket {
    // Fixed point: ticks << kFrac.
    uint64_t finalise_q = 0;
    uint64_t kick_q = 0;
    bool seeded = false;
  };
  static constexpr uint32_t kFrac = 8;
  // The bucket for `n`, or the nearest seeded one (below first); null if
  // none is seeded.
  const Bucket* Find(uint16_t n) const;
  static uint16_t Index(uint16_t n) {
    return n == 0 ? 0 : (n > kMaxBatch ? kMaxBatch - 1 : n - 1);
  }

  TxStampPlacement placement_;
  uint64_t max_sample_ticks_;
  std::array<Bucket, kMaxBatch> buckets_{};
  uint64_t samples_ = 0;
  uint64_t outliers_ = 0;
};

}  // namespace zg::core

#endif  // ZG_CORE_TIME_TX_KICK_ESTIMATE_H_
