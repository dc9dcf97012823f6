// SPDX-License-Identifier: Apache-2.0
#include "core/ntp/ntp_mac.h"

#include <nettle/cmac.h>
#include <openssl/crypto.h>
#include <openssl/md5.h>
#include <openssl/sha.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "core/base/byte_order.h"
#include "core/crypto/aes_cmac.h"

// MD5_* and SHA1_* are deprecated in OpenSSL 3.0 in favour of EVP_Digest
// (see the header for why we use them); they are still OpenSSL's
// implementations. The warning is off from here to the end of this file
// (not by OPENSSL_SUPPRESS_DEPRECATED: in the library's unity build another
// source may include the OpenSSL headers first).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace zg::core {

struct NtpMacer::Key {
  NtpKeyType type = NtpKeyType::kMd5;
  AesCmac128 aes128;  // AES128: keyed once
  // AES256: keyed once; update + digest per message (the digest resets the
  // state), so it changes per call: the worker's scratch.
  mutable cmac_aes256_ctx aes256;
  MD5_CTX md5;   // MD5: state after the key
  SHA_CTX sha1;  // SHA1: state after the key
  ~Key() {
    OPENSSL_cleanse(&aes256, sizeof(aes256));
    OPENSSL_cleanse(&md5, sizeof(md5));
    OPENSSL_cleanse(&sha1, sizeof(sha1));
  }
};

namespace {

absl::Status LibraryError(absl::string_view what, uint32_t id) {
  return absl::InternalError(
      absl::StrCat("OpenSSL: ", what, " failed for NTP key ", id));
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
    const auto* secret = reinterpret_cast<const uint8_t*>(key.secret.data());
    switch (key.type) {
      case NtpKeyType::kAes128:
      case NtpKeyType::kAes256:
        // ParseNtpKeys checked the length; a table built by hand is checked
        // here (the schedules read exactly 16 or 32 bytes).
        if (key.secret.size() !=
            (key.type == NtpKeyType::kAes128 ? 16u : 32u)) {
          return absl::InvalidArgumentError(absl::StrCat(
              "NTP key ", key.id, ": ", NtpKeyTypeName(key.type),
              " needs a key of ", key.type == NtpKeyType::kAes128 ? 16 : 32,
              " bytes, not ", key.secret.size()));
        }
        if (key.type == NtpKeyType::kAes128) {
          k->aes128.SetKey(secret);
        } else {
          cmac_aes256_set_key(&k->aes256, secret);
        }
        break;
      case NtpKeyType::kMd5:
        if (MD5_Init(&k->md5) != 1 ||
            MD5_Update(&k->md5, secret, key.secret.size()) != 1) {
          return LibraryError("MD5_Init", key.id);
        }
        break;
      case NtpKeyType::kSha1:
        if (SHA1_Init(&k->sha1) != 1 ||
            SHA1_Update(&k->sha1, secret, key.secret.size()) != 1) {
          return LibraryError("SHA1_Init", key.id);
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
      k.aes128.Compute(data, len, out);
      return kAesCmacSize;
    case NtpKeyType::kAes256:
      cmac_aes256_update(&k.aes256, len, data);
      cmac_aes256_digest(&k.aes256, CMAC128_DIGEST_SIZE, out);
      return CMAC128_DIGEST_SIZE;
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
  NtpMacVerifyOp op{payload, trailer, {}};
  VerifyBatch({&op, 1});
  return op.result;
}

uint32_t NtpMacer::Sign(uint16_t key_index, uint8_t* payload,
                        uint32_t data_len) const {
  NtpMacSignOp op{key_index, payload, data_len, 0};
  SignBatch({&op, 1});
  return op.trailer_size;
}

namespace {

// Up to a burst's AES128 MACs, computed together.
constexpr size_t kBatch = 32;

}  // namespace

void NtpMacer::VerifyBatch(std::span<NtpMacVerifyOp> ops) const {
  uint8_t digest[kBatch][kNtpMaxDigestSize];
  AesCmacOp cmacs[kBatch];
  NtpMacVerifyOp* waiting[kBatch];
  size_t n = 0;
  auto finish = [](NtpMacVerifyOp& op, const uint8_t* d, uint32_t size) {
    const uint8_t* mac = op.payload + op.trailer.mac_offset + 4;
    op.result.verdict = size != 0 && CRYPTO_memcmp(d, mac, size) == 0
                            ? NtpMacVerdict::kOk
                            : NtpMacVerdict::kBadMac;
  };
  auto flush = [&] {
    AesCmac128::ComputeBatch({cmacs, n});
    for (size_t i = 0; i < n; ++i) finish(*waiting[i], digest[i], 16);
    n = 0;
  };
  for (NtpMacVerifyOp& op : ops) {
    NtpMacCheck& c = op.result;
    c = NtpMacCheck{};
    const int index = Find(op.trailer.mac_key_id);
    if (index < 0) continue;  // kUnknownKey
    c.key_index = static_cast<uint16_t>(index);
    const Key& k = *keys_[c.key_index];
    c.type = k.type;
    // chrony's check_auth: the MAC must be exactly the digest's size.
    if (op.trailer.mac_size != NtpKeyMacSize(c.type)) {
      c.verdict = NtpMacVerdict::kBadLength;
      continue;
    }
    if (c.type != NtpKeyType::kAes128) {
      uint8_t d[kNtpMaxDigestSize];
      finish(op, d, Compute(c.key_index, op.payload, op.trailer.mac_offset, d));
      continue;
    }
    cmacs[n] = {&k.aes128, op.payload, op.trailer.mac_offset, digest[n]};
    waiting[n++] = &op;
    if (n == kBatch) flush();
  }
  if (n != 0) flush();
}

void NtpMacer::SignBatch(std::span<NtpMacSignOp> ops) const {
  AesCmacOp cmacs[kBatch];
  size_t n = 0;
  for (NtpMacSignOp& op : ops) {
    uint8_t* mac = op.payload + op.data_len;
    StoreBe32(mac, ids_[op.key_index]);
    const Key& k = *keys_[op.key_index];
    if (k.type != NtpKeyType::kAes128) {
      const uint32_t d =
          Compute(op.key_index, op.payload, op.data_len, mac + 4);
      op.trailer_size = d == 0 ? 0 : 4 + d;
      continue;
    }
    op.trailer_size = 4 + kAesCmacSize;
    cmacs[n++] = {&k.aes128, op.payload, op.data_len, mac + 4};
    if (n == kBatch) {
      AesCmac128::ComputeBatch({cmacs, n});
      n = 0;
    }
  }
  if (n != 0) AesCmac128::ComputeBatch({cmacs, n});
}

}  // namespace zg::core

#pragma GCC diagnostic pop
