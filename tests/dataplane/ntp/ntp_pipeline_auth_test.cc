// SPDX-License-Identifier: Apache-2.0
// Symmetric-key authentication in the protocol pipeline
// (ntp_pipeline_fixture.h with an NtpAuthFactory): a request MACed with a
// known key is answered with a reply MACed by the same key, after T3; an
// unknown key, a bad MAC or a MAC of the wrong size is dropped under its own
// reason (as chrony: no reply); without keys a MACed request stays
// ntp_mac_present; the authenticated reply counters advance by algorithm;
// tshark dissects the MACed replies (IPv4 and IPv6) cleanly, key id and MAC
// as sent.
#include <cstdint>
#include <memory>
#include <vector>

#include "core/base/byte_order.h"
#include "core/ntp/ntp_keys.h"
#include "core/ntp/ntp_mac.h"
#include "core/ntp/ntp_wire.h"
#include "dataplane/ntp/ntp_auth.h"
#include "gtest/gtest.h"
#include "tests/dataplane/ntp/ntp_pipeline_fixture.h"
#include "tests/dataplane/testing/frames.h"
#include "tests/util/hex.h"
#include "tests/util/tshark.h"

namespace zg::dataplane {
namespace ntp_pipeline_auth_test {
namespace {

using testing::ClientView;
using testing::NtpPipelineTest;

constexpr char kKeys[] =
    "1 AES128 HEX:2b7e151628aed2a6abf7158809cf4f3c\n"
    "2 AES256 "
    "HEX:603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4\n"
    "3 MD5 ASCII:correct-horse\n"
    "4 SHA1 correct-horse\n";

std::shared_ptr<const core::NtpKeyTable> Keys(const char* text) {
  absl::StatusOr<core::NtpKeyTable> t = core::ParseNtpKeys(text);
  EXPECT_TRUE(t.ok()) << t.status();
  return std::make_shared<const core::NtpKeyTable>(std::move(*t));
}

// Drops requests from port 40001 (as "policy_denied"), answers every other
// one with a KoD RATE.
class KissAll final : public NtpRequestPolicy {
 public:
  explicit KissAll(uint8_t drop) : drop_(drop) {}
  NtpPolicyVerdict Check(const core::FrameInfo& req,
                         const core::NtpRequestCheck&, core::TaiNs) override {
    if (req.src_port == 40001) return NtpPolicyVerdict::Drop(drop_);
    return NtpPolicyVerdict::Kiss(core::kNtpKissRate, 10);
  }

 private:
  uint8_t drop_;
};
class KissAllFactory final : public NtpPolicyFactory {
 public:
  absl::Status RegisterNames(CounterNames& names) override {
    absl::StatusOr<uint8_t> base = names.AddDropReasons("policy", {"denied"});
    if (!base.ok()) return base.status();
    drop_ = *base;
    return absl::OkStatus();
  }
  absl::StatusOr<std::unique_ptr<NtpRequestPolicy>> Create(
      const WorkerSetup&) override {
    return std::make_unique<KissAll>(drop_);
  }
  uint8_t drop_ = 0;
};

class NtpAuthPipelineTest : public NtpPipelineTest {
 protected:
  void SetUpAuth(const char* keys = kKeys, NtpPolicyFactory* policy = nullptr) {
    auth_.SetKeys(Keys(keys));
    SetUpServer(std::nullopt, policy, {}, &auth_);
    // The client's copy of the keys: an independent macer.
    auto m = core::NtpMacer::Create(*Keys(kKeys));
    ASSERT_TRUE(m.ok());
    client_ = std::move(*m);
  }
  // A request MACed by the client with key `id`.
  std::vector<uint8_t> Signed(uint32_t id, uint8_t version = 4) {
    std::vector<uint8_t> req = testing::NtpRequest(version, kT1);
    req.resize(48 + 24);
    const uint32_t n =
        client_->Sign(static_cast<uint16_t>(client_->Find(id)), req.data(), 48);
    req.resize(48 + n);
    return req;
  }
  std::string Reason(uint8_t index) { return names_.DropReasonName(index); }

