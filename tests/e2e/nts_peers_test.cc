// SPDX-License-Identifier: Apache-2.0
// NTS (RFC 8915) with real peers on the veth rig (tests/e2e/zeitgeberd_rig.h).
//
//  - Our own client first, against a server none of us wrote: nts_query
//    (core/nts/nts_client.h + bench/loadgen/nts_ke_client.h) does NTS-KE
//    with chronyd 4.3 as an NTS server and gets a verified reply with fresh
//    cookies, after a burst of garbage NTS requests. Needs no zeitgeberd.
//  - nts_chrony: chronyd 4.3 in the client namespace, `server NAME iburst
//    nts` and `ntstrustedcerts` with a CA and certificate this test makes;
//    the namespace's hosts file (/etc/netns/NS/hosts, bind-mounted by `ip
//    netns exec`) names zeitgeberd. `chronyc -N authdata` shows NTS with
//    cookies, `chronyc sources` selects it, and `chronyd -Q` measures an
//    offset < 100 us over IPv4 and IPv6. The same capture (SSLKEYLOGFILE
//    from chronyd's GnuTLS and from nts_query) goes to tshark: TLS 1.3 with
//    ALPN ntske/1 decrypts and the records in it parse (tshark 4.0 has no
//    NTS-KE dissector: it shows them as data), the NTP extension fields
//    dissect with no malformed or expert error. A garbage NTS flood (bounded)
//    leaves a good NTS client and a plain one (ntpdig) answered.
//  - nts_ntpsec: ntpsec's ntpd (unpacked by scripts/bootstrap.sh into
//    /opt/zeitgeber-peers/ntpsec, its package conflicts with chrony) with
//    `server NAME nts ca FILE` selects zeitgeberd: its peerstats status word
//    says sys.peer and authentic. It runs without CAP_SYS_TIME and with
//    `disable ntp`, so the shared host clock is never touched.
//
// Needs root.
// 19-44 s measured here (the machine shared, loaded).
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "bench/loadgen/nts_ke_client.h"
#include "gtest/gtest.h"
#include "tests/e2e/nts_test_util.h"
#include "tests/e2e/zeitgeberd_rig.h"
#include "tests/util/deadline.h"
#include "tests/util/hex.h"
#include "tests/util/netns.h"
#include "tests/util/subprocess.h"
#include "tests/util/temp_dir.h"
#include "tests/util/tshark.h"

namespace zg::e2e {
namespace nts_peers_test {
namespace {

using testutil::CommandResult;
using testutil::NetnsRig;
using testutil::RigConfig;

constexpr char kNtpsecNtpd[] = "/opt/zeitgeber-peers/ntpsec/usr/sbin/ntpd";

class NtsPeersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testutil::CanCreateNamespaces()) GTEST_SKIP() << "needs root";
    for (const char* tool : {"chronyd", "chronyc", "openssl", "tcpdump"}) {
      if (!testutil::ProgramAvailable(tool)) GTEST_SKIP() << tool << " missing";
    }
    absl::StatusOr<testutil::TempDir> d = testutil::TempDir::Create("nts");
    ASSERT_TRUE(d.ok()) << d.status();
    dir_ = std::make_unique<testutil::TempDir>(std::move(*d));
    absl::StatusOr<TestPki> pki = MakeTestPki(*dir_, {kNtsName4, kNtsName6});
    ASSERT_TRUE(pki.ok()) << pki.status();
    pki_ = *pki;
  }

  std::unique_ptr<testutil::TempDir> dir_;
  TestPki pki_;
};

TEST_F(NtsPeersTest, OurClientAgainstChronydNtsServer) {
  absl::StatusOr<std::unique_ptr<testutil::NetnsPair>> pair =
      testutil::NetnsPair::Create({});
  ASSERT_TRUE(pair.ok()) << pair.status();
  absl::StatusOr<std::unique_ptr<NamespaceHosts>> hosts =
      NamespaceHosts::Create((*pair)->ns_b(), {{(*pair)->ip_a(), kNtsName4}});
  ASSERT_TRUE(hosts.ok()) << hosts.status();
  absl::StatusOr<std::unique_ptr<testutil::Subprocess>> server =
      testutil::StartInNamespace(
          (*pair)->ns_a(),
          {"chronyd", "-d", "-x", "-u", "root", "-f", "/dev/null",
           "local stratum 1", "allow", "bindaddress " + (*pair)->ip_a(),
           "ntsserverkey " + pki_.key_pem, "ntsservercert " + pki_.cert_pem,
           "pidfile " + dir_->File("server.pid"), "cmdport 0"});
  ASSERT_TRUE(server.ok()) << server.status();
  absl::StatusOr<CommandResult> q;
  // chronyd takes a moment to listen on 4460.
  testutil::PollUntil(testutil::DeadlineIn(absl::Seconds(10)), [&] {
    q = NtsQuery((*pair)->ns_b(),
                 {(*pair)->ip_a(), "ke", (*pair)->ip_a() + ":4460", pki_.ca_pem,
                  kNtsName4, "20"});
    return q.ok() && !absl::StrContains(q->stdout_text, "ke_failed");
  });
  ASSERT_TRUE(q.ok()) << q.status();
  // One placeholder: the reply carries two cookies.
  EXPECT_TRUE(absl::StartsWith(q->stdout_text, "status=ok cookies=2"))
      << q->Describe() << "\n"
      << q->stdout_text << q->stderr_text << (*server)->Stderr();
}

