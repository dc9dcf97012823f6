// SPDX-License-Identifier: Apache-2.0
// NtsFactory and NtsWorkerAuth without an EAL (dataplane/ntp/nts_auth.h):
// every worker gets its own keystore, a rotation reaches all of them (old
// cookies stay in the window, new ones carry the new key id), the key id
// is audited once per change, NAKs and drops are counted per worker, and
// CurrentKeystore can be read from another thread (the NTS-KE server's)
// while the control thread rotates.
#include "dataplane/ntp/nts_auth.h"

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "core/base/byte_order.h"
#include "core/ntp/ntp_reply.h"
#include "core/nts/nts_server.h"
#include "gtest/gtest.h"
#include "tests/core/nts/nts_test_request.h"

namespace zg::dataplane {
namespace nts_auth_test {
namespace {

constexpr int64_t kStartUnixS = 1'800'000'000;

class NtsAuthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    nts_.SetClock([this] { return now_.load(); });
    ASSERT_TRUE(nts_.SetMasterKey(core::testing::TestMasterKey(1), {}).ok());
    ASSERT_TRUE(nts_.RegisterNames(names_).ok());
    for (unsigned w = 0; w < 2; ++w) {
      WorkerSetup setup;
      setup.worker_index = w;
      auto a = nts_.Create(setup);
      ASSERT_TRUE(a.ok()) << a.status();
      ASSERT_NE(*a, nullptr);
      workers_.push_back(std::move(*a));
    }
    spec_.cookie = core::testing::MintCookie(*nts_.CurrentKeystore(), keys_);
    spec_.c2s = keys_.c2s;
  }

  // Worker `w` answers `req`: returns the key id of its first new cookie
  // (0 if not answered).
  uint32_t Answer(size_t w, std::vector<uint8_t> req) {
    const uint32_t len = static_cast<uint32_t>(req.size());
    core::NtsRequestState st;
    core::NtsCheckOp op{req.data(), len, &st};
    NtsWorkerAuth::Verdict v;
    workers_[w]->CheckBatch({&op, 1}, &v);
    if (v.action != NtsWorkerAuth::Verdict::Action::kAnswer) return 0;
    const core::NtpRequestCheck check =
        core::ValidateNtpRequest(req.data(), len, core::NtpMacHandling::kDrop,
                                 core::NtpNtsHandling::kReport);
    core::ClockModel m;
    m.tai_anchor = core::TaiNs{(kStartUnixS + 37) * core::kNanosPerSecond};
    m.ns_per_tick_q32 = uint64_t{1} << 32;
    m.max_extrapolation_ns = 3600 * core::kNanosPerSecond;
    m.state = core::SyncState::kLocked;
    m.stratum = 1;
    core::WriteNtpReply(req.data(), check, m.tai_anchor, m);
    uint16_t slot = 0;
    if (workers_[w]->QueueReply(req.data(), len, st, &slot) != len) return 0;
    workers_[w]->FinishReplies();
    workers_[w]->QueueSeal(req.data(), slot);
    EXPECT_EQ(workers_[w]->SealQueued(), 1u);
    const core::testing::NtsReplyView r =
        core::testing::OpenNtsReply(req.data(), len, spec_.uid, keys_.s2c);
    EXPECT_TRUE(r.ok) << r.error;
    if (!r.ok || r.cookies.empty()) return 0;
    return core::LoadBe32(r.cookies[0].data());
  }

