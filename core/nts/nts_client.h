// SPDX-License-Identifier: Apache-2.0
// The client side of NTS-protected NTP (RFC 8915 section 5), for zg-loadgen
// and tests: build an authenticated NTPv4 request from the keys and cookies
// that NTS-KE (or a test harness minting cookies from the fleet master key)
// gave, and check a server's reply: its Unique Identifier, its NTS
// Authenticator and Encrypted Extension Fields, the fresh cookies inside, or
// an NTS NAK.
//
//   NtsClientAssociation assoc;
//   assoc.SetKeys(keys);                      // C2S / S2C from the KE export
//   for (cookie : ke_cookies) assoc.PushCookie(cookie.data(), cookie.size());
//   NtsRequestSpec spec;
//   spec.transmit = random_t1;                // RFC 8915: random, for privacy
//   spec.unique_id = uid32;                   // 32 random bytes
//   spec.nonce = nonce16;                     // 16 random bytes
//   spec.placeholders = assoc.PlaceholdersToRefill();
//   const uint32_t n = assoc.BuildRequest(spec, /*consume_cookie=*/true,
//                                         buf, sizeof buf);
//   ... send buf[0..n), receive reply ...
//   NtsReplyCheck c = assoc.VerifyReply(reply, len, uid32,
//                                       /*store_cookies=*/true);
//   if (c.status == NtsReplyStatus::kOk) { ParseNtpServerReply(...) ... }
//
// Request layout: 48-byte header (mode 3, NTPv4), Unique Identifier EF (36
// bytes), NTS Cookie EF (4 + cookie, padded to 4), `placeholders` Cookie
// Placeholder EFs of the same size, NTS Authenticator EF (40 bytes: nonce
// length 16, ciphertext length 16, nonce, V; the plaintext is empty) sealed
// under C2S with AEAD_AES_SIV_CMAC_256, associated data = everything before
// the authenticator, the nonce S2V's last component.
//
// The NTP header's own checks (origin timestamp, mode, stratum) are
// ParseNtpServerReply's (core/ntp/ntp_client.h); VerifyReply checks only the
// NTS part. No allocation, no lock, no syscall in BuildRequest or
// VerifyReply: the randomness is the caller's (FillNtsRandom draws it from
// OpenSSL's DRBG where that is cheap enough), the plaintext is decrypted into
// the association's own buffer.
#ifndef ZG_CORE_NTS_NTS_CLIENT_H_
#define ZG_CORE_NTS_NTS_CLIENT_H_

#include <array>
#include <cstddef>
#include <cstdint>

#include "core/crypto/aes_siv.h"
#include "core/ntp/ntp_wire.h"
#include "core/nts/nts_cookie.h"
#include "core/time/time_types.h"

