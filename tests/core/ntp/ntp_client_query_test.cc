// SPDX-License-Identifier: Apache-2.0
// The clients query (core/ntp/ntp_client_query.h): its arguments, top-N by
// each sort key over several workers' tables, the address filter, a client
// split over two workers shown once with its sums, and the JSON shape.
#include "core/ntp/ntp_client_query.h"

#include <memory>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace zg::core {
namespace ntp_client_query_test {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;

constexpr int64_t kS = kNanosPerSecond;
const TaiNs kT0{1'800'000'000 * kS};

NtpClientKey V4(uint8_t a, uint8_t b, uint8_t c, uint8_t d) {
  return NtpClientKey::V4(Ipv4Addr::FromOctets(a, b, c, d));
}

ClockModel Clock() {
  ClockModel m;
  m.utc_offset_s = 37;
  return m;
}

std::unique_ptr<NtpClientRecords> Table(uint64_t seed) {
  return std::move(*NtpClientRecords::Create({4096, seed}));
}

// `n` requests of `key`, 1 s apart from `start`.
void Requests(NtpClientRecords& t, const NtpClientKey& key, int n,
              TaiNs start = kT0) {
  for (int i = 0; i < n; ++i) {
    t.Request(key, start + i * kS, NtpClientAuth::kNone);
  }
  t.Flush();
}

std::vector<std::string> Addresses(const json& answer) {
  std::vector<std::string> out;
  for (const json& c : answer["clients"]) out.push_back(c["address"]);
  return out;
}

TEST(NtpClientQueryTest, ArgumentsParse) {
  absl::StatusOr<NtpClientQuery> q = ParseNtpClientQuery(json(nullptr));
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->top, kNtpClientTopDefault);
  EXPECT_EQ(q->sort, NtpClientSort::kRequests);
  EXPECT_FALSE(q->address.has_value());
  q = ParseNtpClientQuery(
      json{{"top", 5}, {"sort", "kod"}, {"address", "10.1.2.3/16"}});
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(q->top, 5u);
  EXPECT_EQ(q->sort, NtpClientSort::kKod);
  EXPECT_EQ(q->address->ToString(), "10.1.0.0/16") << "host bits masked";
  q = ParseNtpClientQuery(json{{"address", "2001:db8::7"}, {"sort", "last"}});
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(q->address->length, 128);
  EXPECT_EQ(q->sort, NtpClientSort::kLast);
  EXPECT_TRUE(ParseNtpClientQuery(json::object()).ok());
  EXPECT_TRUE(ParseNtpClientQuery(json{{"sort", "drops"}}).ok());
}

TEST(NtpClientQueryTest, BadArgumentsNameTheMember) {
  const std::pair<json, const char*> bad[] = {
      {json{{"top", 0}}, "top must be an integer in [1, 10000]"},
      {json{{"top", -3}}, "top must be"},
      {json{{"top", 10001}}, "top must be"},
      {json{{"top", "5"}}, "top must be"},
      {json{{"top", 2.5}}, "top must be"},
      {json{{"sort", "name"}}, "sort 'name' is not one of"},
      {json{{"sort", 1}}, "sort must be one of"},
      {json{{"address", "10.0.0.0/33"}}, "address '10.0.0.0/33'"},
      {json{{"address", "example.org"}}, "address 'example.org'"},
      {json{{"address", 7}}, "address must be a string"},
      {json{{"count", 1}}, "unknown clients argument 'count'"},
      {json::array({1, 2}), "must be an object"},
      {json("top"), "must be an object"},
  };
  for (const auto& [args, message] : bad) {
    absl::StatusOr<NtpClientQuery> q = ParseNtpClientQuery(args);
    ASSERT_FALSE(q.ok()) << args.dump();
    EXPECT_THAT(q.status().message(), HasSubstr(message)) << args.dump();
  }
}

class NtpClientQueryTablesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Worker 0: three clients; worker 1: two, one of them (10.0.0.3) also
    // in worker 0 (it reached both through two server addresses).
    Requests(*w0_, V4(10, 0, 0, 1), 10);
    Requests(*w0_, V4(10, 0, 0, 2), 4, kT0 + 100 * kS);
    Requests(*w0_, V4(10, 0, 0, 3), 3, kT0 + 5 * kS);
    Requests(*w1_, V4(10, 0, 0, 3), 9, kT0 + 20 * kS);
    Requests(*w1_, V4(192, 168, 1, 1), 6, kT0 + 10 * kS);
    // Drops and KoD.
    const uint32_t s = w0_->Request(V4(10, 0, 0, 2), kT0 + 200 * kS,
                                    NtpClientAuth::kSymmetricKey);
    w0_->Drop(s, NtpClientDrop::kAuth);
    for (int i = 0; i < 3; ++i) {
      const uint32_t k =
          w1_->Request(V4(192, 168, 1, 1), kT0 + 16 * kS, NtpClientAuth::kNone);
      w1_->Kiss(k);
    }
    const uint32_t r =
        w1_->Request(V4(192, 168, 1, 1), kT0 + 17 * kS, NtpClientAuth::kNone);
    w1_->Drop(r, NtpClientDrop::kRateLimit);
  }
  json Query(json args) {
    absl::StatusOr<NtpClientQuery> q = ParseNtpClientQuery(args);
    EXPECT_TRUE(q.ok()) << q.status();
    return QueryNtpClients(tables_, *q, Clock(), kT0 + 300 * kS);
  }

  std::unique_ptr<NtpClientRecords> w0_ = Table(1), w1_ = Table(2);
  std::vector<const NtpClientRecords*> tables_ = {w0_.get(), nullptr,
                                                  w1_.get()};
};

