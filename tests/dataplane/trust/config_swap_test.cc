// SPDX-License-Identifier: Apache-2.0
#include "dataplane/trust/config_swap.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace zg::dataplane {
namespace {

// A config that counts the live copies and poisons itself when freed, so a
// reader that used a freed one would see it (and ASan/TSan would report it).
std::atomic<int> g_live{0};
struct Config {
  explicit Config(uint64_t v) : value(v), check(~v) { g_live.fetch_add(1); }
  ~Config() {
    value = 0;
    check = 0;
    g_live.fetch_sub(1);
  }
  bool Intact() const { return check == ~value; }
  uint64_t value;
  uint64_t check;
};

std::unique_ptr<const Config> Make(uint64_t v) {
  return std::make_unique<const Config>(v);
}

class ConfigSwapTest : public ::testing::Test {
 protected:
  void SetUp() override { g_live.store(0); }
  ReaderEpochs epochs_;
};

TEST_F(ConfigSwapTest, CurrentIsTheLastPublished) {
  SwappableConfig<Config> c(Make(1), &epochs_);
  EXPECT_EQ(c.Current()->value, 1u);
  ASSERT_TRUE(c.Publish(Make(2)).ok());
  EXPECT_EQ(c.Current()->value, 2u);
  EXPECT_EQ(c.publishes(), 1u);
}

TEST_F(ConfigSwapTest, NullIsRejectedAndTheOldStays) {
  SwappableConfig<Config> c(Make(1), &epochs_);
  const absl::Status s = c.Publish(nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(c.Current()->value, 1u);
}

TEST_F(ConfigSwapTest, WithNoReaderOnlineTheOldIsFreedAtOnce) {
  SwappableConfig<Config> c(Make(1), &epochs_);
  ASSERT_TRUE(c.Publish(Make(2)).ok());
  EXPECT_EQ(g_live.load(), 1);
  EXPECT_EQ(epochs_.pending(), 0u);
  EXPECT_EQ(epochs_.freed_total(), 1u);
}

TEST_F(ConfigSwapTest, OldIsFreedOnlyAfterEveryOnlineReaderPassedABoundary) {
  SwappableConfig<Config> c(Make(1), &epochs_);
  epochs_.Online(0);
  epochs_.Online(3);
  const Config* held = c.Current();  // worker 0 holds the old config
  ASSERT_TRUE(c.Publish(Make(2)).ok());
  EXPECT_EQ(g_live.load(), 2);
  EXPECT_EQ(epochs_.pending(), 1u);
  EXPECT_TRUE(held->Intact());
  epochs_.Quiescent(0);
  EXPECT_EQ(epochs_.Reclaim(), 0u);  // worker 3 has not passed one yet
  EXPECT_TRUE(held->Intact());
  epochs_.Quiescent(3);
  EXPECT_EQ(epochs_.Reclaim(), 1u);
  EXPECT_EQ(g_live.load(), 1);
  EXPECT_EQ(c.Current()->value, 2u);
}

TEST_F(ConfigSwapTest, ABoundaryBeforeThePublishDoesNotCount) {
  SwappableConfig<Config> c(Make(1), &epochs_);
  epochs_.Online(0);
  epochs_.Quiescent(0);
  ASSERT_TRUE(c.Publish(Make(2)).ok());
  EXPECT_EQ(epochs_.Reclaim(), 0u);
  epochs_.Quiescent(0);
  EXPECT_EQ(epochs_.Reclaim(), 1u);
}

TEST_F(ConfigSwapTest, AStoppedReaderDoesNotBlockReclamation) {
  SwappableConfig<Config> c(Make(1), &epochs_);
  epochs_.Online(0);
  epochs_.Online(1);
  ASSERT_TRUE(c.Publish(Make(2)).ok());
  ASSERT_TRUE(c.Publish(Make(3)).ok());
  EXPECT_EQ(epochs_.pending(), 2u);
  epochs_.Quiescent(0);
  epochs_.Offline(1);  // stopped (or blocked in a wait): holds nothing
  EXPECT_EQ(epochs_.Reclaim(), 2u);
  EXPECT_EQ(g_live.load(), 1);
}

TEST_F(ConfigSwapTest, RetiredConfigsAreFreedInOrderAsReadersCatchUp) {
  SwappableConfig<Config> c(Make(1), &epochs_);
  epochs_.Online(0);
  ASSERT_TRUE(c.Publish(Make(2)).ok());  // retires 1 at epoch 2
  epochs_.Quiescent(0);                  // worker 0 at epoch 2
  ASSERT_TRUE(c.Publish(Make(3)).ok());  // frees 1, retires 2 at epoch 3
  EXPECT_EQ(epochs_.pending(), 1u);
  EXPECT_EQ(g_live.load(), 2);
  epochs_.Quiescent(0);
  EXPECT_EQ(epochs_.Reclaim(), 1u);
  EXPECT_EQ(epochs_.retired_total(), 2u);
  EXPECT_EQ(epochs_.freed_total(), 2u);
}

TEST_F(ConfigSwapTest, SeveralConfigsShareOneSetOfEpochs) {
  SwappableConfig<Config> a(Make(1), &epochs_);
  SwappableConfig<Config> b(Make(10), &epochs_);
  epochs_.Online(0);
  ASSERT_TRUE(a.Publish(Make(2)).ok());
  ASSERT_TRUE(b.Publish(Make(11)).ok());
  EXPECT_EQ(epochs_.pending(), 2u);
  epochs_.Quiescent(0);
  EXPECT_EQ(epochs_.Reclaim(), 2u);
  EXPECT_EQ(g_live.load(), 2);
}

TEST_F(ConfigSwapTest, DestructionFreesTheCurrentConfig) {
  {
    SwappableConfig<Config> c(Make(1), &epochs_);
    EXPECT_EQ(g_live.load(), 1);
  }
  EXPECT_EQ(g_live.load(), 0);
}

// Readers poll like workers (Online, then Current + Quiescent per pass,
// Offline at the end) while the control thread publishes and reclaims as
// fast as it can: no reader ever sees a freed or torn config, every value
// a reader sees only moves forward, and everything is freed in the end.
// Also run under TSan (tests/meson.build, suite 'tsan').
TEST_F(ConfigSwapTest, ReadersNeverSeeAFreedConfigWhileTheWriterPublishes) {
  constexpr int kReaders = 3;
  constexpr uint64_t kPublishes = 20000;
  SwappableConfig<Config> c(Make(0), &epochs_);
  std::atomic<bool> done{false};
  std::atomic<uint64_t> bad{0}, passes{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < kReaders; ++r) {
    readers.emplace_back([&, r] {
      epochs_.Online(r);
      uint64_t last = 0, n = 0;
      while (!done.load(std::memory_order_relaxed)) {
        for (int burst = 0; burst < 4; ++burst) {
          const Config* cfg = c.Current();
          if (!cfg->Intact() || cfg->value < last) bad.fetch_add(1);
          last = cfg->value;
        }
        epochs_.Quiescent(r);
        ++n;
        // One reader goes offline and back, as a stopped worker would.
        if (r == kReaders - 1 && n % 64 == 0) {
          epochs_.Offline(r);
          std::this_thread::yield();
          epochs_.Online(r);
        }
      }
      epochs_.Offline(r);
      passes.fetch_add(n);
    });
  }
  for (uint64_t v = 1; v <= kPublishes; ++v) {
    ASSERT_TRUE(c.Publish(Make(v)).ok());
    if (v % 128 == 0) std::this_thread::yield();
  }
  done.store(true);
  for (std::thread& t : readers) t.join();
  epochs_.Reclaim();
  EXPECT_EQ(bad.load(), 0u);
  EXPECT_GT(passes.load(), 0u);
  EXPECT_EQ(epochs_.pending(), 0u);
  EXPECT_EQ(g_live.load(), 1);
  EXPECT_EQ(c.Current()->value, kPublishes);
}

}  // namespace
}  // namespace zg::dataplane
