// SPDX-License-Identifier: Apache-2.0
// The allocation counter of tests/util/alloc_count.h: OpenSSL's allocator
// hooks and a replaced global operator new/delete.
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

// Every unaligned form of new and delete, so that whatever the standard
// library calls (std::stable_sort's buffer takes the nothrow form) is counted
// and pairs with a delete of the same allocator.
void* operator new(size_t n, const std::nothrow_t&) noexcept {
  allocs.fetch_add(1);
  return std::malloc(n == 0 ? 1 : n);
}
void* operator new(size_t n) {
  void* p = operator new(n, std::nothrow);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
void* operator new[](size_t n) { return operator new(n); }
void* operator new[](size_t n, const std::nothrow_t&) noexcept {
  return operator new(n, std::nothrow);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}

namespace zg::testutil {

long AllocationCount() { return allocs.load(); }
bool AllocationHooksInstalled() { return kHooked; }

}  // namespace zg::testutil
