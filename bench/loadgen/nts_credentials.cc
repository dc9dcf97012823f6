// SPDX-License-Identifier: Apache-2.0
#include "bench/loadgen/nts_credentials.h"

#include <fstream>
#include <iterator>
#include <optional>
#include <span>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "bench/loadgen/nts_ke_client.h"
#include "core/base/hex.h"
#include "core/nts/nts_client.h"

namespace zg::bench {

absl::StatusOr<std::string> ReadNtsMasterKey(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat("--nts_master_key=", path, ": cannot open the file"));
  }
  std::string key((std::istreambuf_iterator<char>(in)),
                  std::istreambuf_iterator<char>());
  // As zeitgeberd reads it (dataplane/trust/nts_master_key.h): hex text
  // (an even number of hex digits, then only whitespace) or raw bytes.
  const absl::string_view digits = absl::StripTrailingAsciiWhitespace(key);
  if (!digits.empty()) {
    if (std::optional<std::string> decoded = core::DecodeHex(digits)) {
      key = *std::move(decoded);
    }
  }
  if (key.size() < core::kNtsMasterKeyMinSize) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--nts_master_key=", path, " holds ", key.size(),
        " bytes; a master key has at least ", core::kNtsMasterKeyMinSize));
  }
  return key;
}

namespace {

absl::Status FromMasterKey(const NtsCredentialOptions& o, NtsClientSetup* s) {
  absl::StatusOr<std::string> key = ReadNtsMasterKey(o.master_key_file);
  if (!key.ok()) return key.status();
  core::NtsKeystoreConfig kc;
  kc.period_s = o.key_period_s;
  absl::StatusOr<core::NtsCookieKeystore> ks = core::NtsCookieKeystore::Derive(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(key->data()),
                               key->size()),
      kc, absl::ToUnixSeconds(absl::Now()));
  if (!ks.ok()) return ks.status();
  for (uint32_t i = 0; i < o.associations; ++i) {
    NtsCredential c;
    uint8_t nonce[16];
    if (!core::FillNtsRandom(c.keys.c2s.data(), c.keys.c2s.size()) ||
        !core::FillNtsRandom(c.keys.s2c.data(), c.keys.s2c.size()) ||
        !core::FillNtsRandom(nonce, sizeof nonce)) {
      return absl::InternalError("OpenSSL's RAND_bytes failed");
    }
    c.cookie.resize(core::kNtsCookieSize);
    ks->Seal(c.keys, nonce, c.cookie.data());
    s->credentials.push_back(std::move(c));
  }
  return absl::OkStatus();
}

absl::Status FromKe(const NtsCredentialOptions& o, NtsClientSetup* s) {
  NtsKeClientOptions k;
  k.host = o.ke;
  // HOST:PORT, [V6]:PORT, or a bare address.
  if (!k.host.empty() && k.host.front() == '[') {
    const size_t close = k.host.find(']');
    if (close == std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("--nts_ke=", o.ke, ": missing ']'"));
    }
    const std::string rest = k.host.substr(close + 1);
    k.host = k.host.substr(1, close - 1);
    if (!rest.empty()) {
      if (rest.front() != ':') {
        return absl::InvalidArgumentError(
            absl::StrCat("--nts_ke=", o.ke, ": expected ':' after ']'"));
      }
      absl::StrAppend(&k.host, "#", rest.substr(1));
    }
  } else if (std::count(k.host.begin(), k.host.end(), ':') == 1) {
    k.host[k.host.find(':')] = '#';
  }
  if (const size_t at = k.host.find('#'); at != std::string::npos) {
    uint32_t port = 0;
    if (!absl::SimpleAtoi(k.host.substr(at + 1), &port) || port == 0 ||
        port > 65535) {
      return absl::InvalidArgumentError(
          absl::StrCat("--nts_ke=", o.ke, ": bad port"));
    }
    k.port = static_cast<uint16_t>(port);
    k.host.resize(at);
  }
  k.ca_file = o.ke_ca;
  k.server_name = o.ke_name;
  absl::StatusOr<NtsKeSession> session = RunNtsKeHandshake(k);
  if (!session.ok()) return session.status();
  for (const std::vector<uint8_t>& cookie : session->cookies) {
    s->credentials.push_back({session->keys, cookie});
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::shared_ptr<const NtsClientSetup>> MakeNtsClientSetup(
    const NtsCredentialOptions& o, std::string* source) {
  if (o.master_key_file.empty() == o.ke.empty()) {
    return absl::InvalidArgumentError(
        "--mix=nts needs exactly one of --nts_master_key=FILE (test harness: "
        "cookies minted from the fleet master key) and --nts_ke=HOST:PORT "
        "(one NTS-KE handshake)");
  }
  if (o.associations == 0 || o.associations > 4096) {
    return absl::InvalidArgumentError(
        "--nts_associations must be in [1, 4096]");
  }
  auto s = std::make_shared<NtsClientSetup>();
  s->verify_every = o.verify_every;
  if (!o.master_key_file.empty()) {
    *source = "master_key";
    if (absl::Status st = FromMasterKey(o, s.get()); !st.ok()) return st;
  } else {
    *source = "nts_ke";
    if (absl::Status st = FromKe(o, s.get()); !st.ok()) return st;
  }
  return std::shared_ptr<const NtsClientSetup>(std::move(s));
}

}  // namespace zg::bench
