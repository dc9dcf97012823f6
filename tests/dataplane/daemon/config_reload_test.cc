// SPDX-License-Identifier: Apache-2.0
// ConfigReloader (dataplane/daemon/config_reload.h) around a fake pipeline
// factory, and ProtocolPipelineFactory's forwarding of Reload: a reload is
// all or nothing, its outcome is audited and counted (no EAL needed).
#include "dataplane/daemon/config_reload.h"

#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "dataplane/daemon/flags.h"
#include "dataplane/worker/protocol_pipeline.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "prometheus/registry.h"
#include "prometheus/text_serializer.h"

ABSL_FLAG(int32_t, zgtest_cr_limit, 10, "test: reloadable, must be > 0");
ABSL_FLAG(std::string, zgtest_cr_port, "0", "test: restart only");
ABSL_FLAG(bool, zgtest_cr_cmd, false, "test: given on the command line");

namespace zg::dataplane {
namespace config_reload_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// A component whose config is the limit, rebuilt from the flag on reload.
struct Limit {
  int32_t value;
};

class FakeFactory final : public PipelineFactory {
 public:
  explicit FakeFactory(ReaderEpochs* epochs)
      : limit_(std::make_unique<const Limit>(Limit{10}), epochs) {}
  absl::Status RegisterNames(CounterNames&) override {
    return absl::OkStatus();
  }
  absl::StatusOr<Pipeline> Create(const WorkerSetup&) override {
    return Pipeline();
  }
  absl::Status Reload(const ReloadArgs& reload) override {
    ++reloads;
    seen_args = reload.args;
    seen_port = reload.config->port;
    const int32_t v = absl::GetFlag(FLAGS_zgtest_cr_limit);
    if (v <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("--zgtest_cr_limit=", v, ": must be > 0"));
    }
    reload.plan->StagePublish(limit_, std::make_unique<const Limit>(Limit{v}),
                              absl::StrCat("limit ", v));
    return absl::OkStatus();
  }
  int32_t current() const { return limit_.Current()->value; }
  int reloads = 0;
  std::vector<std::string> seen_args;
  std::string seen_port;

 private:
  SwappableConfig<Limit> limit_;
};

class ConfigReloadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = ::testing::TempDir() + "/zg_config_reload_" +
            std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    Write("--zgtest_cr_limit=10\n--zgtest_cr_port=0\n");
    absl::SetFlag(&FLAGS_zgtest_cr_limit, 10);
  }
  void Write(const std::string& text) { std::ofstream(path_) << text; }
  std::unique_ptr<ConfigReloader> Make(PipelineFactory* factory,
                                       bool daemon_config = false) {
    auto r = ConfigReloader::Create(
        {.args = {"--zgtest_cr_cmd", "--flagfile=" + path_},
         .factory = factory,
         .reloadable = std::vector<std::string>{"zgtest_cr_limit"},
         .audit = [this](auto v) { audits_.push_back(std::move(v)); },
         .epochs = &epochs_,
         .daemon_config = daemon_config});
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? std::move(*r) : nullptr;
  }
  std::string AuditValue(size_t i, const std::string& key) {
    for (const auto& [k, v] : audits_.at(i)) {
      if (k == key) return std::get<std::string>(v);
    }
    return "<none>";
  }

  std::string path_;
  ReaderEpochs epochs_;
  std::vector<std::vector<std::pair<std::string, servo::AuditValue>>> audits_;
};

TEST_F(ConfigReloadTest, AValidReloadPublishesAndIsAudited) {
  FakeFactory f(&epochs_);
  auto r = Make(&f);
  Write("--zgtest_cr_limit=25\n--zgtest_cr_port=0\n");
  const ReloadOutcome out = r->Reload();
  EXPECT_TRUE(out.ok) << out.error;
  EXPECT_EQ(f.current(), 25);
  EXPECT_THAT(out.changed, ElementsAre("zgtest_cr_limit: 10 -> 25"));
  EXPECT_THAT(out.components, ElementsAre("limit 25"));
  EXPECT_THAT(f.seen_args,
              ElementsAre("--zgtest_cr_cmd", "--zgtest_cr_limit=25",
                          "--zgtest_cr_port=0"));
  ASSERT_EQ(audits_.size(), 1u);
  EXPECT_EQ(AuditValue(0, "reason"), "reload (SIGHUP)");
  EXPECT_EQ(AuditValue(0, "outcome"), "ok");
  EXPECT_EQ(AuditValue(0, "changed"), "zgtest_cr_limit: 10 -> 25");
  EXPECT_EQ(r->reloads_ok(), 1u);
  // The next reload compares against what is now in force.
  const ReloadOutcome again = r->Reload();
  EXPECT_TRUE(again.ok);
  EXPECT_THAT(again.changed, IsEmpty());
  EXPECT_EQ(AuditValue(1, "changed"), "nothing");
}

