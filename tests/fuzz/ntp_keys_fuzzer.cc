// SPDX-License-Identifier: Apache-2.0
// Fuzzes the NTP keyfile parser (core/ntp/ntp_keys.h: ParseNtpKeys) with any
// bytes as keyfile text, and the MACs built from what it accepts
// (core/ntp/ntp_mac.h). Checks:
//  - no crash or UB (ASan/UBSan), whatever the bytes;
//  - an error names its line ("line N: ...");
//  - an accepted table has ids sorted, unique and non-zero, non-empty
//    secrets, and AES keys of exactly 16 / 32 bytes;
//  - the table written back as "ID TYPE HEX:..." lines parses to the same
//    keys;
//  - an NtpMacer is built from it, and a header signed with its first key
//    verifies.
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/ntp/ntp_keys.h"
#include "core/ntp/ntp_mac.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using namespace zg::core;

std::string HexOf(const std::string& s) {
  static const char* d = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out.push_back(d[c >> 4]);
    out.push_back(d[c & 15]);
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<NtpKeyTable> t = ParseNtpKeys(text);
  if (!t.ok()) {
    ZG_FUZZ_CHECK(absl::StartsWith(t.status().message(), "line "));
    return 0;
  }
  std::string again_text;
  for (size_t i = 0; i < t->size(); ++i) {
    const NtpKey& k = t->keys()[i];
    ZG_FUZZ_CHECK(k.id != 0);
    ZG_FUZZ_CHECK(i == 0 || t->keys()[i - 1].id < k.id);
    ZG_FUZZ_CHECK(!k.secret.empty());
    if (k.type == NtpKeyType::kAes128) ZG_FUZZ_CHECK(k.secret.size() == 16);
    if (k.type == NtpKeyType::kAes256) ZG_FUZZ_CHECK(k.secret.size() == 32);
    ZG_FUZZ_CHECK(t->Find(k.id) == &k);
    absl::StrAppend(&again_text, k.id, " ", NtpKeyTypeName(k.type),
                    " HEX:", HexOf(k.secret), "\n");
  }
  absl::StatusOr<NtpKeyTable> again = ParseNtpKeys(again_text);
  ZG_FUZZ_CHECK(again.ok() && again->size() == t->size());
  for (size_t i = 0; i < t->size(); ++i) {
    ZG_FUZZ_CHECK(again->keys()[i].id == t->keys()[i].id &&
                  again->keys()[i].type == t->keys()[i].type &&
                  again->keys()[i].secret == t->keys()[i].secret);
  }
  auto macer = NtpMacer::Create(*t);
  ZG_FUZZ_CHECK(macer.ok());
  if (t->empty()) return 0;
  uint8_t packet[48 + 24] = {0x23};
  const uint32_t n = (*macer)->Sign(0, packet, 48);
  ZG_FUZZ_CHECK(n == NtpKeyMacSize(t->keys()[0].type));
  NtpTrailer trailer;
  trailer.mac = NtpMacKind::kSymmetric;
  trailer.mac_offset = 48;
  trailer.mac_size = n;
  trailer.mac_key_id = t->keys()[0].id;
  ZG_FUZZ_CHECK((*macer)->Verify(packet, trailer).verdict ==
                NtpMacVerdict::kOk);
  return 0;
}
