// SPDX-License-Identifier: Apache-2.0
// NTS through the real worker on a ring port (ntp_pipeline_fixture.h with an
// NtsFactory): an NTS request is answered with a reply that opens with S2C,
// echoes the UID and carries fresh cookies that open with the factory's
// keystore, exactly as long as the request for 0..7 placeholders (IPv4 and
// IPv6, UDP checksums checked by the client's classifier); a cookie of
// another master key or a bad authenticator gets an NTS NAK; the rest is
// dropped under its reason; without a master key NTS stays ntp_nts_unsupported;
// T3 is final before the seal and never goes backwards along a batch; the key
// rotates at the period boundary (old cookies still accepted, the key id
// audited) and the master key reloads (an unchanged one stages nothing); a
// policy KoD carries the UID; tshark dissects replies and NAKs cleanly.
#include <sys/stat.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "core/nts/nts_cookie.h"
#include "core/nts/nts_server.h"
#include "dataplane/daemon/flags.h"
#include "dataplane/ntp/nts_auth.h"
#include "gtest/gtest.h"
#include "tests/core/nts/nts_test_request.h"
#include "tests/dataplane/ntp/ntp_pipeline_fixture.h"
#include "tests/dataplane/testing/frames.h"
#include "tests/util/temp_dir.h"
#include "tests/util/tshark.h"

namespace zg::dataplane {
namespace nts_pipeline_test {
namespace {

using core::testing::BuildNtsRequest;
using core::testing::NtsClientSpec;
using core::testing::NtsReplyView;
using core::testing::OpenNtsReply;
using testing::ClientFlow;
using testing::ClientView;
using testing::NtpPipelineTest;

constexpr int64_t kStartUnixS = 1'800'000'000;  // a period of 86400 s

// Answers every request with a KoD RATE (the rate limiter's verdict).
class KissAll final : public NtpRequestPolicy {
 public:
  NtpPolicyVerdict Check(const core::FrameInfo&, const core::NtpRequestCheck&,
                         core::TaiNs) override {
    return NtpPolicyVerdict::Kiss(core::kNtpKissRate, 10);
  }
};
class KissAllFactory final : public NtpPolicyFactory {
 public:
  absl::Status RegisterNames(CounterNames&) override {
    return absl::OkStatus();
  }
  absl::StatusOr<std::unique_ptr<NtpRequestPolicy>> Create(
      const WorkerSetup&) override {
    return std::make_unique<KissAll>();
  }
};

class NtsPipelineTest : public NtpPipelineTest {
 protected:
  void SetUpNts(NtpPolicyFactory* policy = nullptr) {
    nts_.SetClock([this] { return now_unix_s_; });
    ASSERT_TRUE(nts_.SetMasterKey(core::testing::TestMasterKey(1), {}).ok());
    SetUpServer(std::nullopt, policy, {}, nullptr, &nts_);
    keys_ = core::testing::TestKeys(5);
    spec_.cookie = core::testing::MintCookie(*nts_.CurrentKeystore(), keys_);
    spec_.c2s = keys_.c2s;
    spec_.t1 = kT1;
  }
  std::string Reason(uint8_t index) { return names_.DropReasonName(index); }
  // Opens `m` as the NTS reply to a request of `request_len` bytes.
  NtsReplyView Open(const rte_mbuf* m, const ClientFlow& flow,
                    size_t request_len) {
    absl::StatusOr<ClientView> v = testing::ReceiveAtClient(flow, m);
    EXPECT_TRUE(v.ok()) << v.status();  // addressing and UDP checksum
    if (!v.ok()) return {};
    EXPECT_EQ(v->info.payload_len, request_len);
    return OpenNtsReply(v->payload(), v->info.payload_len, spec_.uid,
                        keys_.s2c);
  }
  void ExpectCookiesOpen(const NtsReplyView& r) {
    for (const auto& c : r.cookies) {
      core::NtsKeys k;
      EXPECT_EQ(nts_.CurrentKeystore()->Open(c.data(), c.size(), &k),
                core::NtsCookieError::kOk);
      EXPECT_EQ(k.s2c, keys_.s2c);
      EXPECT_EQ(k.c2s, keys_.c2s);
    }
  }