  std::atomic<int64_t> now_{kStartUnixS};
  NtsFactory nts_;
  CounterNames names_;
  std::vector<std::unique_ptr<NtsWorkerAuth>> workers_;
  core::NtsKeys keys_ = core::testing::TestKeys(7);
  core::testing::NtsClientSpec spec_;
};

TEST_F(NtsAuthTest, RotationReachesEveryWorker) {
  const uint32_t first = nts_.CurrentKeystore()->current_key_id();
  std::vector<std::string> reasons;
  ControlTick tick;
  tick.audit = [&](auto values) {
    for (const auto& [k, v] : values) {
      if (k == "reason") reasons.push_back(std::get<std::string>(v));
    }
  };
  nts_.ControlStep(tick);
  nts_.ControlStep(tick);  // nothing new: no second record
  const std::vector<uint8_t> req = core::testing::BuildNtsRequest(spec_);
  EXPECT_EQ(Answer(0, req), first);
  EXPECT_EQ(Answer(1, req), first);
  now_ = nts_.CurrentKeystore()->current_period_end_unix_s() + 5;
  nts_.ControlStep(tick);
  EXPECT_EQ(reasons, (std::vector<std::string>{"start", "rotation"}));
  // The old cookie is in the window; new cookies carry the new key id.
  EXPECT_EQ(Answer(0, req), first + 1);
  EXPECT_EQ(Answer(1, req), first + 1);
  // Three more periods: the first key has left the window (2 back): NAK.
  for (int i = 0; i < 3; ++i) {
    now_ = nts_.CurrentKeystore()->current_period_end_unix_s();
    nts_.ControlStep(tick);
  }
  EXPECT_EQ(nts_.rotations(), 4u);
  EXPECT_EQ(Answer(1, req), 0u);
  EXPECT_EQ(
      nts_.stats(1)
          .naks[NtsWorkerAuth::NakIndex(core::NtsFailure::kCookieUnknownKey)]
          .Load(),
      1u);
  EXPECT_EQ(nts_.stats(0).replies.Load(), 2u);
  EXPECT_EQ(nts_.stats(1).replies.Load(), 2u);
}

TEST_F(NtsAuthTest, DropsAreNamedAndCounted) {
  std::vector<uint8_t> req = core::testing::BuildNtsRequest(spec_);
  req.resize(req.size() - 40);  // no authenticator
  core::NtsRequestState st;
  core::NtsCheckOp op{req.data(), static_cast<uint32_t>(req.size()), &st};
  NtsWorkerAuth::Verdict v;
  workers_[0]->CheckBatch({&op, 1}, &v);
  EXPECT_EQ(v.action, NtsWorkerAuth::Verdict::Action::kDrop);
  EXPECT_EQ(names_.DropReasonName(v.drop_reason),
            "ntp_nts_missing_authenticator");
  EXPECT_EQ(names_.DropReasonName(workers_[0]->reply_too_long()),
            "ntp_nts_reply_too_long");
  for (size_t i = 1; i < core::kNtsFailureCount; ++i) {
    const auto f = static_cast<core::NtsFailure>(i);
    if (core::NtsFailureIsNak(f)) {
      EXPECT_EQ(nts_.drops().Of(f), 0) << core::NtsFailureName(f);
    } else {
      EXPECT_EQ(names_.DropReasonName(nts_.drops().Of(f)),
                std::string("ntp_nts_") + core::NtsFailureName(f));
    }
  }
}

// The NTS-KE server reads the keystore on its own thread while the control
// thread rotates (run under TSan by scripts/tsan.sh's suite if listed).
TEST_F(NtsAuthTest, CurrentKeystoreWhileRotating) {
  std::atomic<bool> stop{false};
  std::thread ke([&] {
    uint32_t last = 0;
    while (!stop.load()) {
      const auto ks = nts_.CurrentKeystore();
      ASSERT_NE(ks, nullptr);
      EXPECT_GE(ks->current_key_id(), last);
      last = ks->current_key_id();
    }
  });
  ControlTick tick;
  for (int i = 0; i < 50; ++i) {
    now_ = nts_.CurrentKeystore()->current_period_end_unix_s();
    nts_.ControlStep(tick);
  }
  stop = true;
  ke.join();
  EXPECT_EQ(nts_.rotations(), 50u);
}

}  // namespace
}  // namespace nts_auth_test
}  // namespace zg::dataplane
