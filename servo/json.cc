#include "servo/json.h"

#include <charconv>
#include <cmath>
#include <system_error>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"

namespace zg::servo::json {

// ---- Value -----------------------------------------------------------------

Value Value::Bool(bool b) {
  Value v;
  v.type_ = Type::kBool;
  v.bool_ = b;
  return v;
}
Value Value::Integer(int64_t i) {
  Value v;
  v.type_ = Type::kNumber;
  v.is_integer_ = true;
  v.integer_ = i;
  v.number_ = static_cast<double>(i);
  return v;
}
Value Value::Double(double d) {
  Value v;
  v.type_ = Type::kNumber;
  v.number_ = d;
  return v;
}
Value Value::String(std::string s) {
  Value v;
  v.type_ = Type::kString;
  v.string_ = std::move(s);
  return v;
}
Value Value::Array(std::vector<Value> elements) {
  Value v;
  v.type_ = Type::kArray;
  v.elements_ = std::move(elements);
  return v;
}
Value Value::Object(std::vector<Member> members) {
  Value v;
  v.type_ = Type::kObject;
  v.members_ = std::move(members);
  return v;
}

std::optional<int64_t> Value::integer() const {
  if (type_ != Type::kNumber || !is_integer_) return std::nullopt;
  return integer_;
}

const Value* Value::Find(std::string_view key) const {
  if (type_ != Type::kObject) return nullptr;
  for (const Member& m : members_) {
    if (m.first == key) return &m.second;
  }
  return nullptr;
}

std::optional<std::string_view> Value::GetString(std::string_view key) const {
  const Value* v = Find(key);
  if (v == nullptr || v->type_ != Type::kString) return std::nullopt;
  return std::string_view(v->string_);
}
std::optional<double> Value::GetNumber(std::string_view key) const {
  const Value* v = Find(key);
  if (v == nullptr || v->type_ != Type::kNumber) return std::nullopt;
  return v->number_;
}
std::optional<int64_t> Value::GetInteger(std::string_view key) const {
  const Value* v = Find(key);
  if (v == nullptr) return std::nullopt;
  return v->integer();
}
std::optional<bool> Value::GetBool(std::string_view key) const {
  const Value* v = Find(key);
  if (v == nullptr || v->type_ != Type::kBool) return std::nullopt;
  return v->bool_;
}

bool operator==(const Value& a, const Value& b) {
  if (a.type_ != b.type_) return false;
  switch (a.type_) {
    case Type::kNull:
      return true;
    case Type::kBool:
      return a.bool_ == b.bool_;
    case Type::kNumber:
      if (a.is_integer_ && b.is_integer_) return a.integer_ == b.integer_;
      return a.number_ == b.number_;
    case Type::kString:
      return a.string_ == b.string_;
    case Type::kArray:
      return a.elements_ == b.elements_;
    case Type::kObject:
      return a.members_ == b.members_;
  }
  return false;
}

// ---- Parser ----------------------------------------------------------------

namespace {

// Length of the valid UTF-8 sequence at s[i], or 0 if invalid.
size_t Utf8SequenceLength(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  size_t n;
  uint32_t cp;
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) {
    n = 2;
    cp = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3;
    cp = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (s.size() - i < n) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3F);
  }
  // Reject overlong forms, surrogates and code points past U+10FFFF.
  if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) ||
      (n == 4 && cp < 0x10000) || cp > 0x10FFFF ||
      (cp >= 0xD800 && cp <= 0xDFFF)) {
    return 0;
  }
  return n;
}

class Parser {
 public:
  Parser(std::string_view text, const Limits& limits)
      : text_(text), limits_(limits) {}

  absl::StatusOr<Value> ParseDocument() {
    if (text_.size() > limits_.max_input_bytes) {
      return absl::ResourceExhaustedError(
          absl::StrCat("JSON input of ", text_.size(), " bytes exceeds the ",
                       limits_.max_input_bytes, "-byte limit"));
    }
    Value v;
    ZG_RETURN_IF_ERROR(ParseValue(0, &v));
    SkipWhitespace();
    if (pos_ != text_.size()) return Error("trailing characters after value");
    return v;
  }

