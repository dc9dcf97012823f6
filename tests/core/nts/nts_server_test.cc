// SPDX-License-Identifier: Apache-2.0
// core/nts/nts_server.h against requests built by hand (nts_test_request.h:
// AesSiv and the keystore directly), chrony 4.3-shaped ones first: the
// reply opens with S2C, echoes the UID, carries one fresh cookie per cookie
// and placeholder (each opens with the keystore to the same keys) and is
// exactly as long as the request; each failure has its reason; NAKs carry
// the UID and no authenticator.
#include "core/nts/nts_server.h"

#include <cstring>
#include <vector>

#include "core/base/byte_order.h"
#include "core/ntp/ntp_reply.h"
#include "gtest/gtest.h"
#include "tests/core/nts/nts_test_request.h"

namespace zg::core {
namespace {

using testing::BuildNtsRequest;
using testing::NtsClientSpec;
using testing::NtsField;
using testing::NtsReplyView;
using testing::OpenNtsReply;

constexpr int64_t kUnixS = 1'800'000'000;
constexpr int64_t kS = kNanosPerSecond;

NtsCookieKeystore Keystore(uint8_t seed, int64_t unix_s = kUnixS) {
  absl::StatusOr<NtsCookieKeystore> ks =
      NtsCookieKeystore::Derive(testing::TestMasterKey(seed), {}, unix_s);
  EXPECT_TRUE(ks.ok()) << ks.status();
  return *ks;
}

ClockModel Model() {
  ClockModel m;
  m.tai_anchor = TaiNs{(kUnixS + 37) * kS};
  m.ns_per_tick_q32 = uint64_t{1} << 32;
  m.error_bound_ns = 1000;
  m.max_extrapolation_ns = 3600 * kS;
  m.state = SyncState::kLocked;
  m.stratum = 1;
  return m;
}

class NtsServerTest : public ::testing::Test {
 protected:
  NtsServerTest()
      : random_(*AesCtrRandom::FromOs()),
        server_(&random_),
        keystore_(Keystore(1)),
        keys_(testing::TestKeys(3)) {
    spec_.cookie = testing::MintCookie(keystore_, keys_);
    spec_.c2s = keys_.c2s;
  }

  // Check, then (answered) the whole reply as the worker builds it: header,
  // fields, T3, seal. Returns the failure; *reply the bytes sent (if any).
  NtsFailure Serve(std::vector<uint8_t> req, std::vector<uint8_t>* reply) {
    const uint32_t len = static_cast<uint32_t>(req.size());
    const NtpRequestCheck check = ValidateNtpRequest(
        req.data(), len, NtpMacHandling::kDrop, NtpNtsHandling::kReport);
    EXPECT_EQ(check.drop, NtpDrop::kNone) << NtpDropName(check.drop);
    NtsRequestState st;
    const NtsFailure f = server_.Check(req.data(), len, keystore_, &st);
    if (NtsFailureIsNak(f)) {
      const uint32_t n =
          WriteNtsKiss(req.data(), check, kNtpKissNtsNak, 0, st.fields);
      req.resize(n);
      *reply = req;
      return f;
    }
    if (f != NtsFailure::kNone) return f;
    const ClockModel model = Model();
    const TaiNs rx = model.tai_anchor + kS;
    WriteNtpReply(req.data(), check, rx, model);
    NtsSealJob job;
    const uint32_t n = server_.WriteReply(req.data(), len, st, keystore_, &job);
    if (n == 0) return NtsFailure::kReplyTooLong;
    StampNtpTransmit(req.data(), rx + 1000, model);
    AesSiv s2c;
    s2c.SetKey(job.s2c.data());
    SealNtsReply(s2c, req.data(), job);
    req.resize(n);
    *reply = req;
    return f;
  }

  NtsFailure Failure(const std::vector<uint8_t>& req) {
    std::vector<uint8_t> reply;
    return Serve(req, &reply);
  }

