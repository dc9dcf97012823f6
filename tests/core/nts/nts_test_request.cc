// SPDX-License-Identifier: Apache-2.0
#include "tests/core/nts/nts_test_request.h"

#include "core/base/byte_order.h"
#include "core/crypto/aes_siv.h"

namespace zg::core::testing {
namespace {

void Append(std::vector<uint8_t>& out, const std::vector<uint8_t>& v) {
  out.insert(out.end(), v.begin(), v.end());
}

uint32_t Pad4(uint32_t n) { return (n + 3) & ~3u; }

}  // namespace

NtsKeys TestKeys(uint8_t seed) {
  NtsKeys k;
  for (size_t i = 0; i < kNtsKeySize; ++i) {
    k.c2s[i] = static_cast<uint8_t>(seed * 31 + i);
    k.s2c[i] = static_cast<uint8_t>(seed * 17 + 3 * i + 1);
  }
  return k;
}

std::vector<uint8_t> TestMasterKey(uint8_t seed) {
  std::vector<uint8_t> m(32);
  for (size_t i = 0; i < m.size(); ++i) m[i] = static_cast<uint8_t>(seed + i);
  return m;
}

std::vector<uint8_t> MintCookie(const NtsCookieKeystore& keystore,
                                const NtsKeys& keys, uint8_t nonce_seed) {
  uint8_t nonce[16];
  for (size_t i = 0; i < 16; ++i)
    nonce[i] = static_cast<uint8_t>(nonce_seed + i);
  std::vector<uint8_t> c(kNtsCookieSize);
  keystore.Seal(keys, nonce, c.data());
  return c;
}

std::vector<uint8_t> NtsField(uint16_t type, const std::vector<uint8_t>& body) {
  uint32_t len = 4 + Pad4(static_cast<uint32_t>(body.size()));
  if (len < 16) len = 16;
  std::vector<uint8_t> f(len, 0);
  StoreBe16(f.data(), type);
  StoreBe16(f.data() + 2, static_cast<uint16_t>(len));
  std::copy(body.begin(), body.end(), f.begin() + 4);
  return f;
}

std::vector<uint8_t> BuildNtsRequest(const NtsClientSpec& spec) {
  NtpHeader h;
  h.version = 4;
  h.mode = NtpMode::kClient;
  h.poll_log2 = 6;
  h.transmit_time = spec.t1;
  h.origin_time = spec.origin;
  h.receive_time = spec.receive;
  std::vector<uint8_t> out(kNtpHeaderSize);
  SerializeNtpHeader(h, out.data());
  for (const auto& f : spec.leading_fields) Append(out, f);
  const auto uid = NtsField(0x0104, spec.uid);
  const auto cookie = NtsField(0x0204, spec.cookie);
  if (spec.cookie_before_uid) {
    Append(out, cookie);
    Append(out, uid);
  } else {
    Append(out, uid);
    Append(out, cookie);
  }
  for (uint32_t i = 0; i < spec.placeholders; ++i) {
    Append(out, NtsField(0x0304, std::vector<uint8_t>(spec.cookie.size(), 0)));
  }
  // The authenticator: nonce, ciphertext = V || C, padding.
  const uint32_t auth_at = static_cast<uint32_t>(out.size());
  const uint32_t nonce_len = static_cast<uint32_t>(spec.nonce.size());
  const uint32_t ct_len =
      static_cast<uint32_t>(kAesSivTagSize + spec.encrypted.size());
  const uint32_t body =
      4 + Pad4(nonce_len) + Pad4(ct_len) + spec.auth_extra_padding;
  std::vector<uint8_t> a(4 + body, 0);
  StoreBe16(a.data(), 0x0404);
  StoreBe16(a.data() + 2, static_cast<uint16_t>(a.size()));
  StoreBe16(a.data() + 4, static_cast<uint16_t>(nonce_len));
  StoreBe16(a.data() + 6, static_cast<uint16_t>(ct_len));
  std::copy(spec.nonce.begin(), spec.nonce.end(), a.begin() + 8);
  AesSiv siv;
  siv.SetKey(spec.c2s.data());
  const AesSivInput ad[] = {{out.data(), auth_at},
                            {spec.nonce.data(), spec.nonce.size()}};
  siv.Seal(ad, spec.encrypted.data(), spec.encrypted.size(),
           a.data() + 8 + Pad4(nonce_len));
  Append(out, a);
  return out;
}

NtsReplyView OpenNtsReply(const uint8_t* payload, uint32_t len,
                          const std::vector<uint8_t>& uid,
                          const std::array<uint8_t, kNtsKeySize>& s2c) {
  NtsReplyView r;
  if (!ParseNtpHeader(payload, len, &r.header)) {
    r.error = "shorter than the header";
    return r;
  }
  NtpExtensionWalker walker(payload, len);
  NtpExtensionField f;
  bool uid_ok = false;
  const NtpExtensionField* auth = nullptr;
  NtpExtensionField auth_field;
  NtpExtensionWalker::Step step;
  while ((step = walker.Next(&f)) == NtpExtensionWalker::Step::kField) {
    if (f.type == 0x0104) {
      uid_ok = f.length - 4u >= uid.size() &&
               std::equal(uid.begin(), uid.end(), f.value);
    } else if (f.type == 0x0404) {
      auth_field = f;
      auth = &auth_field;
    }
  }
  if (step != NtpExtensionWalker::Step::kEnd) {
    r.error = "bad extension fields";
    return r;
  }
  if (!uid_ok) {
    r.error = "unique identifier missing or different";
    return r;
  }
  if (ClassifyNtpKiss(r.header) == NtpKiss::kNtsNak) {
    r.nak = auth == nullptr;
    if (!r.nak) r.error = "NAK with an authenticator";
    return r;
  }
  if (auth == nullptr) {
    r.error = "no authenticator";
    return r;
  }
  const uint32_t nonce_len = LoadBe16(auth->value);
  const uint32_t ct_len = LoadBe16(auth->value + 2);
  if (4 + Pad4(nonce_len) + Pad4(ct_len) > auth->length - 4u ||
      ct_len < kAesSivTagSize) {
    r.error = "authenticator lengths";
    return r;
  }
  const uint8_t* nonce = auth->value + 4;
  const uint8_t* ct = nonce + Pad4(nonce_len);
  AesSiv siv;
  siv.SetKey(s2c.data());
  const AesSivInput ad[] = {{payload, auth->offset}, {nonce, nonce_len}};
  std::vector<uint8_t> plain(ct_len - kAesSivTagSize + 1);
  if (!siv.Open(ad, ct, ct_len, plain.data())) {
    r.error = "authenticator does not open with S2C";
    return r;
  }
  plain.resize(ct_len - kAesSivTagSize);
  for (size_t at = 0; at + 4 <= plain.size();) {
    const uint16_t type = LoadBe16(plain.data() + at);
    const uint16_t flen = LoadBe16(plain.data() + at + 2);
    if (flen < 4 || at + flen > plain.size()) {
      r.error = "bad encrypted field";
      return r;
    }
    if (type == 0x0204) {
      r.cookies.emplace_back(plain.begin() + at + 4, plain.begin() + at + flen);
    }
    at += flen;
  }
  r.ok = true;
  return r;
}

}  // namespace zg::core::testing
