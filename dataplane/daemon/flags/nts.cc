// SPDX-License-Identifier: Apache-2.0
#include "dataplane/daemon/flags/nts.h"

#include <arpa/inet.h>

#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "core/base/status_macros.h"
#include "core/nts/nts_ke_records.h"
#include "dataplane/trust/reload.h"

ABSL_FLAG(std::string, nts_master_key, "",
          "NTS cookie master key file (>= 32 random bytes, e.g. `head -c 32 "
          "/dev/urandom`, or their hex; readable by its owner only). Every "
          "server sharing it accepts the others' cookies. Reloaded on "
          "SIGHUP. Unset: NTS off, NTS requests dropped.");
ABSL_FLAG(std::string, nts_key_period, "86400",
          "Period of the NTS cookie keys derived from --nts_master_key: "
          "seconds or a duration (24h). All servers of a fleet must agree.");
ABSL_FLAG(std::string, nts_key_window, "2,1",
          "PAST,FUTURE: cookie-key periods accepted before and after the "
          "current one (0..16 each).");
ABSL_FLAG(std::vector<std::string>, nts_ke_address, {},
          "NTS-KE (RFC 8915) server addresses, IP[:PORT] (TCP, port 4460 "
          "when omitted; IPv6 as [addr]:port), comma-separated, repeatable. "
          "Needs --nts_cert, --nts_key and --nts_master_key. Unset: no "
          "NTS-KE server.");
ABSL_FLAG(std::string, nts_cert, "",
          "NTS-KE TLS certificate chain (PEM: the server's certificate "
          "first). Reloaded on SIGHUP.");
ABSL_FLAG(std::string, nts_key, "",
          "NTS-KE TLS private key (PEM), matching --nts_cert. Reloaded on "
          "SIGHUP.");
ABSL_FLAG(std::string, nts_ntp_server, "",
          "Name or address sent in the NTPv4 Server record: where clients "
          "send NTS-protected NTP (the workers' address, when NTS-KE runs "
          "on a management address). Unset: no record, clients use the "
          "NTS-KE host.");
ABSL_FLAG(int32_t, nts_ntp_port, 0,
          "Port sent in the NTPv4 Port record (0: no record, clients use "
          "123).");
ABSL_FLAG(int32_t, nts_ke_max_connections, 256,
          "Concurrent NTS-KE connections; more are accepted and closed at "
          "once (counted).");
ABSL_FLAG(absl::Duration, nts_ke_handshake_timeout, absl::Seconds(5),
          "An NTS-KE connection still in its TLS handshake after this long "
          "is closed.");
ABSL_FLAG(absl::Duration, nts_ke_request_timeout, absl::Seconds(5),
          "An NTS-KE connection not answered this long after its handshake "
          "(request not complete) is closed.");

namespace zg::dataplane {
namespace {

bool IsIp(const std::string& s, int family) {
  unsigned char buf[16];
  return inet_pton(family, s.c_str(), buf) == 1;
}

}  // namespace

absl::StatusOr<uint64_t> ParseNtsKeyPeriod(const std::string& value) {
  uint64_t seconds = 0;
  if (!absl::SimpleAtoi(value, &seconds)) {
    absl::Duration d;
    if (!absl::ParseDuration(value, &d) ||
        d != absl::Seconds(absl::ToInt64Seconds(d))) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--nts_key_period=", value,
          ": want whole seconds (86400) or a duration (24h, 3600s)"));
    }
    seconds = static_cast<uint64_t>(absl::ToInt64Seconds(d));
  }
  // Up to 10 years, so that period numbers and boundaries stay far from
  // any overflow.
  if (seconds < 1 || seconds > 10ull * 366 * 86400) {
    return absl::InvalidArgumentError(
        absl::StrCat("--nts_key_period=", value, ": must be 1 s .. 10 years"));
  }
  return seconds;
}

absl::StatusOr<std::pair<uint32_t, uint32_t>> ParseNtsKeyWindow(
    const std::string& value) {
  const std::vector<std::string> parts = absl::StrSplit(value, ',');
  uint32_t past = 0, future = 0;
  if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &past) ||
      !absl::SimpleAtoi(parts[1], &future) || past > 16 || future > 16) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--nts_key_window=", value,
        ": want PAST,FUTURE periods accepted, each 0..16 (default 2,1)"));
  }
  return std::pair{past, future};
}

