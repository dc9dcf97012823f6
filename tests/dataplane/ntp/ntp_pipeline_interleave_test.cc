// SPDX-License-Identifier: Apache-2.0
// NTP interleaved mode through the real worker loop on a ring port
// (ntp_pipeline_fixture.h with an NtpInterleaveFactory): a client's second
// request, whose origin is our first reply's T2, gets the interleaved reply
// whose T3 is exactly the stamp the worker took when tx_burst returned
// with the first reply; replays, unknown origins and basic clients get
// basic replies, counted; one burst's shared RX stamp still gives every
// reply its own key; symmetric-key MACs and NTS seals cover the interleaved
// T3.
#include <cstdint>
#include <memory>
#include <vector>

#include "core/ntp/ntp_interleave.h"
#include "core/ntp/ntp_keys.h"
#include "core/ntp/ntp_mac.h"
#include "core/ntp/ntp_wire.h"
#include "core/nts/nts_cookie.h"
#include "dataplane/ntp/ntp_auth.h"
#include "dataplane/ntp/ntp_interleave.h"
#include "dataplane/ntp/nts_auth.h"
#include "gtest/gtest.h"
#include "tests/core/nts/nts_test_request.h"
#include "tests/dataplane/ntp/ntp_pipeline_fixture.h"
#include "tests/dataplane/testing/frames.h"

namespace zg::dataplane {
namespace ntp_pipeline_interleave_test {
namespace {

using core::NtpTimestamp;
using testing::ClientFlow;
using testing::ClientView;
using testing::NtpPipelineTest;

class NtpInterleaveTest : public NtpPipelineTest {
 protected:
  // The table keeps the stamp read after tx_burst unless the plan says
  // kSoftwareBefore.
  void SetUpInterleave(NtpAuthFactory* auth = nullptr,
                       NtsFactory* nts = nullptr,
                       TxStampSource ntp_tx = TxStampSource::kSoftwareAfter) {
    stamps_.ntp_tx = ntp_tx;
    xleave_.SetConfig({.enabled = true, .slots = 1024});
    SetUpServer(std::nullopt, nullptr, {}, auth, nts, &xleave_);
  }

  // A client request in interleaved mode (RFC 9769): origin = our
  // previous T2, receive = the client's T4 of that reply.
  static std::vector<uint8_t> Request(NtpTimestamp origin, NtpTimestamp receive,
                                      NtpTimestamp transmit) {
    std::vector<uint8_t> req = testing::NtpRequest(4, transmit);
    core::StoreNtpTimestamp(req.data() + core::kNtpOffsetOriginTime, origin);
    core::StoreNtpTimestamp(req.data() + core::kNtpOffsetReceiveTime, receive);
    return req;
  }

  core::NtpHeader Reply(const rte_mbuf* m, const ClientFlow& flow) {
    core::NtpHeader h;
    absl::StatusOr<ClientView> v = testing::ReceiveAtClient(flow, m);
    EXPECT_TRUE(v.ok()) << v.status();
    if (v.ok()) {
      EXPECT_TRUE(core::ParseNtpHeader(v->payload(), v->info.payload_len, &h));
    }
    return h;
  }

  // What the handler keeps for the reply it last saw leave: the worker's
  // TSC stamp when tx_burst returned, converted as T3 is (TAI -> UTC ->
  // NTP, tag bit cleared).
  NtpTimestamp LastTxOnTheWire() const {
    const uint64_t tsc = xleave_.worker(0).last_tx_tsc();
    EXPECT_NE(tsc, 0u);
    return core::TagNtpTx(
        core::UtcToNtp(model_.TaiToUtc(model_.RawToTai(tsc))));
  }

  const NtpInterleaveStats& Stats() const { return xleave_.stats(0); }

