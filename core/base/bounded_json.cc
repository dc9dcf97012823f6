// SPDX-License-Identifier: Apache-2.0
// ParseBoundedJson (core/base/bounded_json.h): nlohmann's parser with a
// callback that counts depth and values.
#include "core/base/bounded_json.h"

#include <new>

#include "absl/strings/str_cat.h"

namespace zg::core {

absl::StatusOr<nlohmann::json> ParseBoundedJson(absl::string_view text,
                                                const JsonLimits& limits) {
  if (text.size() > limits.max_input_bytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat("JSON text of ", text.size(), " bytes exceeds ",
                     limits.max_input_bytes));
  }
  // The callback discards what lies past a limit (nlohmann's parser is not
  // recursive, so a deep document costs no stack) and notes it; the
  // document is then refused whole.
  bool too_deep = false;
  size_t values = 0;
  const auto bound = [&](int depth, nlohmann::json::parse_event_t event,
                         nlohmann::json& /*parsed*/) {
    using Event = nlohmann::json::parse_event_t;
    if (event == Event::object_start || event == Event::array_start) {
      if (depth >= limits.max_depth) too_deep = true;
    }
    if (event == Event::object_start || event == Event::array_start ||
        event == Event::value) {
      ++values;
    }
    return !too_deep && values <= limits.max_values;
  };
  try {
    nlohmann::json v = nlohmann::json::parse(text.begin(), text.end(), bound,
                                             /*allow_exceptions=*/true,
                                             /*ignore_comments=*/false);
    if (too_deep) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "JSON nested deeper than ", limits.max_depth, " arrays/objects"));
    }
    if (values > limits.max_values) {
      return absl::ResourceExhaustedError(
          absl::StrCat("JSON has more than ", limits.max_values, " values"));
    }
    return v;
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(e.what());
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError("out of memory parsing JSON");
  }
}

const nlohmann::json* JsonMember(const nlohmann::json& v, const char* key) {
  if (!v.is_object()) return nullptr;
  const auto it = v.find(key);
  return it == v.end() ? nullptr : &*it;
}

const std::string* JsonString(const nlohmann::json& v, const char* key) {
  const nlohmann::json* m = JsonMember(v, key);
  return m != nullptr && m->is_string() ? m->get_ptr<const std::string*>()
                                        : nullptr;
}

}  // namespace zg::core
