// SPDX-License-Identifier: Apache-2.0
// Fuzzes the interleaved-mode table (core/ntp/ntp_interleave.h) with an
// arbitrary sequence of saves, transmit times, lookups and unique-key
// requests, against a reference map: no crash, no sanitizer report; a hit
// returns exactly the transmit time kept for that key, and no key answers
// twice (replay) or after it was saved twice (ambiguous). The first 48
// bytes are also read as a request (ValidateNtpRequest, then
// NtpInterleavedLookup).
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>

#include "core/base/byte_order.h"
#include "core/ntp/ntp_interleave.h"
#include "core/ntp/ntp_wire.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using zg::core::NtpInterleaveTable;
using zg::core::NtpTimestamp;

struct Model {
  bool has_tx = false;
  bool used = false;
  uint64_t tx = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace zg::core;
  if (size >= kNtpHeaderSize) {
    const NtpRequestCheck c = ValidateNtpRequest(data, kNtpHeaderSize);
    if (c.drop == NtpDrop::kNone) {
      const NtpInterleavedRequest r = NtpInterleavedLookup(data, c);
      ZG_FUZZ_CHECK(!r.looks_interleaved || (r.origin.fraction & 1) != 0);
    }
  }
  absl::StatusOr<NtpInterleaveTable> t =
      NtpInterleaveTable::Create(kNtpInterleaveMinSlots);
  ZG_FUZZ_CHECK(t.ok());
  std::map<uint64_t, Model> model;
  std::array<std::pair<uint32_t, uint64_t>, 4> recent = {};  // slot, key
  // Keys from a small space around one base so that lookups collide.
  for (size_t at = 0; at + 9 <= size; at += 9) {
    const uint8_t op = data[at];
    const uint64_t arg = zg::core::LoadBe64(data + at + 1);
    const uint64_t key = (0xe8fe6f80'00000000ull + (arg & 0xffff)) | 1;
    switch (op % 5) {
      case 0: {  // save
        const NtpInterleaveTable::Saved s = t->Save(NtpTimestamp::FromU64(key));
        if (s.result == NtpInterleaveTable::SaveResult::kDuplicate) {
          ZG_FUZZ_CHECK(s.slot == kNtpInterleaveNoSlot);
          model[key].used = true;
        } else if (s.slot != kNtpInterleaveNoSlot) {
          ZG_FUZZ_CHECK(s.slot < t->slots());
          model[key] = Model{};
          recent[op / 5 % recent.size()] = {s.slot, key};
        }
        break;
      }
      case 1: {  // transmit time for a recent save
        auto [slot, k] = recent[op / 5 % recent.size()];
        if (slot == 0 && k == 0) break;
        const uint64_t tx = k + (arg >> 48) - 0x8000;
        auto it = model.find(k);
        t->SetTx(slot, NtpTimestamp::FromU64(tx));
        // Only the first SetTx of a pending entry counts.
        if (it != model.end() && !it->second.has_tx && !it->second.used) {
          it->second.has_tx = true;
          it->second.tx = TagNtpTx(NtpTimestamp::FromU64(tx)).ToU64();
        }
        recent[op / 5 % recent.size()] = {};
        break;
      }
      case 2: {  // not sent
        auto [slot, k] = recent[op / 5 % recent.size()];
        if (slot == 0 && k == 0) break;
        t->ClearTx(slot);
        auto it = model.find(k);
        if (it != model.end() && !it->second.has_tx) it->second.used = true;
        recent[op / 5 % recent.size()] = {};
        break;
      }
      case 3: {  // lookup
        const NtpInterleaveTable::Taken k = t->Take(NtpTimestamp::FromU64(key));
        auto it = model.find(key);
        if (k.result == NtpInterleaveTable::TakeResult::kHit) {
          ZG_FUZZ_CHECK(it != model.end() && !it->second.used &&
                        it->second.has_tx && it->second.tx == k.tx.ToU64());
          ZG_FUZZ_CHECK((k.tx.fraction & 1) == 0);
        }
        if (it != model.end()) it->second.used = true;
        break;
      }
      case 4: {  // a unique key: tagged, and after the previous one if near
        const NtpTimestamp u = t->UniqueRx(NtpTimestamp::FromU64(arg));
        ZG_FUZZ_CHECK((u.fraction & 1) == 1);
        break;
      }
    }
  }
  return 0;
}
