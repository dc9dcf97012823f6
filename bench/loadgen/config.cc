// SPDX-License-Identifier: Apache-2.0
#include "bench/loadgen/config.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "bench/loadgen/request_table.h"

namespace zg::bench {

// ---- Rate ------------------------------------------------------------------

bool AbslParseFlag(absl::string_view text, Rate* rate, std::string* error) {
  const absl::string_view t = absl::StripAsciiWhitespace(text);
  if (t == "max") {
    rate->pps = 0;
    return true;
  }
  double scale = 1;
  absl::string_view number = t;
  if (!number.empty()) {
    switch (number.back()) {
      case 'k':
      case 'K':
        scale = 1e3;
        break;
      case 'M':
        scale = 1e6;
        break;
      case 'G':
        scale = 1e9;
        break;
      default:
        break;
    }
    if (scale != 1) number.remove_suffix(1);
  }
  double v = 0;
  if (!absl::SimpleAtod(number, &v) || !std::isfinite(v) || v <= 0) {
    *error = absl::StrCat(
        "'", text,
        "' is not a rate: give packets per second > 0 (250000, 2.5e5, 250k, "
        "1.5M) or 'max'");
    return false;
  }
  rate->pps = v * scale;
  return true;
}

std::string AbslUnparseFlag(const Rate& rate) {
  return rate.IsMax() ? "max" : absl::StrCat(rate.pps);
}

// ---- Target ----------------------------------------------------------------

namespace {
bool ParsePort(absl::string_view text, uint16_t* port) {
  uint32_t v = 0;
  if (!absl::SimpleAtoi(text, &v) || v == 0 || v > 65535) return false;
  *port = static_cast<uint16_t>(v);
  return true;
}
}  // namespace

bool AbslParseFlag(absl::string_view text, Target* target, std::string* error) {
  const absl::string_view t = absl::StripAsciiWhitespace(text);
  if (t.empty()) {  // unset (the flag's default; ValidateOptions asks for it)
    *target = Target{};
    return true;
  }
  absl::string_view host = t;
  absl::string_view port;
  bool has_port = false;
  if (absl::ConsumePrefix(&host, "[")) {  // [v6] or [v6]:port
    const size_t close = host.find(']');
    if (close == absl::string_view::npos) {
      *error = absl::StrCat("'", text, "': missing ']' after IPv6 address");
      return false;
    }
    absl::string_view rest = host.substr(close + 1);
    host = host.substr(0, close);
    if (!rest.empty()) {
      if (!absl::ConsumePrefix(&rest, ":")) {
        *error = absl::StrCat("'", text, "': expected ':port' after ']'");
        return false;
      }
      has_port = true;
      port = rest;
    }
  } else if (std::count(host.begin(), host.end(), ':') == 1) {  // v4:port
    const size_t colon = host.find(':');
    has_port = true;
    port = host.substr(colon + 1);
    host = host.substr(0, colon);
  }  // else: bare IPv4 or bare IPv6 (two or more colons)
  if (host.empty()) {
    *error = absl::StrCat(
        "'", text,
        "': expected IP[:port], e.g. 10.99.0.1, 10.99.0.1:123, [fd99::1]:123");
    return false;
  }
  Target out;
  out.host = std::string(host);
  if (has_port && !ParsePort(port, &out.port)) {
    *error = absl::StrCat("'", text, "': port '", port,
                          "' is not a number in 1..65535");
    return false;
  }
  *target = std::move(out);
  return true;
}

std::string AbslUnparseFlag(const Target& target) {
  if (target.host.empty()) return "";
  return target.IsIpv6() ? absl::StrCat("[", target.host, "]:", target.port)
                         : absl::StrCat(target.host, ":", target.port);
}

// ---- TrafficMix
// --------------------------------------------------------------

const char* TrafficKindName(TrafficKind kind) {
  switch (kind) {
    case TrafficKind::kNtp4:
      return "ntp4";
    case TrafficKind::kNtp3:
      return "ntp3";
    case TrafficKind::kPtpDelayReq:
      return "ptp";
    case TrafficKind::kNts:
      return "nts";
    case TrafficKind::kCount:
      break;
  }
  return "?";
}

namespace {
bool KindFromName(absl::string_view name, TrafficKind* kind) {
  if (name == "ntp") name = "ntp4";
  for (uint8_t k = 0; k < static_cast<uint8_t>(TrafficKind::kCount); ++k) {
    if (name == TrafficKindName(static_cast<TrafficKind>(k))) {
      *kind = static_cast<TrafficKind>(k);
      return true;
    }
  }
  return false;
}
}  // namespace

TrafficKind TrafficMix::KindOf(uint32_t client, uint32_t clients) const {
  uint64_t total = 0;
  for (const auto& [kind, w] : weights) total += w;
  if (total == 0 || clients == 0) return TrafficKind::kNtp4;
  // Client i falls at position i * total / clients on the weight line.
  const uint64_t pos = uint64_t{client} * total / clients;
  uint64_t acc = 0;
  for (const auto& [kind, w] : weights) {
    acc += w;
    if (pos < acc) return kind;
  }
  return weights.back().first;
}

bool TrafficMix::Has(TrafficKind kind) const {
  for (const auto& [k, w] : weights) {
    if (k == kind && w > 0) return true;
  }
  return false;
}

bool AbslParseFlag(absl::string_view text, TrafficMix* mix,
                   std::string* error) {
  TrafficMix out;
  if (absl::StripAsciiWhitespace(text) == "ptp_unicast") {
    out.ptp_unicast = true;  // weights unused: no LaneEngine runs
    *mix = out;
    return true;
  }
  out.weights.clear();
  for (absl::string_view item :
       absl::StrSplit(absl::StripAsciiWhitespace(text), ',')) {
    std::pair<absl::string_view, absl::string_view> kv =
        absl::StrSplit(item, absl::MaxSplits(':', 1));
    TrafficKind kind;
    if (!KindFromName(absl::StripAsciiWhitespace(kv.first), &kind)) {
      *error = absl::StrCat(
          "'", item,
          "': unknown traffic kind; use ntp4, ntp3, ptp or nts (or "
          "ptp_unicast alone), "
          "optionally weighted: ntp4:90,ptp:10");
      return false;
    }
    uint32_t w = 1;
    if (!kv.second.empty() &&
        (!absl::SimpleAtoi(kv.second, &w) || w == 0 || w > 1'000'000)) {
      *error = absl::StrCat("'", item, "': weight must be in 1..1000000");
      return false;
    }
    for (const auto& [k, unused] : out.weights) {
      if (k == kind) {
        *error = absl::StrCat("'", text, "': ", TrafficKindName(kind),
                              " appears twice");
        return false;
      }
    }
    out.weights.emplace_back(kind, w);
  }
  *mix = std::move(out);
  return true;
}

std::string AbslUnparseFlag(const TrafficMix& mix) {
  if (mix.ptp_unicast) return "ptp_unicast";
  return absl::StrJoin(mix.weights, ",", [](std::string* out, const auto& kw) {
    absl::StrAppend(out, TrafficKindName(kw.first), ":", kw.second);
  });
}

// ---- Validation ------------------------------------------------------------

absl::Status ValidateOptions(const LoadgenOptions& o, uint32_t lanes) {
  if (o.target.host.empty()) {
    return absl::InvalidArgumentError(
        "--target is required: the server's address, e.g. "
        "--target=10.99.0.1 or --target=10.99.0.1:123");
  }
  if (lanes == 0) {
    return absl::InvalidArgumentError(
        "no lanes: give the EAL at least two lcores (-l 0-1): the main one "
        "reports, each other one sends and receives");
  }
  if (o.duration <= absl::ZeroDuration() || o.duration > kMaxDuration) {
    return absl::InvalidArgumentError(
        absl::StrCat("--duration=", absl::FormatDuration(o.duration),
                     " must be in (0, 24h]; the run is always bounded"));
  }
  if (o.clients == 0 || o.clients > kMaxClients) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--clients=", o.clients, " must be in [1, ", kMaxClients, "]"));
  }
  if (o.clients < lanes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--clients=", o.clients, " is fewer than the ", lanes,
        " sending lcores; raise --clients or give the EAL fewer lcores"));
  }
  const uint64_t lane_clients = (uint64_t{o.clients} + lanes - 1) / lanes;
  if (lane_clients > RequestTable::kMaxSlots) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--clients=", o.clients, " over ", lanes, " sending lcores is ",
        lane_clients, " clients per lcore, more than one lcore tracks (",
        RequestTable::kMaxSlots, "); give the EAL more lcores"));
  }
  if (o.source_addresses == 0 || o.source_addresses > o.clients) {
    return absl::InvalidArgumentError(
        absl::StrCat("--source_addresses=", o.source_addresses,
                     " must be in [1, --clients=", o.clients, "]"));
  }
  if (o.source_port == 0 || o.source_port > 65535) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--source_port=", o.source_port, " must be in [1, 65535]"));
  }
  const uint64_t ports =
      (uint64_t{o.clients} + o.source_addresses - 1) / o.source_addresses;
  if (o.source_port + ports - 1 > 65535) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--clients=", o.clients, " over --source_addresses=",
        o.source_addresses, " needs ", ports, " source ports from ",
        o.source_port, ", past 65535; raise --source_addresses"));
  }
  if (o.mix.weights.empty()) {
    return absl::InvalidArgumentError("--mix is empty; e.g. --mix=ntp4");
  }
  if (o.timeout <= absl::ZeroDuration() || o.timeout > absl::Seconds(60)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--timeout=", absl::FormatDuration(o.timeout), " must be in (0, 60s]"));
  }
  if (o.burst == 0 || o.burst > kMaxBurst) {
    return absl::InvalidArgumentError(
        absl::StrCat("--burst=", o.burst, " must be in [1, ", kMaxBurst, "]"));
  }
  if (o.rate.pps > 0 && o.rate.pps < 1) {
    return absl::InvalidArgumentError("--rate must be at least 1 pps");
  }
  if (o.sweep) {
    if (o.sweep_trial <= absl::ZeroDuration() ||
        o.sweep_trial > absl::Minutes(10)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--sweep_trial=", absl::FormatDuration(o.sweep_trial),
                       " must be in (0, 10m]"));
    }
    if (!(o.sweep_loss >= 0 && o.sweep_loss < 1)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--sweep_loss=", o.sweep_loss,
                       " must be a fraction in [0, 1): 0.0001 is 0.01 %"));
    }
    if (!(o.sweep_resolution > 0 && o.sweep_resolution < 1)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--sweep_resolution=", o.sweep_resolution,
                       " must be a fraction in (0, 1)"));
    }
    if (!(o.sweep_min_rate >= 1)) {
      return absl::InvalidArgumentError("--sweep_min_rate must be >= 1 pps");
    }
    if (o.rate.pps > 0 && o.sweep_min_rate >= o.rate.pps) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--sweep_min_rate=", o.sweep_min_rate,
          " must be below --rate=", o.rate.pps, " (the sweep's ceiling)"));
    }
    if (o.sweep_max_trials == 0 || o.sweep_max_trials > 100) {
      return absl::InvalidArgumentError(
          "--sweep_max_trials must be in [1, 100]");
    }
  }
  if (o.arp_timeout <= absl::ZeroDuration() ||
      o.arp_timeout > absl::Seconds(60)) {
    return absl::InvalidArgumentError("--arp_timeout must be in (0, 60s]");
  }
  return absl::OkStatus();
}

uint32_t ChooseDepth(double lane_rate_pps, uint32_t lane_clients,
                     absl::Duration timeout) {
  if (lane_clients == 0) return 1;
  const double rate = lane_rate_pps > 0 ? lane_rate_pps : kAssumedMaxLanePps;
  // Requests per client within two timeouts.
  const double per_client =
      2 * absl::ToDoubleSeconds(timeout) * rate / lane_clients;
  uint64_t depth = 1;
  while (depth < per_client && depth < RequestTable::kMaxDepth) depth <<= 1;
  while (depth > 1 && uint64_t{lane_clients} * depth > RequestTable::kMaxSlots)
    depth >>= 1;
  return static_cast<uint32_t>(depth);
}

absl::Duration TrackingWindow(uint32_t depth, double lane_rate_pps,
                              uint32_t lane_clients) {
  if (lane_rate_pps <= 0) return absl::InfiniteDuration();
  return absl::Seconds(static_cast<double>(depth) * lane_clients /
                       lane_rate_pps);
}

}  // namespace zg::bench