  int64_t now_unix_s_ = kStartUnixS;
  NtsFactory nts_;
  core::NtsKeys keys_;
  NtsClientSpec spec_;
};

TEST_F(NtsPipelineTest, AnsweredWithFreshCookiesAndNeverLonger) {
  SetUpNts();
  std::vector<std::vector<uint8_t>> frames, requests;
  for (uint32_t n = 0; n <= 7; ++n) {
    spec_.placeholders = n;
    requests.push_back(BuildNtsRequest(spec_));
    const uint16_t port = static_cast<uint16_t>(40000 + n);
    frames.push_back(
        testing::UdpFrame(n % 2 ? Flow6(port) : Flow4(port), requests.back()));
  }
  Exchange e = Run(frames);
  ASSERT_EQ(e.out.size(), frames.size());
  EXPECT_EQ(e.delta.TotalDropped(), 0u);
  int64_t previous_t3 = 0;
  for (uint32_t n = 0; n < e.out.size(); ++n) {
    SCOPED_TRACE(n);
    const uint16_t port = static_cast<uint16_t>(40000 + n);
    const NtsReplyView r =
        Open(e.out[n], n % 2 ? Flow6(port) : Flow4(port), requests[n].size());
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.cookies.size(), 1 + n);
    ExpectCookiesOpen(r);
    EXPECT_EQ(r.header.mode, core::NtpMode::kServer);
    EXPECT_EQ(r.header.stratum, 1);
    EXPECT_EQ(r.header.origin_time, kT1);
    // T3 was final when the seal ran (the tag covers it), later than T2,
    // within the poll and never earlier than the reply before it.
    const core::UtcNs t2 = Utc(r.header.receive_time);
    const core::UtcNs t3 = Utc(r.header.transmit_time);
    EXPECT_LT(t2.value, t3.value);
    EXPECT_LE(t3.value, UtcAtTsc(e.tsc_after).value + 1);
    EXPECT_GE(t3.value, previous_t3);
    previous_t3 = t3.value;
  }
  EXPECT_EQ(nts_.stats(0).replies.Load(), frames.size());
  Free(e);
}

// --nts_max_cookies_per_reply: a request with 7 placeholders gets 3 new
// cookies, the reply padded to the request's length; a burst of 20 such
// requests (their seals in groups after T3) all open.
TEST_F(NtsPipelineTest, AtMostMaxCookiesPerReply) {
  nts_.SetMaxCookiesPerReply(3);
  SetUpNts();
  spec_.placeholders = 7;
  const std::vector<uint8_t> request = BuildNtsRequest(spec_);
  std::vector<std::vector<uint8_t>> frames;
  for (uint16_t i = 0; i < 20; ++i) {
    frames.push_back(testing::UdpFrame(Flow4(40000 + i), request));
  }
  Exchange e = Run(frames);
  ASSERT_EQ(e.out.size(), frames.size());
  for (uint16_t i = 0; i < e.out.size(); ++i) {
    const NtsReplyView r = Open(e.out[i], Flow4(40000 + i), request.size());
    ASSERT_TRUE(r.ok) << i << ": " << r.error;
    EXPECT_EQ(r.cookies.size(), 3u);
    ExpectCookiesOpen(r);
  }
  EXPECT_EQ(nts_.stats(0).replies.Load(), frames.size());
  Free(e);
}

// Plain and NTS requests in one batch: every plain reply after a sealed one
// reads the TSC again, so T3 never goes backwards along the batch.
TEST_F(NtsPipelineTest, PlainRepliesAfterNtsOnesKeepT3InOrder) {
  SetUpNts();
  std::vector<std::vector<uint8_t>> frames, requests;
  for (size_t i = 0; i < 10; ++i) {
    requests.push_back(i % 3 == 0 ? testing::NtpRequest(4, kT1)
                                  : BuildNtsRequest(spec_));
    frames.push_back(testing::UdpFrame(Flow4(static_cast<uint16_t>(40000 + i)),
                                       requests.back()));
  }
  Exchange e = Run(frames);
  ASSERT_EQ(e.out.size(), frames.size());
  int64_t previous = 0;
  for (size_t i = 0; i < e.out.size(); ++i) {
    absl::StatusOr<ClientView> v = testing::ReceiveAtClient(
        Flow4(static_cast<uint16_t>(40000 + i)), e.out[i]);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_EQ(v->info.payload_len, i % 3 == 0 ? 48u : requests[i].size());
    core::NtpHeader h;
    ASSERT_TRUE(core::ParseNtpHeader(v->payload(), v->info.payload_len, &h));
    const int64_t t3 = Utc(h.transmit_time).value;
    EXPECT_GE(t3, previous) << "reply " << i;
    previous = t3;
  }
  EXPECT_EQ(nts_.stats(0).replies.Load(), 6u);
  Free(e);
}

// tshark reads our NTS replies (IPv4, IPv6) and NAKs cleanly: the UID and
// authenticator fields, the UDP checksum good, no expert warning.
TEST_F(NtsPipelineTest, TsharkDissectsRepliesAndNaksCleanly) {
  if (!testutil::TsharkAvailable()) GTEST_SKIP() << "tshark not installed";
  SetUpNts();
  std::vector<std::vector<uint8_t>> frames;
  spec_.placeholders = 2;
  frames.push_back(testing::UdpFrame(Flow4(40000), BuildNtsRequest(spec_)));
  frames.push_back(testing::UdpFrame(Flow6(40001), BuildNtsRequest(spec_)));
  NtsClientSpec foreign = spec_;
  absl::StatusOr<core::NtsCookieKeystore> other =
      core::NtsCookieKeystore::Derive(core::testing::TestMasterKey(9), {},
                                      kStartUnixS);
  ASSERT_TRUE(other.ok());
  foreign.cookie = core::testing::MintCookie(*other, keys_);
  frames.push_back(testing::UdpFrame(Flow4(40002), BuildNtsRequest(foreign)));
  Exchange e = Run(frames);
  ASSERT_EQ(e.out.size(), frames.size());
  std::vector<testutil::FrameCheck> checks;
  for (size_t i = 0; i < e.out.size(); ++i) {
    const uint8_t* data = rte_pktmbuf_mtod(e.out[i], const uint8_t*);
    const bool nak = i == 2;
    checks.push_back(
        {nak ? "nak" : (i == 0 ? "reply v4" : "reply v6"),
         std::vector<uint8_t>(data, data + e.out[i]->data_len),
         {{"ntp.flags.mode", "4"}, {"udp.checksum.status", "1"}},
         [nak](const testutil::DissectedPacket& p) -> absl::Status {
           const std::vector<std::string> types = p.FieldValues("ntp.ext.type");
           const size_t want = nak ? 1 : 2;
           if (types.size() != want) {
             return absl::InternalError(absl::StrCat(
                 "extension field types: ", absl::StrJoin(types, ","),
                 "; want ", want));
           }
           return absl::OkStatus();
         }});
  }
  const absl::Status st = testutil::DissectAndCheck(checks);
  EXPECT_TRUE(st.ok()) << st;
  Free(e);
}

// The policy's KoD (rate limiting) to an NTS client: after the NTS check,
// with the UID, unauthenticated (as chrony sends it).
TEST_F(NtsPipelineTest, PolicyKissCarriesTheUid) {
  KissAllFactory policy;
  SetUpNts(&policy);
  Exchange e = Run({testing::UdpFrame(Flow4(), BuildNtsRequest(spec_))});
  ASSERT_EQ(e.out.size(), 1u);
  absl::StatusOr<ClientView> v = testing::ReceiveAtClient(Flow4(), e.out[0]);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->info.payload_len, 48u + 36u);
  core::NtpHeader h;
  ASSERT_TRUE(core::ParseNtpHeader(v->payload(), v->info.payload_len, &h));
  EXPECT_EQ(core::ClassifyNtpKiss(h), core::NtpKiss::kRate);
  EXPECT_EQ(h.poll_log2, 10);
  EXPECT_EQ(std::vector<uint8_t>(v->payload() + 52, v->payload() + 84),
            spec_.uid);
  EXPECT_EQ(nts_.stats(0).replies.Load(), 0u);
  Free(e);
}

TEST_F(NtsPipelineTest, ForeignCookieGetsANakWithTheUid) {
  SetUpNts();
  absl::StatusOr<core::NtsCookieKeystore> other =
      core::NtsCookieKeystore::Derive(core::testing::TestMasterKey(9), {},
                                      kStartUnixS);
  ASSERT_TRUE(other.ok());
  spec_.cookie = core::testing::MintCookie(*other, keys_);
  const std::vector<uint8_t> req = BuildNtsRequest(spec_);
  Exchange e = Run({testing::UdpFrame(Flow4(), req)});
  ASSERT_EQ(e.out.size(), 1u);
  absl::StatusOr<ClientView> v = testing::ReceiveAtClient(Flow4(), e.out[0]);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->info.payload_len, 48u + 36u);
  const NtsReplyView r =
      OpenNtsReply(v->payload(), v->info.payload_len, spec_.uid, keys_.s2c);
  EXPECT_TRUE(r.nak) << r.error;
  EXPECT_EQ(r.header.origin_time, kT1);
  EXPECT_EQ(nts_.stats(0)
                .naks[NtsWorkerAuth::NakIndex(core::NtsFailure::kCookieBadTag)]
                .Load(),
            1u);
  EXPECT_EQ(nts_.stats(0).replies.Load(), 0u);
  Free(e);
}