TEST_F(NtpClientQueryTablesTest, TopByEachSortKey) {
  // 10.0.0.3: 3 + 9 = 12 requests over the two workers.
  // Equal counts list by address.
  EXPECT_THAT(Addresses(Query(json::object())),
              ::testing::ElementsAre("10.0.0.3", "10.0.0.1", "192.168.1.1",
                                     "10.0.0.2"));
  EXPECT_THAT(Addresses(Query({{"top", 2}})),
              ::testing::ElementsAre("10.0.0.1", "192.168.1.1"))
      << "ranked by the part in one table (10.0.0.3 has 3 + 9)";
  // One drop each: the one with more requests first.
  EXPECT_THAT(Addresses(Query({{"sort", "drops"}, {"top", 2}})),
              ::testing::ElementsAre("192.168.1.1", "10.0.0.2"));
  EXPECT_THAT(Addresses(Query({{"sort", "kod"}, {"top", 1}})),
              ::testing::ElementsAre("192.168.1.1"));
  EXPECT_THAT(Addresses(Query({{"sort", "last"}})),
              ::testing::ElementsAre("10.0.0.2", "10.0.0.3", "192.168.1.1",
                                     "10.0.0.1"));
}

TEST_F(NtpClientQueryTablesTest, AddressFilter) {
  json a = Query({{"address", "10.0.0.0/30"}});
  EXPECT_THAT(Addresses(a),
              ::testing::ElementsAre("10.0.0.3", "10.0.0.1", "10.0.0.2"));
  EXPECT_EQ(a["matched"], 4) << "entries: 10.0.0.3 is in two tables";
  EXPECT_EQ(a["address"], "10.0.0.0/30");
  a = Query({{"address", "192.168.1.1"}});
  EXPECT_THAT(Addresses(a), ::testing::ElementsAre("192.168.1.1"));
  EXPECT_TRUE(Query({{"address", "2001:db8::/32"}})["clients"].empty());
}

TEST_F(NtpClientQueryTablesTest, JsonShape) {
  const json a = Query({{"address", "10.0.0.0/24"}, {"sort", "requests"}});
  EXPECT_EQ(a["sort"], "requests");
  EXPECT_EQ(a["top"], kNtpClientTopDefault);
  EXPECT_EQ(a["workers"], 2);
  EXPECT_EQ(a["capacity"], 8192);
  EXPECT_EQ(a["tracked"], 5);
  EXPECT_EQ(a["evictions"], 0);
  EXPECT_EQ(a["busy"], 0);
  EXPECT_EQ(a["now_tai_ns"], (kT0 + 300 * kS).value);
  const json& merged = a["clients"][0];
  EXPECT_EQ(merged["address"], "10.0.0.3");
  EXPECT_EQ(merged["requests"], 12);
  EXPECT_EQ(merged["first_seen_tai_ns"], (kT0 + 5 * kS).value);
  EXPECT_EQ(merged["last_seen_tai_ns"], (kT0 + 28 * kS).value);
  EXPECT_EQ(merged["first_seen_utc"], "2027-01-15T07:59:28.000000000Z");
  EXPECT_DOUBLE_EQ(merged["last_seen_ago_s"].get<double>(), 272.0);
  EXPECT_DOUBLE_EQ(merged["interval_s"].get<double>(), 23.0 / 11);
  EXPECT_EQ(merged["mode"], "basic");
  EXPECT_EQ(merged["auth"], "none");
  EXPECT_TRUE(merged["key_id"].is_null());
  const json& keyed = a["clients"][2];
  EXPECT_EQ(keyed["address"], "10.0.0.2");
  EXPECT_EQ(keyed["requests"], 5);
  EXPECT_EQ(keyed["auth"], "key");
  EXPECT_EQ(keyed["key_id"], 0) << "a failed MAC never reached Answered";
  EXPECT_EQ(keyed["drops"], (json{{"rate_limit", 0}, {"acl", 0}, {"auth", 1}}));
  const json& one = a["clients"][1];
  EXPECT_EQ(one["requests"], 10);
  EXPECT_DOUBLE_EQ(one["interval_s"].get<double>(), 1.0);
  const json k = Query({{"sort", "kod"}, {"top", 1}})["clients"][0];
  EXPECT_EQ(k["kod"], 3);
  EXPECT_EQ(k["requests"], 10);
  EXPECT_EQ(k["drops"]["rate_limit"], 1);
}

// Top 10 of 100k clients: exact, and only what the heap needs is copied.
TEST(NtpClientQueryTest, TopTenOfManyClients) {
  auto t = std::move(*NtpClientRecords::Create({1 << 17, 5}));
  for (uint32_t i = 0; i < 100'000; ++i) {
    // One request each, but the last ten send 2000 and more.
    const NtpClientKey k = NtpClientKey::V4(Ipv4Addr{0x0a000000u + i});
    const int n = i >= 99'990 ? 2000 + static_cast<int>(i) - 99'990 : 1;
    for (int j = 0; j < n; ++j) t->Request(k, kT0, NtpClientAuth::kNone);
  }
  t->Flush();
  const NtpClientRecords* tables[] = {t.get()};
  NtpClientQuery q;
  q.top = 10;
  const NtpClientSelection s = SelectNtpClients(tables, q);
  EXPECT_EQ(s.matched + t->stats().evictions, 100'000u);
  ASSERT_EQ(s.clients.size(), 10u);
  for (size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(s.clients[i].requests, 2009 - i);
    EXPECT_EQ(s.clients[i].key.lo, 0x0a000000u + 99'999 - i);
  }
}

}  // namespace
}  // namespace ntp_client_query_test
}  // namespace zg::core
