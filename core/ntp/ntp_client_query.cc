// SPDX-License-Identifier: Apache-2.0
#include "core/ntp/ntp_client_query.h"

#include <algorithm>
#include <string>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"
#include "core/net/ip_prefix.h"
#include "core/time/time_format.h"

namespace zg::core {
namespace {

constexpr NtpClientSort kSorts[] = {NtpClientSort::kRequests,
                                    NtpClientSort::kDrops, NtpClientSort::kKod,
                                    NtpClientSort::kLast};

uint64_t SortKey(const NtpClientRecord& r, NtpClientSort s) {
  switch (s) {
    case NtpClientSort::kRequests:
      return r.requests;
    case NtpClientSort::kDrops:
      return r.drops();
    case NtpClientSort::kKod:
      return r.kod;
    case NtpClientSort::kLast:
      return static_cast<uint64_t>(r.last_seen.value);
  }
  return 0;
}

// Whether `a` is listed before `b`: the sort key, then more requests, then
// the address (IPv4 first), so equal keys list in a stable order.
bool Before(const NtpClientRecord& a, const NtpClientRecord& b,
            NtpClientSort s) {
  const uint64_t ka = SortKey(a, s), kb = SortKey(b, s);
  if (ka != kb) return ka > kb;
  if (a.requests != b.requests) return a.requests > b.requests;
  return std::tie(a.key.ipv6, a.key.hi, a.key.lo) <
         std::tie(b.key.ipv6, b.key.hi, b.key.lo);
}

bool Within(const NtpClientRecord& r, const std::optional<IpPrefix>& p) {
  return !p.has_value() || PrefixContains(*p, r.address());
}

// Adds `other` (the same client in another worker's table) into `r`.
void Merge(NtpClientRecord& r, const NtpClientRecord& other) {
  r.requests += other.requests;
  r.drops_rate_limit += other.drops_rate_limit;
  r.drops_acl += other.drops_acl;
  r.drops_auth += other.drops_auth;
  r.kod += other.kod;
  r.first_seen = std::min(r.first_seen, other.first_seen);
  if (other.last_seen > r.last_seen) {  // the latest request's state
    r.last_seen = other.last_seen;
    r.auth = other.auth;
    r.key_id = other.key_id;
    r.interleaved = other.interleaved;
  }
}

std::string Utc(TaiNs t, const ClockModel& clock) {
  return FormatUtc(clock.TaiToUtc(t));
}

}  // namespace

const char* NtpClientSortName(NtpClientSort s) {
  switch (s) {
    case NtpClientSort::kRequests:
      return "requests";
    case NtpClientSort::kDrops:
      return "drops";
    case NtpClientSort::kKod:
      return "kod";
    case NtpClientSort::kLast:
      return "last";
  }
  return "requests";
}

absl::StatusOr<NtpClientSort> ParseNtpClientSort(absl::string_view text) {
  for (NtpClientSort s : kSorts) {
    if (text == NtpClientSortName(s)) return s;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("sort '", text.substr(0, 32),
                   "' is not one of requests, drops, kod, last"));
}

absl::StatusOr<IpPrefix> ParseNtpClientAddress(absl::string_view text) {
  absl::StatusOr<IpPrefix> p = ParseIpPrefix(text);
  if (!p.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "address '", text.substr(0, 64),
        "' is not an address or PREFIX/LEN: ", p.status().message()));
  }
  return MaskPrefix(*p);
}

absl::StatusOr<NtpClientQuery> ParseNtpClientQuery(const nlohmann::json& args) {
  NtpClientQuery q;
  if (args.is_null()) return q;
  if (!args.is_object()) {
    return absl::InvalidArgumentError(
        "clients arguments must be an object: {\"top\": N, \"sort\": "
        "\"requests|drops|kod|last\", \"address\": \"PREFIX\"}");
  }
  for (const auto& [name, value] : args.items()) {
    if (name == "top") {
      const bool in_range =
          value.is_number_unsigned()
              ? value.get<uint64_t>() >= 1 &&
                    value.get<uint64_t>() <= kNtpClientTopMax
              : value.is_number_integer() && value.get<int64_t>() >= 1 &&
                    value.get<int64_t>() <= int64_t{kNtpClientTopMax};
      if (!in_range) {
        return absl::InvalidArgumentError(absl::StrCat(
            "top must be an integer in [1, ", kNtpClientTopMax, "]"));
      }
      q.top = static_cast<size_t>(value.get<uint64_t>());
    } else if (name == "sort") {
      if (!value.is_string()) {
        return absl::InvalidArgumentError(
            "sort must be one of \"requests\", \"drops\", \"kod\", \"last\"");
      }
      ZG_ASSIGN_OR_RETURN(
          q.sort, ParseNtpClientSort(value.get_ref<const std::string&>()));
    } else if (name == "address") {
      if (value.is_null()) continue;
      if (!value.is_string()) {
        return absl::InvalidArgumentError(
            "address must be a string: an address or PREFIX/LEN");
      }
      ZG_ASSIGN_OR_RETURN(q.address, ParseNtpClientAddress(
                                         value.get_ref<const std::string&>()));
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown clients argument '", name.substr(0, 32),
                       "' (arguments: top, sort, address)"));
    }
  }
  return q;
}

