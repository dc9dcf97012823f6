// SPDX-License-Identifier: Apache-2.0
// The per-client NTP records (--ntp_client_records) through the real worker
// loop on a ring port (ntp_pipeline_fixture.h): known clients with exact
// request counts, with rate limiting off and on (drops and KoD RATE), the
// access list (drops and KoD DENY), symmetric keys (key id, failed MACs),
// NTS (shown as NTS, NAKs counted as authentication drops) and interleaved
// mode, read back as zgctl clients' JSON (NtpTrustPolicyFactory::
// QueryClients).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/net/ip_prefix.h"
#include "core/ntp/ntp_client_query.h"
#include "core/ntp/ntp_keys.h"
#include "core/ntp/ntp_mac.h"
#include "dataplane/ntp/ntp_auth.h"
#include "dataplane/ntp/ntp_interleave.h"
#include "dataplane/ntp/ntp_trust_policy.h"
#include "dataplane/ntp/nts_auth.h"
#include "gtest/gtest.h"
#include "tests/core/nts/nts_test_request.h"
#include "tests/dataplane/ntp/ntp_pipeline_fixture.h"

namespace zg::dataplane::testing {
namespace ntp_client_records_pipeline_test {
namespace {

using json = nlohmann::json;

class NtpClientRecordsPipelineTest : public NtpPipelineTest {
 protected:
  struct Setup {
    const char* ratelimit = "";
    bool kod = false;
    AccessConfig access;
    NtpAuthFactory* auth = nullptr;
    NtsFactory* nts = nullptr;
    NtpInterleaveFactory* xleave = nullptr;
  };
  void SetUpRecords(const Setup& s) {
    absl::StatusOr<NtpTrustConfig> c =
        BuildNtpTrustConfig(s.ratelimit, s.kod, 4096, /*client_records=*/true);
    ASSERT_TRUE(c.ok()) << c.status();
    trust_.SetConfig(*c);
    ASSERT_TRUE(trust_.ConfigureShared(s.access).ok());
    SetUpServer(std::nullopt, &trust_, {}, s.auth, s.nts, s.xleave);
  }
  // zgctl clients --sort SORT (every client).
  json Clients(const char* sort = "requests") {
    core::NtpClientQuery q;
    q.sort = *core::ParseNtpClientSort(sort);
    absl::StatusOr<json> j = trust_.QueryClients(q, tsc_clock_);
    EXPECT_TRUE(j.ok()) << j.status();
    return j.value_or(json());
  }
  // The one client at `address`.
  json Client(const std::string& address) {
    const json all = Clients();
    for (const json& c : all["clients"]) {
      if (c["address"] == address) return c;
    }
    ADD_FAILURE() << address << " is not listed: " << all.dump();
    return json();
  }
  ClientFlow FlowFrom(uint8_t last_octet, uint16_t port = 40000) const {
    ClientFlow f = Flow4(port);
    f.client_ip =
        core::IpAddress::V4(core::Ipv4Addr::FromOctets(10, 99, 0, last_octet));
    return f;
  }
  std::vector<std::vector<uint8_t>> Requests(const ClientFlow& flow, int n) {
    return std::vector<std::vector<uint8_t>>(
        n, UdpFrame(flow, NtpRequest(4, kT1)));
  }
  core::TaiNs Tai(uint64_t tsc) const { return model_.RawToTai(tsc); }

