// SPDX-License-Identifier: Apache-2.0
// Tests of the NTS-KE record parser and builders (core/nts/nts_ke_records.h).
#include "core/nts/nts_ke_records.h"

#include <cstdint>
#include <vector>

#include "core/nts/nts_cookie.h"
#include "gtest/gtest.h"

namespace zg::core {
namespace nts_ke_records_test {
namespace {

constexpr uint16_t kNtp = kNtsKeProtocolNtpV4;
constexpr uint16_t kSiv = kNtsAeadAesSivCmac256;

std::vector<uint8_t> Rec(bool critical, uint16_t type,
                         std::vector<uint8_t> body) {
  std::vector<uint8_t> out;
  AppendNtsKeRecord(critical, type, body, &out);
  return out;
}

std::vector<uint8_t> Cat(std::initializer_list<std::vector<uint8_t>> parts) {
  std::vector<uint8_t> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

const std::vector<uint8_t> kEnd = {0x80, 0, 0, 0};
const std::vector<uint8_t> kNextNtp = {0x80, 1, 0, 2, 0, 0};
const std::vector<uint8_t> kAeadSiv = {0x80, 4, 0, 2, 0, 15};

TEST(NtsKeRecordsTest, RecordLayout) {
  EXPECT_EQ(Rec(true, 1, {0, 0}), kNextNtp);
  NtsKeRecord r;
  const std::vector<uint8_t> m = Cat({kAeadSiv, kEnd});
  ASSERT_EQ(NextNtsKeRecord(m, &r), 6u);
  EXPECT_TRUE(r.critical);
  EXPECT_EQ(r.type, 4);
  ASSERT_EQ(r.body.size(), 2u);
  EXPECT_EQ(NextNtsKeRecord(std::span(m).first(5), &r), std::nullopt);
}

TEST(NtsKeRecordsTest, ParsesTheRequestChronySends) {
  const uint16_t protocols[] = {kNtp};
  const uint16_t aeads[] = {30, kSiv};  // GCM-SIV first, as chrony 4.4 may
  const std::vector<uint8_t> m = BuildNtsKeRequest(protocols, aeads);
  const NtsKeRequestParse p = ParseNtsKeRequest(m);
  ASSERT_EQ(p.state, NtsKeParseState::kComplete);
  EXPECT_TRUE(p.request.Accepted());
}

TEST(NtsKeRecordsTest, IncompleteUntilEndOfMessage) {
  const std::vector<uint8_t> m = Cat({kNextNtp, kAeadSiv, kEnd});
  for (size_t n = 0; n < m.size(); ++n) {
    EXPECT_EQ(ParseNtsKeRequest(std::span(m).first(n)).state,
              NtsKeParseState::kIncomplete)
        << n;
  }
  EXPECT_EQ(ParseNtsKeRequest(m).state, NtsKeParseState::kComplete);
}

TEST(NtsKeRecordsTest, UnknownCriticalRecordIsCode0) {
  const auto m = Cat({kNextNtp, kAeadSiv, Rec(true, 0x1234, {1}), kEnd});
  const NtsKeRequestParse p = ParseNtsKeRequest(m);
  ASSERT_EQ(p.state, NtsKeParseState::kError);
  EXPECT_EQ(p.error, NtsKeErrorCode::kUnrecognizedCritical);
  // Not critical: ignored.
  const auto ok = Cat({kNextNtp, Rec(false, 0x1234, {1}), kAeadSiv, kEnd});
  EXPECT_EQ(ParseNtsKeRequest(ok).state, NtsKeParseState::kComplete);
}

TEST(NtsKeRecordsTest, BadRequests) {
  const std::vector<std::vector<uint8_t>> bad = {
      Cat({kAeadSiv, kEnd}),                           // no next protocol
      Cat({kNextNtp, kEnd}),                           // NTPv4, no AEAD
      Cat({kNextNtp, kNextNtp, kAeadSiv, kEnd}),       // two next protocol
      Cat({kNextNtp, kAeadSiv, kAeadSiv, kEnd}),       // two AEAD
      Cat({Rec(false, 1, {0, 0}), kAeadSiv, kEnd}),    // not critical
      Cat({Rec(true, 1, {}), kAeadSiv, kEnd}),         // empty list
      Cat({Rec(true, 1, {0, 0, 0}), kAeadSiv, kEnd}),  // odd length
      Cat({kNextNtp, Rec(true, 4, {}), kEnd}),         // empty AEAD list
      Cat({kNextNtp, kAeadSiv, Rec(true, 2, {0, 1}), kEnd}),   // Error
      Cat({kNextNtp, kAeadSiv, Rec(false, 3, {0, 1}), kEnd}),  // Warning
      Cat({kNextNtp, kAeadSiv, Rec(false, 5, {1, 2}), kEnd}),  // New Cookie
      Cat({kNextNtp, kAeadSiv, Rec(false, 7, {1}), kEnd}),     // port of 1 byte
      Cat({
          kNextNtp,
          kAeadSiv,
          Rec(false, 0, {}),
      }),  // end not critical
      Cat({
          kNextNtp,
          kAeadSiv,
          Rec(true, 0, {1}),
      }),                                     // end with a body
      Cat({kNextNtp, kAeadSiv, kEnd, kEnd}),  // bytes after end
  };
  for (size_t i = 0; i < bad.size(); ++i) {
    const NtsKeRequestParse p = ParseNtsKeRequest(bad[i]);
    EXPECT_EQ(p.state, NtsKeParseState::kError) << i;
    EXPECT_EQ(p.error, NtsKeErrorCode::kBadRequest) << i;
  }
}

TEST(NtsKeRecordsTest, SizeAndRecordCountAreBounded) {
  // A record of 64 KiB: incomplete until the bound, then refused.
  std::vector<uint8_t> big = Cat({kNextNtp, {0x40, 0x00, 0xff, 0xff}});
  big.resize(kNtsKeMaxRequestSize - 1, 0);
  EXPECT_EQ(ParseNtsKeRequest(big).state, NtsKeParseState::kIncomplete);
  big.push_back(0);
  EXPECT_EQ(ParseNtsKeRequest(big).state, NtsKeParseState::kError);
  std::vector<uint8_t> many = Cat({kNextNtp, kAeadSiv});
  for (size_t i = 0; i < kNtsKeMaxRecords; ++i) {
    const auto r = Rec(false, 0x4000, {});
    many.insert(many.end(), r.begin(), r.end());
  }
  many.insert(many.end(), kEnd.begin(), kEnd.end());
  EXPECT_EQ(ParseNtsKeRequest(many).state, NtsKeParseState::kError);
}

TEST(NtsKeRecordsTest, ClientServerAndPortRecordsAreIgnored) {
  const auto m = Cat({kNextNtp, kAeadSiv, Rec(true, 6, {'a', 'b'}),
                      Rec(true, 7, {0, 123}), kEnd});
  EXPECT_EQ(ParseNtsKeRequest(m).state, NtsKeParseState::kComplete);
}

TEST(NtsKeRecordsTest, NoCommonProtocolOrAead) {
  const auto other = Cat({Rec(true, 1, {0x80, 0}), kEnd});
  NtsKeRequestParse p = ParseNtsKeRequest(other);
  ASSERT_EQ(p.state, NtsKeParseState::kComplete);
  EXPECT_FALSE(p.request.ntpv4);
  NtsKeResponse r;
  ASSERT_EQ(ParseNtsKeResponse(BuildNtsKeResponse(p.request, {}, {}), &r),
            NtsKeResponseParse::kComplete);
  EXPECT_TRUE(r.protocols.empty());
  EXPECT_TRUE(r.aeads.empty());
  EXPECT_TRUE(r.cookies.empty());

  p = ParseNtsKeRequest(Cat({kNextNtp, Rec(true, 4, {0, 30}), kEnd}));
  ASSERT_EQ(p.state, NtsKeParseState::kComplete);
  EXPECT_TRUE(p.request.ntpv4);
  EXPECT_FALSE(p.request.aes_siv);
  ASSERT_EQ(ParseNtsKeResponse(BuildNtsKeResponse(p.request, {}, {}), &r),
            NtsKeResponseParse::kComplete);
  EXPECT_EQ(r.protocols, std::vector<uint16_t>{kNtp});
  EXPECT_TRUE(r.aeads.empty());
  EXPECT_TRUE(r.cookies.empty());
}

TEST(NtsKeRecordsTest, ResponseCarriesServerPortAndCookies) {
  std::vector<NtsKeCookie> cookies(kNtsKeCookiesPerResponse);
  for (size_t i = 0; i < cookies.size(); ++i) cookies[i].fill(uint8_t(i));
  const std::vector<uint8_t> m = BuildNtsKeResponse(
      {.ntpv4 = true, .aes_siv = true}, {"ntp.example", 1123}, cookies);
  NtsKeResponse r;
  ASSERT_EQ(ParseNtsKeResponse(m, &r), NtsKeResponseParse::kComplete);
  EXPECT_EQ(r.protocols, std::vector<uint16_t>{kNtp});
  EXPECT_EQ(r.aeads, std::vector<uint16_t>{kSiv});
  EXPECT_EQ(r.ntp_server, "ntp.example");
  EXPECT_EQ(r.ntp_port, 1123);
  ASSERT_EQ(r.cookies.size(), 8u);
  EXPECT_EQ(r.cookies[7], std::vector<uint8_t>(100, 7));
  EXPECT_FALSE(r.error.has_value());
  // Starts with critical Next Protocol, ends with critical End of Message.
  EXPECT_EQ(std::vector<uint8_t>(m.begin(), m.begin() + 6), kNextNtp);
  EXPECT_EQ(std::vector<uint8_t>(m.end() - 4, m.end()), kEnd);
  // Without server records: none sent.
  ASSERT_EQ(
      ParseNtsKeResponse(
          BuildNtsKeResponse({.ntpv4 = true, .aes_siv = true}, {}, {}), &r),
      NtsKeResponseParse::kComplete);
  EXPECT_EQ(r.ntp_server, "");
  EXPECT_FALSE(r.ntp_port.has_value());
}

TEST(NtsKeRecordsTest, ErrorResponse) {
  const std::vector<uint8_t> m =
      BuildNtsKeErrorResponse(NtsKeErrorCode::kBadRequest);
  EXPECT_EQ(m, Cat({Rec(true, 2, {0, 1}), kEnd}));
  NtsKeResponse r;
  ASSERT_EQ(ParseNtsKeResponse(m, &r), NtsKeResponseParse::kComplete);
  EXPECT_EQ(r.error, 1);
  EXPECT_STREQ(NtsKeErrorCodeName(NtsKeErrorCode::kUnrecognizedCritical),
               "unrecognized_critical");
}

}  // namespace
}  // namespace nts_ke_records_test
}  // namespace zg::core
