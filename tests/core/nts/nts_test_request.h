// SPDX-License-Identifier: Apache-2.0
// TEST-ONLY: NTS client requests built by hand from RFC 8915 (AesSiv and
// NtsCookieKeystore directly) and replies opened the way a client would,
// for the tests of core/nts/nts_server.h, the worker's integration tests,
// the fuzz seeds and bench/dataplane/ntp/nts_worker_benchmark.cc. Allocates
// freely (not for the hot path).
//
//   NtsKeys keys = TestKeys(1);
//   NtsClientSpec spec;
//   spec.cookie = MintCookie(keystore, keys);
//   spec.c2s = keys.c2s;
//   std::vector<uint8_t> req = BuildNtsRequest(spec);
//   ... server ...
//   NtsReplyView r = OpenNtsReply(reply, n, spec.uid, keys.s2c);
//   EXPECT_TRUE(r.ok) << r.error;
#ifndef ZG_TESTS_CORE_NTS_NTS_TEST_REQUEST_H_
#define ZG_TESTS_CORE_NTS_NTS_TEST_REQUEST_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/ntp/ntp_wire.h"
#include "core/nts/nts_cookie.h"
#include "core/time/time_types.h"

namespace zg::core::testing {

// Keys whose bytes derive from `seed` (c2s != s2c).
NtsKeys TestKeys(uint8_t seed);
// A 32-byte master key whose bytes derive from `seed`.
std::vector<uint8_t> TestMasterKey(uint8_t seed);
// A cookie for `keys` sealed under `keystore`'s current key.
std::vector<uint8_t> MintCookie(const NtsCookieKeystore& keystore,
                                const NtsKeys& keys, uint8_t nonce_seed = 7);

// One extension field: type, length (4 + body padded to 4, at least 16),
// body, zero padding.
std::vector<uint8_t> NtsField(uint16_t type, const std::vector<uint8_t>& body);

// A chrony 4.3-shaped request by default: UID 32 bytes, one cookie, no
// placeholder, authenticator with a 16-byte nonce and empty plaintext.
struct NtsClientSpec {
  NtpTimestamp t1{0xe8fe6f80u, 0x12345678u};  // the request's transmit time
  // Origin and receive (zero in basic mode; an interleaved client's are
  // our previous T2 and its own T4, RFC 9769).
  NtpTimestamp origin{};
  NtpTimestamp receive{};
  std::vector<uint8_t> uid = std::vector<uint8_t>(32, 0x55);
  std::vector<uint8_t> cookie;  // body of the NTS Cookie field
  uint32_t placeholders = 0;    // Cookie Placeholders, as long as cookie
  std::vector<uint8_t> nonce = std::vector<uint8_t>(16, 0xa5);
  std::array<uint8_t, kNtsKeySize> c2s{};
  // Fields placed between the header and the UID (authenticated, ignored).
  std::vector<std::vector<uint8_t>> leading_fields;
  bool cookie_before_uid = false;   // the fields in another order
  std::vector<uint8_t> encrypted;   // plaintext inside the authenticator
  uint32_t auth_extra_padding = 0;  // bytes after the ciphertext (x4)
};
std::vector<uint8_t> BuildNtsRequest(const NtsClientSpec& spec);

// A reply read as a client reads it.
struct NtsReplyView {
  bool ok = false;    // an authenticated reply whose UID matches
  bool nak = false;   // a KoD NTSN with the UID and no authenticator
  std::string error;  // why neither
  NtpHeader header;
  std::vector<std::vector<uint8_t>> cookies;  // bodies, from the plaintext
};
NtsReplyView OpenNtsReply(const uint8_t* payload, uint32_t len,
                          const std::vector<uint8_t>& uid,
                          const std::array<uint8_t, kNtsKeySize>& s2c);

}  // namespace zg::core::testing

#endif  // ZG_TESTS_CORE_NTS_NTS_TEST_REQUEST_H_