TEST_F(ConfigReloadTest, AnInvalidValueIsRejectedAndTheOldConfigStays) {
  FakeFactory f(&epochs_);
  auto r = Make(&f);
  Write("--zgtest_cr_limit=-3\n--zgtest_cr_port=0\n");
  const ReloadOutcome out = r->Reload();
  EXPECT_FALSE(out.ok);
  EXPECT_THAT(out.error, HasSubstr("--zgtest_cr_limit=-3: must be > 0"));
  EXPECT_EQ(f.current(), 10);
  EXPECT_EQ(absl::GetFlag(FLAGS_zgtest_cr_limit), 10);  // rolled back
  EXPECT_EQ(AuditValue(0, "outcome"), "rejected");
  EXPECT_THAT(AuditValue(0, "error"), HasSubstr("must be > 0"));
  EXPECT_EQ(r->reloads_rejected(), 1u);
  // Fixed: the next reload goes through.
  Write("--zgtest_cr_limit=30\n--zgtest_cr_port=0\n");
  EXPECT_TRUE(r->Reload().ok);
  EXPECT_EQ(f.current(), 30);
}

TEST_F(ConfigReloadTest, AMalformedValueIsRejectedBeforeAnyComponentRuns) {
  FakeFactory f(&epochs_);
  auto r = Make(&f);
  Write("--zgtest_cr_limit=ten\n--zgtest_cr_port=0\n");
  const ReloadOutcome out = r->Reload();
  EXPECT_FALSE(out.ok);
  EXPECT_THAT(out.error, HasSubstr("--zgtest_cr_limit=ten"));
  EXPECT_EQ(f.reloads, 0);
  EXPECT_EQ(f.current(), 10);
}

TEST_F(ConfigReloadTest, AnUnreadableOrUnknownFlagfileIsRejected) {
  FakeFactory f(&epochs_);
  auto r = Make(&f);
  Write("--zgtest_cr_limit=20\n--zgtest_cr_no_such_flag=1\n");
  ReloadOutcome out = r->Reload();
  EXPECT_FALSE(out.ok);
  EXPECT_THAT(out.error, HasSubstr("--zgtest_cr_no_such_flag"));
  unlink(path_.c_str());
  out = r->Reload();
  EXPECT_FALSE(out.ok);
  EXPECT_THAT(out.error, HasSubstr("cannot read --flagfile="));
  EXPECT_EQ(f.current(), 10);
  EXPECT_EQ(r->reloads_rejected(), 2u);
}

TEST_F(ConfigReloadTest, RestartOnlyFlagsAreReportedAndNotApplied) {
  FakeFactory f(&epochs_);
  auto r = Make(&f);
  absl::SetFlag(&FLAGS_zgtest_cr_port, "0");
  Write("--zgtest_cr_limit=10\n--zgtest_cr_port=7\n");
  const ReloadOutcome out = r->Reload();
  EXPECT_TRUE(out.ok);
  EXPECT_THAT(out.needs_restart, ElementsAre("zgtest_cr_port: 0 -> 7"));
  EXPECT_EQ(absl::GetFlag(FLAGS_zgtest_cr_port), "0");
  EXPECT_EQ(AuditValue(0, "needs_restart"), "zgtest_cr_port: 0 -> 7");
}

TEST_F(ConfigReloadTest, MetricsCountOutcomes) {
  FakeFactory f(&epochs_);
  auto r = Make(&f);
  prometheus::Registry registry;
  ASSERT_TRUE(r->AddMetrics(registry).ok());
  Write("--zgtest_cr_limit=0\n--zgtest_cr_port=0\n");
  r->Reload();
  Write("--zgtest_cr_limit=5\n--zgtest_cr_port=0\n");
  r->Reload();
  r->Reload();
  const std::string text =
      prometheus::TextSerializer().Serialize(registry.Collect());
  EXPECT_THAT(text,
              HasSubstr("zeitgeber_config_reloads_total{outcome=\"ok\"} 2"));
  EXPECT_THAT(text,
              HasSubstr("zeitgeber_config_reloads_total{outcome=\"rejected\"} "
                        "1"));
  EXPECT_THAT(text, HasSubstr("zeitgeber_config_last_reload_successful 1"));
  EXPECT_THAT(text, HasSubstr("zeitgeber_config_retired_pending 0"));
}

