// SPDX-License-Identifier: Apache-2.0
// The test fixture of tests/servo/control: a ControlPlane on simulated clocks
// (tests/servo/fake_clocks.h) with its audit log in a temporary directory,
// ticked every 100 ms of simulated time, and helpers to read the audit log
// and to compare the served time with the truth.
//
//   TEST_F(ControlPlaneTest, X) {
//     Start(Config({"sim:a,priority=1"}));
//     RunUntil(20);                          // simulated seconds
//     EXPECT_LT(std::abs(ServedError()), 300);
//     control_->Stop("test");
//     Events(audit_path_);                   // {"start", ..., "stop"}
//   }
#ifndef ZG_TESTS_SERVO_CONTROL_CONTROL_PLANE_FIXTURE_H_
#define ZG_TESTS_SERVO_CONTROL_CONTROL_PLANE_FIXTURE_H_

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "servo/control/control_plane.h"
#include "servo/sources/source_spec.h"
#include "tests/servo/fake_clocks.h"

namespace zg::servo {

using testing::FakeRawClock;
using testing::FakeSystemClockOps;
using testing::SimWorld;

inline constexpr int64_t kMs = 1'000'000;
inline constexpr int64_t kS = 1'000'000'000;

inline std::vector<std::string> ReadLines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

// Every line parsed (each must be a JSON object).
inline std::vector<nlohmann::json> Records(const std::string& path) {
  std::vector<nlohmann::json> records;
  for (const std::string& line : ReadLines(path)) {
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    EXPECT_TRUE(j.is_object()) << line;
    if (j.is_object()) records.push_back(std::move(j));
  }
  return records;
}

// The "event" field of every line.
inline std::vector<std::string> Events(const std::string& path) {
  std::vector<std::string> events;
  for (const nlohmann::json& r : Records(path)) {
    events.push_back(r.value("event", std::string("?")));
  }
  return events;
}

class ControlPlaneTest : public ::testing::Test {
 protected:
  ControlPlaneTest() : tsc_(&world_), ops_(&world_) {
    dir_ = absl::StrCat(::testing::TempDir(), "/zg-control-", getpid());
    mkdir(dir_.c_str(), 0700);
    audit_path_ = dir_ + "/audit.jsonl";
  }
  ~ControlPlaneTest() override {
    control_.reset();
    for (const char* f : {"/audit.jsonl", "/audit.jsonl.old"}) {
      std::remove((dir_ + f).c_str());
    }
    rmdir(dir_.c_str());
  }

  std::unique_ptr<TscClock> FakeTsc() {
    TscClock::Io io;
    io.read_bracket = [this] {
      BracketedRead r;
      r.tsc_before = tsc_.NowTicks();
      int64_t ns = 0;
      ops_.ReadNs(CLOCK_MONOTONIC_RAW, &ns);
      r.other = static_cast<uint64_t>(ns);
      r.tsc_after = tsc_.NowTicks();
      return r;
    };
    io.now_ticks = [this] { return tsc_.NowTicks(); };
    io.sleep = [this](int64_t ns) { world_.Advance(ns); };
    auto t = TscClock::CreateWithIo({}, io);
    EXPECT_TRUE(t.ok()) << t.status();
    return *std::move(t);
  }

  ControlPlaneConfig Config(const std::vector<std::string>& specs) {
    ControlPlaneConfig c;
    for (const std::string& s : specs) {
      absl::StatusOr<SourceSpec> spec = ParseSourceSpec(s);
      EXPECT_TRUE(spec.ok()) << spec.status();
      c.sources.push_back(*spec);
    }
    c.leap_file = dir_ + "/no-such-leap-file";
    c.audit.path = audit_path_;
    c.audit.fsync = AuditLogOptions::Fsync::kNone;
    c.version = "test";
    c.settings = {{"oscillator", "tcxo"}};
    c.log = [this](LogLevel, const std::string& m) { log_.push_back(m); };
    return c;
  }

  void Start(ControlPlaneConfig c) {
    auto cp = ControlPlane::Create(std::move(c), &published_, FakeTsc(), &ops_);
    ASSERT_TRUE(cp.ok()) << cp.status();
    control_ = *std::move(cp);
  }

  // Ticks every 100 ms until true time `t_s` after the world's start.
  void RunUntil(double t_s) {
    while (static_cast<double>(world_.true_utc_ns - SimWorld::kStart) * 1e-9 <
           t_s) {
      world_.Advance(100 * kMs);
      control_->Tick();
    }
  }

  core::ClockModel Published() {
    core::ClockModel m;
    EXPECT_TRUE(published_.TryRead(&m));
    return m;
  }

  // Served TAI - true TAI now (ns).
  int64_t ServedError() {
    const core::ClockModel m = Published();
    const uint64_t raw = world_.Tsc();
    return m.RawToTai(raw).value - (world_.TrueUtcAtTicks(raw) + 37 * kS);
  }

  SimWorld world_;
  FakeRawClock tsc_;
  FakeSystemClockOps ops_;
  std::string dir_, audit_path_;
  std::vector<std::string> log_;
  core::PublishedClock published_;
  std::unique_ptr<ControlPlane> control_;
};

}  // namespace zg::servo

#endif  // ZG_TESTS_SERVO_CONTROL_CONTROL_PLANE_FIXTURE_H_