class NtsZeitgeberdTest : public NtsPeersTest {
 protected:
  void SetUp() override {
    NtsPeersTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    ASSERT_TRUE(ZeitgeberdHasNts())
        << "$ZG_ZEITGEBERD unset, or that zeitgeberd has no NTS flags";
    absl::StatusOr<std::string> key = WriteMasterKey(*dir_, "master.key");
    ASSERT_TRUE(key.ok()) << key.status();
    config_.name = testutil::UniqueRigName("zgn");
    absl::StatusOr<std::unique_ptr<NetnsRig>> rig = NetnsRig::Create(config_);
    ASSERT_TRUE(rig.ok()) << rig.status();
    rig_ = std::move(*rig);
    absl::StatusOr<std::unique_ptr<NamespaceHosts>> hosts =
        NamespaceHosts::Create(rig_->ns(), {{rig_->server_ip(), kNtsName4},
                                            {rig_->server_ip6(), kNtsName6}});
    ASSERT_TRUE(hosts.ok()) << hosts.status();
    hosts_ = std::move(*hosts);
    ZeitgeberdOptions options;
    options.nice = -20;
    // KE on the NTP addresses, IPv4 and IPv6 (kXdpSteering: the kernel
    // keeps the rig's addresses and TCP, so KE is kernel TCP there).
    options.extra_flags = NtsServerFlags(
        pki_, *key,
        {rig_->server_ip() + ":4460", "[" + rig_->server_ip6() + "]:4460"});
    // The NTS families are read at scrape time: with nothing refreshed on
    // a timer for an hour, the NAK and reply counts below must still show.
    options.extra_flags.push_back("--stats_interval=1h");
    absl::StatusOr<std::unique_ptr<Zeitgeberd>> zg =
        Zeitgeberd::Start(*rig_, config_, options);
    ASSERT_TRUE(zg.ok()) << zg.status();
    zg_ = std::move(*zg);
  }

  // chronyd -Q against `name` over NTS; its own timeout `own_s`.
  CommandResult ChronydQ(const std::string& name, int own_s) {
    return ChronydQueryNts(*rig_, *dir_, pki_.ca_pem, name, own_s,
                           dir_->File("keylog"));
  }

  // A running chronyd -x (never touching the clock): authdata and sources.
  void ExpectChronydNtsSource();
  // tshark over the capture: TLS with ntske/1 decrypted, KE records parse,
  // NTS extension fields dissect cleanly.
  void ExpectCaptureDissects(const std::string& pcap);

  RigConfig config_;
  std::unique_ptr<NetnsRig> rig_;  // destroyed after zg_
  std::unique_ptr<NamespaceHosts> hosts_;
  std::unique_ptr<Zeitgeberd> zg_;
};

void NtsZeitgeberdTest::ExpectChronydNtsSource() {
  const std::string sock = dir_->File("x.sock");
  absl::StatusOr<std::unique_ptr<testutil::Subprocess>> chronyd = rig_->Start(
      {"env", "SSLKEYLOGFILE=" + dir_->File("keylog"), "chronyd", "-d", "-x",
       "-u", "root", "-f", "/dev/null", "pidfile " + dir_->File("x.pid"),
       "bindcmdaddress " + sock, "cmdport 0", "ntstrustedcerts " + pki_.ca_pem,
       absl::StrCat("server ", kNtsName4,
                    " iburst nts minpoll -4 maxpoll -4")});
  ASSERT_TRUE(chronyd.ok()) << chronyd.status();
  std::string authdata, sources;
  testutil::PollUntil(testutil::DeadlineIn(absl::Seconds(12)), [&] {
    absl::SleepFor(absl::Milliseconds(300));
    absl::StatusOr<CommandResult> a = rig_->Run(
        {"chronyc", "-h", sock, "-N", "-c", "authdata"}, absl::Seconds(5));
    absl::StatusOr<CommandResult> s = rig_->Run(
        {"chronyc", "-h", sock, "-N", "-c", "sources"}, absl::Seconds(5));
    if (!a.ok() || !s.ok()) return false;
    authdata = a->stdout_text;
    sources = s->stdout_text;
    // sources -c: mode,state,name,...; '*' = selected.
    return absl::StrContains(sources, absl::StrCat("^,*,", kNtsName4));
  });
  (*chronyd)->Stop();
  // authdata -c: name,mode,keyid,type,klen,last,atmp,nak,cook,clen.
  const std::vector<std::string> f =
      absl::StrSplit(authdata.substr(0, authdata.find('\n')), ',');
  ASSERT_GE(f.size(), 10u) << authdata << (*chronyd)->Stderr();
  EXPECT_EQ(f[0], kNtsName4);
  EXPECT_EQ(f[1], "NTS");
  EXPECT_EQ(f[3], "15");  // AEAD_AES_SIV_CMAC_256
  int cookies = 0;
  EXPECT_TRUE(absl::SimpleAtoi(f[8], &cookies) && cookies > 0) << authdata;
  EXPECT_EQ(f[7], "0") << "NAKs: " << authdata;
  EXPECT_TRUE(absl::StrContains(sources, absl::StrCat("^,*,", kNtsName4)))
      << sources << (*chronyd)->Stderr();
}