namespace zg::core {

inline constexpr size_t kNtsUniqueIdSize = 32;  // RFC 8915: at least 32
inline constexpr size_t kNtsClientNonceSize = 16;
inline constexpr size_t kNtsMaxCookies = 8;  // what NTS-KE hands out
// Cookies are opaque to a client; ours are 100 bytes, others' differ.
inline constexpr size_t kNtsClientMaxCookieSize = 256;
// Unique Identifier EF: 4 + 32.
inline constexpr uint32_t kNtsUniqueIdFieldSize = 4 + kNtsUniqueIdSize;
// Authenticator EF of a request: 4 + 2 + 2 + nonce 16 + V 16.
inline constexpr uint32_t kNtsRequestAuthFieldSize =
    4 + 4 + kNtsClientNonceSize + kAesSivTagSize;

// Size of a Cookie (or Placeholder) EF carrying a cookie of `cookie_len`.
constexpr uint32_t NtsCookieFieldSize(size_t cookie_len) {
  return 4 + NtpPad4(static_cast<uint32_t>(cookie_len));
}
// Size of a request with one cookie of `cookie_len` and `placeholders`.
constexpr uint32_t NtsRequestSize(size_t cookie_len, uint32_t placeholders) {
  return kNtpHeaderSize + kNtsUniqueIdFieldSize +
         (1 + placeholders) * NtsCookieFieldSize(cookie_len) +
         kNtsRequestAuthFieldSize;
}

// What one request carries besides its cookie. unique_id and nonce point at
// kNtsUniqueIdSize and kNtsClientNonceSize bytes the caller drew.
struct NtsRequestSpec {
  NtpTimestamp transmit;  // T1; the reply's origin timestamp
  int8_t poll_log2 = 6;
  uint32_t placeholders = 0;  // at most kNtsMaxCookies - 1
  const uint8_t* unique_id = nullptr;
  const uint8_t* nonce = nullptr;
};

// The outcome of VerifyReply, in the order the checks run. Names
// (NtsReplyStatusName) are stable report labels.
enum class NtsReplyStatus : uint8_t {
  kOk = 0,
  kTooShort,          // < 48 bytes
  kMalformed,         // extension fields do not walk (RFC 7822)
  kNoUniqueId,        // no Unique Identifier EF before the authenticator
  kUniqueIdMismatch,  // not the request's: stale, spoofed or another's
  kNak,               // NTS NAK: KoD NTSN echoing our identifier
  kNoAuthenticator,   // not a NAK and no NTS Authenticator EF
  kBadAuthenticator,  // lengths inside the authenticator inconsistent
  kBadTag,            // does not open under S2C: forged or tampered
  kBadPlaintext,      // the decrypted extension fields do not walk
  kCount
};
const char* NtsReplyStatusName(NtsReplyStatus status);

struct NtsReplyCheck {
  NtsReplyStatus status = NtsReplyStatus::kTooShort;
  uint32_t cookies = 0;         // NTS Cookie EFs in the encrypted part
  uint32_t cookies_stored = 0;  // of those, pushed into the jar
};

// Whether `payload` is an NTS NAK for the request with `unique_id`: stratum
// 0, refid NTSN, mode 4, and a Unique Identifier EF equal to it. The NAK is
// unauthenticated (RFC 8915 section 5.7): the identifier is what ties it to
// our request.
bool IsNtsNak(const uint8_t* payload, uint32_t len, const uint8_t* unique_id);

// One NTS association: the two keys and a FIFO jar of up to kNtsMaxCookies
// cookies. One writer; about 2.5 KiB, no heap.
class NtsClientAssociation {
 public:
  NtsClientAssociation() = default;

  void SetKeys(const NtsKeys& keys);
  // Appends a cookie; false when the jar is full, or len is 0 or over
  // kNtsClientMaxCookieSize.
  bool PushCookie(const uint8_t* cookie, size_t len);
  void ClearCookies() { head_ = count_ = 0; }
  uint32_t cookies() const { return count_; }
  // Placeholders a request should carry so that the reply refills the jar
  // to kNtsMaxCookies, once its cookie is spent: 8 - cookies().
  uint32_t PlaceholdersToRefill() const {
    return count_ == 0 ? 0 : kNtsMaxCookies - count_;
  }
  // The size of the oldest cookie (0: none).
  size_t next_cookie_size() const;

  // Writes a request with the oldest cookie into out[0..cap); removes that
  // cookie from the jar when consume_cookie (a real client never reuses
  // one: RFC 8915 section 5.7; a load generator may). Returns its length,
  // 0 when the jar is empty, spec is incomplete, or cap is too small.
  uint32_t BuildRequest(const NtsRequestSpec& spec, bool consume_cookie,
                        uint8_t* out, uint32_t cap);

  // Checks the NTS part of a reply to the request whose identifier was
  // `unique_id` and, when store_cookies, pushes the cookies it carries into
  // the jar (while there is room). Reads only payload[0..len).
  NtsReplyCheck VerifyReply(const uint8_t* payload, uint32_t len,
                            const uint8_t* unique_id, bool store_cookies);

 private:
  struct Cookie {
    uint16_t len = 0;
    std::array<uint8_t, kNtsClientMaxCookieSize> data;
  };
  // Stores the NTS Cookie EFs found in plain[0..len).
  NtsReplyStatus TakeCookies(uint32_t len, bool store, NtsReplyCheck* check);

  AesSiv c2s_;
  AesSiv s2c_;
  std::array<Cookie, kNtsMaxCookies> jar_;
  uint32_t head_ = 0;   // oldest cookie
  uint32_t count_ = 0;  // cookies in the jar
  // Decrypted Encrypted Extension Fields of the reply being checked.
  std::array<uint8_t, 2048> plain_;
};

// Fills `out[0..len)` with random bytes from OpenSSL's DRBG (per thread,
// reseeded by OpenSSL: no syscall on most calls). False when OpenSSL fails.
bool FillNtsRandom(uint8_t* out, size_t len);

}  // namespace zg::core

#endif  // ZG_CORE_NTS_NTS_CLIENT_H_