// Components get the DaemonConfig the re-read flags make, as Configure()
// got it at start (zeitgeberd's own flags keep their values: --port here).
TEST_F(ConfigReloadTest, ComponentsGetTheDaemonConfigOfTheReReadFlags) {
  FakeFactory f(&epochs_);
  auto r = Make(&f, /*daemon_config=*/true);
  Write("--zgtest_cr_limit=12\n--zgtest_cr_port=0\n");
  const ReloadOutcome out = r->Reload();
  EXPECT_TRUE(out.ok) << out.error;
  EXPECT_EQ(f.seen_port, "0");
  EXPECT_EQ(f.current(), 12);
}

// Two plugins behind ProtocolPipelineFactory: the second rejects, so the
// first one's staged config is never published.
class FakePlugin final : public ProtocolPlugin {
 public:
  FakePlugin(ReaderEpochs* epochs, bool fail)
      : fail_(fail), limit_(std::make_unique<const Limit>(Limit{1}), epochs) {}
  absl::Status RegisterNames(CounterNames&) override {
    return absl::OkStatus();
  }
  absl::Status AddHandlers(const WorkerSetup&, Pipeline&) override {
    return absl::OkStatus();
  }
  std::vector<std::string> ReloadableFlags() const override {
    return {fail_ ? "zgtest_cr_port" : "zgtest_cr_limit"};
  }
  absl::Status Reload(const ReloadArgs& reload) override {
    if (fail_) return absl::InvalidArgumentError("plugin: bad value");
    reload.plan->StagePublish(limit_, std::make_unique<const Limit>(Limit{2}),
                              "plugin limit 2");
    return absl::OkStatus();
  }
  int32_t current() const { return limit_.Current()->value; }

 private:
  bool fail_;
  SwappableConfig<Limit> limit_;
};

TEST_F(ConfigReloadTest, OneRejectingPluginMeansNothingIsPublished) {
  FakePlugin good(&epochs_, false), bad(&epochs_, true);
  ProtocolPipelineFactory factory({.plugins = {&good, &bad}});
  auto r = Make(&factory);
  const ReloadOutcome out = r->Reload();
  EXPECT_FALSE(out.ok);
  EXPECT_EQ(out.error, "plugin: bad value");
  EXPECT_EQ(good.current(), 1);
  ProtocolPipelineFactory both_good({.plugins = {&good}});
  auto r2 = Make(&both_good);
  EXPECT_TRUE(r2->Reload().ok);
  EXPECT_EQ(good.current(), 2);
  EXPECT_THAT(factory.ReloadableFlags(),
              ElementsAre("zgtest_cr_limit", "zgtest_cr_port"));
}

// Without an explicit list, the reloadable flags are those the components
// apply: a changed flag no component handles needs a restart.
TEST_F(ConfigReloadTest, TheComponentsSayWhichFlagsReload) {
  FakePlugin plugin(&epochs_, false);  // applies zgtest_cr_limit
  ProtocolPipelineFactory factory({.plugins = {&plugin}});
  auto r = ConfigReloader::Create({.args = {"--flagfile=" + path_},
                                   .factory = &factory,
                                   .epochs = &epochs_,
                                   .daemon_config = false});
  ASSERT_TRUE(r.ok()) << r.status();
  Write("--zgtest_cr_limit=11\n--zgtest_cr_port=9\n");
  const ReloadOutcome out = (*r)->Reload();
  EXPECT_TRUE(out.ok) << out.error;
  EXPECT_THAT(out.changed, ElementsAre("zgtest_cr_limit: 10 -> 11"));
  EXPECT_THAT(out.needs_restart, ElementsAre("zgtest_cr_port: 0 -> 9"));
  EXPECT_EQ(absl::GetFlag(FLAGS_zgtest_cr_limit), 11);
}

}  // namespace
}  // namespace config_reload_test
}  // namespace zg::dataplane
