// SPDX-License-Identifier: Apache-2.0
// The control socket's messages: what parses, what is refused and how, and
// that replies round-trip.
#include "servo/api/control_protocol.h"

#include <string>

#include "gtest/gtest.h"

namespace zg::servo {
namespace control_protocol_test {
namespace {

using nlohmann::json;

TEST(ControlProtocolTest, ParsesARequest) {
  ParsedRequest p = ParseControlRequest(
      R"({"version":1,"command":"audit","args":{"limit":5},"id":"a"})"
      "\n");
  ASSERT_TRUE(p.request.has_value());
  EXPECT_EQ(p.request->command, "audit");
  EXPECT_EQ(p.request->args["limit"], 5);
  EXPECT_EQ(p.request->id, "a");
}

TEST(ControlProtocolTest, ArgsAndIdAreOptional) {
  ParsedRequest p = ParseControlRequest(R"({"version":1,"command":"x"})");
  ASSERT_TRUE(p.request.has_value());
  EXPECT_TRUE(p.request->args.is_object());
  EXPECT_TRUE(p.request->args.empty());
  EXPECT_TRUE(p.request->id.is_null());
}

struct BadCase {
  const char* line;
  ErrorCode code;
  const char* in_message;
};

class BadRequestTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadRequestTest, IsRefusedWithAClearError) {
  ParsedRequest p = ParseControlRequest(GetParam().line);
  EXPECT_FALSE(p.request.has_value());
  EXPECT_FALSE(p.error.ok);
  EXPECT_EQ(p.error.code, GetParam().code) << ErrorCodeName(p.error.code);
  EXPECT_NE(p.error.message.find(GetParam().in_message), std::string::npos)
      << p.error.message;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BadRequestTest,
    ::testing::Values(
        BadCase{"{\"version\":1,", ErrorCode::kBadRequest, "malformed JSON"},
        BadCase{"tracking", ErrorCode::kBadRequest, "malformed JSON"},
        BadCase{"\xff\xfe", ErrorCode::kBadRequest, "malformed JSON"},
        BadCase{"[1,2]", ErrorCode::kBadRequest, "JSON object"},
        BadCase{R"({"command":"x"})", ErrorCode::kBadRequest, "version"},
        BadCase{R"({"version":"1","command":"x"})", ErrorCode::kBadRequest,
                "version"},
        BadCase{R"({"version":2,"command":"x"})",
                ErrorCode::kUnsupportedVersion, "speaks version 1"},
        BadCase{R"({"version":0,"command":"x"})",
                ErrorCode::kUnsupportedVersion, "not supported"},
        BadCase{R"({"version":1})", ErrorCode::kBadRequest, "command"},
        BadCase{R"({"version":1,"command":""})", ErrorCode::kBadRequest,
                "command"},
        BadCase{R"({"version":1,"command":"x","args":[1]})",
                ErrorCode::kBadRequest, "args"},
        BadCase{R"({"version":1,"command":"x","verbose":true})",
                ErrorCode::kBadRequest, "unknown field \"verbose\""}));

TEST(ControlProtocolTest, AnUnknownVersionSaysWhichIsSupported) {
  ParsedRequest p = ParseControlRequest(R"({"version":7,"command":"x"})");
  EXPECT_EQ(p.error.data["supported_versions"], json::array({1}));
  EXPECT_EQ(p.command, "x");
}

TEST(ControlProtocolTest, RepliesAreOneLineAndRoundTrip) {
  const std::string ok = FormatReply(
      Reply::Ok({{"state", "LOCKED"}, {"text", "a\nb"}}), "tracking", 7);
  EXPECT_EQ(ok.back(), '\n');
  EXPECT_EQ(ok.find('\n'), ok.size() - 1);  // one line
  std::optional<Reply> r = ParseReply(ok.substr(0, ok.size() - 1));
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(r->ok);
  EXPECT_EQ(r->data["state"], "LOCKED");
  EXPECT_EQ(json::parse(ok)["id"], 7);
  EXPECT_EQ(json::parse(ok)["version"], kControlProtocolVersion);

  const std::string err = FormatReply(
      Reply::Error(ErrorCode::kPermissionDenied, "no"), "drain", nullptr);
  r = ParseReply(err);
  ASSERT_TRUE(r.has_value());
  EXPECT_FALSE(r->ok);
  EXPECT_EQ(r->code, ErrorCode::kPermissionDenied);
  EXPECT_EQ(r->message, "no");
}

TEST(ControlProtocolTest, InvalidUtf8InDataIsReplacedNotThrown) {
  const std::string line =
      FormatReply(Reply::Ok({{"name", std::string("bad\xff")}}), "x", nullptr);
  EXPECT_TRUE(ParseReply(line).has_value());
}

TEST(ControlProtocolTest, ParseReplyRefusesWhatIsNotThisProtocol) {
  EXPECT_FALSE(ParseReply("HTTP/1.1 200 OK").has_value());
  EXPECT_FALSE(ParseReply(R"({"data":1})").has_value());
  EXPECT_FALSE(ParseReply(R"({"ok":false,"error":3})").has_value());
}

TEST(ControlProtocolTest, ErrorNamesRoundTrip) {
  for (int i = 0; i <= static_cast<int>(ErrorCode::kShuttingDown); ++i) {
    const auto c = static_cast<ErrorCode>(i);
    EXPECT_EQ(ParseErrorCode(ErrorCodeName(c)), c);
  }
  EXPECT_FALSE(ParseErrorCode("nope").has_value());
}

TEST(ControlProtocolTest, RequestsAreOneLine) {
  const std::string line =
      FormatRequest("audit", {{"kind", {"source_down"}}, {"limit", 3}});
  EXPECT_EQ(line.find('\n'), line.size() - 1);
  ParsedRequest p = ParseControlRequest(line);
  ASSERT_TRUE(p.request.has_value());
  EXPECT_EQ(p.request->args["limit"], 3);
}

}  // namespace
}  // namespace control_protocol_test
}  // namespace zg::servo
