#include "servo/json.h"

#include <string>

#include "gtest/gtest.h"

namespace zg::servo::json {
namespace {

TEST(JsonTest, ParsesObjectsArraysAndScalars) {
  absl::StatusOr<Value> v =
      Parse(R"( {"class":"TPV","mode":3,"ept":0.005,"ok":true,"none":null,)"
            R"("list":[1,-2,3.5e2,"x"],"nested":{"a":{}}} )");
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->GetString("class"), "TPV");
  EXPECT_EQ(v->GetInteger("mode"), 3);
  EXPECT_DOUBLE_EQ(*v->GetNumber("ept"), 0.005);
  EXPECT_FALSE(v->GetInteger("ept").has_value());
  EXPECT_EQ(v->GetBool("ok"), true);
  ASSERT_NE(v->Find("none"), nullptr);
  EXPECT_TRUE(v->Find("none")->is_null());
  const Value* list = v->Find("list");
  ASSERT_NE(list, nullptr);
  ASSERT_EQ(list->elements().size(), 4u);
  EXPECT_EQ(list->elements()[1].integer(), -2);
  EXPECT_DOUBLE_EQ(list->elements()[2].number(), 350.0);
  EXPECT_EQ(list->elements()[3].string(), "x");
  EXPECT_EQ(v->Find("missing"), nullptr);
  EXPECT_EQ(v->GetString("mode"), std::nullopt);  // wrong type
}

TEST(JsonTest, KeepsExactInt64AndFallsBackToDouble) {
  EXPECT_EQ(Parse("9223372036854775807")->integer(), INT64_MAX);
  EXPECT_EQ(Parse("-9223372036854775808")->integer(), INT64_MIN);
  absl::StatusOr<Value> big = Parse("9223372036854775808");
  ASSERT_TRUE(big.ok());
  EXPECT_FALSE(big->integer().has_value());
  EXPECT_DOUBLE_EQ(big->number(), 9223372036854775808.0);
  EXPECT_FALSE(Parse("1e400").ok());  // not finite
}

TEST(JsonTest, DecodesEscapesAndUnicode) {
  absl::StatusOr<Value> v =
      Parse(R"("a\"b\\c\/d\n\t\u00e9\u4e2d\ud83d\ude00")");
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->string(), "a\"b\\c/d\n\t\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80");
}

TEST(JsonTest, RejectsMalformedInput) {
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
       }) {
    EXPECT_FALSE(Parse(bad).ok()) << "accepted: " << bad;
  }
}

TEST(JsonTest, EnforcesLimits) {
  Limits l;
  l.max_depth = 3;
  EXPECT_TRUE(Parse("[[[1]]]", l).ok());
  EXPECT_EQ(Parse("[[[[1]]]]", l).status().code(),
            absl::StatusCode::kResourceExhausted);
  l = Limits();
  l.max_values = 4;
  EXPECT_TRUE(Parse("[1,2,3]", l).ok());
  EXPECT_EQ(Parse("[1,2,3,4]", l).status().code(),
            absl::StatusCode::kResourceExhausted);
  l = Limits();
  l.max_input_bytes = 8;
  EXPECT_EQ(Parse("\"123456789\"", l).status().code(),
            absl::StatusCode::kResourceExhausted);
  l = Limits();
  l.max_number_chars = 5;
  EXPECT_EQ(Parse("123456", l).status().code(),
            absl::StatusCode::kResourceExhausted);
  // Deep nesting in the default limits fails cleanly instead of overflowing
  // the stack.
  EXPECT_FALSE(Parse(std::string(100000, '[')).ok());
}

TEST(JsonTest, AppendQuotedEscapesAndRepairsUtf8) {
  std::string out;
  AppendQuoted(&out, std::string("a\"b\\c\n\x01\x7f\xE4\xB8\xAD\xFF", 12));
  EXPECT_EQ(out, "\"a\\\"b\\\\c\\n\\u0001\\u007f\xE4\xB8\xAD\xEF\xBF\xBD\"");
  // Whatever the bytes, the result parses back.
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  std::string quoted;
  AppendQuoted(&quoted, all);
  EXPECT_TRUE(Parse(quoted).ok());
}

TEST(JsonTest, SerializeRoundTrips) {
  const char* text =
      R"({"a":[1,-2.5,1e+300,true,false,null,"\u0000x"],"b":{"c":"\u00e9"},)"
      R"("d":0.1,"e":-0})";
  absl::StatusOr<Value> v = Parse(text);
  ASSERT_TRUE(v.ok()) << v.status();
  const std::string s = Serialize(*v);
  absl::StatusOr<Value> back = Parse(s);
  ASSERT_TRUE(back.ok()) << back.status() << " in " << s;
  EXPECT_EQ(*v, *back);
  EXPECT_EQ(Serialize(*back), s);
  // Doubles stay doubles, integers stay integers.
  EXPECT_EQ(Serialize(*Parse("[1.0,-0.0,1e5,7,-0]")), "[1.0,-0.0,1e+05,7,0]");
}

}  // namespace
}  // namespace zg::servo::json