void NtsZeitgeberdTest::ExpectCaptureDissects(const std::string& pcap) {
  testutil::TsharkOptions o;
  o.prefs = {"tls.keylog_file:" + dir_->File("keylog")};
  o.decode_as = {"tcp.port==4460,tls"};
  absl::StatusOr<std::vector<testutil::DissectedPacket>> packets =
      testutil::DissectPcapFile(pcap, o);
  ASSERT_TRUE(packets.ok()) << packets.status();
  std::map<std::string, std::vector<uint8_t>> ke_replies;  // by tcp.stream
  int alpn = 0, nts_replies = 0;
  std::vector<testutil::DissectedPacket> checked;
  for (const testutil::DissectedPacket& p : *packets) {
    EXPECT_FALSE(p.malformed) << p.Summary();
    if (p.FieldValues("tls.handshake.extensions_alpn_str").size() > 0 &&
        p.Field("tls.handshake.extensions_alpn_str") == "ntske/1") {
      ++alpn;
    }
    if (p.Field("tcp.srcport") == "4460") {
      for (const std::string& d : p.FieldValues("data.data")) {
        const std::vector<uint8_t> b = testutil::FromHex(d);
        std::vector<uint8_t>& s = ke_replies[p.Field("tcp.stream").value()];
        s.insert(s.end(), b.begin(), b.end());
      }
    }
    if (p.HasProtocol("ntp") && !p.HasProtocol("icmp") &&
        !p.HasProtocol("icmpv6")) {
      checked.push_back(p);
      const std::vector<std::string> types = p.FieldValues("ntp.ext.type");
      if (p.Field("udp.srcport") == "123" && types.size() >= 2 &&
          types.front() == "0x0104" && types.back() == "0x0404") {
        ++nts_replies;
      }
    }
  }
  EXPECT_TRUE(testutil::CheckClean(checked).ok())
      << testutil::CheckClean(checked);
  EXPECT_GT(alpn, 0) << "no ClientHello/ServerHello with ALPN ntske/1";
  EXPECT_GT(nts_replies, 0) << "no NTS reply (UID ... authenticator) seen";
  ASSERT_FALSE(ke_replies.empty())
      << "no decrypted NTS-KE data: was the key log written?";
  for (const auto& [stream, bytes] : ke_replies) {
    absl::StatusOr<bench::NtsKeResponse> r = bench::ParseNtsKeResponse(bytes);
    ASSERT_TRUE(r.ok()) << "stream " << stream << ": " << r.status();
    EXPECT_TRUE(r->complete) << "stream " << stream;
    EXPECT_EQ(r->next_protocol, 0);
    EXPECT_EQ(r->aead, 15);
    EXPECT_EQ(r->cookies.size(), 8u) << "stream " << stream;
  }
}

