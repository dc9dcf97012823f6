// SPDX-License-Identifier: Apache-2.0
// Integration tests of the PTP grandmaster's trust features in the protocol
// pipeline (ptp_pipeline_fixture.h): the access list (--ptp_allow /
// --ptp_deny) and reloading it and the admission limits (SIGHUP) while the
// worker runs.
#include <optional>

#include "dataplane/daemon/flags.h"
#include "dataplane/trust/reload.h"
#include "tests/dataplane/ptp/ptp_pipeline_fixture.h"

ABSL_DECLARE_FLAG(int, ptp_min_log_interval_per_source);
ABSL_DECLARE_FLAG(bool, ptp_cancel_requires_auth);

namespace zg::dataplane::ptp_test {
namespace ptp_trust_pipeline_test {
namespace {

class PtpTrustTest : public PtpPipelineTest {
 protected:
  // Sends a REQUEST for `type` at `log` and returns the GRANT's TLV, if a
  // reply came within 50 ms.
  std::optional<core::PtpUnicastGrant> Request(PtpMessageType type,
                                               int8_t log) {
    InjectPtp(UnicastRequest({{type, log, 60}}), /*multicast=*/false,
              core::kPtpGeneralPort);
    for (const Sent& s : Run(50)) {
      if (s.msg.header.message_type != PtpMessageType::kSignaling) continue;
      core::PtpTlv t;
      core::PtpUnicastGrant g;
      if (core::FindPtpTlv(s.msg.tlvs,
                           core::PtpTlvType::kGrantUnicastTransmission, &t) &&
          core::ParsePtpUnicastGrantTlv(t, &g)) {
        return g;
      }
    }
    return std::nullopt;
  }
  // One reload with the current flags and `access`; the plan's staged
  // publications are committed when it succeeds.
  absl::Status Reload(const AccessConfig& access, size_t* staged) {
    DaemonConfig next;
    next.addresses = addresses_;
    next.access = access;
    ReloadPlan plan;
    ReloadArgs args;
    args.config = &next;
    args.plan = &plan;
    absl::Status s = ptp_.Reload(args);
    *staged = plan.staged();
    if (s.ok()) plan.Commit();
    return s;
  }
};

// SIGHUP: new admission limits and a new access list reach the running
// worker at its next burst; a reload with an invalid value is rejected and
// changes nothing.
TEST_F(PtpTrustTest, ReloadAdmissionAndAccessList) {
  absl::SetFlag(&FLAGS_ptp_unicast_negotiation, "on");
  Start("ptprl");
  Run(10);
  std::optional<core::PtpUnicastGrant> g = Request(PtpMessageType::kSync, -6);
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->log_inter_message_period, -4);  // the default floor
  size_t staged = 0;
  absl::SetFlag(&FLAGS_ptp_min_log_interval_per_source, -1);
  ASSERT_TRUE(Reload({}, &staged).ok());
  EXPECT_EQ(staged, 1u);  // the admission limits; the access list is as was
  g = Request(PtpMessageType::kSync, -6);
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->log_inter_message_period, -1);
  EXPECT_GT(g->duration_s, 0u);

  AccessConfig deny;
  deny.ptp.deny = {*core::ParseNetworkPrefix("10.1.0.0/24")};
  ASSERT_TRUE(Reload(deny, &staged).ok());
  EXPECT_EQ(staged, 1u);
  EXPECT_FALSE(Request(PtpMessageType::kSync, -1).has_value());
  EXPECT_EQ(Dropped("ptp_acl_denied"), 1u);

  absl::SetFlag(&FLAGS_ptp_cancel_requires_auth, true);
  const absl::Status bad = Reload({}, &staged);
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("ptp_cancel_requires_auth"),
            absl::string_view::npos);
  EXPECT_EQ(staged, 0u);
  EXPECT_FALSE(Request(PtpMessageType::kSync, -1).has_value());  // still
}

// --ptp_deny: a denied source gets nothing back, whatever it sends, and its
// REQUESTs are counted as refused for `acl`; --ptp_allow: served.
TEST_F(PtpPipelineTest, AccessListSilencesDeniedSources) {
  absl::SetFlag(&FLAGS_ptp_unicast_negotiation, "on");
  access_.deny = {*core::ParseNetworkPrefix("10.1.0.0/24")};  // the client
  access_.allow = {*core::ParseNetworkPrefix("10.0.0.0/8")};
  Start("ptpacl");
  Run(10);
  InjectPtp(UnicastRequest({{PtpMessageType::kSync, -4, 60}}),
            /*multicast=*/false, core::kPtpGeneralPort);
  InjectPtp(ClientMessage(core::PtpDelayReq{}), /*multicast=*/false,
            core::kPtpEventPort);
  worker_->PollOnce();
  const std::vector<Sent> out = Run(200);
  for (const Sent& s : out) EXPECT_NE(s.info.dst_ipv4, kClientIp);
  EXPECT_EQ(Dropped("ptp_acl_denied"), 2u);
  EXPECT_EQ(ptp_.stats()[0]
                ->denials[static_cast<size_t>(core::PtpGrantDenial::kAcl)]
                .Load(),
            1u);
  EXPECT_EQ(ptp_.stats()[0]->unicast_subscribers.Load(), 0u);
}

TEST_F(PtpPipelineTest, AccessListServesAllowedSources) {
  absl::SetFlag(&FLAGS_ptp_unicast_negotiation, "on");
  access_.allow = {*core::ParseNetworkPrefix("10.1.0.0/24")};
  Start("ptpacla");
  Run(10);
  InjectPtp(UnicastRequest({{PtpMessageType::kSync, -4, 60}}),
            /*multicast=*/false, core::kPtpGeneralPort);
  worker_->PollOnce();
  const std::vector<Sent> out = Run(300);
  const auto grants = OfType(out, PtpMessageType::kSignaling);
  ASSERT_EQ(grants.size(), 1u);
  EXPECT_EQ(grants[0]->info.dst_ipv4, kClientIp);
  EXPECT_GE(OfType(out, PtpMessageType::kSync).size(), 2u);
  EXPECT_EQ(Dropped("ptp_acl_denied"), 0u);
}

}  // namespace
}  // namespace ptp_trust_pipeline_test
}  // namespace zg::dataplane::ptp_test
