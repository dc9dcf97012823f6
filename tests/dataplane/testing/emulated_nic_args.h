// SPDX-License-Identifier: Apache-2.0
// TEST-ONLY: EmulatedNicConfig (emulated_nic.h) as vdev devargs, for an
// emulated NIC made by the EAL from --vdev=net_zg_emu_<tag>,<args> (see
// emulated_nic_vdev.h): "queues=2,timesync=1,tx_stamp_latency_ns=2000".
// Keys are the config's field names; booleans are 0 or 1; unknown keys,
// repeated keys and values out of range are errors that name the key.
// No DPDK (fuzzed: tests/fuzz/emulated_nic_fuzzer.cc).
//
//   absl::StatusOr<EmulatedNicConfig> c = ParseEmulatedNicArgs("queues=2");
//   std::string args = EmulatedNicArgs(*c);   // parses back to *c
#ifndef ZG_TESTS_DATAPLANE_TESTING_EMULATED_NIC_ARGS_H_
#define ZG_TESTS_DATAPLANE_TESTING_EMULATED_NIC_ARGS_H_

#include <cmath>
#include <cstdint>
#include <set>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "tests/dataplane/testing/emulated_nic.h"

namespace zg::dataplane::testing {

namespace emulated_nic_args_internal {

template <class T>
absl::Status ParseInt(absl::string_view key, absl::string_view v, T min, T max,
                      T* out) {
  int64_t x = 0;
  if (!absl::SimpleAtoi(v, &x) || x < static_cast<int64_t>(min) ||
      x > static_cast<int64_t>(max)) {
    return absl::InvalidArgumentError(
        absl::StrCat("emulated NIC devarg ", key, "='", v,
                     "': want an integer in [", min, ", ", max, "]"));
  }
  *out = static_cast<T>(x);
  return absl::OkStatus();
}

inline absl::Status ParseBool(absl::string_view key, absl::string_view v,
                              bool* out) {
  if (v != "0" && v != "1") {
    return absl::InvalidArgumentError(
        absl::StrCat("emulated NIC devarg ", key, "='", v, "': want 0 or 1"));
  }
  *out = v == "1";
  return absl::OkStatus();
}

inline absl::Status ParseReal(absl::string_view key, absl::string_view v,
                              double min, double max, double* out) {
  double x = 0;
  if (!absl::SimpleAtod(v, &x) || !std::isfinite(x) || x < min || x > max) {
    return absl::InvalidArgumentError(
        absl::StrCat("emulated NIC devarg ", key, "='", v,
                     "': want a number in [", min, ", ", max, "]"));
  }
  *out = x;
  return absl::OkStatus();
}

inline absl::Status ParseOne(absl::string_view key, absl::string_view v,
                             EmulatedNicConfig& c) {
  constexpr int64_t kMaxI64 = INT64_MAX;
  if (key == "queues") return ParseInt<uint16_t>(key, v, 1, 128, &c.queues);
  if (key == "offset_ns") {
    return ParseInt<int64_t>(key, v, -kMaxI64, kMaxI64, &c.offset_ns);
  }
  if (key == "drift_ppb") return ParseReal(key, v, -1e6, 1e6, &c.drift_ppb);
  if (key == "resolution_ns") {
    return ParseInt<uint32_t>(key, v, 1, 1'000'000, &c.resolution_ns);
  }
  if (key == "rx_dynfield") return ParseBool(key, v, &c.rx_dynfield);
  if (key == "timesync") return ParseBool(key, v, &c.timesync);
  if (key == "send_on_timestamp") {
    return ParseBool(key, v, &c.send_on_timestamp);
  }
  if (key == "tx_stamp_latency_ns") {
    return ParseInt<uint32_t>(key, v, 0, UINT32_MAX, &c.tx_stamp_latency_ns);
  }
  if (key == "tx_stamp_loss") return ParseReal(key, v, 0, 1, &c.tx_stamp_loss);
  if (key == "loss_seed") {
    return ParseInt<uint64_t>(key, v, 0, kMaxI64, &c.loss_seed);
  }
  if (key == "wire_latency_ns") {
    return ParseInt<uint32_t>(key, v, 0, UINT32_MAX, &c.wire_latency_ns);
  }
  if (key == "ring_size") {
    return ParseInt<unsigned>(key, v, 2, 65536, &c.ring_size);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "emulated NIC devarg '", key,
      "' is unknown; keys: queues offset_ns drift_ppb resolution_ns "
      "rx_dynfield timesync send_on_timestamp tx_stamp_latency_ns "
      "tx_stamp_loss loss_seed wire_latency_ns ring_size"));
}

}  // namespace emulated_nic_args_internal

inline absl::StatusOr<EmulatedNicConfig> ParseEmulatedNicArgs(
    absl::string_view args) {
  EmulatedNicConfig c;
  std::set<std::string, std::less<>> seen;
  for (absl::string_view kv : absl::StrSplit(args, ',', absl::SkipEmpty())) {
    const size_t eq = kv.find('=');
    if (eq == absl::string_view::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("emulated NIC devarg '", kv, "': want key=value"));
    }
    const absl::string_view key = kv.substr(0, eq);
    if (!seen.emplace(key).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("emulated NIC devarg '", key, "' given twice"));
    }
    if (absl::Status s =
            emulated_nic_args_internal::ParseOne(key, kv.substr(eq + 1), c);
        !s.ok()) {
      return s;
    }
  }
  return c;
}

// Every field, in a form ParseEmulatedNicArgs reads back exactly.
inline std::string EmulatedNicArgs(const EmulatedNicConfig& c) {
  return absl::StrFormat(
      "queues=%u,offset_ns=%d,drift_ppb=%.17g,resolution_ns=%u,"
      "rx_dynfield=%d,timesync=%d,send_on_timestamp=%d,"
      "tx_stamp_latency_ns=%u,tx_stamp_loss=%.17g,loss_seed=%u,"
      "wire_latency_ns=%u,ring_size=%u",
      c.queues, c.offset_ns, c.drift_ppb, c.resolution_ns, c.rx_dynfield,
      c.timesync, c.send_on_timestamp, c.tx_stamp_latency_ns, c.tx_stamp_loss,
      c.loss_seed, c.wire_latency_ns, c.ring_size);
}

}  // namespace zg::dataplane::testing

#endif  // ZG_TESTS_DATAPLANE_TESTING_EMULATED_NIC_ARGS_H_