// A good cookie around an authenticator that does not verify gets an NTS
// NAK (RFC 8915 5.7's SHOULD, as chrony does); a missing one is dropped.
TEST_F(NtsPipelineTest, BadAuthenticatorGetsANakAndMissingIsDropped) {
  SetUpNts();
  std::vector<uint8_t> bad_auth = BuildNtsRequest(spec_);
  bad_auth[bad_auth.size() - 5] ^= 1;  // inside the tag
  std::vector<uint8_t> no_auth = BuildNtsRequest(spec_);
  no_auth.resize(no_auth.size() - 40);
  Exchange e = Run({testing::UdpFrame(Flow4(), bad_auth),
                    testing::UdpFrame(Flow4(40001), no_auth)});
  ASSERT_EQ(e.out.size(), 1u);
  absl::StatusOr<ClientView> v = testing::ReceiveAtClient(Flow4(), e.out[0]);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->info.payload_len, 48u + 36u);
  const NtsReplyView r =
      OpenNtsReply(v->payload(), v->info.payload_len, spec_.uid, keys_.s2c);
  EXPECT_TRUE(r.nak) << r.error;
  EXPECT_EQ(
      nts_.stats(0)
          .naks[NtsWorkerAuth::NakIndex(core::NtsFailure::kBadAuthenticator)]
          .Load(),
      1u);
  const uint8_t missing =
      nts_.drops().Of(core::NtsFailure::kMissingAuthenticator);
  EXPECT_EQ(Reason(missing), "ntp_nts_missing_authenticator");
  EXPECT_EQ(e.delta.dropped[missing], 1u);
  EXPECT_EQ(nts_.stats(0).replies.Load(), 0u);
  Free(e);
}

