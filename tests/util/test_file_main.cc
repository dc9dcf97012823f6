// SPDX-License-Identifier: Apache-2.0
// main() of the test binaries that hold a folder's tests
// (tests/util/test_file_filter.h): GoogleMock's flags, then --test_file.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/util/test_file_filter.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleMock(&argc, argv);
  if (!zg::testutil::SelectTestFile(&argc, argv)) return 1;
  return RUN_ALL_TESTS();
}