  NtpInterleaveFactory xleave_;
  static constexpr NtpTimestamp kT4{0xe8fe6f81u, 0x40000000u};  // client's
  static constexpr NtpTimestamp kT1b{0xe8fe6f82u, 0x80000000u};
  static constexpr NtpTimestamp kT1c{0xe8fe6f83u, 0x80000000u};
};

TEST_F(NtpInterleaveTest, SecondReplyCarriesTheFirstReplysExactTransmitTime) {
  SetUpInterleave();
  // The client's first request already in interleaved form (a chronyd
  // xleave client's second poll): its origin is unknown here.
  const std::vector<uint8_t> req1 =
      Request({0x12345678u, 0x9abcdef1u}, {0x1111u, 0x2222u}, kT1);
  Exchange e1 = Run({testing::UdpFrame(Flow4(), req1)});
  ASSERT_EQ(e1.out.size(), 1u);
  const core::NtpHeader r1 = Reply(e1.out[0], Flow4());
  EXPECT_EQ(r1.origin_time, kT1) << "basic reply to an unknown origin";
  EXPECT_EQ(r1.receive_time.fraction & 1, 1u) << "our T2 is tagged";
  EXPECT_EQ(r1.transmit_time.fraction & 1, 0u) << "our T3 is not";
  EXPECT_EQ(Stats().unknown.Load(), 1u);
  const NtpTimestamp tx1 = LastTxOnTheWire();
  // T3 of the basic reply was stamped before tx_burst, the kept one after.
  EXPECT_LE(r1.transmit_time.ToU64(), tx1.ToU64());
  Free(e1);

  const std::vector<uint8_t> req2 = Request(r1.receive_time, kT4, kT1b);
  Exchange e2 = Run({testing::UdpFrame(Flow4(), req2)});
  ASSERT_EQ(e2.out.size(), 1u);
  const core::NtpHeader r2 = Reply(e2.out[0], Flow4());
  EXPECT_EQ(r2.origin_time, kT4) << "RFC 9769: origin = request's receive";
  EXPECT_EQ(r2.transmit_time, tx1)
      << "T3 is the first reply's transmit time, exactly";
  EXPECT_EQ(r2.receive_time.fraction & 1, 1u);
  EXPECT_GT(Utc(r2.receive_time).value, Utc(r2.transmit_time).value)
      << "this request arrived after the previous reply left";
  EXPECT_EQ(Stats().interleaved.Load(), 1u);
  const NtpTimestamp tx2 = LastTxOnTheWire();
  Free(e2);

  // The same request again (a replay, or a duplicate): basic, counted.
  Exchange e3 = Run({testing::UdpFrame(Flow4(), req2)});
  ASSERT_EQ(e3.out.size(), 1u);
  EXPECT_EQ(Reply(e3.out[0], Flow4()).origin_time, kT1b);
  EXPECT_EQ(Stats().replay.Load(), 1u);
  Free(e3);

  // The client goes on from reply 2: interleaved again.
  Exchange e4 =
      Run({testing::UdpFrame(Flow4(), Request(r2.receive_time, kT4, kT1c))});
  ASSERT_EQ(e4.out.size(), 1u);
  EXPECT_EQ(Reply(e4.out[0], Flow4()).transmit_time, tx2);
  EXPECT_EQ(Stats().interleaved.Load(), 2u);
  EXPECT_EQ(Stats().evictions.Load(), 0u);
  EXPECT_EQ(Stats().unsaved.Load(), 0u);
  Free(e4);
}

TEST_F(NtpInterleaveTest, WhereThePlanSaysBeforeTheStampBeforeTxBurstIsKept) {
  SetUpInterleave(nullptr, nullptr, TxStampSource::kSoftwareBefore);
  Exchange e1 = Run({testing::UdpFrame(
      Flow4(), Request({0x1000u, 0x1u}, {0x1u, 0x2u}, kT1))});
  ASSERT_EQ(e1.out.size(), 1u);
  const core::NtpHeader r1 = Reply(e1.out[0], Flow4());
  Free(e1);
  Exchange e2 =
      Run({testing::UdpFrame(Flow4(), Request(r1.receive_time, kT4, kT1b))});
  ASSERT_EQ(e2.out.size(), 1u);
  const core::NtpHeader r2 = Reply(e2.out[0], Flow4());
  EXPECT_EQ(r2.transmit_time, r1.transmit_time)
      << "the T3 the basic reply carried, exactly";
  EXPECT_EQ(r2.origin_time, kT4);
  const core::NtpTimestamp t3_2 = r2.transmit_time;
  Free(e2);
  // Reply 2 (interleaved) kept its own before-stamp: reply 3 carries it,
  // later than reply 1's.
  Exchange e3 =
      Run({testing::UdpFrame(Flow4(), Request(r2.receive_time, kT4, kT1c))});
  ASSERT_EQ(e3.out.size(), 1u);
  const core::NtpHeader r3 = Reply(e3.out[0], Flow4());
  EXPECT_GT(Utc(r3.transmit_time).value, Utc(t3_2).value);
  EXPECT_LT(Utc(r3.transmit_time).value, Utc(r3.receive_time).value);
  EXPECT_EQ(Stats().interleaved.Load(), 2u);
  Free(e3);
}

TEST_F(NtpInterleaveTest, BasicClientsAreNotLookedUp) {
  SetUpInterleave();
  // Origin 0 (chronyd basic), and an ntpd-style origin = our previous T3
  // (tag bit clear).
  std::vector<uint8_t> ntpd = Request({0x1234u, 0x5678u}, {0x1u, 0x2u}, kT1b);
  Exchange e =
      Run({testing::UdpFrame(Flow4(40000), testing::NtpRequest(4, kT1)),
           testing::UdpFrame(Flow4(40001), ntpd)});
  ASSERT_EQ(e.out.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const core::NtpHeader h =
        ExpectNtpReply(e.out[i], Flow4(static_cast<uint16_t>(40000 + i)),
                       i == 0 ? testing::NtpRequest(4, kT1) : ntpd, e);
    EXPECT_EQ(h.receive_time.fraction & 1, 1u);
    EXPECT_EQ(h.transmit_time.fraction & 1, 0u);
  }
  EXPECT_EQ(Stats().unknown.Load() + Stats().interleaved.Load(), 0u);
  Free(e);
}

TEST_F(NtpInterleaveTest, OneBurstsSharedStampGivesEveryReplyItsOwnKey) {
  SetUpInterleave();
  constexpr int kClients = 8;
  std::vector<std::vector<uint8_t>> frames;
  for (int i = 0; i < kClients; ++i) {
    frames.push_back(
        testing::UdpFrame(Flow4(static_cast<uint16_t>(40000 + i)),
                          Request({0x1000u, static_cast<uint32_t>(2 * i + 1)},
                                  {0x1u, 0x2u}, kT1)));
  }
  Exchange e1 = Run(frames);
  ASSERT_EQ(e1.out.size(), frames.size());
  std::vector<NtpTimestamp> t2;
  for (int i = 0; i < kClients; ++i) {
    t2.push_back(
        Reply(e1.out[i], Flow4(static_cast<uint16_t>(40000 + i))).receive_time);
    if (i > 0) {
      EXPECT_GT(t2[i].ToU64(), t2[i - 1].ToU64());
      EXPECT_LE(t2[i].ToU64() - t2[0].ToU64(), 2u * kClients) << "< 4 ns";
    }
  }
  // One tx_burst for all, unless the hooks ran past kFinaliseBudgetNs (a
  // sanitizer build: Worker::Flush then sends the batch in chunks of
  // kFinaliseCheckEvery, each with its own after-stamp). The last chunk's
  // stamp is the one the table saw last.
  const NtpTimestamp tx = LastTxOnTheWire();
  const uint64_t splits = e1.delta.tx_finalise_splits;
  const int last_chunk_from =
      splits == 0
          ? 0
          : static_cast<int>(splits) * static_cast<int>(kFinaliseCheckEvery);
  ASSERT_LT(last_chunk_from, kClients);
  Free(e1);
  frames.clear();
  for (int i = 0; i < kClients; ++i) {
    frames.push_back(testing::UdpFrame(Flow4(static_cast<uint16_t>(40000 + i)),
                                       Request(t2[i], kT4, kT1b)));
  }
  Exchange e2 = Run(frames);
  ASSERT_EQ(e2.out.size(), frames.size());
  NtpTimestamp previous{0, 0};
  for (int i = 0; i < kClients; ++i) {
    const NtpTimestamp t3 =
        Reply(e2.out[i], Flow4(static_cast<uint16_t>(40000 + i))).transmit_time;
    if (i >= last_chunk_from) {
      EXPECT_EQ(t3, tx) << i;
    } else {  // an earlier chunk: its own stamp, never after the last one's
      EXPECT_LT(t3.ToU64(), tx.ToU64()) << i;
      EXPECT_EQ(t3.fraction & 1, 0u) << i << ": a TX stamp's tag";
    }
    if (i % kFinaliseCheckEvery != 0) {
      EXPECT_EQ(t3, previous) << i << ": one stamp per chunk";
    }
    previous = t3;
  }
  EXPECT_EQ(Stats().interleaved.Load(), static_cast<uint64_t>(kClients));
  Free(e2);
}

TEST_F(NtpInterleaveTest, TheMacCoversTheInterleavedTransmitTime) {
  absl::StatusOr<core::NtpKeyTable> keys =
      core::ParseNtpKeys("7 AES128 HEX:000102030405060708090a0b0c0d0e0f\n");
  ASSERT_TRUE(keys.ok()) << keys.status();
  NtpAuthFactory auth;
  auth.SetKeys(std::make_shared<const core::NtpKeyTable>(std::move(*keys)));
  SetUpInterleave(&auth);
  absl::StatusOr<std::unique_ptr<core::NtpMacer>> client =
      core::NtpMacer::Create(*auth.keys());
  ASSERT_TRUE(client.ok()) << client.status();
  auto macced = [&](std::vector<uint8_t> req) {
    req.resize(core::kNtpHeaderSize + 24);
    req.resize(core::kNtpHeaderSize +
               (*client)->Sign(0, req.data(), core::kNtpHeaderSize));
    return req;
  };
  // The reply verifies with the client's key; its header.
  auto verified = [&](const rte_mbuf* m) {
    core::NtpHeader h;
    absl::StatusOr<ClientView> v = testing::ReceiveAtClient(Flow4(), m);
    EXPECT_TRUE(v.ok()) << v.status();
    if (!v.ok()) return h;
    const core::NtpTrailer t =
        core::ParseNtpTrailer(v->payload(), v->info.payload_len, 4);
    EXPECT_EQ(t.mac, core::NtpMacKind::kSymmetric);
    EXPECT_EQ((*client)->Verify(v->payload(), t).verdict,
              core::NtpMacVerdict::kOk);
    EXPECT_TRUE(core::ParseNtpHeader(v->payload(), v->info.payload_len, &h));
    return h;
  };
  Exchange e1 = Run({testing::UdpFrame(
      Flow4(), macced(Request({0x1000u, 0x1u}, {0x1u, 0x2u}, kT1)))});
  ASSERT_EQ(e1.out.size(), 1u);
  const core::NtpHeader r1 = verified(e1.out[0]);
  const NtpTimestamp tx1 = LastTxOnTheWire();
  Free(e1);
  Exchange e2 = Run({testing::UdpFrame(
      Flow4(), macced(Request(r1.receive_time, kT4, kT1b)))});
  ASSERT_EQ(e2.out.size(), 1u);
  EXPECT_EQ(verified(e2.out[0]).transmit_time, tx1);
  EXPECT_EQ(Stats().interleaved.Load(), 1u);
  Free(e2);
}

TEST_F(NtpInterleaveTest, TheNtsSealCoversTheInterleavedTransmitTime) {
  NtsFactory nts;
  nts.SetClock([] { return int64_t{1'800'000'000}; });
  ASSERT_TRUE(nts.SetMasterKey(core::testing::TestMasterKey(1), {}).ok());
  SetUpInterleave(nullptr, &nts);
  const core::NtsKeys keys = core::testing::TestKeys(5);
  core::testing::NtsClientSpec spec;
  spec.cookie = core::testing::MintCookie(*nts.CurrentKeystore(), keys);
  spec.c2s = keys.c2s;
  spec.t1 = kT1;
  spec.origin = {0x1000u, 0x1u};
  spec.receive = {0x1u, 0x2u};
  auto open = [&](const rte_mbuf* m, size_t len) {
    absl::StatusOr<ClientView> v = testing::ReceiveAtClient(Flow4(), m);
    EXPECT_TRUE(v.ok()) << v.status();
    if (!v.ok()) return core::testing::NtsReplyView{};
    EXPECT_EQ(v->info.payload_len, len);
    return core::testing::OpenNtsReply(v->payload(), v->info.payload_len,
                                       spec.uid, keys.s2c);
  };
  std::vector<uint8_t> req = core::testing::BuildNtsRequest(spec);
  Exchange e1 = Run({testing::UdpFrame(Flow4(), req)});
  ASSERT_EQ(e1.out.size(), 1u);
  const core::testing::NtsReplyView r1 = open(e1.out[0], req.size());
  ASSERT_TRUE(r1.ok) << r1.error;
  EXPECT_EQ(r1.header.origin_time, kT1);
  const NtpTimestamp tx1 = LastTxOnTheWire();
  Free(e1);
  spec.origin = r1.header.receive_time;
  spec.receive = kT4;
  spec.t1 = kT1b;
  req = core::testing::BuildNtsRequest(spec);
  Exchange e2 = Run({testing::UdpFrame(Flow4(), req)});
  ASSERT_EQ(e2.out.size(), 1u);
  const core::testing::NtsReplyView r2 = open(e2.out[0], req.size());
  ASSERT_TRUE(r2.ok) << r2.error << ": the seal covers the reply as sent";
  EXPECT_EQ(r2.header.origin_time, kT4);
  EXPECT_EQ(r2.header.transmit_time, tx1);
  EXPECT_EQ(Stats().interleaved.Load(), 1u);
  Free(e2);
}

}  // namespace
}  // namespace ntp_pipeline_interleave_test
}  // namespace zg::dataplane