TEST_F(NtsPipelineTest, WithoutAMasterKeyNtsIsUnsupported) {
  SetUpServer(std::nullopt, nullptr, {}, nullptr, &nts_);  // nts_ off
  keys_ = core::testing::TestKeys(5);
  absl::StatusOr<core::NtsCookieKeystore> ks = core::NtsCookieKeystore::Derive(
      core::testing::TestMasterKey(1), {}, kStartUnixS);
  ASSERT_TRUE(ks.ok());
  spec_.cookie = core::testing::MintCookie(*ks, keys_);
  spec_.c2s = keys_.c2s;
  Exchange e = Run({testing::UdpFrame(Flow4(), BuildNtsRequest(spec_))});
  EXPECT_TRUE(e.out.empty());
  EXPECT_EQ(
      e.delta.dropped[factory_->ntp_drops().Of(core::NtpDrop::kNtsUnsupported)],
      1u);
  Free(e);
}

TEST_F(NtsPipelineTest, RotatesAtThePeriodBoundaryAndAuditsTheKeyId) {
  SetUpNts();
  std::vector<int64_t> audited;
  ControlTick tick;
  tick.audit = [&](auto values) {
    for (const auto& [k, v] : values) {
      if (k == "nts_key_id") audited.push_back(std::get<int64_t>(v));
    }
  };
  const uint32_t first = nts_.CurrentKeystore()->current_key_id();
  nts_.ControlStep(tick);  // the key at start
  now_unix_s_ = nts_.CurrentKeystore()->current_period_end_unix_s();
  nts_.ControlStep(tick);
  EXPECT_EQ(nts_.rotations(), 1u);
  EXPECT_EQ(nts_.CurrentKeystore()->current_key_id(), first + 1);
  EXPECT_EQ(audited, (std::vector<int64_t>{first, first + 1}));
  // The worker's copy switched (its next burst): the old cookie is still
  // in the window, and the new cookies carry the new key id.
  const std::vector<uint8_t> req = BuildNtsRequest(spec_);
  Exchange e = Run({testing::UdpFrame(Flow4(), req)});
  ASSERT_EQ(e.out.size(), 1u);
  const NtsReplyView r = Open(e.out[0], Flow4(), req.size());
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.cookies.size(), 1u);
  EXPECT_EQ(core::LoadBe32(r.cookies[0].data()), first + 1);
  Free(e);
}

