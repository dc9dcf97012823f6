// SPDX-License-Identifier: Apache-2.0
// A test binary that holds a whole folder's tests, run as one meson test per
// source. The folder's sources compile as one unity build (the front end of
// GoogleTest, abseil and our headers once per batch instead of once per
// source, and one link instead of one per source); each meson test passes
// --test_file=PATH, and the binary runs only the tests defined in the source
// whose path ends with PATH, as a binary built from that source alone would.
#ifndef ZEITGEBER_TESTS_UTIL_TEST_FILE_FILTER_H_
#define ZEITGEBER_TESTS_UTIL_TEST_FILE_FILTER_H_

#include <string_view>

namespace zg::testutil {

// Call after ::testing::InitGoogleTest (or InitGoogleMock). Takes
// --test_file=PATH out of argv; with it, gtest's filter becomes the tests
// defined in PATH that also pass the --gtest_filter given, if any. Returns
// false, having printed why, when PATH names no source of this binary's
// tests; true otherwise (and without --test_file, which runs every test).
bool SelectTestFile(int* argc, char** argv);

// The PATH that SelectTestFile took from --test_file; empty without one.
std::string_view SelectedTestFile();

// Whether NAME ("Suite.Test") passes gtest filter FILTER: ':'-separated
// patterns with '*' and '?', then optionally '-' and the patterns excluded.
bool PassesGtestFilter(std::string_view filter, std::string_view name);

}  // namespace zg::testutil

#endif  // ZEITGEBER_TESTS_UTIL_TEST_FILE_FILTER_H_
