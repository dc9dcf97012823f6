// SPDX-License-Identifier: Apache-2.0
// Fuzzes the NTS client's reply check (core/nts/nts_client.h VerifyReply,
// IsNtsNak) on arbitrary bytes. Properties: no read past len (exact-size
// heap copy under ASan), never more cookies than fit the jar, none taken
// from a reply that fails, and a NAK only where IsNtsNak agrees.
//
// Input layout: bytes 0..31 the unique identifier we expect; the rest is the
// reply. The keys are fixed (the seeds are real chronyd replies, whose tags
// fail under them: the walk up to the authenticator is what is fuzzed).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "core/nts/nts_client.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace zg::core;
  if (size < kNtsUniqueIdSize || size > 4096) return 0;
  static NtsClientAssociation* assoc = [] {
    auto* a = new NtsClientAssociation;
    NtsKeys k;
    for (size_t i = 0; i < kNtsKeySize; ++i) {
      k.c2s[i] = static_cast<uint8_t>(i);
      k.s2c[i] = static_cast<uint8_t>(0x40 + i);
    }
    a->SetKeys(k);
    return a;
  }();
  const uint8_t* uid = data;
  const uint32_t len = static_cast<uint32_t>(size - kNtsUniqueIdSize);
  std::unique_ptr<uint8_t[]> buf(new uint8_t[len == 0 ? 1 : len]);
  std::memcpy(buf.get(), data + kNtsUniqueIdSize, len);
  assoc->ClearCookies();
  const bool nak = IsNtsNak(buf.get(), len, uid);
  const NtsReplyCheck c = assoc->VerifyReply(buf.get(), len, uid, true);
  ZG_FUZZ_CHECK(assoc->cookies() <= kNtsMaxCookies);
  ZG_FUZZ_CHECK(c.cookies_stored <= c.cookies);
  // VerifyReply's NAK needs our identifier in every UID field before the
  // authenticator, so the first one: IsNtsNak's.
  if (c.status == NtsReplyStatus::kNak) ZG_FUZZ_CHECK(nak);
  if (c.status != NtsReplyStatus::kOk) {
    ZG_FUZZ_CHECK(c.cookies_stored == 0);
  }
  return 0;
}