  NtpTrustPolicyFactory trust_;
};

TEST_F(NtpClientRecordsPipelineTest, KnownClientsWithRateLimitingOff) {
  SetUpRecords({});
  std::vector<std::vector<uint8_t>> frames = Requests(FlowFrom(2), 5);
  for (auto& f : Requests(FlowFrom(3), 3)) frames.push_back(f);
  for (auto& f : Requests(Flow6(), 2)) frames.push_back(f);
  Exchange e = Run(frames);
  EXPECT_EQ(e.out.size(), 10u) << "records never refuse";
  Free(e);
  e = Run(Requests(FlowFrom(3), 1));
  Free(e);
  const json all = Clients();
  EXPECT_EQ(all["tracked"], 3);
  EXPECT_EQ(all["workers"], 1);
  EXPECT_EQ(all["capacity"], 4096);
  ASSERT_EQ(all["clients"].size(), 3u);
  const json& a = all["clients"][0];
  EXPECT_EQ(a["address"], "10.99.0.2");
  EXPECT_EQ(a["requests"], 5);
  EXPECT_EQ(a["drops"], (json{{"rate_limit", 0}, {"acl", 0}, {"auth", 0}}));
  EXPECT_EQ(a["kod"], 0);
  EXPECT_EQ(a["auth"], "none");
  EXPECT_EQ(a["mode"], "basic");
  const json& b = all["clients"][1];
  EXPECT_EQ(b["address"], "10.99.0.3");
  EXPECT_EQ(b["requests"], 4);
  EXPECT_EQ(all["clients"][2]["address"], "2001:db8::2");
  EXPECT_EQ(all["clients"][2]["requests"], 2);
  // Seen within the exchanges (to the records' 1/16 s).
  EXPECT_GE(b["first_seen_tai_ns"].get<int64_t>(),
            Tai(e.tsc_before).value - kS / 16);
  EXPECT_LE(b["last_seen_tai_ns"].get<int64_t>(), Tai(e.tsc_after).value);
  EXPECT_GE(b["last_seen_tai_ns"], b["first_seen_tai_ns"]);
  // Most recently seen first (to 1/16 s: all of these may tie).
  const json by_last = Clients("last");
  for (size_t i = 1; i < by_last["clients"].size(); ++i) {
    EXPECT_GE(by_last["clients"][i - 1]["last_seen_tai_ns"],
              by_last["clients"][i]["last_seen_tai_ns"]);
  }
}

TEST_F(NtpClientRecordsPipelineTest, FloodShowsRateLimitDropsAndKod) {
  SetUpRecords({.ratelimit = "interval=10,burst=2,leak=4", .kod = true});
  Exchange e = Run(Requests(FlowFrom(2), 32));
  const NtpTrustWorkerStats& s = *trust_.worker_stats().at(0);
  const json c = Client("10.99.0.2");
  EXPECT_EQ(c["requests"], 32);
  EXPECT_EQ(c["kod"], 1);
  EXPECT_EQ(c["kod"], s.kod_rate.Load());
  EXPECT_EQ(c["drops"]["rate_limit"], s.rate_dropped.Load());
  EXPECT_EQ(c["drops"]["rate_limit"],
            e.delta.dropped[trust_.drop_rate_limited()]);
  EXPECT_EQ(c["drops"]["rate_limit"].get<uint64_t>() + e.out.size(), 32u)
      << "every request is a reply, a KoD or a drop";
  EXPECT_EQ(Clients("kod")["clients"][0]["address"], "10.99.0.2");
  Free(e);
}

TEST_F(NtpClientRecordsPipelineTest, AccessListDropsAndKissOfDeny) {
  AccessConfig deny;
  deny.ntp.deny = *core::ParseNetworkPrefixList("10.99.0.2/32");
  deny.ntp_deny_action = NtpDenyAction::kDrop;
  SetUpRecords({.access = deny});
  Exchange e = Run(Requests(FlowFrom(2), 3));
  EXPECT_TRUE(e.out.empty());
  Free(e);
  e = Run(Requests(FlowFrom(7), 2));
  EXPECT_EQ(e.out.size(), 2u);
  Free(e);
  const json d = Client("10.99.0.2");
  EXPECT_EQ(d["requests"], 3);
  EXPECT_EQ(d["drops"]["acl"], 3);
  EXPECT_EQ(Client("10.99.0.7")["drops"]["acl"], 0);
  EXPECT_EQ(Clients("drops")["clients"][0]["address"], "10.99.0.2");
}

TEST_F(NtpClientRecordsPipelineTest, KissOfDenyIsCountedAsKod) {
  AccessConfig deny;
  deny.ntp.deny = *core::ParseNetworkPrefixList("10.99.0.2/32");
  deny.ntp_deny_action = NtpDenyAction::kKod;
  SetUpRecords({.access = deny});  // no rate limit: a KoD each
  Exchange e = Run(Requests(FlowFrom(2), 4));
  EXPECT_EQ(e.out.size(), 4u);
  Free(e);
  const json d = Client("10.99.0.2");
  EXPECT_EQ(d["kod"], 4);
  EXPECT_EQ(d["drops"]["acl"], 0);
}

constexpr char kKeys[] =
    "1 AES128 HEX:2b7e151628aed2a6abf7158809cf4f3c\n"
    "3 MD5 ASCII:correct-horse\n";

TEST_F(NtpClientRecordsPipelineTest, KeyIdAndFailedMacs) {
  NtpAuthFactory auth;
  auto keys = core::ParseNtpKeys(kKeys);
  ASSERT_TRUE(keys.ok());
  auto client = std::move(*core::NtpMacer::Create(*keys));
  auth.SetKeys(std::make_shared<const core::NtpKeyTable>(std::move(*keys)));
  SetUpRecords({.auth = &auth});
  auto signed_by = [&](uint32_t id, bool corrupt = false) {
    std::vector<uint8_t> req = NtpRequest(4, kT1);
    req.resize(48 + 24);
    req.resize(48 + client->Sign(static_cast<uint16_t>(client->Find(id)),
                                 req.data(), 48));
    if (corrupt) req.back() ^= 1;
    return UdpFrame(FlowFrom(2), req);
  };
  Exchange e = Run({signed_by(1), signed_by(1)});
  EXPECT_EQ(e.out.size(), 2u);
  Free(e);
  json c = Client("10.99.0.2");
  EXPECT_EQ(c["auth"], "key");
  EXPECT_EQ(c["key_id"], 1);
  e = Run({signed_by(3, /*corrupt=*/true)});
  EXPECT_TRUE(e.out.empty());
  Free(e);
  c = Client("10.99.0.2");
  EXPECT_EQ(c["drops"]["auth"], 1);
  EXPECT_EQ(c["key_id"], 1) << "a failed MAC does not change the key id";
  e = Run({signed_by(3), UdpFrame(FlowFrom(3), NtpRequest(4, kT1))});
  Free(e);
  c = Client("10.99.0.2");
  EXPECT_EQ(c["requests"], 4);
  EXPECT_EQ(c["key_id"], 3);
  EXPECT_EQ(Client("10.99.0.3")["auth"], "none");
  EXPECT_TRUE(Client("10.99.0.3")["key_id"].is_null());
}

TEST_F(NtpClientRecordsPipelineTest, NtsClientIsShownAsNts) {
  NtsFactory nts;
  nts.SetClock([] { return int64_t{1'800'000'000}; });
  ASSERT_TRUE(nts.SetMasterKey(core::testing::TestMasterKey(1), {}).ok());
  SetUpRecords({.ratelimit = "on", .nts = &nts});
  const core::NtsKeys keys = core::testing::TestKeys(5);
  core::testing::NtsClientSpec spec;
  spec.cookie = core::testing::MintCookie(*nts.CurrentKeystore(), keys);
  spec.c2s = keys.c2s;
  std::vector<uint8_t> bad = core::testing::BuildNtsRequest(spec);
  bad[bad.size() - 5] ^= 1;  // the authenticator: a NAK
  Exchange e = Run({UdpFrame(FlowFrom(4), core::testing::BuildNtsRequest(spec)),
                    UdpFrame(FlowFrom(4), bad)});
  EXPECT_EQ(e.out.size(), 2u);
  Free(e);
  const json c = Client("10.99.0.4");
  EXPECT_EQ(c["auth"], "nts");
  EXPECT_TRUE(c["key_id"].is_null());
  EXPECT_EQ(c["requests"], 2);
  EXPECT_EQ(c["drops"]["auth"], 1) << "the NAK";
  EXPECT_EQ(c["kod"], 0);
}

TEST_F(NtpClientRecordsPipelineTest, InterleavedOrBasic) {
  NtpInterleaveFactory xleave;
  xleave.SetConfig({.enabled = true, .slots = 1024});
  SetUpRecords({.xleave = &xleave});
  // Already in interleaved form (an xleave client's second poll), with an
  // origin unknown here: a basic reply, whose T2 is kept.
  std::vector<uint8_t> req = NtpRequest(4, kT1);
  core::StoreNtpTimestamp(req.data() + core::kNtpOffsetOriginTime,
                          {0x12345678u, 0x9abcdef1u});
  core::StoreNtpTimestamp(req.data() + core::kNtpOffsetReceiveTime,
                          {0x1111u, 0x2222u});
  Exchange e = Run({UdpFrame(FlowFrom(2), req)});
  ASSERT_EQ(e.out.size(), 1u);
  absl::StatusOr<ClientView> v = ReceiveAtClient(FlowFrom(2), e.out[0]);
  ASSERT_TRUE(v.ok()) << v.status();
  core::NtpHeader r1;
  ASSERT_TRUE(core::ParseNtpHeader(v->payload(), v->info.payload_len, &r1));
  Free(e);
  EXPECT_EQ(Client("10.99.0.2")["mode"], "basic");
  // RFC 9769: origin = our T2, receive = the client's T4.
  core::StoreNtpTimestamp(req.data() + core::kNtpOffsetOriginTime,
                          r1.receive_time);
  core::StoreNtpTimestamp(req.data() + core::kNtpOffsetReceiveTime,
                          {0xe8fe6f81u, 0x40000000u});
  core::StoreNtpTimestamp(req.data() + core::kNtpOffsetTransmitTime,
                          {0xe8fe6f82u, 0x80000000u});
  e = Run({UdpFrame(FlowFrom(2), req)});
  ASSERT_EQ(e.out.size(), 1u);
  Free(e);
  EXPECT_EQ(xleave.stats(0).interleaved.Load(), 1u);
  const json c = Client("10.99.0.2");
  EXPECT_EQ(c["mode"], "interleaved");
  EXPECT_EQ(c["requests"], 2);
}

TEST_F(NtpClientRecordsPipelineTest, OffSaysSo) {
  absl::StatusOr<NtpTrustConfig> c = BuildNtpTrustConfig("on", false, 4096);
  ASSERT_TRUE(c.ok());
  trust_.SetConfig(*c);
  SetUpServer(std::nullopt, &trust_);
  absl::StatusOr<json> j = trust_.QueryClients({}, tsc_clock_);
  ASSERT_FALSE(j.ok());
  EXPECT_NE(j.status().message().find("--ntp_client_records=false"),
            std::string::npos);
}

}  // namespace
}  // namespace ntp_client_records_pipeline_test
}  // namespace zg::dataplane::testing
