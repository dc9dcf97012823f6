// SPDX-License-Identifier: Apache-2.0
// `zgctl clients [--top N] [--sort requests|drops|kod|last] [--address
// PREFIX]`: the workers' client records (core/ntp/ntp_client_records.h)
// merged into one JSON answer, the shape doc/zgctl.md documents (the same
// object per client serves the control socket, the status page and the
// --ntp_client_log lines).
//
// Bounded work at millions of clients: one pass over every table's records
// that keeps only the best `top` in a heap (sorting by requests, a record
// whose count, read from its hot line, cannot enter the heap is not read
// further); nothing else is copied. A client is normally in one worker's
// table (RSS hashes its address); one that reached several workers (several
// server addresses) is shown once with its counts summed from every table,
// ranked by the part that was selected.
//
//   ZG_ASSIGN_OR_RETURN(NtpClientQuery q, ParseNtpClientQuery(request_args));
//   nlohmann::json answer = QueryNtpClients(tables, q, clock_model, now);
//
// Control side only (allocates); safe on any thread (readers of the tables).
#ifndef ZG_CORE_NTP_NTP_CLIENT_QUERY_H_
#define ZG_CORE_NTP_NTP_CLIENT_QUERY_H_

#include <cstddef>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/net/net_headers.h"
#include "core/ntp/ntp_client_records.h"
#include "core/time/clock_model.h"
#include "nlohmann/json.hpp"

namespace zg::core {

enum class NtpClientSort : uint8_t {
  kRequests,  // most requests first
  kDrops,     // most drops (all reasons) first
  kKod,       // most Kiss-o'-Death first
  kLast,      // most recently seen first
};
const char* NtpClientSortName(NtpClientSort s);

inline constexpr size_t kNtpClientTopDefault = 100;
inline constexpr size_t kNtpClientTopMax = 10000;

struct NtpClientQuery {
  size_t top = kNtpClientTopDefault;  // 1 .. kNtpClientTopMax
  NtpClientSort sort = NtpClientSort::kRequests;
  std::optional<IpPrefix> address;  // only clients within (host bits masked)
};

// "requests", "drops", "kod", "last".
absl::StatusOr<NtpClientSort> ParseNtpClientSort(absl::string_view text);
// "10.1.0.0/16", "2001:db8::/32" or one address; host bits are masked.
absl::StatusOr<IpPrefix> ParseNtpClientAddress(absl::string_view text);
// The request's arguments, every member optional:
//   {"top": N, "sort": "requests|drops|kod|last", "address": "PREFIX"}
// null or {} is the default query. Unknown members, wrong types and values
// out of range are errors that name the member. Never throws.
absl::StatusOr<NtpClientQuery> ParseNtpClientQuery(const nlohmann::json& args);

// One client as JSON (doc/zgctl.md): times as TAI ns, UTC per `clock`, and
// seconds before `now` (TAI).
nlohmann::json NtpClientJson(const NtpClientRecord& r, const ClockModel& clock,
                             TaiNs now);

// The answer to `query` over the workers' `tables` (null entries skipped).
nlohmann::json QueryNtpClients(absl::Span<const NtpClientRecords* const> tables,
                               const NtpClientQuery& query,
                               const ClockModel& clock, TaiNs now);

// The same selection without the JSON (the merged records, in order).
struct NtpClientSelection {
  std::vector<NtpClientRecord> clients;
  uint64_t matched = 0;  // records within the address filter (all tables)
  uint64_t busy = 0;     // records skipped: being replaced while read
};
NtpClientSelection SelectNtpClients(
    absl::Span<const NtpClientRecords* const> tables,
    const NtpClientQuery& query);

}  // namespace zg::core

#endif  // ZG_CORE_NTP_NTP_CLIENT_QUERY_H_
