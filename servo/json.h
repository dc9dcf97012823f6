// A small, bounded JSON reader and writer for the control plane: gpsd's JSON
// lines (servo/sources/gpsd_messages.h) and the audit log
// (servo/audit/audit_log.h).
//
// Every limit is explicit (input bytes, nesting depth, number of values,
// number-literal length), so hostile input from a socket costs bounded memory
// and time. Strict RFC 8259 grammar: no comments, no trailing commas, no
// leading zeros, no lone surrogates, no control characters inside strings.
// Numbers keep their exact int64 value when the literal is an integer that
// fits, and a double otherwise.
//
//   ZG_ASSIGN_OR_RETURN(json::Value v, json::Parse(R"({"class":"TPV"})"));
//   std::optional<std::string_view> cls = v.GetString("class");  // "TPV"
//   std::string out;
//   json::AppendQuoted(&out, "a\"b");  // "\"a\\\"b\""
//
// Control plane only (allocates).
#ifndef ZG_SERVO_JSON_H_
#define ZG_SERVO_JSON_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace zg::servo::json {

enum class Type : uint8_t { kNull, kBool, kNumber, kString, kArray, kObject };

struct Limits {
  size_t max_input_bytes = 64 * 1024;
  int max_depth = 16;        // nested arrays/objects
  size_t max_values = 8192;  // every value, including members and elements
  size_t max_number_chars = 64;
};

class Value {
 public:
  using Member = std::pair<std::string, Value>;

  Value() = default;  // null
  static Value Bool(bool b);
  static Value Integer(int64_t i);
  static Value Double(double d);
  static Value String(std::string s);
  static Value Array(std::vector<Value> elements);
  static Value Object(std::vector<Member> members);

  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::kNull; }
  bool is_object() const { return type_ == Type::kObject; }
  bool is_array() const { return type_ == Type::kArray; }

  // Scalars. bool_value/number/string on the wrong type return false/0/"".
  bool bool_value() const { return type_ == Type::kBool && bool_; }
  double number() const { return type_ == Type::kNumber ? number_ : 0.0; }
  // The exact integer, when the literal was an integer that fits int64.
  std::optional<int64_t> integer() const;
  const std::string& string() const { return string_; }
  const std::vector<Value>& elements() const { return elements_; }
  const std::vector<Member>& members() const { return members_; }

  // Object lookup: the first member named `key`, or nullptr (also on
  // non-objects).
  const Value* Find(std::string_view key) const;
  // Typed member lookups; nullopt when absent or of another type.
  std::optional<std::string_view> GetString(std::string_view key) const;
  std::optional<double> GetNumber(std::string_view key) const;
  std::optional<int64_t> GetInteger(std::string_view key) const;
  std::optional<bool> GetBool(std::string_view key) const;

  friend bool operator==(const Value& a, const Value& b);

 private:
  Type type_ = Type::kNull;
  bool bool_ = false;
  bool is_integer_ = false;
  int64_t integer_ = 0;
  double number_ = 0.0;
  std::string string_;
  std::vector<Value> elements_;
  std::vector<Member> members_;
};

// Parses exactly one JSON value (surrounding whitespace allowed). Errors are
// InvalidArgument with the byte offset; limit violations are
// ResourceExhausted.
absl::StatusOr<Value> Parse(std::string_view text, const Limits& limits = {});

// Appends `s` as a JSON string literal (quotes included). Bytes are copied
// as-is except '"', '\\' and control characters, which are escaped; invalid
// UTF-8 is replaced by U+FFFD so the output is always valid JSON.
void AppendQuoted(std::string* out, std::string_view s);

// Compact serialisation (no whitespace); Parse(Serialize(v)) == v for every
// parsed v. Doubles use the shortest round-trip form.
std::string Serialize(const Value& v);

}  // namespace zg::servo::json

#endif  // ZG_SERVO_JSON_H_
