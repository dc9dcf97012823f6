// SPDX-License-Identifier: Apache-2.0
// ParseBoundedJson: nlohmann's strict grammar, exact integers, and every
// limit and malformed document answered with a Status, never an exception.
#include "core/base/bounded_json.h"

#include <cstdint>
#include <string>

#include "gtest/gtest.h"

namespace zg::core {
namespace bounded_json_test {
namespace {

TEST(BoundedJsonTest, ParsesObjectsArraysAndScalars) {
  absl::StatusOr<nlohmann::json> v = ParseBoundedJson(
      R"( {"class":"TPV","mode":3,"ept":0.005,"ok":true,"none":null,)"
      R"("list":[1,-2,3.5e2,"x"],"nested":{"a":{}}} )");
  ASSERT_TRUE(v.ok()) << v.status();
  ASSERT_NE(JsonString(*v, "class"), nullptr);
  EXPECT_EQ(*JsonString(*v, "class"), "TPV");
  EXPECT_EQ(JsonMember(*v, "mode")->get<int64_t>(), 3);
  EXPECT_EQ(JsonString(*v, "mode"), nullptr);  // a number, not a string
  EXPECT_EQ(JsonMember(*v, "absent"), nullptr);
  EXPECT_EQ(JsonMember(JsonMember(*v, "list")->at(0), "a"), nullptr);
  EXPECT_EQ((*v)["list"][2].get<double>(), 350.0);
}

TEST(BoundedJsonTest, KeepsExactIntegersAndDecodesUnicode) {
  EXPECT_EQ(ParseBoundedJson("9223372036854775807")->get<int64_t>(), INT64_MAX);
  EXPECT_EQ(ParseBoundedJson("-9223372036854775808")->get<int64_t>(),
            INT64_MIN);
  EXPECT_TRUE(ParseBoundedJson("18446744073709551616")->is_number_float());
  EXPECT_EQ(ParseBoundedJson(R"("a\"b\\c\/d\n\t\u00e9\u4e2d\ud83d\ude00")")
                ->get<std::string>(),
            "a\"b\\c/d\n\t\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80");
}

TEST(BoundedJsonTest, RejectsMalformedInputWithoutThrowing) {
  for (const char* bad : {
           "",
           "{",
           "[1,]",
           "{\"a\":1,}",
           "01",
           "-",
           "1.",
           "1e",
           ".5",
           "\"unterminated",
           "\"ctl\x01\"",
           "\"\\x\"",
           "\"\\ud800\"",
           "\"\\udc00\"",
           "\"\\ud800\\u0041\"",
           "tru",
           "nul",
           "{1:2}",
           "{\"a\" 1}",
           "[1 2]",
           "1 2",
           "\"\xC3\"",
           "\"\xC0\xAF\"",
           "\"\xED\xA0\x80\"",
           "\"\xF5\x80\x80\x80\"",
           "+1",
           "NaN",
           "1e400",
           "/* c */ 1",
           "[1] // c",
       }) {
    absl::StatusOr<nlohmann::json> v = ParseBoundedJson(bad);
    EXPECT_EQ(v.status().code(), absl::StatusCode::kInvalidArgument)
        << "accepted: " << bad;
  }
  EXPECT_FALSE(ParseBoundedJson(absl::string_view("[1,\0]", 5)).ok());
}

TEST(BoundedJsonTest, EnforcesLimits) {
  const auto code = [](absl::string_view text, const JsonLimits& l) {
    return ParseBoundedJson(text, l).status().code();
  };
  const auto kExhausted = absl::StatusCode::kResourceExhausted;
  EXPECT_TRUE(ParseBoundedJson("[[[1]]]", {.max_depth = 3}).ok());
  EXPECT_EQ(code("[[[[1]]]]", {.max_depth = 3}), kExhausted);
  EXPECT_EQ(code(R"({"a":{"b":{"c":{}}}})", {.max_depth = 3}), kExhausted);
  EXPECT_TRUE(ParseBoundedJson("[1,2,3]", {.max_values = 4}).ok());
  EXPECT_EQ(code("[1,2,3,4]", {.max_values = 4}), kExhausted);
  EXPECT_EQ(code(R"({"a":1,"b":2,"c":[]})", {.max_values = 3}), kExhausted);
  EXPECT_EQ(code("\"123456789\"", {.max_input_bytes = 8}), kExhausted);
  // Deep nesting, well-formed or cut short, fails cleanly (nlohmann's parser
  // keeps its own stack, not the thread's).
  const std::string deep = std::string(30000, '[') + std::string(30000, ']');
  EXPECT_EQ(code(deep, {}), kExhausted);
  EXPECT_FALSE(ParseBoundedJson(std::string(60000, '['), {}).ok());
  EXPECT_TRUE(ParseBoundedJson(deep, {.max_input_bytes = 1 << 20,
                                      .max_depth = 1 << 20,
                                      .max_values = 1 << 20})
                  .ok());
}

}  // namespace
}  // namespace bounded_json_test
}  // namespace zg::core