  // The reply is authenticated and carries `cookies` cookies for keys_.
  void ExpectGoodReply(const std::vector<uint8_t>& req,
                       const std::vector<uint8_t>& reply, size_t cookies) {
    EXPECT_EQ(reply.size(), req.size());  // never longer: padded to equal
    const NtsReplyView v =
        OpenNtsReply(reply.data(), static_cast<uint32_t>(reply.size()),
                     spec_.uid, keys_.s2c);
    ASSERT_TRUE(v.ok) << v.error;
    EXPECT_EQ(v.header.mode, NtpMode::kServer);
    EXPECT_EQ(v.header.stratum, 1);
    EXPECT_EQ(v.header.origin_time, spec_.t1);
    ASSERT_EQ(v.cookies.size(), cookies);
    for (size_t i = 0; i < v.cookies.size(); ++i) {
      NtsKeys k;
      ASSERT_EQ(keystore_.Open(v.cookies[i].data(), v.cookies[i].size(), &k),
                NtsCookieError::kOk);
      EXPECT_EQ(k.c2s, keys_.c2s);
      EXPECT_EQ(k.s2c, keys_.s2c);
      EXPECT_NE(v.cookies[i], spec_.cookie);  // fresh nonces
      if (i > 0) {
        EXPECT_NE(v.cookies[i], v.cookies[i - 1]);
      }
    }
  }

