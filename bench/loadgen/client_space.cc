// SPDX-License-Identifier: Apache-2.0
#include "bench/loadgen/client_space.h"

#include "absl/strings/str_cat.h"

namespace zg::bench {

absl::StatusOr<ClientSpace> ClientSpace::Create(const Config& c) {
  if (c.clients == 0) {
    return absl::InvalidArgumentError("--clients must be at least 1");
  }
  if (c.addresses == 0 || c.addresses > c.clients) {
    return absl::InvalidArgumentError(
        absl::StrCat("--source_addresses=", c.addresses,
                     " must be in [1, --clients=", c.clients, "]"));
  }
  if (c.lanes == 0 || c.lanes > c.clients) {
    return absl::InvalidArgumentError(absl::StrCat(
        "need at least one client per lane: ", c.lanes, " lanes but ",
        c.clients, " clients; raise --clients or use fewer lcores"));
  }
  if (c.first_port == 0) {
    return absl::InvalidArgumentError("--source_port must be >= 1");
  }
  const uint64_t ports = (uint64_t{c.clients} + c.addresses - 1) / c.addresses;
  if (c.first_port + ports - 1 > 65535) {
    return absl::InvalidArgumentError(absl::StrCat(
        c.clients, " clients over ", c.addresses, " source addresses need ",
        ports, " ports each from ", c.first_port,
        ", past 65535; raise --source_addresses or lower --source_port"));
  }
  return ClientSpace(c);
}

ClientSpace::ClientSpace(const Config& config)
    : config_(config),
      ports_per_address_(static_cast<uint32_t>(
          (uint64_t{config.clients} + config.addresses - 1) /
          config.addresses)) {}

uint32_t ClientSpace::ClientsInLane(uint32_t lane) const {
  if (lane >= config_.lanes) return 0;
  return (config_.clients - lane + config_.lanes - 1) / config_.lanes;
}

}  // namespace zg::bench
