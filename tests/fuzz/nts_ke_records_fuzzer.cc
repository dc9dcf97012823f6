// SPDX-License-Identifier: Apache-2.0
// Fuzzes the NTS-KE record parsers (core/nts/nts_ke_records.h) with any
// bytes as a client's request (ParseNtsKeRequest, the server's side) and as
// a server's response (ParseNtsKeResponse, the client's side). Checks:
//  - no crash or UB (ASan/UBSan), whatever the bytes;
//  - every prefix of a complete request is incomplete or an error, never
//    complete (End of Message is the last record);
//  - the response built for an accepted request parses back with its
//    protocol, AEAD and cookies; an error response carries its code.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/nts/nts_cookie.h"
#include "core/nts/nts_ke_records.h"
#include "tests/fuzz/fuzz_check.h"

using namespace zg::core;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> in(data, size);
  NtsKeResponse resp;
  ParseNtsKeResponse(in, &resp);
  const NtsKeRequestParse p = ParseNtsKeRequest(in);
  if (p.state == NtsKeParseState::kError) {
    ZG_FUZZ_CHECK(p.error == NtsKeErrorCode::kBadRequest ||
                  p.error == NtsKeErrorCode::kUnrecognizedCritical);
    const std::vector<uint8_t> e = BuildNtsKeErrorResponse(p.error);
    ZG_FUZZ_CHECK(ParseNtsKeResponse(e, &resp) ==
                  NtsKeResponseParse::kComplete);
    ZG_FUZZ_CHECK(resp.error == static_cast<uint16_t>(p.error));
    return 0;
  }
  if (p.state == NtsKeParseState::kIncomplete) {
    ZG_FUZZ_CHECK(size < kNtsKeMaxRequestSize);
    return 0;
  }
  ZG_FUZZ_CHECK(size <= kNtsKeMaxRequestSize);
  ZG_FUZZ_CHECK(ParseNtsKeRequest(in.first(size - 1)).state !=
                NtsKeParseState::kComplete);
  std::vector<NtsKeCookie> cookies(kNtsKeCookiesPerResponse);
  const std::vector<uint8_t> r =
      BuildNtsKeResponse(p.request, {"ntp.example", 123}, cookies);
  ZG_FUZZ_CHECK(ParseNtsKeResponse(r, &resp) == NtsKeResponseParse::kComplete);
  ZG_FUZZ_CHECK(resp.protocols.size() == (p.request.ntpv4 ? 1u : 0u));
  if (p.request.Accepted()) {
    ZG_FUZZ_CHECK(resp.aeads.size() == 1 &&
                  resp.aeads[0] == kNtsAeadAesSivCmac256);
    ZG_FUZZ_CHECK(resp.cookies.size() == kNtsKeCookiesPerResponse);
    ZG_FUZZ_CHECK(resp.ntp_port == 123);
  } else {
    ZG_FUZZ_CHECK(resp.cookies.empty());
  }
  return 0;
}
