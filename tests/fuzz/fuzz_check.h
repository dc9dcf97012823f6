// SPDX-License-Identifier: Apache-2.0
// ZG_FUZZ_CHECK(cond): a property a fuzz target asserts about what the code
// under test returned. A failure traps, which libFuzzer reports as a crash
// and saves the input (build-asan/fuzz-artifacts/), like an ASan finding.
//
//   ZG_FUZZ_CHECK(reply_len <= request_len);
#ifndef ZG_TESTS_FUZZ_FUZZ_CHECK_H_
#define ZG_TESTS_FUZZ_FUZZ_CHECK_H_

#define ZG_FUZZ_CHECK(cond)        \
  do {                             \
    if (!(cond)) __builtin_trap(); \
  } while (false)

#endif  // ZG_TESTS_FUZZ_FUZZ_CHECK_H_
