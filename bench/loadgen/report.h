// SPDX-License-Identifier: Apache-2.0
// What zg-loadgen reports: the counts and percentiles of a run, the progress
// line printed every second, the human summary at the end and the JSON
// written by --json=FILE.
//
// Every request sent ends in exactly one of: answered (a valid reply in
// time), kod (a Kiss-o'-Death in time), bad_reply (a reply in time that
// failed validation), late (first reply after --timeout), lost (no reply),
// or is still in_flight at the moment of a progress snapshot. So
//
//   sent == answered + kod + bad_reply + late + lost + in_flight
//
// and loss for the no-drop search is 1 - answered / sent. Replies that match
// no request are `unmatched`; further replies to one request are
// `duplicate`. Invalid replies are also counted by reason (`invalid`), with
// the reason names of the parsers that rejected them.
//
//   RunSummary s = ...;                       // filled by the application
//   std::fputs(FormatSummary(s).c_str(), stdout);
//   ZG_RETURN_IF_ERROR(WriteJsonFile("run.json", s));
#ifndef ZG_BENCH_LOADGEN_REPORT_H_
#define ZG_BENCH_LOADGEN_REPORT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "bench/loadgen/histogram.h"
#include "bench/loadgen/ptp_subscribers.h"
#include "bench/loadgen/sweep.h"

namespace zg::bench {

struct RequestCounts {
  uint64_t sent = 0;
  uint64_t answered = 0;
  uint64_t kod = 0;
  uint64_t bad_reply = 0;
  uint64_t late = 0;
  uint64_t lost = 0;
  uint64_t in_flight = 0;
  uint64_t duplicate = 0;
  uint64_t unmatched = 0;
  // Departures the generator owed but could not make (it fell behind).
  uint64_t skipped = 0;

  RequestCounts& operator+=(const RequestCounts& o);
  // 1 - answered / sent (0 when nothing was sent).
  double Loss() const;
  // sent == answered + kod + bad_reply + late + lost + in_flight.
  bool Consistent() const;
};

// What NTS clients (--mix=nts...) got back, besides RequestCounts. Every
// verify_every-th valid NTS reply is checked in full (unique identifier,
// authenticator under S2C, cookies inside): verified_ok or verified_bad
// (bad ones also count as bad_reply); the others are answered unverified.
// nak: NTS NAKs (KoD NTSN echoing the request's identifier), also kod.
struct NtsCounts {
  uint64_t sent = 0;
  uint64_t answered = 0;  // valid NTP replies to NTS requests, in time
  uint64_t verified_ok = 0;
  uint64_t verified_bad = 0;
  uint64_t nak = 0;
  NtsCounts& operator+=(const NtsCounts& o);
};

// A distribution's summary, in nanoseconds.
struct Distribution {
  uint64_t count = 0;
  double mean = 0;
  int64_t min = 0, p50 = 0, p90 = 0, p99 = 0, p999 = 0, max = 0;
};
Distribution Summarize(const LogHistogram& h);
Distribution Summarize(const SignedHistogram& h);

using NamedCounts = std::vector<std::pair<std::string, uint64_t>>;

struct RunSummary {
  // The plan.
  std::string target;      // "10.99.0.1:123"
  std::string mix;         // "ntp4:1"
  double offered_pps = 0;  // 0: max
  uint32_t lanes = 0;
  uint32_t clients = 0;
  double timeout_s = 0;
  // The target is a packet reflector (--reflector): "answered" are echoes.
  bool reflector = false;
  // The run.
  double sending_s = 0;  // time the lanes were sending
  RequestCounts counts;
  NamedCounts invalid;    // reason -> replies (nonzero only)
  NamedCounts kod_codes;  // "RATE" -> replies
  // The generator's own frame counters (tx_refused, alloc_failed,
  // arp_answered, ...), nonzero ones: a generator at its limit shows here.
  NamedCounts generator;
  Distribution rtt_ns;        // T4 - T1 on the generator's TSC
  Distribution residence_ns;  // T3 - T2, the server's hold time
  // ((T2 - T1) + (T3 - T4)) / 2 with the generator's clock: stamping error
  // when generator and server share a clock.
  Distribution offset_ns;
  std::optional<SweepResult> sweep;
  // NTS clients' counts; reported when the mix has nts.
  bool has_nts = false;
  std::string nts_credentials;  // "master_key" (test harness) or "nts_ke"
  NtsCounts nts;
  double sweep_loss_threshold = 1e-4;  // what a sweep trial had to meet
  // --mix=ptp_unicast: the subscribers' report (text: instead of the
  // request/reply section; JSON: the "ptp_unicast" object).
  std::optional<PtpSubscriberSummary> ptp_unicast;

  double AchievedPps() const;  // sent / sending_s
  double AnsweredPps() const;  // answered / sending_s
};

std::string FormatSummary(const RunSummary& s);
std::string SummaryToJson(const RunSummary& s);
// Writes SummaryToJson(s) to `path` (replacing it).
absl::Status WriteJsonFile(absl::string_view path, const RunSummary& s);

// One second's progress: totals at time t_s since the start.
struct ProgressSample {
  double t_s = 0;
  RequestCounts counts;
  uint64_t invalid = 0;  // invalid replies, all reasons
};
// "[  3.0s] sent 1.000 Mpps  answered 0.999 Mpps  loss 0.010%  ..." for the
// interval prev -> now.
std::string FormatProgressLine(const ProgressSample& prev,
                               const ProgressSample& now);

// 1234567 -> "1.235 Mpps"; 12345 -> "12.345 kpps"; 12 -> "12 pps".
std::string FormatRate(double pps);
// 1500 -> "1.50 us"; 2500000 -> "2.500 ms"; 12 -> "12 ns".
std::string FormatNanos(double ns);

}  // namespace zg::bench

#endif  // ZG_BENCH_LOADGEN_REPORT_H_
