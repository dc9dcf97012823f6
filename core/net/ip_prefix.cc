// SPDX-License-Identifier: Apache-2.0
#include "core/net/ip_prefix.h"

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace zg::core {
namespace {

// The first `length` bits of an IPv4 address, as a host-order mask.
uint32_t Ipv4Mask(uint8_t length) {
  return length == 0 ? 0 : ~uint32_t{0} << (32 - length);
}

// ::ffff:0:0/96, the IPv4-mapped IPv6 addresses (RFC 4291 2.5.5.2).
bool IsIpv4Mapped(const Ipv6Addr& a) {
  for (int i = 0; i < 10; ++i) {
    if (a.b[i] != 0) return false;
  }
  return a.b[10] == 0xff && a.b[11] == 0xff;
}

}  // namespace

IpPrefix MaskPrefix(const IpPrefix& p) {
  IpPrefix m = p;
  if (!p.addr.is_v6()) {
    m.addr.v4.value &= Ipv4Mask(p.length);
    return m;
  }
  for (int i = 0; i < 16; ++i) {
    const int bits = static_cast<int>(p.length) - 8 * i;  // bits kept in byte i
    if (bits >= 8) continue;
    m.addr.v6.b[i] &= bits <= 0 ? 0 : static_cast<uint8_t>(0xff << (8 - bits));
  }
  return m;
}

bool PrefixContains(const IpPrefix& p, const IpAddress& a) {
  if (a.family != p.addr.family) return false;
  return MaskPrefix(IpPrefix{a, p.length}).addr == MaskPrefix(p).addr;
}

absl::StatusOr<IpPrefix> ParseNetworkPrefix(absl::string_view text) {
  if (absl::AsciiStrToLower(text) == "all") {
    return absl::InvalidArgumentError(
        "\"all\" stands for two prefixes (0.0.0.0/0 and ::/0) and is accepted "
        "only in a prefix list");
  }
  absl::StatusOr<IpPrefix> p = ParseIpPrefix(text);
  if (!p.ok()) return p.status();
  if (p->addr.is_v6() && p->length >= 96 && IsIpv4Mapped(p->addr.v6)) {
    // Clients over IPv4 are matched by IPv4 rules; this would match nothing.
    const Ipv4Addr v4 = Ipv4Addr::Load(p->addr.v6.b.data() + 12);
    return absl::InvalidArgumentError(
        absl::StrCat("prefix \"", text,
                     "\" is IPv4-mapped IPv6, which no client address "
                     "is: write the IPv4 prefix ",
                     MaskPrefix(IpPrefix{IpAddress::V4(v4),
                                         static_cast<uint8_t>(p->length - 96)})
                         .ToString()));
  }
  const IpPrefix masked = MaskPrefix(*p);
  if (!(masked == *p)) {
    return absl::InvalidArgumentError(
        absl::StrCat("prefix \"", text, "\" has host bits set beyond /",
                     p->length, ": write ", masked.ToString(),
                     " for the network, or ", p->addr.ToString(), "/",
                     p->addr.is_v6() ? 128 : 32, " for the one host"));
  }
  return *p;
}

absl::StatusOr<std::vector<IpPrefix>> ParseNetworkPrefixList(
    absl::string_view text) {
  std::vector<IpPrefix> out;
  int position = 0;
  for (absl::string_view item : absl::StrSplit(text, ',')) {
    ++position;
    item = absl::StripAsciiWhitespace(item);
    if (item.empty()) continue;
    if (absl::AsciiStrToLower(item) == "all") {
      out.push_back(IpPrefix{IpAddress::V4(Ipv4Addr{}), 0});
      out.push_back(IpPrefix{IpAddress::V6(Ipv6Addr{}), 0});
      continue;
    }
    absl::StatusOr<IpPrefix> p = ParseNetworkPrefix(item);
    if (!p.ok() && text.find(',') == absl::string_view::npos) {
      return p.status();
    }
    if (!p.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "item ", position, " of \"", text, "\": ", p.status().message()));
    }
    out.push_back(*p);
  }
  return out;
}

}  // namespace zg::core