absl::StatusOr<NtsConfig> ReadNtsFlags() {
  NtsConfig c;
  c.master_key = absl::GetFlag(FLAGS_nts_master_key);
  ZG_ASSIGN_OR_RETURN(c.keystore.period_s,
                      ParseNtsKeyPeriod(absl::GetFlag(FLAGS_nts_key_period)));
  ZG_ASSIGN_OR_RETURN(auto window,
                      ParseNtsKeyWindow(absl::GetFlag(FLAGS_nts_key_window)));
  c.keystore.window_past = window.first;
  c.keystore.window_future = window.second;
  return c;
}

absl::StatusOr<NtsKeListenAddress> ParseNtsKeAddress(absl::string_view v) {
  NtsKeListenAddress a;
  a.port = core::kNtsKeDefaultPort;
  std::string host(v);
  absl::string_view port;
  if (!v.empty() && v[0] == '[') {
    const size_t close = v.find(']');
    if (close == absl::string_view::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("--nts_ke_address=", v, ": missing ']'"));
    }
    host = std::string(v.substr(1, close - 1));
    absl::string_view rest = v.substr(close + 1);
    if (!rest.empty()) {
      if (rest[0] != ':') {
        return absl::InvalidArgumentError(
            absl::StrCat("--nts_ke_address=", v, ": expected [IPv6]:PORT"));
      }
      port = rest.substr(1);
    }
    if (!IsIp(host, AF_INET6)) host.clear();
  } else if (std::count(v.begin(), v.end(), ':') == 1) {
    const size_t colon = v.find(':');
    host = std::string(v.substr(0, colon));
    port = v.substr(colon + 1);
    if (!IsIp(host, AF_INET)) host.clear();
  } else if (!IsIp(host, AF_INET) && !IsIp(host, AF_INET6)) {
    host.clear();
  }
  if (host.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--nts_ke_address=", v,
        ": expected IP[:PORT], e.g. 192.0.2.1:4460 or [2001:db8::1]:4460"));
  }
  a.ip = host;
  if (!port.empty()) {
    uint32_t p = 0;
    if (!absl::SimpleAtoi(port, &p) || p > 65535) {
      return absl::InvalidArgumentError(
          absl::StrCat("--nts_ke_address=", v, ": port must be 0..65535"));
    }
    a.port = static_cast<uint16_t>(p);
  }
  return a;
}

absl::StatusOr<NtsKeConfig> ParseNtsKeFlags(
    const std::vector<std::string>& args) {
  NtsKeConfig c;
  ZG_ASSIGN_OR_RETURN(const std::vector<std::string> values,
                      CollectRepeatedFlag(args, "nts_ke_address"));
  for (const std::string& value : values) {
    for (absl::string_view v : absl::StrSplit(value, ',', absl::SkipEmpty())) {
      ZG_ASSIGN_OR_RETURN(NtsKeListenAddress a, ParseNtsKeAddress(v));
      c.addresses.push_back(std::move(a));
    }
  }
  c.cert_path = absl::GetFlag(FLAGS_nts_cert);
  c.key_path = absl::GetFlag(FLAGS_nts_key);
  c.ntp_server = absl::GetFlag(FLAGS_nts_ntp_server);
  if (c.ntp_server.size() > core::kNtsKeMaxServerName) {
    return absl::InvalidArgumentError("--nts_ntp_server: at most 255 bytes");
  }
  const int32_t port = absl::GetFlag(FLAGS_nts_ntp_port);
  if (port < 0 || port > 65535) {
    return absl::InvalidArgumentError("--nts_ntp_port must be 0..65535");
  }
  c.ntp_port = static_cast<uint16_t>(port);
  const int32_t max = absl::GetFlag(FLAGS_nts_ke_max_connections);
  if (max < 1 || max > 65536) {
    return absl::InvalidArgumentError(
        "--nts_ke_max_connections must be 1..65536");
  }
  c.max_connections = static_cast<uint32_t>(max);
  c.handshake_timeout = absl::GetFlag(FLAGS_nts_ke_handshake_timeout);
  c.request_timeout = absl::GetFlag(FLAGS_nts_ke_request_timeout);
  if (c.handshake_timeout <= absl::ZeroDuration() ||
      c.request_timeout <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        "--nts_ke_handshake_timeout and --nts_ke_request_timeout must be "
        "positive");
  }
  if (c.enabled() && (c.cert_path.empty() || c.key_path.empty())) {
    return absl::InvalidArgumentError(
        "--nts_ke_address needs --nts_cert (PEM chain) and --nts_key (PEM)");
  }
  return c;
}

}  // namespace zg::dataplane
