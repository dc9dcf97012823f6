// SPDX-License-Identifier: Apache-2.0
// The control thread and the workers at the same time, as zeitgeberd runs
// them, for ThreadSanitizer (suite 'tsan', scripts/tsan.sh) as much as for
// the assertions. This thread is the control thread: it creates the real
// servo::ControlPlane (the TSC calibrated against CLOCK_MONOTONIC_RAW, a
// sim: reference, one NIC clock), ticks it and takes its Snapshot() (in
// zeitgeberd the metrics exporter's Update() does that on the control thread
// too). Each Tick publishes the TSC model and the composed NIC model into
// core::PublishedClock seqlocks. Two reader threads meanwhile do what a
// worker's Timestamper does: per "burst", Refresh one core::ClockReader per
// clock, then convert a few stamps with RawToTai and ask IsSynchronized and
// ErrorBoundNs. Checked: each reader sees generations that never go back,
// times that never go back for increasing raw stamps within one model, error
// bounds that never shrink within one model, and the TSC model becoming
// synchronised; the NIC model is published too.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/time/clock_model.h"
#include "core/time/tsc.h"
#include "gtest/gtest.h"
#include "servo/control/control_plane.h"
#include "servo/holdover/holdover.h"
#include "servo/sources/source_spec.h"

namespace zg::servo {
namespace {

// The fake NIC clock: one tick per 3 TSC ticks, from an offset.
uint64_t NicTicksAt(uint64_t tsc) { return tsc / 3 + 1'000'000'000; }

constexpr int kStampsPerBurst = 4;

// What one reader saw. Written by its thread, read after join().
struct ReaderReport {
  uint64_t bursts = 0;
  uint64_t models_seen = 0;  // bursts whose TSC model was a new generation
  uint64_t synchronized_bursts = 0;
  uint64_t nic_models_seen = 0;
  uint64_t conversions = 0;
  uint64_t failed_reads = 0;  // ClockReader kept its last copy
  uint64_t violations = 0;
  std::string first_violation;
  // Set once a burst saw a synchronised TSC model; the control thread polls
  // it to know when to stop.
  std::atomic<bool> saw_synchronized{false};

  void Violation(std::string what) {
    if (violations++ == 0) first_violation = std::move(what);
  }
};

// Converts kStampsPerBurst stamps taken now with `m` (raw = stamp(tsc)):
// time and error bound must not go back while raw goes forward.
template <typename StampFn>
void ConvertBurst(const core::ClockModel& m, StampFn stamp, const char* clock,
                  ReaderReport* r, bool* synchronized) {
  uint64_t prev_raw = 0;
  core::TaiNs prev_tai{std::numeric_limits<int64_t>::min()};
  int64_t prev_bound = std::numeric_limits<int64_t>::min();
  *synchronized = false;
  for (int i = 0; i < kStampsPerBurst; ++i) {
    const uint64_t raw = stamp(core::ReadTscOrdered());
    const core::TaiNs tai = m.RawToTai(raw);
    ++r->conversions;
    if (i > 0 && raw > prev_raw && tai < prev_tai) {
      r->Violation(absl::StrCat(clock, " generation ", m.generation, ": raw ",
                                prev_raw, " -> ", raw, " went back from TAI ",
                                prev_tai.value, " to ", tai.value));
    }
    if (m.IsSynchronized(tai)) {
      *synchronized = true;
      const int64_t bound = m.ErrorBoundNs(tai);
      if (bound < m.error_bound_ns || bound < 0) {
        r->Violation(absl::StrCat(clock, " generation ", m.generation,
                                  ": bound ", bound, " below the anchor's ",
                                  m.error_bound_ns));
      }
      if (raw > prev_raw && bound < prev_bound) {
        r->Violation(absl::StrCat(clock, " generation ", m.generation,
                                  ": bound shrank from ", prev_bound, " to ",
                                  bound));
      }
      prev_bound = bound;
    }
    prev_raw = raw;
    prev_tai = tai;
  }
}

void ReaderLoop(const core::PublishedClock* tsc_clock,
                const core::PublishedClock* nic_clock,
                const std::atomic<bool>* stop, ReaderReport* r) {
  core::ClockReader tsc_reader(tsc_clock);
  core::ClockReader nic_reader(nic_clock);
  uint64_t last_generation = 0, last_nic_generation = 0;
  uint64_t last_seq_generation = 0;
  while (!stop->load(std::memory_order_acquire)) {
    const uint64_t seq_generation = tsc_clock->Generation();
    if (seq_generation < last_seq_generation) {
      r->Violation(absl::StrCat("seqlock generation went back from ",
                                last_seq_generation, " to ", seq_generation));
    }
    last_seq_generation = seq_generation;
    // One Refresh per burst, as the Timestamper does.
    const core::ClockModel& m = tsc_reader.Refresh();
    const core::ClockModel& nic = nic_reader.Refresh();
    if (m.generation < last_generation) {
      r->Violation(absl::StrCat("TSC model generation went back from ",
                                last_generation, " to ", m.generation));
    } else if (m.generation > last_generation) {
      ++r->models_seen;
    }
    last_generation = m.generation;
    if (nic.generation < last_nic_generation) {
      r->Violation(absl::StrCat("NIC model generation went back from ",
                                last_nic_generation, " to ", nic.generation));
    } else if (nic.generation > last_nic_generation) {
      ++r->nic_models_seen;
    }
    last_nic_generation = nic.generation;

    bool synchronized = false;
    ConvertBurst(
        m, [](uint64_t tsc) { return tsc; }, "TSC", r, &synchronized);
    if (synchronized) {
      ++r->synchronized_bursts;
      r->saw_synchronized.store(true, std::memory_order_relaxed);
    }
    if (nic.ns_per_tick_q32 != 0) {
      bool nic_synchronized = false;
      ConvertBurst(nic, NicTicksAt, "NIC", r, &nic_synchronized);
    }
    ++r->bursts;
    std::this_thread::yield();  // workers poll; this machine is shared
  }
  r->failed_reads = tsc_reader.failed_reads() + nic_reader.failed_reads();
}

TEST(ControlPlaneTsanTest, WorkersReadWhileTheControlThreadPublishes) {
  ControlPlaneConfig config;
  absl::StatusOr<SourceSpec> sim =
      ParseSourceSpec("sim:lab,uncertainty=2us,interval=100ms");
  ASSERT_TRUE(sim.ok()) << sim.status();
  config.sources.push_back(*sim);
  config.leap_file = "/nonexistent/leap-seconds.list";  // the built-in table
  core::PublishedClock tsc_clock, nic_clock;
  absl::StatusOr<std::unique_ptr<ControlPlane>> created =
      ControlPlane::Create(std::move(config), &tsc_clock);
  ASSERT_TRUE(created.ok()) << created.status();
  std::unique_ptr<ControlPlane> control = *std::move(created);
  control->AddNicClock(
      "fake",
      []() -> absl::StatusOr<BracketedRead> {
        BracketedRead r;
        r.tsc_before = core::ReadTscOrdered();
        r.other = NicTicksAt(r.tsc_before);
        r.tsc_after = core::ReadTscOrdered();
        return r;
      },
      &nic_clock);

  std::atomic<bool> stop{false};
  ReaderReport reports[2];
  std::vector<std::thread> readers;
  for (ReaderReport& r : reports) {
    readers.emplace_back(ReaderLoop, &tsc_clock, &nic_clock, &stop, &r);
  }
  // Tick (publish) every 2 ms for at least 1.5 s, and on until both readers
  // have seen a synchronised model (bounded: 30 s, for a slow TSan run).
  const auto start = std::chrono::steady_clock::now();
  const auto min_end = start + std::chrono::milliseconds(1500);
  const auto max_end = start + std::chrono::seconds(30);
  uint64_t snapshots = 0;
  for (int i = 0;; ++i) {
    control->Tick();
    if (i % 50 == 0) {  // the exporter's Update(), on this thread
      const ControlPlaneStatus st = control->Snapshot();
      ++snapshots;
      EXPECT_EQ(st.sources.size(), 1u);
    }
    const auto now = std::chrono::steady_clock::now();
    bool all_synchronized = true;
    for (const ReaderReport& r : reports) {
      all_synchronized &= r.saw_synchronized.load(std::memory_order_relaxed);
    }
    if ((now >= min_end && all_synchronized) || now >= max_end) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  stop.store(true, std::memory_order_release);
  for (std::thread& t : readers) t.join();
  const ControlPlaneStatus st = control->Snapshot();
  control->Stop("test done");

  EXPECT_GT(snapshots, 0u);
  EXPECT_GT(st.ticks, 1u);
  ASSERT_EQ(st.nics.size(), 1u);
  EXPECT_TRUE(st.nics[0].published) << "the NIC model was never published";
  for (int i = 0; i < 2; ++i) {
    const ReaderReport& r = reports[i];
    const std::string summary = absl::StrCat(
        "reader ", i, ": ", r.bursts, " bursts (", r.synchronized_bursts,
        " synchronised), ", r.models_seen, " TSC models, ", r.nic_models_seen,
        " NIC models, ", r.conversions, " conversions, ", r.failed_reads,
        " failed reads");
    std::printf("%s\n", summary.c_str());
    SCOPED_TRACE(summary);
    EXPECT_EQ(r.violations, 0u) << r.first_violation;
    EXPECT_GT(r.models_seen, 1u) << "the reader saw no model change";
    EXPECT_GT(r.nic_models_seen, 0u) << "the reader saw no NIC model";
    EXPECT_GT(r.synchronized_bursts, 0u)
        << "the TSC model never became synchronised (state "
        << SyncStateName(st.discipline.state) << ")";
  }
}

}  // namespace
}  // namespace zg::servo
