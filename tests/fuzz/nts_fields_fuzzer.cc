// SPDX-License-Identifier: Apache-2.0
// Fuzzes the NTS server side of the workers (core/nts/nts_server.h) on
// arbitrary UDP payloads: the extension-field walk (ParseNtsRequest), the
// whole check (cookie open, authenticator verify, in-place decryption of
// encrypted fields) under a fixed keystore, and the reply or NAK written in
// place. Properties: nothing is read or written outside [payload, payload +
// len) (ASan: exact-size heap copies), the offsets found lie inside the
// request, a reply is never longer than the request and opens as what the
// server meant (its UID at offset 48, its authenticator right after), a NAK
// is header + UID.
//
// The keystore is derived from the master key 0x01 0x02 .. 0x20 at Unix
// second 1800000000 (tests/core/nts/nts_test_request.h TestMasterKey(1)),
// so the seeds in corpus/nts_fields/ (chrony-shaped requests built with it)
// reach the crypto and the reply.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "core/base/byte_order.h"
#include "core/crypto/aes_ctr_random.h"
#include "core/ntp/ntp_reply.h"
#include "core/ntp/ntp_wire.h"
#include "core/nts/nts_cookie.h"
#include "core/nts/nts_server.h"

namespace {

using namespace zg::core;

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

const NtsCookieKeystore& Keystore() {
  static const NtsCookieKeystore* ks = [] {
    std::vector<uint8_t> master(32);
    for (size_t i = 0; i < master.size(); ++i) {
      master[i] = static_cast<uint8_t>(1 + i);
    }
    return new NtsCookieKeystore(
        *NtsCookieKeystore::Derive(master, {}, 1'800'000'000));
  }();
  return *ks;
}

void CheckFields(const NtsRequestFields& f, uint32_t len) {
  Check(f.uid_offset + f.uid_length <= len);
  Check(f.uid_length >= 4 + kNtsMinUniqueIdSize);
  Check(f.cookie_offset + f.cookie_length <= len);
  Check(f.auth_offset < len && f.nonce_offset + f.nonce_length <= len);
  Check(f.ciphertext_offset + f.ciphertext_length <= len);
  Check(f.ciphertext_length >= kAesSivTagSize && f.nonce_length >= 1);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 2000) return 0;
  const uint32_t len = static_cast<uint32_t>(size);
  std::unique_ptr<uint8_t[]> buf(new uint8_t[len == 0 ? 1 : len]);
  if (len > 0) std::memcpy(buf.get(), data, len);
  uint8_t* p = buf.get();

  NtsRequestFields f;
  const NtsFailure parsed = ParseNtsRequest(p, len, &f);
  Check(static_cast<size_t>(parsed) < kNtsFailureCount);
  Check(NtsFailureName(parsed)[0] != '\0');
  Check(!NtsFailureIsNak(parsed) && parsed != NtsFailure::kBadAuthenticator);
  if (parsed == NtsFailure::kNone) CheckFields(f, len);

  const NtpRequestCheck check = ValidateNtpRequest(
      p, len, NtpMacHandling::kDrop, NtpNtsHandling::kReport);
  if (check.drop != NtpDrop::kNone || check.trailer.nts_fields == 0) return 0;

  static AesCtrRandom* random = new AesCtrRandom(*AesCtrRandom::FromOs());
  static NtsServer* server = new NtsServer(random);
  NtsRequestState st;
  const NtsFailure f2 = server->Check(p, len, Keystore(), &st);
  Check(f2 == parsed || parsed == NtsFailure::kNone);
  if (NtsFailureIsNak(f2)) {
    const uint32_t n = WriteNtsKiss(p, check, kNtpKissNtsNak, 0, st.fields);
    Check(n == kNtpHeaderSize + st.fields.uid_length && n <= len);
    NtpHeader h;
    Check(ParseNtpHeader(p, n, &h) && ClassifyNtpKiss(h) == NtpKiss::kNtsNak);
    Check(LoadBe16(p + kNtpHeaderSize) ==
          static_cast<uint16_t>(NtsFieldType::kUniqueIdentifier));
    return 0;
  }
  if (f2 != NtsFailure::kNone) return 0;
  ClockModel model;
  model.tai_anchor = TaiNs{(1'800'000'000LL + 37) * kNanosPerSecond};
  model.ns_per_tick_q32 = uint64_t{1} << 32;
  model.max_extrapolation_ns = 3600 * kNanosPerSecond;
  model.state = SyncState::kLocked;
  model.stratum = 1;
  WriteNtpReply(p, check, model.tai_anchor, model);
  NtsSealJob job;
  const uint32_t n = server->WriteReply(p, len, st, Keystore(), &job);
  if (n == 0) return 0;
  Check(n == len);
  Check(job.ad_length == kNtpHeaderSize + st.fields.uid_length);
  Check(job.ad_length + kNtsReplyAuthOverhead + job.plaintext_length <= n);
  StampNtpTransmit(p, model.tai_anchor + 1000, model);
  AesSiv s2c;
  s2c.SetKey(job.s2c.data());
  SealNtsReply(s2c, p, job);
  // The reply walks as UID + authenticator, the last field.
  NtpExtensionWalker walker(p, n);
  NtpExtensionField field;
  Check(walker.Next(&field) == NtpExtensionWalker::Step::kField &&
        field.type == 0x0104);
  Check(walker.Next(&field) == NtpExtensionWalker::Step::kField &&
        field.type == 0x0404 && field.offset + field.length == n);
  Check(walker.Next(&field) == NtpExtensionWalker::Step::kEnd);
  return 0;
}
