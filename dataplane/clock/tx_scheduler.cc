// SPDX-License-Identifier: Apache-2.0
#include "dataplane/clock/tx_scheduler.h"

#include <rte_errno.h>
#include <rte_ethdev.h>

#include <cstring>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace zg::dataplane {

absl::StatusOr<TxLaunchField> RegisterTxLaunchField() {
  TxLaunchField f;
  if (rte_mbuf_dyn_tx_timestamp_register(&f.offset, &f.flag) != 0) {
    return absl::InternalError(absl::StrCat(
        "cannot register the mbuf TX-timestamp field (send-on-timestamp, "
        "--tx_schedule): ",
        std::strerror(rte_errno)));
  }
  return f;
}

std::optional<uint64_t> ReadNicLateLaunches(uint16_t port_id) {
  const int n = rte_eth_xstats_get_names(port_id, nullptr, 0);
  if (n <= 0) return std::nullopt;
  std::vector<rte_eth_xstat_name> names(static_cast<size_t>(n));
  std::vector<rte_eth_xstat> values(static_cast<size_t>(n));
  if (rte_eth_xstats_get_names(port_id, names.data(),
                               static_cast<unsigned>(n)) != n ||
      rte_eth_xstats_get(port_id, values.data(), static_cast<unsigned>(n)) !=
          n) {
    return std::nullopt;
  }
  for (const rte_eth_xstat& x : values) {
    if (x.id >= names.size()) continue;
    const char* name = names[x.id].name;
    if (std::strcmp(name, "tx_pp_timestamp_past_errors") == 0 ||
        std::strcmp(name, "tx_launch_time_late") == 0) {
      return x.value;
    }
  }
  return std::nullopt;
}

}  // namespace zg::dataplane
