// SPDX-License-Identifier: Apache-2.0
#include "dataplane/port/interface_address.h"

#include <arpa/inet.h>

#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace zg::dataplane {

std::string InterfaceAddress::ToString() const {
  char buf[INET6_ADDRSTRLEN] = {};
  inet_ntop(family == kIpv4 ? AF_INET : AF_INET6, bytes.data(), buf,
            sizeof(buf));
  return absl::StrCat(buf, "/", prefix_len);
}

absl::StatusOr<InterfaceAddress> ParseInterfaceAddress(absl::string_view text) {
  const size_t slash = text.find('/');
  if (slash == absl::string_view::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "address '", text,
        "' has no prefix length; write it as ADDR/PREFIX, e.g. 192.0.2.10/24 "
        "or 2001:db8::10/64"));
  }
  const std::string addr(text.substr(0, slash));
  if (addr.find('\0') != std::string::npos) {
    return absl::InvalidArgumentError("address contains a NUL byte");
  }
  InterfaceAddress a;
  int max_prefix = 32;
  if (inet_pton(AF_INET, addr.c_str(), a.bytes.data()) == 1) {
    a.family = InterfaceAddress::kIpv4;
  } else if (inet_pton(AF_INET6, addr.c_str(), a.bytes.data()) == 1) {
    a.family = InterfaceAddress::kIpv6;
    max_prefix = 128;
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", addr, "' in address '", text, "' is neither IPv4 nor IPv6"));
  }
  int prefix = -1;
  if (!absl::SimpleAtoi(text.substr(slash + 1), &prefix) || prefix < 1 ||
      prefix > max_prefix) {
    return absl::InvalidArgumentError(
        absl::StrCat("prefix length in address '", text,
                     "' must be a number from 1 to ", max_prefix));
  }
  a.prefix_len = static_cast<uint8_t>(prefix);
  const uint8_t* b = a.bytes.data();
  bool bad = false;
  if (a.family == InterfaceAddress::kIpv4) {
    bad = b[0] == 0 || b[0] == 127 || b[0] >= 224;  // 0/8, loopback, mcast+
  } else {
    static constexpr uint8_t kZero[16] = {};
    static constexpr uint8_t kLoop[16] = {0, 0, 0, 0, 0, 0, 0, 0,
                                          0, 0, 0, 0, 0, 0, 0, 1};
    bad = std::memcmp(b, kZero, 16) == 0 || std::memcmp(b, kLoop, 16) == 0 ||
          b[0] == 0xff;
  }
  if (bad) {
    return absl::InvalidArgumentError(
        absl::StrCat("address '", text,
                     "' is unspecified, loopback, multicast or broadcast; "
                     "give the unicast address clients send to"));
  }
  return a;
}

}  // namespace zg::dataplane
