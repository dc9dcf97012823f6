// SPDX-License-Identifier: Apache-2.0
#include "servo/discipline/selection.h"

#include <vector>

#include "gtest/gtest.h"

namespace zg::servo {
namespace selection_test {
namespace {

TEST(IntersectTest, MarzulloClassicExample) {
  const Interval iv[] = {{8, 12}, {11, 13}, {10, 12}};
  const IntersectionResult r = Intersect(iv);
  ASSERT_TRUE(r.found);
  EXPECT_EQ(r.lo, 11);
  EXPECT_EQ(r.hi, 12);
  EXPECT_EQ(r.agree, 3);
}

TEST(IntersectTest, ToleratesAMinorityOfFalsetickers) {
  const Interval iv[] = {{-10, 10}, {-5, 15}, {0, 20}, {1000, 1010}};
  const IntersectionResult r = Intersect(iv);
  ASSERT_TRUE(r.found);
  EXPECT_EQ(r.lo, 0);
  EXPECT_EQ(r.hi, 10);
  EXPECT_EQ(r.agree, 3);
}

TEST(IntersectTest, NoMajorityFound) {
  const Interval iv[] = {{0, 1}, {10, 11}, {20, 21}, {30, 31}};
  EXPECT_FALSE(Intersect(iv).found);
  const Interval touching[] = {{0, 1}, {1, 2}};
  EXPECT_TRUE(Intersect(touching).found);
}

SelectionCandidate Cand(int id, int prio, double off, double hw,
                        bool usable = true) {
  SelectionCandidate c;
  c.id = id;
  c.priority = prio;
  c.usable = usable;
  c.votes = true;
  c.offset_ns = off;
  c.half_width_ns = hw;
  return c;
}

TEST(SourceSelectorTest, PicksByPriorityAmongTruechimers) {
  SourceSelector sel({});
  std::vector<SelectionCandidate> c = {Cand(0, 0, 1e6, 100), Cand(1, 1, 0, 100),
                                       Cand(2, 2, 20, 100)};
  const SelectionResult r = sel.Select(c, 200);
  EXPECT_TRUE(r.voted);
  EXPECT_EQ(r.falsetickers, std::vector<int>{0});
  EXPECT_EQ(r.selected, 1);
  EXPECT_TRUE(r.switched);
  EXPECT_FALSE(r.model_outvoted);
}

TEST(SourceSelectorTest, TwoSourcesCannotVote) {
  SourceSelector sel({});
  std::vector<SelectionCandidate> c = {Cand(0, 0, 1e6, 100),
                                       Cand(1, 1, 0, 100)};
  const SelectionResult r = sel.Select(c, 200);
  EXPECT_FALSE(r.voted);
  EXPECT_TRUE(r.falsetickers.empty());
  EXPECT_EQ(r.selected, 0);
}

TEST(SourceSelectorTest, HysteresisDelaysSwitchingToABetterSource) {
  SelectorConfig cfg;
  cfg.switch_polls = 3;
  SourceSelector sel(cfg);
  std::vector<SelectionCandidate> c = {Cand(0, 0, 0, 100, /*usable=*/false),
                                       Cand(1, 1, 0, 100)};
  EXPECT_EQ(sel.Select(c, 200).selected, 1);
  c[0].usable = true;  // the preferred source comes back
  EXPECT_EQ(sel.Select(c, 200).selected, 1);
  EXPECT_EQ(sel.Select(c, 200).selected, 1);
  const SelectionResult r = sel.Select(c, 200);
  EXPECT_EQ(r.selected, 0);
  EXPECT_TRUE(r.switched);
  EXPECT_EQ(r.previous, 1);
}

TEST(SourceSelectorTest, HysteresisRestartsWhenTheChallengerFalters) {
  SelectorConfig cfg;
  cfg.switch_polls = 2;
  SourceSelector sel(cfg);
  std::vector<SelectionCandidate> c = {Cand(0, 0, 0, 100, false),
                                       Cand(1, 1, 0, 100)};
  sel.Select(c, 200);
  c[0].usable = true;
  EXPECT_EQ(sel.Select(c, 200).selected, 1);
  c[0].usable = false;
  EXPECT_EQ(sel.Select(c, 200).selected, 1);
  c[0].usable = true;
  EXPECT_EQ(sel.Select(c, 200).selected, 1);  // counting from 1 again
  EXPECT_EQ(sel.Select(c, 200).selected, 0);
}

TEST(SourceSelectorTest, UnusableSelectedSourceIsReplacedAtOnce) {
  SourceSelector sel({});
  std::vector<SelectionCandidate> c = {Cand(0, 0, 0, 100), Cand(1, 1, 0, 100)};
  EXPECT_EQ(sel.Select(c, 200).selected, 0);
  c[0].usable = false;
  EXPECT_EQ(sel.Select(c, 200).selected, 1);
  c[1].usable = false;
  EXPECT_EQ(sel.Select(c, 200).selected, -1);
}

TEST(SourceSelectorTest, MajorityAwayFromTheModelOutvotesIt) {
  SourceSelector sel({});
  std::vector<SelectionCandidate> c = {Cand(0, 0, -1e6, 100),
                                       Cand(1, 1, -1e6 + 50, 100),
                                       Cand(2, 2, -1e6 - 30, 100)};
  SelectionResult r = sel.Select(c, 500);
  EXPECT_TRUE(r.model_outvoted);
  EXPECT_EQ(r.selected, 0);
  r = sel.Select(c, -1);  // no bound: nothing to out-vote
  EXPECT_FALSE(r.model_outvoted);
}

TEST(SourceSelectorTest, ValidatesConfig) {
  EXPECT_TRUE(ValidateSelectorConfig({}).ok());
  SelectorConfig c;
  c.min_voters = 2;
  EXPECT_FALSE(ValidateSelectorConfig(c).ok());
}

}  // namespace
}  // namespace selection_test
}  // namespace zg::servo