 private:
  absl::Status Error(std::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrCat("JSON: ", absl::string_view(what.data(), what.size()),
                     " at byte ", pos_));
  }

  void SkipWhitespace() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
      ++pos_;
    }
  }

  bool Consume(std::string_view literal) {
    if (text_.substr(pos_, literal.size()) != literal) return false;
    pos_ += literal.size();
    return true;
  }

  absl::Status CountValue() {
    if (++values_ > limits_.max_values) {
      return absl::ResourceExhaustedError(
          absl::StrCat("JSON: more than ", limits_.max_values, " values"));
    }
    return absl::OkStatus();
  }

  absl::Status ParseValue(int depth, Value* out) {
    ZG_RETURN_IF_ERROR(CountValue());
    SkipWhitespace();
    if (pos_ >= text_.size()) return Error("unexpected end of input");
    const char c = text_[pos_];
    switch (c) {
      case '{':
        return ParseObject(depth + 1, out);
      case '[':
        return ParseArray(depth + 1, out);
      case '"': {
        std::string s;
        ZG_RETURN_IF_ERROR(ParseString(&s));
        *out = Value::String(std::move(s));
        return absl::OkStatus();
      }
      case 't':
        if (!Consume("true")) return Error("invalid literal");
        *out = Value::Bool(true);
        return absl::OkStatus();
      case 'f':
        if (!Consume("false")) return Error("invalid literal");
        *out = Value::Bool(false);
        return absl::OkStatus();
      case 'n':
        if (!Consume("null")) return Error("invalid literal");
        *out = Value();
        return absl::OkStatus();
      default:
        if (c == '-' || (c >= '0' && c <= '9')) return ParseNumber(out);
        return Error("unexpected character");
    }
  }

  absl::Status CheckDepth(int depth) const {
    if (depth > limits_.max_depth) {
      return absl::ResourceExhaustedError(
          absl::StrCat("JSON: nesting deeper than ", limits_.max_depth));
    }
    return absl::OkStatus();
  }

  absl::Status ParseObject(int depth, Value* out) {
    ZG_RETURN_IF_ERROR(CheckDepth(depth));
    ++pos_;  // '{'
    std::vector<Value::Member> members;
    SkipWhitespace();
    if (pos_ < text_.size() && text_[pos_] == '}') {
      ++pos_;
      *out = Value::Object(std::move(members));
      return absl::OkStatus();
    }
    while (true) {
      SkipWhitespace();
      if (pos_ >= text_.size() || text_[pos_] != '"') {
        return Error("expected member name");
      }
      std::string key;
      ZG_RETURN_IF_ERROR(ParseString(&key));
      SkipWhitespace();
      if (pos_ >= text_.size() || text_[pos_] != ':')
        return Error("expected ':'");
      ++pos_;
      Value v;
      ZG_RETURN_IF_ERROR(ParseValue(depth, &v));
      members.emplace_back(std::move(key), std::move(v));
      SkipWhitespace();
      if (pos_ >= text_.size()) return Error("unterminated object");
      if (text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (text_[pos_] == '}') {
        ++pos_;
        *out = Value::Object(std::move(members));
        return absl::OkStatus();
      }
      return Error("expected ',' or '}'");
    }
  }

  absl::Status ParseArray(int depth, Value* out) {
    ZG_RETURN_IF_ERROR(CheckDepth(depth));
    ++pos_;  // '['
    std::vector<Value> elements;
    SkipWhitespace();
    if (pos_ < text_.size() && text_[pos_] == ']') {
      ++pos_;
      *out = Value::Array(std::move(elements));
      return absl::OkStatus();
    }
    while (true) {
      Value v;
      ZG_RETURN_IF_ERROR(ParseValue(depth, &v));
      elements.push_back(std::move(v));
      SkipWhitespace();
      if (pos_ >= text_.size()) return Error("unterminated array");
      if (text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (text_[pos_] == ']') {
        ++pos_;
        *out = Value::Array(std::move(elements));
        return absl::OkStatus();
      }
      return Error("expected ',' or ']'");
    }
  }

  static int HexDigit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  absl::Status ParseHex4(uint32_t* out) {
    if (text_.size() - pos_ < 4) return Error("truncated \\u escape");
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      const int d = HexDigit(text_[pos_ + i]);
      if (d < 0) return Error("invalid \\u escape");
      v = (v << 4) | static_cast<uint32_t>(d);
    }
    pos_ += 4;
    *out = v;
    return absl::OkStatus();
  }

  static void AppendUtf8(std::string* s, uint32_t cp) {
    if (cp < 0x80) {
      s->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      s->push_back(static_cast<char>(0xC0 | (cp >> 6)));
      s->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      s->push_back(static_cast<char>(0xE0 | (cp >> 12)));
      s->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      s->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      s->push_back(static_cast<char>(0xF0 | (cp >> 18)));
      s->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      s->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      s->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  absl::Status ParseUnicodeEscape(std::string* s) {
    uint32_t cp = 0;
    ZG_RETURN_IF_ERROR(ParseHex4(&cp));
    if (cp >= 0xDC00 && cp <= 0xDFFF) return Error("lone low surrogate");
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (!Consume("\\u")) return Error("lone high surrogate");
      uint32_t lo = 0;
      ZG_RETURN_IF_ERROR(ParseHex4(&lo));
      if (lo < 0xDC00 || lo > 0xDFFF) return Error("invalid surrogate pair");
      cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
    }
    AppendUtf8(s, cp);
    return absl::OkStatus();
  }

  absl::Status ParseString(std::string* s) {
    ++pos_;  // opening quote
    while (true) {
      if (pos_ >= text_.size()) return Error("unterminated string");
      const char c = text_[pos_++];
      if (c == '"') return absl::OkStatus();
      if (static_cast<unsigned char>(c) < 0x20) {
        return Error("control character in string");
      }
      if (static_cast<unsigned char>(c) >= 0x80) {
        const size_t n = Utf8SequenceLength(text_, pos_ - 1);
        if (n == 0) return Error("invalid UTF-8 in string");
        s->append(text_.data() + pos_ - 1, n);
        pos_ += n - 1;
        continue;
      }
      if (c != '\\') {
        s->push_back(c);
        continue;
      }
      if (pos_ >= text_.size()) return Error("unterminated escape");
      const char e = text_[pos_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          s->push_back(e);
          break;
        case 'b':
          s->push_back('\b');
          break;
        case 'f':
          s->push_back('\f');
          break;
        case 'n':
          s->push_back('\n');
          break;
        case 'r':
          s->push_back('\r');
          break;
        case 't':
          s->push_back('\t');
          break;
        case 'u':
          ZG_RETURN_IF_ERROR(ParseUnicodeEscape(s));
          break;
        default:
          return Error("invalid escape");
      }
    }
  }

  // Scans the RFC 8259 number grammar; sets *is_integer when the literal has
  // neither fraction nor exponent.
  absl::Status ScanNumber(size_t* end, bool* is_integer) const {
    size_t p = pos_;
    auto digit = [&](size_t i) {
      return i < text_.size() && text_[i] >= '0' && text_[i] <= '9';
    };
    if (p < text_.size() && text_[p] == '-') ++p;
    if (!digit(p)) return Error("invalid number");
    if (text_[p] == '0') {
      ++p;
      if (digit(p)) return Error("leading zero in number");
    } else {
      while (digit(p)) ++p;
    }
    *is_integer = true;
    if (p < text_.size() && text_[p] == '.') {
      ++p;
      if (!digit(p)) return Error("invalid fraction");
      while (digit(p)) ++p;
      *is_integer = false;
    }
    if (p < text_.size() && (text_[p] == 'e' || text_[p] == 'E')) {
      ++p;
      if (p < text_.size() && (text_[p] == '+' || text_[p] == '-')) ++p;
      if (!digit(p)) return Error("invalid exponent");
      while (digit(p)) ++p;
      *is_integer = false;
    }
    *end = p;
    return absl::OkStatus();
  }

  absl::Status ParseNumber(Value* out) {
    size_t end = 0;
    bool is_integer = false;
    ZG_RETURN_IF_ERROR(ScanNumber(&end, &is_integer));
    if (end - pos_ > limits_.max_number_chars) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "JSON: number literal longer than ", limits_.max_number_chars));
    }
    const char* first = text_.data() + pos_;
    const char* last = text_.data() + end;
    if (is_integer) {
      int64_t i = 0;
      const auto r = std::from_chars(first, last, i);
      if (r.ec == std::errc() && r.ptr == last) {
        pos_ = end;
        *out = Value::Integer(i);
        return absl::OkStatus();
      }
      // Out of int64 range: fall through to double.
    }
    double d = 0;
    const auto r = std::from_chars(first, last, d);
    if (r.ec != std::errc() || r.ptr != last || !std::isfinite(d)) {
      return Error("number out of range");
    }
    pos_ = end;
    *out = Value::Double(d);
    return absl::OkStatus();
  }

  std::string_view text_;
  const Limits& limits_;
  size_t pos_ = 0;
  size_t values_ = 0;
};