  AesCtrRandom random_;
  NtsServer server_;
  NtsCookieKeystore keystore_;
  NtsKeys keys_;
  NtsClientSpec spec_;
};

TEST_F(NtsServerTest, ChronyShapedRequestsAreAnsweredWithOneCookieEach) {
  for (uint32_t placeholders = 0; placeholders <= 7; ++placeholders) {
    SCOPED_TRACE(placeholders);
    spec_.placeholders = placeholders;
    const std::vector<uint8_t> req = BuildNtsRequest(spec_);
    // 48 + UID 36 + cookie 104 + placeholders + authenticator 40.
    EXPECT_EQ(req.size(), 228u + 104u * placeholders);
    std::vector<uint8_t> reply;
    ASSERT_EQ(Serve(req, &reply), NtsFailure::kNone);
    ExpectGoodReply(req, reply, 1 + placeholders);
  }
}

TEST_F(NtsServerTest, AtMostEightCookiesAndTheReplyStaysAsLong) {
  spec_.placeholders = 11;
  const std::vector<uint8_t> req = BuildNtsRequest(spec_);
  std::vector<uint8_t> reply;
  ASSERT_EQ(Serve(req, &reply), NtsFailure::kNone);
  ExpectGoodReply(req, reply, kNtsMaxReplyCookies);
}

TEST_F(NtsServerTest, FieldOrderOtherFieldsAndEncryptedFieldsAreAccepted) {
  spec_.cookie_before_uid = true;  // the UID moves to offset 48
  spec_.leading_fields = {NtsField(0x2005, std::vector<uint8_t>(20, 9))};
  spec_.encrypted = NtsField(0x0304, std::vector<uint8_t>(100, 0));
  spec_.nonce = std::vector<uint8_t>(32, 0x11);  // longer than ours
  spec_.placeholders = 2;
  const std::vector<uint8_t> req = BuildNtsRequest(spec_);
  std::vector<uint8_t> reply;
  ASSERT_EQ(Serve(req, &reply), NtsFailure::kNone);
  // Encrypted placeholders are ignored: one cookie and the two in clear.
  ExpectGoodReply(req, reply, 3);
}

TEST_F(NtsServerTest, ShortNonceNeedsPadding) {
  spec_.nonce = std::vector<uint8_t>(12, 0x22);
  EXPECT_EQ(Failure(BuildNtsRequest(spec_)), NtsFailure::kMalformed);
  spec_.auth_extra_padding = 4;  // 12 + 4: room for a 16-byte nonce
  const std::vector<uint8_t> req = BuildNtsRequest(spec_);
  std::vector<uint8_t> reply;
  ASSERT_EQ(Serve(req, &reply), NtsFailure::kNone);
  ExpectGoodReply(req, reply, 1);
}

TEST_F(NtsServerTest, CookieFailuresAreNaksWithTheUidAndNoAuthenticator) {
  struct Case {
    std::vector<uint8_t> cookie;
    NtsFailure failure;
  };
  std::vector<uint8_t> truncated = spec_.cookie;
  truncated.resize(96);
  std::vector<uint8_t> flipped = spec_.cookie;
  flipped[50] ^= 1;
  const Case cases[] = {
      {testing::MintCookie(Keystore(2), keys_), NtsFailure::kCookieBadTag},
      {flipped, NtsFailure::kCookieBadTag},
      {testing::MintCookie(Keystore(1, kUnixS + 10 * 86400), keys_),
       NtsFailure::kCookieUnknownKey},
      {truncated, NtsFailure::kCookieBadLength},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(NtsFailureName(c.failure));
    spec_.cookie = c.cookie;
    const std::vector<uint8_t> req = BuildNtsRequest(spec_);
    std::vector<uint8_t> reply;
    ASSERT_EQ(Serve(req, &reply), c.failure);
    EXPECT_TRUE(NtsFailureIsNak(c.failure));
    EXPECT_EQ(reply.size(), 48u + 36u);
    const NtsReplyView v =
        OpenNtsReply(reply.data(), static_cast<uint32_t>(reply.size()),
                     spec_.uid, keys_.s2c);
    EXPECT_TRUE(v.nak) << v.error;
    EXPECT_EQ(v.header.stratum, 0);
    EXPECT_EQ(v.header.reference_id, kNtpKissNtsNak);
    EXPECT_EQ(v.header.origin_time, spec_.t1);
  }
}

TEST_F(NtsServerTest, BadAuthenticatorsAreNaked) {
  EXPECT_TRUE(NtsFailureIsNak(NtsFailure::kBadAuthenticator));
  std::vector<uint8_t> req = BuildNtsRequest(spec_);
  std::vector<uint8_t> header_changed = req;
  header_changed[2] ^= 1;  // poll: covered by the AD
  std::vector<uint8_t> tag_changed = req;
  tag_changed[req.size() - 1] ^= 0x80;
  std::vector<uint8_t> nonce_changed = req;
  nonce_changed[req.size() - 32] ^= 1;
  NtsClientSpec other = spec_;
  other.c2s = keys_.s2c;  // the wrong key
  for (const auto& r :
       {header_changed, tag_changed, nonce_changed, BuildNtsRequest(other)}) {
    EXPECT_EQ(Failure(r), NtsFailure::kBadAuthenticator);
  }
}

TEST_F(NtsServerTest, MalformedAndMissingFields) {
  const std::vector<uint8_t> good = BuildNtsRequest(spec_);
  const std::vector<uint8_t> uid = NtsField(0x0104, spec_.uid);
  auto with_field_after = [&](std::vector<uint8_t> f) {
    std::vector<uint8_t> r = good;
    r.insert(r.end(), f.begin(), f.end());
    return r;
  };
  // Nothing after the authenticator: an unknown field, a legacy MAC.
  EXPECT_EQ(Failure(with_field_after(NtsField(0x2005, {1, 2, 3}))),
            NtsFailure::kMalformed);
  EXPECT_EQ(Failure(with_field_after(std::vector<uint8_t>(20, 1))),
            NtsFailure::kMalformed);
  NtsClientSpec s = spec_;
  s.leading_fields = {uid};  // a second UID
  EXPECT_EQ(Failure(BuildNtsRequest(s)), NtsFailure::kMalformed);
  s = spec_;
  s.uid.resize(28);
  EXPECT_EQ(Failure(BuildNtsRequest(s)), NtsFailure::kMalformed);
  s = spec_;
  s.leading_fields = {NtsField(0x0304, std::vector<uint8_t>(96, 0))};
  EXPECT_EQ(Failure(BuildNtsRequest(s)), NtsFailure::kMalformed);
  s = spec_;
  s.leading_fields = {NtsField(0x0204, s.cookie)};  // a second cookie
  EXPECT_EQ(Failure(BuildNtsRequest(s)), NtsFailure::kMalformed);

  // Missing fields: the request cut at a field boundary, or a field's type
  // renamed to an unknown one.
  std::vector<uint8_t> no_auth(good.begin(), good.end() - 40);
  EXPECT_EQ(Failure(no_auth), NtsFailure::kMissingAuthenticator);
  std::vector<uint8_t> no_uid = good;
  StoreBe16(no_uid.data() + 48, 0x2005);
  EXPECT_EQ(Failure(no_uid), NtsFailure::kMissingUid);
  std::vector<uint8_t> no_cookie = good;
  StoreBe16(no_cookie.data() + 48 + 36, 0x2005);
  EXPECT_EQ(Failure(no_cookie), NtsFailure::kMissingCookie);
}

TEST_F(NtsServerTest, ParseReportsWhereTheFieldsAre) {
  spec_.placeholders = 2;
  const std::vector<uint8_t> req = BuildNtsRequest(spec_);
  NtsRequestFields f;
  ASSERT_EQ(ParseNtsRequest(req.data(), static_cast<uint32_t>(req.size()), &f),
            NtsFailure::kNone);
  EXPECT_EQ(f.uid_offset, 48u);
  EXPECT_EQ(f.uid_length, 36u);
  EXPECT_EQ(f.cookie_offset, 48u + 36u + 4u);
  EXPECT_EQ(f.cookie_length, 100u);
  EXPECT_EQ(f.placeholders, 2u);
  EXPECT_EQ(f.auth_offset, req.size() - 40);
  EXPECT_EQ(f.nonce_offset, f.auth_offset + 8);
  EXPECT_EQ(f.nonce_length, 16u);
  EXPECT_EQ(f.ciphertext_offset, f.auth_offset + 24);
  EXPECT_EQ(f.ciphertext_length, 16u);
}

TEST_F(NtsServerTest, AReplyLongerThanTheRequestIsRefused) {
  std::vector<uint8_t> req = BuildNtsRequest(spec_);
  const uint32_t len = static_cast<uint32_t>(req.size());
  NtsRequestState st;
  ASSERT_EQ(server_.Check(req.data(), len, keystore_, &st), NtsFailure::kNone);
  st.fields.placeholders = 1;  // as if a placeholder were there
  const std::vector<uint8_t> before = req;
  NtsSealJob job;
  EXPECT_EQ(server_.WriteReply(req.data(), len, st, keystore_, &job), 0u);
  EXPECT_EQ(req, before);
}

TEST_F(NtsServerTest, ValidateNtpRequestReportsNtsOnlyWhenAsked) {
  const std::vector<uint8_t> req = BuildNtsRequest(spec_);
  const uint32_t len = static_cast<uint32_t>(req.size());
  EXPECT_EQ(ValidateNtpRequest(req.data(), len).drop, NtpDrop::kNtsUnsupported);
  const NtpRequestCheck c = ValidateNtpRequest(
      req.data(), len, NtpMacHandling::kReport, NtpNtsHandling::kReport);
  EXPECT_EQ(c.drop, NtpDrop::kNone);
  EXPECT_EQ(c.trailer.nts_fields, 3);
  // A trailing MAC passes validation; the NTS check refuses it.
  std::vector<uint8_t> mac = req;
  mac.resize(mac.size() + 20, 1);
  EXPECT_EQ(ValidateNtpRequest(mac.data(), len + 20, NtpMacHandling::kDrop,
                               NtpNtsHandling::kReport)
                .drop,
            NtpDrop::kNone);
  // Zero transmit is still dropped.
  std::vector<uint8_t> zero = req;
  std::memset(zero.data() + kNtpOffsetTransmitTime, 0, 8);
  EXPECT_EQ(ValidateNtpRequest(zero.data(), len, NtpMacHandling::kDrop,
                               NtpNtsHandling::kReport)
                .drop,
            NtpDrop::kZeroTransmit);
}

TEST(NtsFailureTest, NamesAreDistinct) {
  for (size_t i = 0; i < kNtsFailureCount; ++i) {
    for (size_t j = i + 1; j < kNtsFailureCount; ++j) {
      EXPECT_STRNE(NtsFailureName(static_cast<NtsFailure>(i)),
                   NtsFailureName(static_cast<NtsFailure>(j)));
    }
  }
}

}  // namespace
}  // namespace zg::core
