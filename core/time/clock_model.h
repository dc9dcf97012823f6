// SPDX-License-Identifier: Apache-2.0
// ClockModel: the clock the control plane publishes and the data plane serves.
//
// The data plane never steers a clock. It reads raw ticks (the TSC, or a NIC's
// free-running clock) and applies this model, which the control thread (servo,
// holdover) rebuilds and publishes through a SeqLock<ClockModel>. Each worker
// copies it once per burst (ClockReader) and converts every stamp with it:
//
//   TAI(raw) = tai_anchor + (raw - raw_anchor) * ns_per_tick_q32 / 2^32
//
// with an error bound that grows linearly from the anchor:
//
//   bound(raw) = error_bound_ns + age_s * error_growth_ns_per_s
//
// A model used beyond `max_extrapolation_ns` past its anchor is stale and the
// server must answer unsynchronised (NTP LI=3 / stratum 16, PTP clockClass
// 248).
//
// Leap seconds: `utc_offset_s` is TAI-UTC before `leap_at`; when `leap` is
// kInsert (kDelete) the offset is one more (less) from `leap_at` on, so a model
// published before the leap stays right across it. For an inserted second,
// `leap_at` is the TAI instant at which UTC reads 23:59:60; POSIX/NTP time then
// repeats 23:59:59, as the Linux kernel does.
#ifndef ZG_CORE_TIME_CLOCK_MODEL_H_
#define ZG_CORE_TIME_CLOCK_MODEL_H_

#include <cstdint>

#include "core/base/seqlock.h"
#include "core/time/time_types.h"

namespace zg::core {

// Where the published time stands (issue: control plane, holdover states).
enum class SyncState : uint8_t {
  kFreerun = 0,           // never synchronised or lost beyond holdover
  kLocking = 1,           // reference present, servo converging
  kLocked = 2,            // tracking the reference
  kHoldoverInSpec = 3,    // reference lost, predicted error within spec
  kHoldoverOutOfSpec = 4  // reference lost, predicted error beyond spec
};

enum class LeapPending : uint8_t { kNone = 0, kInsert = 1, kDelete = 2 };
// "none", "insert", "delete" (logs, the audit log, zgctl).
constexpr const char* LeapPendingName(LeapPending leap) {
  switch (leap) {
    case LeapPending::kInsert:
      return "insert";
    case LeapPending::kDelete:
      return "delete";
    case LeapPending::kNone:
      break;
  }
  return "none";
}

// NTP leap indicator values (RFC 5905 figure 9).
enum class NtpLeapIndicator : uint8_t {
  kNoWarning = 0,
  kLastMinute61 = 1,
  kLastMinute59 = 2,
  kUnsynchronized = 3,
};

// IEEE 1588 ClockQuality.
struct PtpClockQuality {
  uint8_t clock_class = 248;      // 248: default, free-running
  uint8_t clock_accuracy = 0xFE;  // 0xFE: unknown
  uint16_t offset_scaled_log_variance = 0xFFFF;
  friend constexpr bool operator==(PtpClockQuality, PtpClockQuality) = default;
};

// IEEE 1588 timeSource values (Table 6).
enum class PtpTimeSource : uint8_t {
  kAtomicClock = 0x10,
  kGnss = 0x20,
  kTerrestrialRadio = 0x30,
  kSerialTimeCode = 0x39,
  kPtp = 0x40,
  kNtp = 0x50,
  kHandSet = 0x60,
  kOther = 0x90,
  kInternalOscillator = 0xA0,
};

// The NTP leap indicator that announces `leap` (synchronised time).
constexpr NtpLeapIndicator NtpLeapIndicatorFor(LeapPending leap) {
  switch (leap) {
    case LeapPending::kInsert:
      return NtpLeapIndicator::kLastMinute61;
    case LeapPending::kDelete:
      return NtpLeapIndicator::kLastMinute59;
    case LeapPending::kNone:
      break;
  }
  return NtpLeapIndicator::kNoWarning;
}

inline constexpr int64_t kLeapAnnounceWindowNs =
    kSecondsPerDay * kNanosPerSecond;

// Written by the control thread (servo/holdover), published through
// SeqLock<ClockModel>; read (copied) by every worker once per burst. Trivially
// copyable on purpose.
struct ClockModel {
  // ---- Raw -> TAI mapping.
  uint64_t raw_anchor = 0;       // raw ticks (TSC or NIC clock) at the anchor
  TaiNs tai_anchor;              // TAI at raw_anchor
  uint64_t ns_per_tick_q32 = 0;  // rate: ns per raw tick, scaled by 2^32

  // ---- Honest error.
  int64_t error_bound_ns = 0;         // bound on |model - TAI| at the anchor
  int64_t error_growth_ns_per_s = 0;  // growth of the bound (ns/s == ppb)
  int64_t max_extrapolation_ns = 0;   // stale past anchor + this

  // ---- UTC.
  int32_t utc_offset_s = 37;  // TAI - UTC before leap_at
  LeapPending leap = LeapPending::kNone;
  TaiNs leap_at;  // TAI start of the pending leap second

  // ---- Quality, as served.
  SyncState state = SyncState::kFreerun;
  uint8_t stratum = 16;         // NTP stratum served when fresh
  int8_t precision_log2 = -20;  // NTP precision
  uint32_t reference_id = 0;    // NTP refid (network byte order value)
  int64_t root_delay_ns = 0;    // to the primary reference
  TaiNs reference_time;         // last correction from the reference
  PtpClockQuality ptp_quality;
  PtpTimeSource ptp_time_source = PtpTimeSource::kInternalOscillator;
  bool time_traceable = false;
  bool frequency_traceable = false;

