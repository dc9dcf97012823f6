// SPDX-License-Identifier: Apache-2.0
// Allocation counting for the tests that prove a per-request path allocates
// nothing: linked into such a test executable only (never into
// zg_testutil), its alloc_count.cc replaces the global operator new and
// installs OpenSSL's allocator hooks (CRYPTO_set_mem_functions, from a
// static initializer before OpenSSL's first allocation); both count.
//
//   ASSERT_TRUE(testutil::AllocationHooksInstalled());
//   const long before = testutil::AllocationCount();
//   ... the per-request calls ...
//   EXPECT_EQ(testutil::AllocationCount(), before);
#ifndef ZG_TESTS_UTIL_ALLOC_COUNT_H_
#define ZG_TESTS_UTIL_ALLOC_COUNT_H_

namespace zg::testutil {

// Allocations so far: operator new plus OpenSSL's malloc and realloc.
long AllocationCount();
// False when OpenSSL allocated before the hooks could be installed.
bool AllocationHooksInstalled();

}  // namespace zg::testutil

#endif  // ZG_TESTS_UTIL_ALLOC_COUNT_H_
