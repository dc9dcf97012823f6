// SPDX-License-Identifier: Apache-2.0
#include "tests/util/alloc_count.h"

#include <openssl/crypto.h>

#include <atomic>
#include <cstdlib>
#include <new>

namespace {

std::atomic<long> allocs{0};

void* CountingMalloc(size_t n, const char*, int) {
  allocs.fetch_add(1);
  return std::malloc(n);
}
void* CountingRealloc(void* p, size_t n, const char*, int) {
  allocs.fetch_add(1);
  return std::realloc(p, n);
}
void CountingFree(void* p, const char*, int) { std::free(p); }

const bool kHooked = CRYPTO_set_mem_functions(CountingMalloc, CountingRealloc,
                                              CountingFree) == 1;

}  // namespace

void* operator new(size_t n) {
  allocs.fetch_add(1);
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }

namespace zg::testutil {

long AllocationCount() { return allocs.load(); }
bool AllocationHooksInstalled() { return kHooked; }

}  // namespace zg::testutil
