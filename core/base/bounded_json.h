// SPDX-License-Identifier: Apache-2.0
// nlohmann-json parsing with limits, for JSON that arrives from outside the
// process (gpsd's lines, operator requests): the input size, the nesting
// depth and the number of values are bounded, so hostile input costs bounded
// memory and time, and no exception leaves ParseBoundedJson (nlohmann's
// parse errors and std::bad_alloc become a Status).
//
// The grammar is nlohmann's strict RFC 8259: no comments, no trailing
// commas, no NaN, valid UTF-8 only, exactly one value (whitespace around
// it allowed). Integers that fit int64/uint64 keep their exact value.
//
//   ZG_ASSIGN_OR_RETURN(nlohmann::json v,
//                       ParseBoundedJson(line, {.max_input_bytes = 16384}));
//   if (const std::string* cls = JsonString(v, "class")) ...
//
// Control plane and operator surfaces only (allocates; never on a worker).
#ifndef ZG_CORE_BASE_BOUNDED_JSON_H_
#define ZG_CORE_BASE_BOUNDED_JSON_H_

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace zg::core {

struct JsonLimits {
  size_t max_input_bytes = 64 * 1024;
  int max_depth = 16;        // nested arrays and objects
  size_t max_values = 8192;  // every value, members and elements included
};

// Parses `text`. Errors: InvalidArgument (nlohmann's message: where and
// what) for a malformed document, ResourceExhausted when a limit is passed.
absl::StatusOr<nlohmann::json> ParseBoundedJson(absl::string_view text,
                                                const JsonLimits& limits = {});

// Member lookups that never throw: nullptr when `v` is no object, has no
// member `key`, or (JsonString) the member is no string.
const nlohmann::json* JsonMember(const nlohmann::json& v, const char* key);
const std::string* JsonString(const nlohmann::json& v, const char* key);

}  // namespace zg::core

#endif  // ZG_CORE_BASE_BOUNDED_JSON_H_
