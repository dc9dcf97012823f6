// SPDX-License-Identifier: Apache-2.0
// Fuzzes the per-client NTP records (core/ntp/ntp_client_records.h) and the
// clients query (core/ntp/ntp_client_query.h). The input is a sequence of
// 3-byte writer operations (request with an auth kind, then at most one of
// drop by reason, KoD, answered; flush; a client id and a time step each) up
// to the first '\n',
// then a zgctl clients argument object as JSON text (the operator's input).
// No crash, no sanitizer report; while no client was evicted every record
// equals a shadow count of what was done; every record has requests >=
// drops + KoD and last >= first seen; any query that parses answers at most
// `top` clients, in its order, from the clients in the table.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>

#include "core/ntp/ntp_client_query.h"
#include "core/ntp/ntp_client_records.h"
#include "nlohmann/json.hpp"
#include "tests/fuzz/fuzz_check.h"

namespace {

using namespace zg::core;

struct Shadow {
  uint64_t requests = 0, rate = 0, acl = 0, auth = 0, kod = 0;
};

NtpClientKey KeyOf(uint8_t id) {
  if (id & 0x40) {
    Ipv6Addr a{};
    a.b[0] = 0x20;
    a.b[1] = 0x01;
    a.b[15] = static_cast<uint8_t>(id % 40);
    return NtpClientKey::V6(a);
  }
  return NtpClientKey::V4(Ipv4Addr::FromOctets(10, 0, 0, id % 40));
}

bool Same(const NtpClientRecord& r, const Shadow& s) {
  return r.requests == s.requests && r.drops_rate_limit == s.rate &&
         r.drops_acl == s.acl && r.drops_auth == s.auth && r.kod == s.kod;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const uint8_t* nl =
      static_cast<const uint8_t*>(std::memchr(data, '\n', size));
  const size_t ops = nl != nullptr ? static_cast<size_t>(nl - data) : size;
  static std::unique_ptr<NtpClientRecords> table;
  table = std::move(*NtpClientRecords::Create({1024, 3}));
  std::map<std::pair<bool, uint64_t>, Shadow> shadow;
  TaiNs now{1'800'000'000'000'000'000};
  uint32_t slot = NtpClientRecords::kNoSlot;
  Shadow* latest = nullptr;
  for (size_t i = 0; i + 3 <= ops; i += 3) {
    const uint8_t op = data[i], id = data[i + 1];
    now = now + int64_t{data[i + 2]} * 10'000'000;
    switch (op % 6) {
      case 0:
      case 1:
      case 2: {
        const NtpClientKey k = KeyOf(id);
        slot = table->Request(k, now, static_cast<NtpClientAuth>(op % 3));
        latest = &shadow[{k.ipv6, k.lo ^ k.hi}];
        ++latest->requests;
        break;
      }
      case 3:
        if (latest == nullptr) break;
        table->Drop(slot, static_cast<NtpClientDrop>(id % 3));
        ++(id % 3 == 0   ? latest->rate
           : id % 3 == 1 ? latest->acl
                         : latest->auth);
        break;
      case 4:
        if (latest == nullptr) break;
        table->Kiss(slot);
        ++latest->kod;
        break;
      case 5:
        if (latest == nullptr) break;
        table->Answered(slot, id, (id & 1) != 0);
        break;
    }
    if (op % 6 >= 3) latest = nullptr;  // one outcome per request
    if (op & 0x80) table->Flush();
  }
  table->Flush();
  const NtpClientRecordStats stats = table->stats();
  ZG_FUZZ_CHECK(stats.tracked <= table->capacity());
  ZG_FUZZ_CHECK(stats.inserted == stats.tracked + stats.evictions);
  uint64_t listed = 0;
  const size_t busy = table->ForEach([&](const NtpClientRecord& r) {
    ++listed;
    ZG_FUZZ_CHECK(r.requests >= r.drops() + r.kod);
    ZG_FUZZ_CHECK(r.last_seen >= r.first_seen);
    ZG_FUZZ_CHECK(r.last_seen <= now);
    if (stats.evictions == 0) {
      ZG_FUZZ_CHECK(Same(r, shadow[{r.key.ipv6, r.key.lo ^ r.key.hi}]));
    }
  });
  ZG_FUZZ_CHECK(busy == 0);  // one thread: nothing is being replaced
  ZG_FUZZ_CHECK(listed == stats.tracked);
  if (stats.evictions == 0) ZG_FUZZ_CHECK(listed == shadow.size());

  // The operator's arguments.
  if (nl == nullptr) return 0;
  const std::string text(reinterpret_cast<const char*>(nl + 1), size - ops - 1);
  const nlohmann::json args =
      nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (args.is_discarded()) return 0;
  absl::StatusOr<NtpClientQuery> q = ParseNtpClientQuery(args);
  if (!q.ok()) {
    ZG_FUZZ_CHECK(!q.status().message().empty());
    return 0;
  }
  ZG_FUZZ_CHECK(q->top >= 1 && q->top <= kNtpClientTopMax);
  const NtpClientRecords* tables[] = {table.get(), nullptr};
  const nlohmann::json answer = QueryNtpClients(tables, *q, ClockModel{}, now);
  const nlohmann::json& clients = answer["clients"];
  ZG_FUZZ_CHECK(clients.size() <= q->top);
  ZG_FUZZ_CHECK(clients.size() <= stats.tracked);
  ZG_FUZZ_CHECK(answer["matched"].get<uint64_t>() <= stats.tracked);
  const char* key = q->sort == NtpClientSort::kRequests ? "requests"
                    : q->sort == NtpClientSort::kKod    ? "kod"
                    : q->sort == NtpClientSort::kLast   ? "last_seen_tai_ns"
                                                        : nullptr;
  for (size_t i = 1; key != nullptr && i < clients.size(); ++i) {
    ZG_FUZZ_CHECK(clients[i - 1][key] >= clients[i][key]);
  }
  (void)answer.dump(-1, ' ', false, nlohmann::json::error_handler_t::strict);
  return 0;
}