  NtpAuthFactory auth_;
  std::unique_ptr<core::NtpMacer> client_;
};

TEST_F(NtpAuthPipelineTest, KnownKeyIsAnsweredWithTheSameKeysMac) {
  SetUpAuth();
  std::vector<std::vector<uint8_t>> frames, requests;
  const uint32_t ids[] = {1, 2, 3, 4, 1, 3};
  for (size_t i = 0; i < std::size(ids); ++i) {
    requests.push_back(Signed(ids[i], i < 4 ? 4 : 3));
    frames.push_back(testing::UdpFrame(Flow4(static_cast<uint16_t>(40000 + i)),
                                       requests.back()));
  }
  Exchange e = Run(frames);
  ASSERT_EQ(e.out.size(), frames.size());
  EXPECT_EQ(e.delta.TotalDropped(), 0u);
  for (size_t i = 0; i < e.out.size(); ++i) {
    SCOPED_TRACE(i);
    absl::StatusOr<ClientView> v = testing::ReceiveAtClient(
        Flow4(static_cast<uint16_t>(40000 + i)), e.out[i]);
    ASSERT_TRUE(v.ok()) << v.status();  // addressing and UDP checksum
    // Header + the same key's MAC: exactly the request's size.
    EXPECT_EQ(v->info.payload_len, requests[i].size());
    const core::NtpTrailer t = core::ParseNtpTrailer(
        v->payload(), v->info.payload_len, requests[i][0] >> 3 & 7);
    EXPECT_EQ(t.mac, core::NtpMacKind::kSymmetric);
    EXPECT_EQ(t.mac_key_id, ids[i]);
    EXPECT_EQ(t.mac_offset, 48u);
    EXPECT_EQ(client_->Verify(v->payload(), t).verdict,
              core::NtpMacVerdict::kOk);
    core::NtpHeader h;
    ASSERT_TRUE(core::ParseNtpHeader(v->payload(), v->info.payload_len, &h));
    EXPECT_EQ(h.mode, core::NtpMode::kServer);
    EXPECT_EQ(h.stratum, 1);
    EXPECT_EQ(h.origin_time, kT1);
    // T3 is final (written before the MAC) and within the poll.
    const core::UtcNs t2 = Utc(h.receive_time), t3 = Utc(h.transmit_time);
    EXPECT_LT(t2.value, t3.value);
    EXPECT_LE(t3.value, UtcAtTsc(e.tsc_after).value + 1);
  }
  const NtpAuthStats& s = auth_.stats(0);
  EXPECT_EQ(s.replies[size_t(core::NtpKeyType::kAes128)].Load(), 2u);
  EXPECT_EQ(s.replies[size_t(core::NtpKeyType::kAes256)].Load(), 1u);
  EXPECT_EQ(s.replies[size_t(core::NtpKeyType::kMd5)].Load(), 2u);
  EXPECT_EQ(s.replies[size_t(core::NtpKeyType::kSha1)].Load(), 1u);
  Free(e);
}

TEST_F(NtpAuthPipelineTest, TsharkDissectsMacedRepliesCleanly) {
  if (!testutil::TsharkAvailable()) GTEST_SKIP() << "tshark not installed";
  SetUpAuth();
  std::vector<std::vector<uint8_t>> frames;
  std::vector<uint32_t> ids;
  for (uint32_t id : {1u, 2u, 3u, 4u}) {
    for (bool v6 : {false, true}) {
      const uint16_t port = static_cast<uint16_t>(40000 + frames.size());
      frames.push_back(
          testing::UdpFrame(v6 ? Flow6(port) : Flow4(port), Signed(id)));
      ids.push_back(id);
    }
  }
  Exchange e = Run(frames);
  ASSERT_EQ(e.out.size(), frames.size());
  std::vector<testutil::FrameCheck> checks;
  for (size_t i = 0; i < e.out.size(); ++i) {
    const uint8_t* data = rte_pktmbuf_mtod(e.out[i], const uint8_t*);
    std::vector<uint8_t> frame(data, data + e.out[i]->data_len);
    const size_t mac_len = ids[i] == 4 ? 20 : 16;
    const size_t mac_at = frame.size() - mac_len;
    checks.push_back(
        {absl::StrCat("reply key ", ids[i], i % 2 ? " v6" : " v4"),
         frame,
         {{"ntp.flags.mode", "4"},
          {"ntp.keyid",
           testutil::ToHex(absl::MakeConstSpan(frame.data() + mac_at - 4, 4),
                           ":")},
          {"ntp.mac",
           testutil::ToHex(absl::MakeConstSpan(frame.data() + mac_at, mac_len),
                           ":")},
          {"udp.checksum.status", "1"}}});
  }
  const absl::Status s = testutil::DissectAndCheck(checks);
  EXPECT_TRUE(s.ok()) << s;
  Free(e);
}

// In one TX batch, every reply from the first MACed one on reads the TSC
// after the MACs before it: T3 never goes backwards along the batch.
TEST_F(NtpAuthPipelineTest, T3IsReadAfterTheMacsBeforeIt) {
  SetUpAuth();
  std::vector<std::vector<uint8_t>> frames;
  for (size_t i = 0; i < 8; ++i) {
    frames.push_back(testing::UdpFrame(
        Flow4(static_cast<uint16_t>(40000 + i)),
        i % 2 == 0 ? Signed(i % 4 == 0 ? 1 : 4) : testing::NtpRequest(4, kT1)));
  }
  Exchange e = Run(frames);
  ASSERT_EQ(e.out.size(), frames.size());
  int64_t previous = 0;
  for (size_t i = 0; i < e.out.size(); ++i) {
    absl::StatusOr<ClientView> v = testing::ReceiveAtClient(
        Flow4(static_cast<uint16_t>(40000 + i)), e.out[i]);
    ASSERT_TRUE(v.ok()) << v.status();
    core::NtpHeader h;
    ASSERT_TRUE(core::ParseNtpHeader(v->payload(), v->info.payload_len, &h));
    const int64_t t3 = Utc(h.transmit_time).value;
    EXPECT_GE(t3, previous) << "reply " << i;
    previous = t3;
  }
  Free(e);
}

// chrony MACs every response to an authenticated request, KoD RATE
// included (ntp_core.c transmit_packet -> NAU_GenerateResponseAuth).
TEST_F(NtpAuthPipelineTest, KissOfDeathToAnAuthenticatedRequestIsMaced) {
  KissAllFactory policy;
  SetUpAuth(kKeys, &policy);
  const std::vector<uint8_t> req = Signed(4);
  Exchange e = Run({testing::UdpFrame(Flow4(), req)});
  ASSERT_EQ(e.out.size(), 1u);
  absl::StatusOr<ClientView> v = testing::ReceiveAtClient(Flow4(), e.out[0]);
  ASSERT_TRUE(v.ok()) << v.status();
  ASSERT_EQ(v->info.payload_len, 48u + 24u);
  core::NtpHeader kod;
  ASSERT_TRUE(core::ParseNtpHeader(v->payload(), v->info.payload_len, &kod));
  EXPECT_EQ(core::ClassifyNtpKiss(kod), core::NtpKiss::kRate);
  const core::NtpTrailer t =
      core::ParseNtpTrailer(v->payload(), v->info.payload_len, 4);
  EXPECT_EQ(t.mac_key_id, 4u);
  EXPECT_EQ(client_->Verify(v->payload(), t).verdict, core::NtpMacVerdict::kOk);
  Free(e);
  // chrony's order: the policy's drop before the MAC check (no MAC
  // computed for it), the MAC check before the KoD (a bad MAC gets none).
  std::vector<uint8_t> bad = Signed(4);
  bad.back() ^= 1;
  e = Run({testing::UdpFrame(Flow4(40001), bad),
           testing::UdpFrame(Flow4(40002), bad)});
  EXPECT_EQ(e.out.size(), 0u);
  EXPECT_EQ(e.delta.dropped[policy.drop_], 1u);
  EXPECT_EQ(e.delta.dropped[auth_.drops().bad_mac], 1u);
  Free(e);
}

TEST_F(NtpAuthPipelineTest, FailuresAreDroppedByReason) {
  // The server knows keys 1, 3, 4 (not 2).
  SetUpAuth(
      "1 AES128 HEX:2b7e151628aed2a6abf7158809cf4f3c\n"
      "3 MD5 ASCII:correct-horse\n"
      "4 SHA1 correct-horse\n");
  std::vector<uint8_t> bad_mac = Signed(1);
  bad_mac.back() ^= 1;
  std::vector<uint8_t> tampered = Signed(3);
  tampered[2] = 10;  // poll, after the MAC was computed
  std::vector<uint8_t> wrong_len = Signed(4);
  core::StoreBe32(wrong_len.data() + 48, 1);  // a 24-byte MAC, AES key 1
  const std::vector<std::pair<std::vector<uint8_t>, std::string>> cases = {
      {Signed(2), "ntp_auth_unknown_key"},
      {bad_mac, "ntp_auth_bad_mac"},
      {tampered, "ntp_auth_bad_mac"},
      {wrong_len, "ntp_auth_bad_length"},
  };
  for (const auto& [req, reason] : cases) {
    SCOPED_TRACE(reason);
    Exchange e = Run({testing::UdpFrame(Flow4(), req)});
    EXPECT_EQ(e.out.size(), 0u) << "chrony sends nothing";
    size_t hits = 0;
    for (size_t r = 0; r < kMaxDropReasons; ++r) {
      if (e.delta.dropped[r] == 0) continue;
      ++hits;
      EXPECT_EQ(names_.DropReasonName(r), reason);
    }
    EXPECT_EQ(hits, 1u);
    Free(e);
  }
  // A plain request is still answered, unauthenticated.
  Exchange e = Run({testing::UdpFrame(Flow4(), testing::NtpRequest(4, kT1))});
  ASSERT_EQ(e.out.size(), 1u);
  ExpectNtpReply(e.out[0], Flow4(), testing::NtpRequest(4, kT1), e);
  Free(e);
}

TEST_F(NtpAuthPipelineTest, WithoutKeysAMacedRequestIsMacPresent) {
  auth_.SetKeys(nullptr);
  SetUpServer(std::nullopt, nullptr, {}, &auth_);
  auto m = core::NtpMacer::Create(*Keys(kKeys));
  ASSERT_TRUE(m.ok());
  client_ = std::move(*m);
  Exchange e = Run({testing::UdpFrame(Flow4(), Signed(1))});
  EXPECT_EQ(e.out.size(), 0u);
  for (size_t r = 0; r < kMaxDropReasons; ++r) {
    if (e.delta.dropped[r] != 0) {
      EXPECT_EQ(names_.DropReasonName(r), "ntp_mac_present");
    }
  }
  EXPECT_EQ(e.delta.TotalDropped(), 1u);
  Free(e);
}

}  // namespace
}  // namespace ntp_pipeline_auth_test
}  // namespace zg::dataplane