// A reload to a new master key: new cookies are sealed under it, and the
// replaced key still opens its own cookies until they leave the window.
TEST_F(NtsPipelineTest, ReloadSwitchesTheMasterKey) {
  SetUpNts();
  auto dir = testutil::TempDir::Create("nts-reload");
  ASSERT_TRUE(dir.ok());
  const std::string path = dir->File("nts.key");
  std::vector<uint8_t> master = core::testing::TestMasterKey(42);
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(master.data()),
             static_cast<std::streamsize>(master.size()));
  ASSERT_EQ(chmod(path.c_str(), 0644), 0);
  DaemonConfig config;
  config.nts.master_key = path;
  ReloadPlan plan;
  EXPECT_FALSE(nts_.Reload({{}, &config, &plan}).ok());  // group-readable
  ASSERT_EQ(chmod(path.c_str(), 0600), 0);
  ReloadPlan plan2;
  ASSERT_TRUE(nts_.Reload({{}, &config, &plan2}).ok());
  EXPECT_EQ(plan2.staged(), 1u);
  // Staged, not yet in force: the old cookie is still good.
  core::NtsKeys k;
  EXPECT_EQ(nts_.CurrentKeystore()->Open(spec_.cookie.data(),
                                         spec_.cookie.size(), &k),
            core::NtsCookieError::kOk);
  plan2.Commit();
  // The new key seals; the replaced one still opens the cookies it sealed.
  EXPECT_TRUE(nts_.CurrentKeystore()->accepts_previous());
  EXPECT_EQ(nts_.CurrentKeystore()->Open(spec_.cookie.data(),
                                         spec_.cookie.size(), &k),
            core::NtsCookieError::kOk);
  // The same key again: nothing staged.
  ReloadPlan plan3;
  ASSERT_TRUE(nts_.Reload({{}, &config, &plan3}).ok());
  EXPECT_EQ(plan3.staged(), 0u);
  // The worker answers the old key's cookie with a cookie of the new key.
  const std::vector<uint8_t> req = BuildNtsRequest(spec_);
  Exchange e = Run({testing::UdpFrame(Flow4(), req)});
  ASSERT_EQ(e.out.size(), 1u);
  const NtsReplyView r = Open(e.out[0], Flow4(), req.size());
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.cookies.size(), 1u);
  absl::StatusOr<core::NtsCookieKeystore> new_only =
      core::NtsCookieKeystore::Derive(master, {}, now_unix_s_);
  ASSERT_TRUE(new_only.ok());
  EXPECT_EQ(new_only->Open(r.cookies[0].data(), r.cookies[0].size(), &k),
            core::NtsCookieError::kOk);
  Free(e);
  // Once the old key's last cookies have left the window (the reload's
  // period and window_past = 2 more), the rotation drops it: NAK.
  ControlTick tick;
  for (int i = 0; i < 2; ++i) {
    now_unix_s_ = nts_.CurrentKeystore()->current_period_end_unix_s();
    nts_.ControlStep(tick);
    EXPECT_TRUE(nts_.CurrentKeystore()->accepts_previous()) << i;
  }
  now_unix_s_ = nts_.CurrentKeystore()->current_period_end_unix_s();
  nts_.ControlStep(tick);
  EXPECT_FALSE(nts_.CurrentKeystore()->accepts_previous());
  Exchange late = Run({testing::UdpFrame(Flow4(), BuildNtsRequest(spec_))});
  ASSERT_EQ(late.out.size(), 1u);
  absl::StatusOr<ClientView> v = testing::ReceiveAtClient(Flow4(), late.out[0]);
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(
      OpenNtsReply(v->payload(), v->info.payload_len, spec_.uid, keys_.s2c)
          .nak);
  Free(late);
}

}  // namespace
}  // namespace nts_pipeline_test
}  // namespace zg::dataplane
