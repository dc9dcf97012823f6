// SPDX-License-Identifier: Apache-2.0
#include "core/net/net_headers.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <ostream>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/base/hex.h"

namespace zg::core {
namespace {

bool HasNul(absl::string_view text) {
  return text.find('\0') != absl::string_view::npos;
}

}  // namespace

std::string MacAddr::ToString() const {
  return absl::StrFormat("%02x:%02x:%02x:%02x:%02x:%02x", b[0], b[1], b[2],
                         b[3], b[4], b[5]);
}

std::string Ipv4Addr::ToString() const {
  return absl::StrFormat("%u.%u.%u.%u", value >> 24, (value >> 16) & 0xff,
                         (value >> 8) & 0xff, value & 0xff);
}

std::string Ipv6Addr::ToString() const {
  char buf[INET6_ADDRSTRLEN];
  if (inet_ntop(AF_INET6, b.data(), buf, sizeof(buf)) == nullptr) {
    return "<invalid ipv6>";  // cannot happen: the buffer is large enough
  }
  return buf;
}

std::string IpAddress::ToString() const {
  return is_v6() ? v6.ToString() : v4.ToString();
}

std::string IpPrefix::ToString() const {
  return absl::StrCat(addr.ToString(), "/", length);
}

absl::StatusOr<MacAddr> ParseMacAddr(absl::string_view text) {
  // Six two-digit hex groups separated by one consistent ':' or '-'.
  MacAddr mac;
  const auto bad = [&] {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid MAC address \"", text,
                     "\": expected six hex pairs like 02:00:5e:10:00:01"));
  };
  if (text.size() != 17) return bad();
  const char sep = text[2];
  if (sep != ':' && sep != '-') return bad();
  std::string digits;
  for (int i = 0; i < 6; ++i) {
    if (i < 5 && text[3 * i + 2] != sep) return bad();
    digits.append(text.data() + 3 * i, 2);
  }
  const std::optional<std::string> bytes = DecodeHex(digits);
  if (!bytes || bytes->size() != mac.b.size()) return bad();
  std::memcpy(mac.b.data(), bytes->data(), mac.b.size());
  return mac;
}

absl::StatusOr<Ipv4Addr> ParseIpv4Addr(absl::string_view text) {
  const std::string s(text);
  uint8_t bytes[4];
  // inet_pton reads a C string: a NUL would hide whatever follows it.
  if (HasNul(text) || inet_pton(AF_INET, s.c_str(), bytes) != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid IPv4 address \"", text,
                     "\": expected a dotted quad like 10.99.0.1"));
  }
  return Ipv4Addr::Load(bytes);
}

absl::StatusOr<Ipv6Addr> ParseIpv6Addr(absl::string_view text) {
  const std::string s(text);
  Ipv6Addr a;
  if (HasNul(text) || inet_pton(AF_INET6, s.c_str(), a.b.data()) != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "invalid IPv6 address \"", text,
        "\": expected RFC 4291 text like 2001:db8::1 (no zone index)"));
  }
  return a;
}

absl::StatusOr<IpAddress> ParseIpAddress(absl::string_view text) {
  if (text.find(':') != absl::string_view::npos) {
    absl::StatusOr<Ipv6Addr> a = ParseIpv6Addr(text);
    if (!a.ok()) return a.status();
    return IpAddress::V6(*a);
  }
  absl::StatusOr<Ipv4Addr> a = ParseIpv4Addr(text);
  if (!a.ok()) return a.status();
  return IpAddress::V4(*a);
}

absl::StatusOr<IpPrefix> ParseIpPrefix(absl::string_view text) {
  const size_t slash = text.find('/');
  absl::StatusOr<IpAddress> addr = ParseIpAddress(text.substr(0, slash));
  if (!addr.ok()) return addr.status();
  const uint32_t max_len = addr->is_v6() ? 128 : 32;
  uint32_t len = max_len;
  if (slash != absl::string_view::npos) {
    const absl::string_view len_text = text.substr(slash + 1);
    // Digits only: SimpleAtoi alone would accept surrounding whitespace.
    if (len_text.empty() || len_text.size() > 3 ||
        !std::all_of(len_text.begin(), len_text.end(), absl::ascii_isdigit) ||
        !absl::SimpleAtoi(len_text, &len) || len > max_len) {
      return absl::InvalidArgumentError(absl::StrCat(
          "invalid prefix length in \"", text, "\": expected /0../", max_len));
    }
  }
  return IpPrefix{*addr, static_cast<uint8_t>(len)};
}

std::ostream& operator<<(std::ostream& os, const MacAddr& a) {
  return os << a.ToString();
}
std::ostream& operator<<(std::ostream& os, Ipv4Addr a) {
  return os << a.ToString();
}
std::ostream& operator<<(std::ostream& os, const Ipv6Addr& a) {
  return os << a.ToString();
}
std::ostream& operator<<(std::ostream& os, const IpAddress& a) {
  return os << a.ToString();
}
std::ostream& operator<<(std::ostream& os, const IpPrefix& p) {
  return os << p.ToString();
}

}  // namespace zg::core
