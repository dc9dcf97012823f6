// SPDX-License-Identifier: Apache-2.0
#include "tests/util/test_file_filter.h"

#include "gtest/gtest.h"

namespace zg::testutil {
namespace test_file_filter_test {
namespace {

TEST(PassesGtestFilter, PositivePatterns) {
  EXPECT_TRUE(PassesGtestFilter("*", "Hex.Decode"));
  EXPECT_TRUE(PassesGtestFilter("", "Hex.Decode"));
  EXPECT_TRUE(PassesGtestFilter("Pcap.*:Hex.*", "Hex.Decode"));
  EXPECT_TRUE(PassesGtestFilter("Hex.Dec?de", "Hex.Decode"));
  EXPECT_FALSE(PassesGtestFilter("Pcap.*", "Hex.Decode"));
  EXPECT_FALSE(PassesGtestFilter("Hex.Dec", "Hex.Decode"));
}

TEST(PassesGtestFilter, NegativePatterns) {
  EXPECT_FALSE(PassesGtestFilter("-Hex.*", "Hex.Decode"));
  EXPECT_TRUE(PassesGtestFilter("-Pcap.*", "Hex.Decode"));
  EXPECT_FALSE(PassesGtestFilter("*-*.Decode:Pcap.*", "Hex.Decode"));
  EXPECT_TRUE(PassesGtestFilter("Hex.*-Hex.Encode", "Hex.Decode"));
  EXPECT_FALSE(PassesGtestFilter("-*", "Hex.Decode"));
}

// Run by meson through the folder binary with --test_file: what runs is
// this source's tests, and the binary holds others that do not run.
TEST(SelectTestFile, RunsOnlyTheSelectedSource) {
  if (SelectedTestFile().empty()) GTEST_SKIP() << "run without --test_file";
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  int others = 0;
  for (int s = 0; s < unit.total_test_suite_count(); ++s) {
    const ::testing::TestSuite& suite = *unit.GetTestSuite(s);
    for (int t = 0; t < suite.total_test_count(); ++t) {
      const ::testing::TestInfo& info = *suite.GetTestInfo(t);
      const std::string_view file = info.file();
      const bool here = file.ends_with("/test_file_filter_test.cc");
      EXPECT_EQ(info.should_run(), here)
          << info.test_suite_name() << "." << info.name();
      others += here ? 0 : 1;
    }
  }
  EXPECT_GT(others, 0) << "the binary holds only this source's tests";
  EXPECT_EQ(unit.test_to_run_count(), 3);
}

}  // namespace
}  // namespace test_file_filter_test
}  // namespace zg::testutil
