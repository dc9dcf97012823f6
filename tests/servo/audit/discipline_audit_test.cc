// SPDX-License-Identifier: Apache-2.0
// Discipline events as audit records: names, states, classes and the values
// that explain them; rejected samples rate-limited per source and reason.
#include "servo/audit/discipline_audit.h"

#include <string>

#include "gtest/gtest.h"

namespace zg::servo {
namespace discipline_audit_test {
namespace {

constexpr int64_t kS = 1'000'000'000;

class DisciplineAuditTest : public ::testing::Test {
 protected:
  void SetUp() override {
    DisciplineConfig c;
    c.raw_nominal_hz = 1e9;
    auto d = ClockDiscipline::Create(c);
    ASSERT_TRUE(d.ok()) << d.status();
    discipline_ = *std::move(d);
    SourceInfo gps;
    gps.name = "gpsd:127.0.0.1:2947";
    SourceInfo sys;
    sys.name = "system:CLOCK_REALTIME";
    ASSERT_EQ(*discipline_->AddSource(gps), 0);
    ASSERT_EQ(*discipline_->AddSource(sys), 1);
  }

  std::optional<AuditRecord> Convert(const DisciplineEvent& e,
                                     int64_t mono = 0) {
    return audit_.Convert(e, *discipline_, core::TaiNs{777}, mono);
  }

  static const AuditValue* Value(const AuditRecord& r, const std::string& k) {
    for (const auto& [key, v] : r.values) {
      if (key == k) return &v;
    }
    return nullptr;
  }

  std::unique_ptr<ClockDiscipline> discipline_;
  DisciplineAudit audit_{{.reject_interval_ns = 10 * kS}};
};

TEST_F(DisciplineAuditTest, SourceAndSelectionEvents) {
  DisciplineEvent e;
  e.kind = EventKind::kSourceDown;
  e.source = 0;
  e.tai = core::TaiNs{123};
  std::optional<AuditRecord> r = Convert(e);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->event, AuditEvent::kSourceDown);
  EXPECT_EQ(r->source, "gpsd:127.0.0.1:2947");
  EXPECT_EQ(r->old_state, "up");
  EXPECT_EQ(r->new_state, "down");
  EXPECT_EQ(r->tai.value, 123);

  e.kind = EventKind::kSourceSwitch;
  e.source = 1;
  e.other_source = -1;
  e.tai = core::TaiNs{0};  // no model yet: the fallback time
  r = Convert(e);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->event, AuditEvent::kSelectionSwitch);
  EXPECT_EQ(r->old_state, "none");
  EXPECT_EQ(r->new_state, "system:CLOCK_REALTIME");
  EXPECT_EQ(r->tai.value, 777);
}

TEST_F(DisciplineAuditTest, StatesClassesAndSteps) {
  DisciplineEvent e;
  e.kind = EventKind::kHoldoverEnter;
  e.source = 0;
  e.from_state = core::SyncState::kLocked;
  e.to_state = core::SyncState::kHoldoverInSpec;
  e.limit_ns = 420;
  std::optional<AuditRecord> r = Convert(e);
  EXPECT_EQ(r->event, AuditEvent::kHoldoverEnter);
  EXPECT_EQ(r->old_state, "LOCKED");
  EXPECT_EQ(r->new_state, "HOLDOVER_IN_SPEC");
  EXPECT_EQ(std::get<int64_t>(*Value(*r, "bound_ns")), 420);

  e.kind = EventKind::kStateChange;
  e.from_state = core::SyncState::kHoldoverInSpec;
  e.to_state = core::SyncState::kHoldoverOutOfSpec;
  EXPECT_EQ(Convert(e)->event, AuditEvent::kStateChange);
  e.kind = EventKind::kLocked;
  EXPECT_EQ(Convert(e)->event, AuditEvent::kLock);
  e.kind = EventKind::kHoldoverExit;
  EXPECT_EQ(Convert(e)->event, AuditEvent::kHoldoverExit);

  e.kind = EventKind::kClockClassChange;
  e.from_class = 6;
  e.to_class = 7;
  r = Convert(e);
  EXPECT_EQ(r->event, AuditEvent::kClassChange);
  EXPECT_EQ(r->old_state, "6");
  EXPECT_EQ(r->new_state, "7");

  e.kind = EventKind::kStep;
  e.offset_ns = -2'500;
  r = Convert(e);
  EXPECT_EQ(r->event, AuditEvent::kStep);
  EXPECT_EQ(std::get<int64_t>(*Value(*r, "step_ns")), -2'500);
  EXPECT_TRUE(std::get<bool>(*Value(*r, "initial"))) << "the time was set";
  r = Convert(e);
  EXPECT_FALSE(std::get<bool>(*Value(*r, "initial"))) << "a real step";

  e.kind = EventKind::kFalseticker;
  EXPECT_EQ(Convert(e)->event, AuditEvent::kFalseticker);
  e.kind = EventKind::kModelOutvoted;
  EXPECT_EQ(Convert(e)->event, AuditEvent::kModelOutvoted);
}

TEST_F(DisciplineAuditTest, RejectionsAreRateLimitedPerSourceAndReason) {
  DisciplineEvent e;
  e.kind = EventKind::kSampleRejected;
  e.source = 0;
  e.reason = RejectReason::kJump;
  e.offset_ns = 5'000'000;
  e.limit_ns = 1'200;
  std::optional<AuditRecord> r = Convert(e, 0);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->event, AuditEvent::kSampleRejected);
  EXPECT_EQ(std::get<std::string>(*Value(*r, "reason")), "jump");
  EXPECT_EQ(std::get<int64_t>(*Value(*r, "offset_ns")), 5'000'000);
  EXPECT_EQ(std::get<int64_t>(*Value(*r, "limit_ns")), 1'200);
  EXPECT_EQ(std::get<int64_t>(*Value(*r, "suppressed")), 0);
  // Within the interval: suppressed, counted.
  for (int i = 1; i <= 9; ++i) EXPECT_FALSE(Convert(e, i * kS));
  EXPECT_EQ(audit_.suppressed_total(), 9u);
  // Another source or another reason is not limited by this one.
  DisciplineEvent other = e;
  other.source = 1;
  EXPECT_TRUE(Convert(other, 5 * kS));
  other = e;
  other.reason = RejectReason::kOutlier;
  EXPECT_TRUE(Convert(other, 5 * kS));
  // After the interval: written, with the count it stands for.
  r = Convert(e, 10 * kS);
  ASSERT_TRUE(r);
  EXPECT_EQ(std::get<int64_t>(*Value(*r, "suppressed")), 9);
  EXPECT_FALSE(Convert(e, 11 * kS));
}

}  // namespace
}  // namespace discipline_audit_test
}  // namespace zg::servo