  uint64_t generation = 0;  // bumped by the writer on each publish

  // Raw ticks -> TAI. Exact fixed-point arithmetic; handles raw before the
  // anchor (a stamp taken just before a publish).
  constexpr TaiNs RawToTai(uint64_t raw) const {
    const int64_t delta = static_cast<int64_t>(raw - raw_anchor);
    const __int128 ns = (static_cast<__int128>(delta) *
                         static_cast<__int128>(ns_per_tick_q32)) >>
                        32;
    return tai_anchor + static_cast<int64_t>(ns);
  }

  // TAI -> raw ticks, the inverse of RawToTai: the first raw tick whose
  // RawToTai is at or after `t`. So RawToTai(TaiToRaw(t)) >= t, equal to t
  // where a tick is at most 1 ns (ns_per_tick_q32 <= 2^32, every TAI ns has
  // a tick), and TaiToRaw(RawToTai(raw)) == raw where a tick is at least
  // 1 ns. Used to choose a NIC launch time (send-on-timestamp) for a TAI
  // instant. Requires ns_per_tick_q32 != 0 (returns raw_anchor otherwise).
  constexpr uint64_t TaiToRaw(TaiNs t) const {
    if (ns_per_tick_q32 == 0) return raw_anchor;
    // The smallest delta with floor(delta * q / 2^32) >= ns, i.e.
    // delta * q >= ns * 2^32: a ceiling division (C++ truncates toward
    // zero, which is already the ceiling for a negative quotient).
    const __int128 num =
        static_cast<__int128>(t - tai_anchor) * (__int128{1} << 32);
    const __int128 q = static_cast<__int128>(ns_per_tick_q32);
    __int128 delta = num / q;
    if (delta * q < num) ++delta;
    return raw_anchor + static_cast<uint64_t>(static_cast<int64_t>(delta));
  }

  // Nanoseconds from the anchor to `t` (negative before it).
  constexpr int64_t AgeNs(TaiNs t) const { return t - tai_anchor; }

  // The error bound at TAI `t` (never less than at the anchor).
  constexpr int64_t ErrorBoundNs(TaiNs t) const {
    int64_t age = AgeNs(t);
    if (age < 0) age = 0;
    const __int128 growth =
        static_cast<__int128>(age) * error_growth_ns_per_s / kNanosPerSecond;
    const __int128 bound = error_bound_ns + growth;
    return bound > INT64_MAX ? INT64_MAX : static_cast<int64_t>(bound);
  }

  // Whether time served at `t` from this model may be called synchronised.
  constexpr bool IsSynchronized(TaiNs t) const {
    if (ns_per_tick_q32 == 0) return false;
    if (state == SyncState::kFreerun || state == SyncState::kHoldoverOutOfSpec)
      return false;
    const int64_t age = AgeNs(t);
    return age <= max_extrapolation_ns;
  }

  // TAI-UTC in effect at `t`.
  constexpr int32_t UtcOffsetAt(TaiNs t) const {
    if (leap == LeapPending::kNone || t < leap_at) return utc_offset_s;
    return leap == LeapPending::kInsert ? utc_offset_s + 1 : utc_offset_s - 1;
  }

  constexpr UtcNs TaiToUtc(TaiNs t) const {
    return {t.value - int64_t{UtcOffsetAt(t)} * kNanosPerSecond};
  }

  // The leap announced at `t`: pending within the last UTC day before it.
  constexpr LeapPending LeapAnnouncedAt(TaiNs t) const {
    if (leap == LeapPending::kNone) return LeapPending::kNone;
    if (t >= leap_at || leap_at - t > kLeapAnnounceWindowNs)
      return LeapPending::kNone;
    return leap;
  }

  constexpr NtpLeapIndicator NtpLeapAt(TaiNs t) const {
    if (!IsSynchronized(t)) return NtpLeapIndicator::kUnsynchronized;
    return NtpLeapIndicatorFor(LeapAnnouncedAt(t));
  }
};

// Rate helpers: ticks-per-second <-> ns_per_tick_q32.
constexpr uint64_t NsPerTickQ32FromHz(double ticks_per_second) {
  return static_cast<uint64_t>(1e9 / ticks_per_second * 4294967296.0 + 0.5);
}

// The published clock. Control thread writes; workers read.
using PublishedClock = SeqLock<ClockModel>;

// A worker's view of the published clock: refreshed once per burst; a torn or
// failed read keeps the last good copy. One per worker; not shared.
class ClockReader {
 public:
  explicit ClockReader(const PublishedClock* source) : source_(source) {}

  // Re-reads the published model; returns the copy in use.
  const ClockModel& Refresh() {
    ClockModel fresh;
    if (source_->TryRead(&fresh)) {
      model_ = fresh;
    } else {
      ++failed_reads_;
    }
    return model_;
  }
  const ClockModel& model() const { return model_; }
  uint64_t failed_reads() const { return failed_reads_; }

 private:
  const PublishedClock* source_;
  ClockModel model_;  // last good copy (default: unsynchronised)
  uint64_t failed_reads_ = 0;
};

}  // namespace zg::core

#endif  // ZG_CORE_TIME_CLOCK_MODEL_H_