TEST_F(NtsZeitgeberdTest, ChronydSynchronisesOverIpv4AndIpv6) {
  const std::string pcap = dir_->File("client.pcap");
  absl::StatusOr<std::unique_ptr<testutil::Subprocess>> tcpdump =
      rig_->Start({"tcpdump", "--immediate-mode", "-i", rig_->client_if(), "-n",
                   "-U", "-w", pcap, "tcp port 4460 or udp port 123"});
  ASSERT_TRUE(tcpdump.ok()) << tcpdump.status();
  ASSERT_TRUE(testutil::PollUntil(testutil::DeadlineIn(absl::Seconds(20)), [&] {
    return absl::StrContains((*tcpdump)->Stderr(), "listening on");
  })) << (*tcpdump)->Stderr();

  ASSERT_NO_FATAL_FAILURE(ExpectChronydNtsSource()) << zg_->Log();
  for (const char* name : {kNtsName4, kNtsName6}) {
    const CommandResult r = ChronydQ(name, 8);
    double offset = 1;
    ASSERT_TRUE(ChronydOffset(r, &offset))
        << name << ": " << r.Describe() << r.stdout_text << r.stderr_text;
    EXPECT_LT(std::abs(offset), 100e-6) << name;
    std::cout << "chronyd -Q over NTS to " << name << ": offset " << offset
              << " s\n";
  }
  // 300 garbage NTS requests (cookies nobody can open), then a good one; a
  // plain NTP client is answered too.
  absl::StatusOr<CommandResult> q =
      NtsQuery(rig_->ns(),
               {rig_->server_ip(), "ke", rig_->server_ip() + ":4460",
                pki_.ca_pem, kNtsName4, "300"},
               dir_->File("keylog"));
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_TRUE(absl::StartsWith(q->stdout_text, "status=ok"))
      << q->stdout_text << q->stderr_text << "\n"
      << zg_->ScrapeMetrics().value_or("");
  if (testutil::ProgramAvailable("ntpdig")) {
    absl::StatusOr<NtpdigSample> s = Ntpdig(*rig_, rig_->server_ip());
    EXPECT_TRUE(s.ok()) << s.status();
  }
  absl::SleepFor(absl::Milliseconds(500));
  (*tcpdump)->Stop();
  ExpectCaptureDissects(pcap);
  // The garbage was NAKed (its cookies open under no key of the window)
  // and counted; the good clients' requests were answered with NTS.
  absl::StatusOr<std::string> m =
      zg_->WaitForMetrics({{"zeitgeber_ntp_nts_naks_total", {}, 300},
                           {"zeitgeber_ntp_nts_replies_total", {}, 8}});
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_TRUE(zg_->Stop().ok()) << zg_->Log();
}

TEST_F(NtsZeitgeberdTest, NtpsecSelectsZeitgeberd) {
  if (!testutil::ProgramAvailable(kNtpsecNtpd) ||
      !testutil::ProgramAvailable("capsh")) {
    GTEST_SKIP() << kNtpsecNtpd << " (scripts/bootstrap.sh) or capsh missing";
  }
  const std::string conf = dir_->File("ntpsec.conf");
  std::ofstream(conf) << "server " << kNtsName4 << " nts ca " << pki_.ca_pem
                      << " iburst minpoll 0 maxpoll 1\n"
                      << "disable ntp\n"  // never discipline the clock
                      << "logfile " << dir_->File("ntpd.log") << "\n"
                      << "logconfig =all\n"
                      << "statsdir " << dir_->path() << "/\n"
                      << "statistics peerstats\n"
                      << "filegen peerstats file peerstats type none enable\n";
  // Without CAP_SYS_TIME: the namespace shares the host's clock.
  absl::StatusOr<std::unique_ptr<testutil::Subprocess>> ntpd = rig_->Start(
      {"capsh", "--drop=cap_sys_time", "--", "-c",
       absl::StrCat(kNtpsecNtpd, " -n -c ", conf, " -p ",
                    dir_->File("ntpd.pid"), " -f ", dir_->File("ntpd.drift"))});
  ASSERT_TRUE(ntpd.ok()) << ntpd.status();
  // peerstats: MJD seconds address status offset delay dispersion jitter;
  // the status word's select field (bits 8-10) 6 = sys.peer, bit 13 =
  // authentic.
  std::string last;
  const bool selected =
      testutil::PollUntil(testutil::DeadlineIn(absl::Seconds(40)), [&] {
        absl::SleepFor(absl::Milliseconds(500));
        absl::StatusOr<std::string> ps =
            testutil::ReadFileToString(dir_->File("peerstats"));
        if (!ps.ok()) return false;
        for (absl::string_view line : absl::StrSplit(*ps, '\n')) {
          const std::vector<std::string> f =
              absl::StrSplit(line, ' ', absl::SkipEmpty());
          if (f.size() < 5 || f[2] != rig_->server_ip()) continue;
          last = std::string(line);
          const unsigned status = std::stoul(f[3], nullptr, 16);
          if (((status >> 8) & 7) == 6 && (status & 0x2000) != 0) return true;
        }
        return false;
      });
  (*ntpd)->Stop();
  const std::string log =
      testutil::ReadFileToString(dir_->File("ntpd.log")).value_or("");
  EXPECT_TRUE(selected) << "last peerstats line: " << last << "\n" << log;
  std::cout << "ntpsec peerstats: " << last << "\n";
  EXPECT_TRUE(absl::StrContains(log, "NTSc: Got 8 cookies")) << log;
}

}  // namespace
}  // namespace nts_peers_test
}  // namespace zg::e2e
