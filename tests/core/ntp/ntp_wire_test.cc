// SPDX-License-Identifier: Apache-2.0
#include "core/ntp/ntp_wire.h"

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/util/hex.h"
#include "tests/util/paths.h"
#include "tests/util/pcap_frames.h"

namespace zg::core {
namespace ntp_wire_test {
namespace {

using Bytes = std::vector<uint8_t>;
using Step = NtpExtensionWalker::Step;

using testutil::FromHex;

// Captured on loopback (a UDP listener on 127.0.0.1:123 in a private network
// namespace): `ntpdig 127.0.0.1` (ntpsec 1.2.2) and
// `chronyd -Q "server 127.0.0.1 iburst"` (chrony 4.3).
const Bytes kNtpdigRequest = FromHex(
    "e300000000000000000000000000000000000000000000000000000000000000"
    "0000000000000000eeb6e1229b5c8000");
const Bytes kChronyRequest = FromHex(
    "2300062000000000000000000000000000000000000000000000000000000000"
    "00000000000000003cb95db9504da72a");

// A v4 client request with the given first byte and a nonzero transmit time.
Bytes Request(uint8_t li_vn_mode, uint32_t len = kNtpHeaderSize) {
  Bytes b(len, 0);
  if (len > 0) b[0] = li_vn_mode;
  if (len >= kNtpHeaderSize) {
    b[40] = 0xe9;
    b[47] = 0x01;
  }
  return b;
}
constexpr uint8_t kV4Client = 0x23;  // LI 0, VN 4, mode 3

void AppendField(Bytes* b, uint16_t type, uint16_t length, uint8_t fill = 0) {
  b->push_back(static_cast<uint8_t>(type >> 8));
  b->push_back(static_cast<uint8_t>(type));
  b->push_back(static_cast<uint8_t>(length >> 8));
  b->push_back(static_cast<uint8_t>(length));
  for (int i = 4; i < length; ++i) b->push_back(fill);
}
void AppendMac(Bytes* b, uint32_t key_id, uint32_t digest_len) {
  for (int s = 24; s >= 0; s -= 8)
    b->push_back(static_cast<uint8_t>(key_id >> s));
  for (uint32_t i = 0; i < digest_len; ++i) b->push_back(0xa5);
}

NtpDrop Drop(const Bytes& b) {
  return ValidateNtpRequest(b.data(), static_cast<uint32_t>(b.size())).drop;
}

// ---- Header ----------------------------------------------------------------

TEST(NtpWireTest, ParsesNtpdigRequest) {
  NtpHeader h;
  ASSERT_TRUE(ParseNtpHeader(kNtpdigRequest.data(), 48, &h));
  EXPECT_EQ(h.leap, NtpLeapIndicator::kUnsynchronized);
  EXPECT_EQ(h.version, 4);
  EXPECT_EQ(h.mode, NtpMode::kClient);
  EXPECT_EQ(h.stratum, 0);
  EXPECT_EQ(h.poll_log2, 0);
  EXPECT_EQ(h.transmit_time, (NtpTimestamp{0xeeb6e122u, 0x9b5c8000u}));
  EXPECT_TRUE(h.origin_time.IsZero());
}

TEST(NtpWireTest, ParsesChronyRequest) {
  NtpHeader h;
  ASSERT_TRUE(ParseNtpHeader(kChronyRequest.data(), 48, &h));
  EXPECT_EQ(h.leap, NtpLeapIndicator::kNoWarning);
  EXPECT_EQ(h.version, 4);
  EXPECT_EQ(h.mode, NtpMode::kClient);
  EXPECT_EQ(h.poll_log2, 6);
  EXPECT_EQ(h.precision_log2, 32);
  EXPECT_EQ(h.transmit_time, (NtpTimestamp{0x3cb95db9u, 0x504da72au}));
}

TEST(NtpWireTest, SerializeKnownAnswer) {
  NtpHeader h;
  h.leap = NtpLeapIndicator::kLastMinute61;
  h.version = 4;
  h.mode = NtpMode::kServer;
  h.stratum = 1;
  h.poll_log2 = -6;
  h.precision_log2 = -24;
  h.root_delay = {0x0001, 0x8000};       // 1.5 s
  h.root_dispersion = {0x0000, 0x0042};  // ~1 ms
  h.reference_id = NtpRefId("GPS\0");
  h.reference_time = {0x01020304, 0x05060708};
  h.origin_time = {0x11121314, 0x15161718};
  h.receive_time = {0x21222324, 0x25262728};
  h.transmit_time = {0x31323334, 0x35363738};
  uint8_t out[48];
  SerializeNtpHeader(h, out);
  // RFC 5905 figure 8, assembled by hand: 01 100 100 = 0x64.
  EXPECT_EQ(Bytes(out, out + 48), FromHex("6401fae8000180000000004247505300"
                                          "01020304050607081112131415161718"
                                          "21222324252627283132333435363738"));
  NtpHeader back;
  ASSERT_TRUE(ParseNtpHeader(out, 48, &back));
  EXPECT_EQ(back, h);
}

TEST(NtpWireTest, RoundTripsCapturedRequests) {
  for (const Bytes& b : {kNtpdigRequest, kChronyRequest}) {
    NtpHeader h;
    ASSERT_TRUE(ParseNtpHeader(b.data(), 48, &h));
    uint8_t out[48];
    SerializeNtpHeader(h, out);
    EXPECT_EQ(Bytes(out, out + 48), b);
  }
}

// Rebuilds an NTP message from what our parsers read: the header
// (ParseNtpHeader -> SerializeNtpHeader), then each extension field (type,
// length, value from NtpExtensionWalker) and the MAC trailer (NTPv4: the
// walker; NTPv1..3: ParseNtpTrailer). Empty if something does not parse.
Bytes Reserialize(const Bytes& b) {
  const uint32_t len = static_cast<uint32_t>(b.size());
  NtpHeader h;
  if (!ParseNtpHeader(b.data(), len, &h)) return {};
  Bytes out(kNtpHeaderSize);
  SerializeNtpHeader(h, out.data());
  uint32_t mac_offset = len, mac_size = 0;
  if (h.version >= 4) {
    NtpExtensionWalker walker(b.data(), len);
    NtpExtensionField f;
    NtpExtensionWalker::Step step;
    while ((step = walker.Next(&f)) == Step::kField) {
      AppendField(&out, f.type, f.length);
      std::copy(f.value, f.value + f.length - 4, out.end() - (f.length - 4));
    }
    if (step == Step::kMalformed) return {};
    if (step == Step::kMac) {
      mac_offset = walker.mac_offset();
      mac_size = walker.mac_size();
    }
  } else if (len > kNtpHeaderSize) {
    const NtpTrailer t = ParseNtpTrailer(b.data(), len, h.version);
    if (t.malformed) return {};
    mac_offset = t.mac_offset;
    mac_size = t.mac_size;
  }
  out.insert(out.end(), b.begin() + mac_offset,
             b.begin() + mac_offset + mac_size);
  return out;
}

TEST(NtpWireTest, ReserializeCoversExtensionFieldsAndMacs) {
  Bytes v4 = Request(kV4Client);
  AppendField(&v4, 0x1234, 16, 0x11);
  AppendField(&v4, 0xf323, 28, 0x22);
  AppendMac(&v4, 42, 16);
  EXPECT_EQ(Reserialize(v4), v4);
  Bytes v3 = Request(0x1b);
  AppendMac(&v3, 7, 20);
  EXPECT_EQ(Reserialize(v3), v3);
  v4.back() ^= 1;  // the MAC is copied, not checked: still equal
  EXPECT_EQ(Reserialize(v4), v4);
  v4.resize(v4.size() - 4);  // 16-byte trailer: not a MAC, not a field
  EXPECT_TRUE(Reserialize(v4).empty());
}

// Every NTP packet ntpdig and chronyd (client, interleaved client, server)
// sent in tests/data/ parses with our parsers and is rebuilt byte for byte;
// every request is one we answer.
TEST(NtpWireTest, EveryPeerFixturePacketRoundTrips) {
  int requests = 0, replies = 0;
  for (const char* name :
       {"ntp_ntpdig_v4.pcap", "ntp_ntpdig_v6.pcap",
        "ntp_chronyd_client_v4.pcap", "ntp_chronyd_client_v6.pcap",
        "ntp_chronyd_xleave_v4.pcap"}) {
    absl::StatusOr<std::vector<testutil::ClassifiedFrame>> frames =
        testutil::ClassifyPcapFile(testutil::TestDataPath(name),
                                   testutil::PeerPairEndpoints());
    ASSERT_TRUE(frames.ok()) << frames.status();
    for (const Bytes& b : testutil::UdpPayloads(*frames, kNtpPort)) {
      EXPECT_EQ(Reserialize(b), b) << name;
      NtpHeader h;
      ASSERT_TRUE(
          ParseNtpHeader(b.data(), static_cast<uint32_t>(b.size()), &h));
      EXPECT_EQ(h.version, 4) << name;
      if (h.mode == NtpMode::kClient) {
        EXPECT_EQ(Drop(b), NtpDrop::kNone) << name;
        ++requests;
      } else {
        EXPECT_EQ(h.mode, NtpMode::kServer) << name;
        EXPECT_EQ(h.stratum, 1) << name;  // chronyd: local stratum 1
        ++replies;
      }
    }
  }
  EXPECT_EQ(requests, 11);
  EXPECT_EQ(replies, 11);
}

TEST(NtpWireTest, ParseRejectsShortHeader) {
  NtpHeader h;
  h.stratum = 77;
  EXPECT_FALSE(ParseNtpHeader(kNtpdigRequest.data(), 47, &h));
  EXPECT_FALSE(ParseNtpHeader(nullptr, 0, &h));
  EXPECT_EQ(h.stratum, 77);  // untouched
}

TEST(NtpWireTest, RefIdIsBigEndianAscii) {
  EXPECT_EQ(NtpRefId("RATE"), 0x52415445u);
  EXPECT_EQ(NtpRefId("GPS\0"), 0x47505300u);
}

// ---- Validation ------------------------------------------------------------

TEST(NtpValidateTest, CapturedRequestsAreAnswered) {
  EXPECT_EQ(Drop(kNtpdigRequest), NtpDrop::kNone);
  EXPECT_EQ(Drop(kChronyRequest), NtpDrop::kNone);
}

TEST(NtpValidateTest, EveryVersionOneToFourIsAnsweredAndReported) {
  for (uint8_t v = 1; v <= 4; ++v) {
    const Bytes b = Request(static_cast<uint8_t>((v << 3) | 3));
    const NtpRequestCheck c = ValidateNtpRequest(b.data(), 48);
    EXPECT_EQ(c.drop, NtpDrop::kNone) << "v" << int{v};
    EXPECT_EQ(c.version, v);
  }
}

TEST(NtpValidateTest, BadVersions) {
  for (uint8_t v : {0, 5, 6, 7}) {
    EXPECT_EQ(Drop(Request(static_cast<uint8_t>((v << 3) | 3))),
              NtpDrop::kBadVersion)
        << "v" << int{v};
  }
}

TEST(NtpValidateTest, ModeZeroIsAClientOnlyInVersionOne) {
  EXPECT_EQ(Drop(Request(0x08)), NtpDrop::kNone);  // v1, no mode field
  EXPECT_EQ(Drop(Request(0x10)), NtpDrop::kModeReserved);
  EXPECT_EQ(Drop(Request(0x18)), NtpDrop::kModeReserved);
  EXPECT_EQ(Drop(Request(0x20)), NtpDrop::kModeReserved);
}

TEST(NtpValidateTest, EveryNonClientModeHasItsReason) {
  EXPECT_EQ(Drop(Request(0x21)), NtpDrop::kModeSymmetric);
  EXPECT_EQ(Drop(Request(0x22)), NtpDrop::kModeSymmetric);
  EXPECT_EQ(Drop(Request(0x24)), NtpDrop::kModeServer);
  EXPECT_EQ(Drop(Request(0x25)), NtpDrop::kModeBroadcast);
  EXPECT_EQ(Drop(Request(0x26)), NtpDrop::kModeControl);
  EXPECT_EQ(Drop(Request(0x27)), NtpDrop::kModePrivate);
  EXPECT_EQ(Drop(Request(0x0c)), NtpDrop::kModeServer);  // v1 mode 4
}

TEST(NtpValidateTest, ShortProbesAreCountedByMode) {
  // ntpq readvar (mode 6, 12-byte header) and the ntpdc monlist probe
  // (v2 mode 7, 8 bytes) are shorter than an NTP header.
  EXPECT_EQ(Drop(FromHex("160200010000000000000000")), NtpDrop::kModeControl);
  EXPECT_EQ(Drop(FromHex("1700032a00000000")), NtpDrop::kModePrivate);
}

TEST(NtpValidateTest, TooShortAndBadLength) {
  EXPECT_EQ(Drop(Bytes{}), NtpDrop::kTooShort);
  EXPECT_EQ(Drop(Request(kV4Client, 47)), NtpDrop::kTooShort);
  EXPECT_EQ(Drop(Request(kV4Client, 1)), NtpDrop::kTooShort);
  for (uint32_t len : {49u, 50u, 51u, 70u, 71u}) {
    EXPECT_EQ(Drop(Request(kV4Client, len)), NtpDrop::kBadLength) << len;
  }
}

TEST(NtpValidateTest, ZeroTransmitTimestamp) {
  Bytes b = Request(kV4Client);
  b[40] = 0;
  b[47] = 0;
  EXPECT_EQ(Drop(b), NtpDrop::kZeroTransmit);
  b[47] = 1;  // fraction alone is enough
  EXPECT_EQ(Drop(b), NtpDrop::kNone);
}

TEST(NtpValidateTest, MacTrailersAreDropped) {
  for (uint8_t version : {3, 4}) {
    for (uint32_t digest : {16u, 20u}) {
      Bytes b = Request(static_cast<uint8_t>((version << 3) | 3));
      AppendMac(&b, 42, digest);
      const NtpRequestCheck c =
          ValidateNtpRequest(b.data(), static_cast<uint32_t>(b.size()));
      EXPECT_EQ(c.drop, NtpDrop::kMacPresent) << int{version} << "/" << digest;
      EXPECT_EQ(c.trailer.mac, NtpMacKind::kSymmetric);
      EXPECT_EQ(c.trailer.mac_key_id, 42u);
      EXPECT_EQ(c.trailer.mac_offset, 48u);
      EXPECT_EQ(c.trailer.mac_size, 4 + digest);
    }
  }
  Bytes des = Request(0x1b);  // v3 with an RFC 1305 DES authenticator
  AppendMac(&des, 7, 8);
  EXPECT_EQ(Drop(des), NtpDrop::kMacPresent);
}

TEST(NtpValidateTest, MsSntpAndCryptoNakAreAuthentication) {
  Bytes ms = Request(0x1b);
  AppendMac(&ms, 1105, 0);
  ms.resize(ms.size() + 16, 0);  // zero digest: Windows domain client
  NtpRequestCheck c =
      ValidateNtpRequest(ms.data(), static_cast<uint32_t>(ms.size()));
  EXPECT_EQ(c.drop, NtpDrop::kMacPresent);
  EXPECT_EQ(c.trailer.mac, NtpMacKind::kMsSntp);

  Bytes nak = Request(kV4Client);
  AppendMac(&nak, 0, 0);
  c = ValidateNtpRequest(nak.data(), static_cast<uint32_t>(nak.size()));
  EXPECT_EQ(c.drop, NtpDrop::kMacPresent);
  EXPECT_EQ(c.trailer.mac, NtpMacKind::kCryptoNak);

  Bytes not_nak = Request(kV4Client);
  AppendMac(&not_nak, 9, 0);
  EXPECT_EQ(Drop(not_nak), NtpDrop::kMalformedExtension);
}

TEST(NtpValidateTest, LegacyTrailerOfOtherSizesIsMalformed) {
  for (uint32_t extra : {4u, 8u, 16u, 28u, 32u}) {
    Bytes b = Request(0x1b, 48 + extra);
    EXPECT_EQ(Drop(b), NtpDrop::kMalformedExtension) << extra;
  }
}

TEST(NtpValidateTest, NtsRequestsAreCountedAndDropped) {
  Bytes b = Request(kV4Client);
  AppendField(&b, 0x0104, 36);   // unique identifier
  AppendField(&b, 0x0204, 104);  // cookie
  AppendField(&b, 0x0304, 104);  // cookie placeholder
  AppendField(&b, 0x0404, 40);   // authenticator and encrypted fields
  const NtpRequestCheck c =
      ValidateNtpRequest(b.data(), static_cast<uint32_t>(b.size()));
  EXPECT_EQ(c.drop, NtpDrop::kNtsUnsupported);
  EXPECT_EQ(c.trailer.extension_fields, 4);
  EXPECT_EQ(c.trailer.nts_fields, 4);
}

TEST(NtpValidateTest, UnknownExtensionFieldsAreIgnored) {
  Bytes b = Request(kV4Client);
  AppendField(&b, 0x1234, 16);
  AppendField(&b, 0xf323, 28);  // chrony's experimental monotonic root field
  const NtpRequestCheck c =
      ValidateNtpRequest(b.data(), static_cast<uint32_t>(b.size()));
  EXPECT_EQ(c.drop, NtpDrop::kNone);
  EXPECT_EQ(c.trailer.extension_fields, 2);
  EXPECT_EQ(c.trailer.nts_fields, 0);
}

TEST(NtpValidateTest, ExtensionFieldsInOldVersionsAreMalformed) {
  Bytes b = Request(0x1b);  // v3
  AppendField(&b, 0x1234, 28);
  EXPECT_EQ(Drop(b), NtpDrop::kMalformedExtension);
}

TEST(NtpValidateTest, DropNamesAreUniqueLabels) {
  std::set<std::string> names;
  for (size_t i = 0; i < kNtpDropCount; ++i) {
    const std::string name = NtpDropName(static_cast<NtpDrop>(i));
    EXPECT_NE(name, "unknown");
    EXPECT_EQ(name.find_first_not_of("abcdefghijklmnopqrstuvwxyz_"),
              std::string::npos)
        << name;
    names.insert(name);
  }
  EXPECT_EQ(names.size(), kNtpDropCount);
  EXPECT_STREQ(NtpDropName(NtpDrop::kCount), "unknown");
}

// ---- Extension field walker
// --------------------------------------------------

struct Walk {
  std::vector<NtpExtensionField> fields;
  Step last;
  uint32_t mac_offset = 0, mac_size = 0;
};
Walk WalkAll(const Bytes& b) {
  Walk w;
  NtpExtensionWalker walker(b.data(), static_cast<uint32_t>(b.size()));
  NtpExtensionField f;
  while ((w.last = walker.Next(&f)) == Step::kField) {
    w.fields.push_back(f);
    if (w.fields.size() > 1000) break;
  }
  if (w.last == Step::kMac) {
    w.mac_offset = walker.mac_offset();
    w.mac_size = walker.mac_size();
  }
  return w;
}

TEST(NtpExtensionWalkerTest, HeaderOnlyEnds) {
  EXPECT_EQ(WalkAll(Request(kV4Client)).last, Step::kEnd);
}

TEST(NtpExtensionWalkerTest, FieldsThenEnd) {
  Bytes b = Request(kV4Client);
  AppendField(&b, 0x0104, 16, 0x11);
  AppendField(&b, 0x2005, 32, 0x22);
  const Walk w = WalkAll(b);
  ASSERT_EQ(w.last, Step::kEnd);
  ASSERT_EQ(w.fields.size(), 2u);
  EXPECT_EQ(w.fields[0].type, 0x0104);
  EXPECT_EQ(w.fields[0].length, 16);
  EXPECT_EQ(w.fields[0].offset, 48u);
  EXPECT_EQ(w.fields[0].value, b.data() + 52);
  EXPECT_EQ(w.fields[0].value[0], 0x11);
  EXPECT_EQ(w.fields[1].type, 0x2005);
  EXPECT_EQ(w.fields[1].length, 32);
  EXPECT_EQ(w.fields[1].offset, 64u);
  EXPECT_EQ(w.fields[1].value[27], 0x22);
}

TEST(NtpExtensionWalkerTest, MacAfterFields) {
  for (uint32_t digest : {16u, 20u}) {
    Bytes b = Request(kV4Client);
    AppendField(&b, 0x1234, 28);
    AppendMac(&b, 5, digest);
    const Walk w = WalkAll(b);
    EXPECT_EQ(w.last, Step::kMac);
    EXPECT_EQ(w.fields.size(), 1u);
    EXPECT_EQ(w.mac_offset, 76u);
    EXPECT_EQ(w.mac_size, 4 + digest);
  }
}

TEST(NtpExtensionWalkerTest, TwentyOrTwentyFourBytesAreAlwaysAMac) {
  // RFC 7822: the MAC is recognised by its length; a lone extension field must
  // therefore be at least 28 bytes. A 20-byte "field" reads as a MAC.
  Bytes b = Request(kV4Client);
  AppendField(&b, 0x1234, 20);
  EXPECT_EQ(WalkAll(b).last, Step::kMac);
  Bytes c = Request(kV4Client);
  AppendField(&c, 0x1234, 28);
  EXPECT_EQ(WalkAll(c).last, Step::kEnd);
}

TEST(NtpExtensionWalkerTest, MaliciousLengthsAreMalformed) {
  // Declared lengths 0, 4, 12 (too small), 17/18/30 (not a multiple of 4),
  // larger than what remains, and 0xffff.
  for (uint16_t length : {0, 4, 12, 17, 18, 30, 36, 0xfffc, 0xffff}) {
    Bytes b = Request(kV4Client);
    AppendField(&b, 0x1234, 16);
    b[50] = static_cast<uint8_t>(length >> 8);
    b[51] = static_cast<uint8_t>(length);
    b.resize(48 + 32, 0);  // 32 bytes remain after the header
    const Walk w = WalkAll(b);
    EXPECT_EQ(w.last, Step::kMalformed) << length;
    EXPECT_TRUE(w.fields.empty()) << length;
    EXPECT_EQ(Drop(b), NtpDrop::kMalformedExtension) << length;
  }
}

TEST(NtpExtensionWalkerTest, LeftoverBytesAreMalformed) {
  for (uint32_t extra : {4u, 8u, 12u}) {
    Bytes b = Request(kV4Client);
    AppendField(&b, 0x1234, 28);
    b.resize(b.size() + extra, 0);
    EXPECT_EQ(WalkAll(b).last, Step::kMalformed) << extra;
  }
}

TEST(NtpExtensionWalkerTest, OddLengthsNeverReadPastTheEnd) {
  // Under ASan, a read past the vector's end would fail the test.
  for (uint32_t len = 0; len < 120; ++len) {
    Bytes b(len, 0);
    if (len > 0) b[0] = kV4Client;
    if (len >= 52) b[51] = 16;  // a plausible first field length
    const Walk w = WalkAll(b);
    EXPECT_NE(w.last, Step::kField);
    for (uint8_t v = 1; v <= 4; ++v) {
      const NtpTrailer t = ParseNtpTrailer(b.data(), len, v);
      if (len % 4 != 0) {
        EXPECT_TRUE(t.malformed) << len;
      }
    }
  }
}

TEST(NtpExtensionWalkerTest, StaysDoneAndRejectsShortMessages) {
  Bytes b = Request(kV4Client, 40);
  NtpExtensionWalker walker(b.data(), 40);
  NtpExtensionField f;
  EXPECT_EQ(walker.Next(&f), Step::kMalformed);
  EXPECT_EQ(walker.Next(&f), Step::kMalformed);
  Bytes ok = Request(kV4Client);
  NtpExtensionWalker end(ok.data(), 48);
  EXPECT_EQ(end.Next(&f), Step::kEnd);
  EXPECT_EQ(end.Next(&f), Step::kEnd);
}

// ---- Kiss-o'-Death
// -----------------------------------------------------------

TEST(NtpKissTest, KissOfDeathInPlace) {
  Bytes b = kChronyRequest;  // poll 6
  AppendField(&b, 0x1234, 28);
  const NtpRequestCheck c =
      ValidateNtpRequest(b.data(), static_cast<uint32_t>(b.size()));
  ASSERT_EQ(c.drop, NtpDrop::kNone);
  EXPECT_EQ(WriteNtpKissOfDeath(b.data(), c, kNtpKissRate, 10), 48u);
  EXPECT_EQ(Bytes(b.begin(), b.begin() + 48),
            FromHex("e4000a00000000000000000052415445"
                    "00000000000000003cb95db9504da72a"
                    "3cb95db9504da72a3cb95db9504da72a"));
  NtpHeader h;
  ASSERT_TRUE(ParseNtpHeader(b.data(), 48, &h));
  EXPECT_EQ(ClassifyNtpKiss(h), NtpKiss::kRate);
}

TEST(NtpKissTest, KissKeepsTheLargerPollAndTheVersion) {
  Bytes b = Request(0x1b);  // v3
  b[2] = 12;
  const NtpRequestCheck c = ValidateNtpRequest(b.data(), 48);
  WriteNtpKissOfDeath(b.data(), c, kNtpKissDeny, 4);
  NtpHeader h;
  ASSERT_TRUE(ParseNtpHeader(b.data(), 48, &h));
  EXPECT_EQ(h.version, 3);
  EXPECT_EQ(h.mode, NtpMode::kServer);
  EXPECT_EQ(h.leap, NtpLeapIndicator::kUnsynchronized);
  EXPECT_EQ(h.poll_log2, 12);
  EXPECT_EQ(ClassifyNtpKiss(h), NtpKiss::kDeny);
}

TEST(NtpKissTest, Classify) {
  NtpHeader h;
  h.stratum = 0;
  h.reference_id = kNtpKissRestrict;
  EXPECT_EQ(ClassifyNtpKiss(h), NtpKiss::kRestrict);
  h.reference_id = kNtpKissNtsNak;
  EXPECT_EQ(ClassifyNtpKiss(h), NtpKiss::kNtsNak);
  h.reference_id = NtpRefId("INIT");
  EXPECT_EQ(ClassifyNtpKiss(h), NtpKiss::kOther);
  h.reference_id = 0;
  EXPECT_EQ(ClassifyNtpKiss(h), NtpKiss::kOther);
  h.stratum = 2;
  h.reference_id = kNtpKissRate;  // an IPv4 refid that happens to spell RATE
  EXPECT_EQ(ClassifyNtpKiss(h), NtpKiss::kNotKiss);
  EXPECT_STREQ(NtpKissName(NtpKiss::kRate), "RATE");
}

}  // namespace
}  // namespace ntp_wire_test
}  // namespace zg::core
