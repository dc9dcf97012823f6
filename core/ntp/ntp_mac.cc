// SPDX-License-Identifier: Apache-2.0
// CMAC_*, MD5_* and SHA1_* are deprecated in OpenSSL 3.0 in favour of
// EVP_MAC / EVP_Digest (see the header for why we use them); they are still
// OpenSSL's implementations.
#define OPENSSL_SUPPRESS_DEPRECATED

#include "core/ntp/ntp_mac.h"

#include <openssl/cmac.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/md5.h>
#include <openssl/sha.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "core/base/byte_order.h"

namespace zg::core {

struct NtpMacer::Key {
  NtpKeyType type = NtpKeyType::kMd5;
  CMAC_CTX* cmac = nullptr;  // AES128/AES256: keyed once
  MD5_CTX md5;               // MD5: state after the key
  SHA_CTX sha1;              // SHA1: state after the key
  ~Key() {
    CMAC_CTX_free(cmac);
    OPENSSL_cleanse(&md5, sizeof(md5));
    OPENSSL_cleanse(&sha1, sizeof(sha1));
  }
};

namespace {

absl::Status OpenSslError(absl::string_view what, uint32_t id) {
  return absl::InternalError(
      absl::StrCat("OpenSSL: ", what, " failed for NTP key ", id));
}

absl::StatusOr<CMAC_CTX*> NewCmac(const NtpKey& key) {
  CMAC_CTX* ctx = CMAC_CTX_new();
  if (ctx == nullptr) return OpenSslError("CMAC_CTX_new", key.id);
  const EVP_CIPHER* cipher =
      key.type == NtpKeyType::kAes128 ? EVP_aes_128_cbc() : EVP_aes_256_cbc();
  if (CMAC_Init(ctx, key.secret.data(), key.secret.size(), cipher, nullptr) !=
      1) {
    CMAC_CTX_free(ctx);
    return OpenSslError("CMAC_Init", key.id);
  }
  return ctx;
}

}  // namespace

absl::StatusOr<std::unique_ptr<NtpMacer>> NtpMacer::Create(
    const NtpKeyTable& table) {
  if (table.size() > UINT16_MAX) {
    return absl::InvalidArgumentError("more than 65535 NTP keys");
  }
  std::unique_ptr<NtpMacer> m(new NtpMacer());
  for (const NtpKey& key : table.keys()) {
    auto k = std::make_unique<Key>();
    k->type = key.type;
    switch (key.type) {
      case NtpKeyType::kAes128:
      case NtpKeyType::kAes256: {
        absl::StatusOr<CMAC_CTX*> ctx = NewCmac(key);
        if (!ctx.ok()) return ctx.status();
        k->cmac = *ctx;
        break;
      }
      case NtpKeyType::kMd5:
        if (MD5_Init(&k->md5) != 1 ||
            MD5_Update(&k->md5, key.secret.data(), key.secret.size()) != 1) {
          return OpenSslError("MD5_Init", key.id);
        }
        break;
      case NtpKeyType::kSha1:
        if (SHA1_Init(&k->sha1) != 1 ||
            SHA1_Update(&k->sha1, key.secret.data(), key.secret.size()) != 1) {
          return OpenSslError("SHA1_Init", key.id);
        }
        break;
      case NtpKeyType::kCount:
        return absl::InvalidArgumentError("bad key type");
    }
    m->ids_.push_back(key.id);
    m->keys_.push_back(std::move(k));
  }
  if (!std::is_sorted(m->ids_.begin(), m->ids_.end())) {
    return absl::InvalidArgumentError("NTP key table is not sorted by id");
  }
  return m;
}

NtpMacer::~NtpMacer() = default;

int NtpMacer::Find(uint32_t key_id) const {
  auto it = std::lower_bound(ids_.begin(), ids_.end(), key_id);
  if (it == ids_.end() || *it != key_id) return -1;
  return static_cast<int>(it - ids_.begin());
}

NtpKeyType NtpMacer::type(uint16_t key_index) const {
  return keys_[key_index]->type;
}

uint32_t NtpMacer::Compute(uint16_t key_index, const uint8_t* data,
                           uint32_t len, uint8_t* out) const {
  const Key& k = *keys_[key_index];
  switch (k.type) {
    case NtpKeyType::kAes128:
    case NtpKeyType::kAes256: {
      size_t out_len = 0;
      // No key: CMAC_Init keeps the key schedule and resets the state.
      if (CMAC_Init(k.cmac, nullptr, 0, nullptr, nullptr) != 1 ||
          CMAC_Update(k.cmac, data, len) != 1 ||
          CMAC_Final(k.cmac, out, &out_len) != 1 || out_len != 16) {
        return 0;
      }
      return 16;
    }
    case NtpKeyType::kMd5: {
      MD5_CTX c = k.md5;
      MD5_Update(&c, data, len);
      MD5_Final(out, &c);
      OPENSSL_cleanse(&c, sizeof(c));
      return MD5_DIGEST_LENGTH;
    }
    case NtpKeyType::kSha1: {
      SHA_CTX c = k.sha1;
      SHA1_Update(&c, data, len);
      SHA1_Final(out, &c);
      OPENSSL_cleanse(&c, sizeof(c));
      return SHA_DIGEST_LENGTH;
    }
    case NtpKeyType::kCount:
      break;
  }
  return 0;
}

NtpMacCheck NtpMacer::Verify(const uint8_t* payload,
                             const NtpTrailer& trailer) const {
  NtpMacCheck c;
  const int index = Find(trailer.mac_key_id);
  if (index < 0) return c;  // kUnknownKey
  c.key_index = static_cast<uint16_t>(index);
  c.type = keys_[c.key_index]->type;
  // chrony's check_auth: the MAC must be exactly the digest's size.
  if (trailer.mac_size != NtpKeyMacSize(c.type)) {
    c.verdict = NtpMacVerdict::kBadLength;
    return c;
  }
  uint8_t digest[kNtpMaxDigestSize];
  const uint32_t n = Compute(c.key_index, payload, trailer.mac_offset, digest);
  c.verdict =
      n != 0 && CRYPTO_memcmp(digest, payload + trailer.mac_offset + 4, n) == 0
          ? NtpMacVerdict::kOk
          : NtpMacVerdict::kBadMac;
  return c;
}

uint32_t NtpMacer::Sign(uint16_t key_index, uint8_t* payload,
                        uint32_t data_len) const {
  uint8_t* mac = payload + data_len;
  const uint32_t n = Compute(key_index, payload, data_len, mac + 4);
  if (n == 0) return 0;
  StoreBe32(mac, ids_[key_index]);
  return 4 + n;
}

}  // namespace zg::core
