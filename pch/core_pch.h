// SPDX-License-Identifier: Apache-2.0
// Precompiled header of the libraries without DPDK (zgcore, zgservo,
// zgservoapi, zgloadgen): the standard, abseil and nlohmann-json headers
// most of their sources include. Parsing them was most of each source's
// compile time; clang builds (use_pch in meson.build) make it once per
// library (cpp_pch) and put it in front of every source. Sources still
// include what they use: this header changes only how fast they compile,
// never what compiles.
#ifndef ZEITGEBER_PCH_CORE_PCH_H_
#define ZEITGEBER_PCH_CORE_PCH_H_

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"

#endif  // ZEITGEBER_PCH_CORE_PCH_H_