void SerializeTo(const Value& v, std::string* out) {
  switch (v.type()) {
    case Type::kNull:
      out->append("null");
      return;
    case Type::kBool:
      out->append(v.bool_value() ? "true" : "false");
      return;
    case Type::kNumber: {
      char buf[64];
      std::to_chars_result r;
      if (const std::optional<int64_t> i = v.integer()) {
        r = std::to_chars(buf, buf + sizeof(buf), *i);
      } else if (!std::isfinite(v.number())) {
        out->append("null");
        return;
      } else {
        r = std::to_chars(buf, buf + sizeof(buf), v.number());
        // Keep doubles doubles: "1" or "-0" would read back as integers.
        if (std::string_view(buf, static_cast<size_t>(r.ptr - buf))
                .find_first_of(".eEn") == std::string_view::npos) {
          out->append(buf, r.ptr);
          out->append(".0");
          return;
        }
      }
      out->append(buf, r.ptr);
      return;
    }
    case Type::kString:
      AppendQuoted(out, v.string());
      return;
    case Type::kArray: {
      out->push_back('[');
      bool first = true;
      for (const Value& e : v.elements()) {
        if (!first) out->push_back(',');
        first = false;
        SerializeTo(e, out);
      }
      out->push_back(']');
      return;
    }
    case Type::kObject: {
      out->push_back('{');
      bool first = true;
      for (const Value::Member& m : v.members()) {
        if (!first) out->push_back(',');
        first = false;
        AppendQuoted(out, m.first);
        out->push_back(':');
        SerializeTo(m.second, out);
      }
      out->push_back('}');
      return;
    }
  }
}

}  // namespace

absl::StatusOr<Value> Parse(std::string_view text, const Limits& limits) {
  return Parser(text, limits).ParseDocument();
}

void AppendQuoted(std::string* out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(static_cast<char>(c));
      ++i;
    } else if (c == '\n') {
      out->append("\\n");
      ++i;
    } else if (c == '\t') {
      out->append("\\t");
      ++i;
    } else if (c == '\r') {
      out->append("\\r");
      ++i;
    } else if (c < 0x20 || c == 0x7F) {
      out->append("\\u00");
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 0xF]);
      ++i;
    } else {
      const size_t n = Utf8SequenceLength(s, i);
      if (n == 0) {
        out->append("\xEF\xBF\xBD");  // U+FFFD
        ++i;
      } else {
        out->append(s.data() + i, n);
        i += n;
      }
    }
  }
  out->push_back('"');
}

std::string Serialize(const Value& v) {
  std::string out;
  SerializeTo(v, &out);
  return out;
}

}  // namespace zg::servo::json