nlohmann::json NtpClientJson(const NtpClientRecord& r, const ClockModel& clock,
                             TaiNs now) {
  nlohmann::json j;
  j["address"] = r.address().ToString();
  j["requests"] = r.requests;
  j["drops"] = {{"rate_limit", r.drops_rate_limit},
                {"acl", r.drops_acl},
                {"auth", r.drops_auth}};
  j["kod"] = r.kod;
  j["auth"] = NtpClientAuthName(r.auth);
  j["key_id"] = r.auth == NtpClientAuth::kSymmetricKey
                    ? nlohmann::json(r.key_id)
                    : nlohmann::json(nullptr);
  j["mode"] = r.interleaved ? "interleaved" : "basic";
  j["first_seen_tai_ns"] = r.first_seen.value;
  j["first_seen_utc"] = Utc(r.first_seen, clock);
  j["last_seen_tai_ns"] = r.last_seen.value;
  j["last_seen_utc"] = Utc(r.last_seen, clock);
  j["last_seen_ago_s"] =
      static_cast<double>(now.value - r.last_seen.value) / 1e9;
  const std::optional<double> interval = r.MeanIntervalSeconds();
  j["interval_s"] =
      interval ? nlohmann::json(*interval) : nlohmann::json(nullptr);
  return j;
}

NtpClientSelection SelectNtpClients(
    absl::Span<const NtpClientRecords* const> tables,
    const NtpClientQuery& query) {
  struct Entry {
    NtpClientRecord r;
    size_t table = 0;
  };
  const NtpClientSort sort = query.sort;
  const size_t top = std::clamp<size_t>(query.top, 1, kNtpClientTopMax);
  // A heap whose front is the worst entry kept.
  auto worse_first = [sort](const Entry& a, const Entry& b) {
    return Before(a.r, b.r, sort);
  };
  std::vector<Entry> heap;
  heap.reserve(top + 1);
  NtpClientSelection out;
  // Sorting by requests over every client: the hot line's count tells
  // whether a record can enter the heap before its cold line is read.
  const bool prefilter =
      sort == NtpClientSort::kRequests && !query.address.has_value();
  Entry e;
  for (size_t t = 0; t < tables.size(); ++t) {
    const NtpClientRecords* table = tables[t];
    if (table == nullptr) continue;
    for (size_t slot = 0; slot < table->capacity(); ++slot) {
      const uint64_t requests = table->Requests(slot);
      if (requests == 0) continue;
      if (prefilter) {
        ++out.matched;
        if (heap.size() == top && requests < heap.front().r.requests) continue;
      }
      const NtpClientRecords::ReadResult res = table->Read(slot, &e.r);
      if (res == NtpClientRecords::ReadResult::kBusy) ++out.busy;
      if (res != NtpClientRecords::ReadResult::kOk) continue;
      if (!prefilter) {
        if (!Within(e.r, query.address)) continue;
        ++out.matched;
      }
      e.table = t;
      if (heap.size() == top && !Before(e.r, heap.front().r, sort)) continue;
      heap.push_back(e);
      std::push_heap(heap.begin(), heap.end(), worse_first);
      if (heap.size() > top) {
        std::pop_heap(heap.begin(), heap.end(), worse_first);
        heap.pop_back();
      }
    }
  }
  // Each selected client's parts in the other workers' tables, summed; a
  // client selected from two tables is then listed once.
  out.clients.reserve(heap.size());
  for (Entry& sel : heap) {
    for (size_t t = 0; t < tables.size(); ++t) {
      if (t == sel.table || tables[t] == nullptr) continue;
      if (std::optional<NtpClientRecord> part = tables[t]->Find(sel.r.key)) {
        Merge(sel.r, *part);
      }
    }
  }
  std::sort(heap.begin(), heap.end(), [sort](const Entry& a, const Entry& b) {
    return Before(a.r, b.r, sort);
  });
  for (const Entry& sel : heap) {
    const bool listed = std::any_of(
        out.clients.begin(), out.clients.end(),
        [&](const NtpClientRecord& c) { return c.key == sel.r.key; });
    if (!listed) out.clients.push_back(sel.r);
  }
  return out;
}

nlohmann::json QueryNtpClients(absl::Span<const NtpClientRecords* const> tables,
                               const NtpClientQuery& query,
                               const ClockModel& clock, TaiNs now) {
  const NtpClientSelection sel = SelectNtpClients(tables, query);
  nlohmann::json clients = nlohmann::json::array();
  for (const NtpClientRecord& r : sel.clients) {
    clients.push_back(NtpClientJson(r, clock, now));
  }
  uint64_t tracked = 0, capacity = 0, evictions = 0, workers = 0;
  for (const NtpClientRecords* t : tables) {
    if (t == nullptr) continue;
    const NtpClientRecordStats s = t->stats();
    tracked += s.tracked;
    evictions += s.evictions;
    capacity += t->capacity();
    ++workers;
  }
  nlohmann::json j;
  j["sort"] = NtpClientSortName(query.sort);
  j["top"] = query.top;
  j["address"] = query.address ? nlohmann::json(query.address->ToString())
                               : nlohmann::json(nullptr);
  j["now_tai_ns"] = now.value;
  j["workers"] = workers;
  j["capacity"] = capacity;
  j["tracked"] = tracked;
  j["evictions"] = evictions;
  j["matched"] = sel.matched;
  j["busy"] = sel.busy;
  j["clients"] = std::move(clients);
  return j;
}

}  // namespace zg::core
