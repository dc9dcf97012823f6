// SPDX-License-Identifier: Apache-2.0
// Network prefixes as access lists name them (--ntp_allow, --ntp_deny,
// --ptp_allow, --ptp_deny): "192.0.2.0/24", "2001:db8::/32", a bare address
// for one host ("192.0.2.7" is 192.0.2.7/32, "2001:db8::7" is /128), and
// chrony's "all".
//
// The value type is core::IpPrefix (core/net/net_headers.h). Its parser there,
// ParseIpPrefix, reads an interface address ("10.99.0.1/24": an address AND
// its subnet) and so keeps host bits. An access-list prefix is a set of
// addresses, and "192.0.2.1/24" in a deny list is almost always a typo for
// something else, so ParseNetworkPrefix refuses host bits beyond the length
// and says which prefix was probably meant:
//
//   ParseNetworkPrefix("192.0.2.0/24")   -> 192.0.2.0/24
//   ParseNetworkPrefix("192.0.2.1/24")   -> error: "... has host bits set
//       beyond /24: write 192.0.2.0/24 for the network, or 192.0.2.1/32 ..."
//   ParseNetworkPrefixList("10.0.0.0/8, 2001:db8::/32") -> two prefixes
//   ParseNetworkPrefixList("all")        -> {0.0.0.0/0, ::/0}
//
// "all" is both families' /0, so it is spelt as two prefixes and never needs a
// case of its own downstream; it is accepted only by the list parser (a single
// prefix cannot hold it). It is NOT chrony's "allow all" directive, which also
// erases earlier rules: here every rule counts and the most specific wins.
//
// Setup code only (operator input); never on the hot path.
#ifndef ZG_CORE_NET_IP_PREFIX_H_
#define ZG_CORE_NET_IP_PREFIX_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/net/net_headers.h"

namespace zg::core {

// "ADDR/LEN" or a bare "ADDR" (a host prefix: /32 or /128). Errors name the
// value. Refuses host bits beyond LEN (the message suggests the masked prefix),
// "all" (use ParseNetworkPrefixList), and IPv4-mapped IPv6 prefixes
// (::ffff:a.b.c.d/N, N >= 96): IPv4 clients are matched by IPv4 rules, so such
// a rule would never match anything; the message gives the IPv4 prefix.
absl::StatusOr<IpPrefix> ParseNetworkPrefix(absl::string_view text);

// Comma-separated prefixes (spaces around each are ignored, empty items are
// skipped): "10.0.0.0/8,192.168.1.7". "all" stands for 0.0.0.0/0 and ::/0.
// The first bad item fails the whole list, with its position.
absl::StatusOr<std::vector<IpPrefix>> ParseNetworkPrefixList(
    absl::string_view text);

// `p` with the host bits beyond p.length cleared.
IpPrefix MaskPrefix(const IpPrefix& p);

// True if `a` is of p's family and its first p.length bits equal p's.
bool PrefixContains(const IpPrefix& p, const IpAddress& a);

}  // namespace zg::core

#endif  // ZG_CORE_NET_IP_PREFIX_H_
