// NtpAccessPolicy (dataplane/ntp/ntp_access_policy.h): the NTP access list
// per request (drop, or a limited KoD DENY), the next policy for allowed
// requests only, and a reload that changes the verdict. Needs the EAL.
#include "dataplane/ntp/ntp_access_policy.h"

#include "core/net/ip_prefix.h"
#include "core/ntp/ntp_wire.h"
#include "gtest/gtest.h"

namespace zg::dataplane {
namespace {

using Action = NtpPolicyVerdict::Action;

core::FrameInfo From(const char* address) {
  core::FrameInfo f{};
  const core::IpAddress a = core::ParseIpAddress(address).value();
  f.ip_version = a.is_v6() ? 6 : 4;
  if (a.is_v6()) {
    f.src_ipv6 = a.v6;
  } else {
    f.src_ipv4 = a.v4;
  }
  return f;
}

// Counts what reaches it; answers everything.
class CountingPolicy final : public NtpRequestPolicy {
 public:
  explicit CountingPolicy(int* seen) : seen_(seen) {}
  NtpPolicyVerdict Check(const core::FrameInfo&, const core::NtpRequestCheck&,
                         core::TaiNs) override {
    ++*seen_;
    return NtpPolicyVerdict::Answer();
  }

 private:
  int* seen_;
};
class CountingFactory final : public NtpPolicyFactory {
 public:
  absl::Status RegisterNames(CounterNames&) override {
    return absl::OkStatus();
  }
  absl::StatusOr<std::unique_ptr<NtpRequestPolicy>> Create(
      const WorkerSetup&) override {
    return std::make_unique<CountingPolicy>(&seen);
  }
  int seen = 0;
};

DaemonConfig Config(const char* deny, NtpDenyAction action) {
  DaemonConfig c;
  c.access.ntp.deny = core::ParseNetworkPrefixList(deny).value();
  c.access.ntp_deny_action = action;
  return c;
}

class NtpAccessPolicyTest : public ::testing::Test {
 protected:
  std::unique_ptr<NtpRequestPolicy> Make(const DaemonConfig& c) {
    EXPECT_TRUE(factory_.Configure(c).ok());
    EXPECT_TRUE(factory_.RegisterNames(names_).ok());
    auto p = factory_.Create(WorkerSetup{});
    EXPECT_TRUE(p.ok()) << p.status();
    return p.ok() ? std::move(*p) : nullptr;
  }
  NtpPolicyVerdict Check(NtpRequestPolicy& p, const char* from,
                         int64_t t_ns = 1'000'000'000) {
    return p.Check(From(from), check_, core::TaiNs{t_ns});
  }
  void TearDown() override { factory_.Shutdown(); }

  CountingFactory next_;
  NtpAccessPolicyFactory factory_{&next_};
  CounterNames names_;
  core::NtpRequestCheck check_{};
};

TEST_F(NtpAccessPolicyTest, DeniedIsDroppedAllowedGoesToTheNextPolicy) {
  auto p = Make(Config("10.96.0.0/24", NtpDenyAction::kDrop));
  const NtpPolicyVerdict denied = Check(*p, "10.96.0.7");
  EXPECT_EQ(denied.action, Action::kDrop);
  EXPECT_EQ(denied.drop_reason, factory_.drop_denied());
  EXPECT_EQ(names_.DropReasonName(factory_.drop_denied()), "ntp_access_denied");
  EXPECT_EQ(next_.seen, 0);
  EXPECT_EQ(Check(*p, "10.97.0.7").action, Action::kAnswer);
  EXPECT_EQ(Check(*p, "2001:db8::1").action, Action::kAnswer);
  EXPECT_EQ(next_.seen, 2);
}

TEST_F(NtpAccessPolicyTest, KodDenyIsLimitedPerWorker) {
  auto p = Make(Config("10.96.0.0/24", NtpDenyAction::kKod));
  int kod = 0, dropped = 0;
  for (int i = 0; i < 300; ++i) {  // 300 requests in the same instant
    const NtpPolicyVerdict v = Check(*p, "10.96.0.7");
    if (v.action == Action::kKiss) {
      EXPECT_EQ(v.kiss_code, core::kNtpKissDeny);
      ++kod;
    } else {
      EXPECT_EQ(v.action, Action::kDrop);
      ++dropped;
    }
  }
  EXPECT_EQ(kod, kDenyKodPerSecond);
  EXPECT_EQ(dropped, 300 - kDenyKodPerSecond);
  // A second later the budget is back.
  EXPECT_EQ(Check(*p, "10.96.0.7", 2'000'000'000).action, Action::kKiss);
}

TEST_F(NtpAccessPolicyTest, AReloadChangesTheVerdictAtTheNextLoad) {
  auto p = Make(Config("10.96.0.0/24", NtpDenyAction::kDrop));
  EXPECT_EQ(Check(*p, "10.96.0.7").action, Action::kDrop);
  const DaemonConfig next = Config("192.0.2.0/24", NtpDenyAction::kDrop);
  ReloadPlan plan;
  ASSERT_TRUE(factory_.Reload({{}, &next, &plan}).ok());
  EXPECT_EQ(Check(*p, "10.96.0.7").action, Action::kDrop);  // not yet
  plan.Commit();
  EXPECT_EQ(Check(*p, "10.96.0.7").action, Action::kAnswer);
  EXPECT_EQ(Check(*p, "192.0.2.1").action, Action::kDrop);
}

TEST_F(NtpAccessPolicyTest, ReloadsTheNtpAccessFlags) {
  EXPECT_EQ(factory_.ReloadableFlags(),
            (std::vector<std::string>{"ntp_allow", "ntp_deny",
                                      "ntp_deny_action"}));
  Make(DaemonConfig{});
}

TEST_F(NtpAccessPolicyTest, AnEmptyListServesEveryoneAndCanBeReloaded) {
  auto p = Make(DaemonConfig{});
  EXPECT_EQ(Check(*p, "10.96.0.7").action, Action::kAnswer);
  const DaemonConfig next = Config("10.96.0.0/24", NtpDenyAction::kDrop);
  ReloadPlan plan;
  ASSERT_TRUE(factory_.Reload({{}, &next, &plan}).ok());
  plan.Commit();
  EXPECT_EQ(Check(*p, "10.96.0.7").action, Action::kDrop);
}

}  // namespace
}  // namespace zg::dataplane
