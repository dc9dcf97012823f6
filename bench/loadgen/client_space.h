// SPDX-License-Identifier: Apache-2.0
// How zg-loadgen spreads its simulated clients over source addresses, source
// ports and lanes.
//
// Client i (0 <= i < clients) sends from
//
//   source address  first_address + (i mod addresses)
//   source port     first_port + (i div addresses)
//
// so consecutive clients differ in address first (a server's RSS hash then
// spreads them over its queues), and the lane (lcore + queue pair) that owns
// client i is i mod lanes. Within its lane the client has local index
// i div lanes, which is its row in the lane's RequestTable. A reply names its
// client by the address and port it is sent to; ClientOf inverts the map.
//
// Addresses are offsets here (the application adds them to a base IPv4 or
// IPv6 address), so this file is pure arithmetic, tested without a network.
//
//   ZG_ASSIGN_OR_RETURN(ClientSpace space,
//       ClientSpace::Create({.clients = 1000, .addresses = 10,
//                            .first_port = 20000, .lanes = 2}));
//   ClientEndpoint e = space.EndpointOf(space.GlobalIndex(lane, local));
//   std::optional<uint32_t> c = space.ClientOf(e.address_offset, e.port);
#ifndef ZG_BENCH_LOADGEN_CLIENT_SPACE_H_
#define ZG_BENCH_LOADGEN_CLIENT_SPACE_H_

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"

namespace zg::bench {

struct ClientEndpoint {
  uint32_t address_offset = 0;  // added to the first source address
  uint16_t port = 0;
};

class ClientSpace {
 public:
  struct Config {
    uint32_t clients = 1;
    uint32_t addresses = 1;  // source addresses (<= clients)
    uint16_t first_port = 1024;
    uint32_t lanes = 1;  // <= clients
  };
  static absl::StatusOr<ClientSpace> Create(const Config& config);

  const Config& config() const { return config_; }
  uint32_t clients() const { return config_.clients; }
  // Ports used per address: ceil(clients / addresses).
  uint32_t ports_per_address() const { return ports_per_address_; }
  // Clients owned by `lane`: ceil((clients - lane) / lanes).
  uint32_t ClientsInLane(uint32_t lane) const;

  ClientEndpoint EndpointOf(uint32_t client) const {
    return {
        client % config_.addresses,
        static_cast<uint16_t>(config_.first_port + client / config_.addresses)};
  }
  uint32_t LaneOf(uint32_t client) const { return client % config_.lanes; }
  uint32_t LocalIndexOf(uint32_t client) const {
    return client / config_.lanes;
  }
  uint32_t GlobalIndex(uint32_t lane, uint32_t local) const {
    return local * config_.lanes + lane;
  }
  // The client that sends from (first address + address_offset, port), if
  // any.
  std::optional<uint32_t> ClientOf(uint64_t address_offset,
                                   uint16_t port) const {
    if (address_offset >= config_.addresses || port < config_.first_port) {
      return std::nullopt;
    }
    const uint64_t i =
        static_cast<uint64_t>(port - config_.first_port) * config_.addresses +
        address_offset;
    if (i >= config_.clients) return std::nullopt;
    return static_cast<uint32_t>(i);
  }

 private:
  explicit ClientSpace(const Config& config);
  Config config_;
  uint32_t ports_per_address_;
};

}  // namespace zg::bench

#endif  // ZG_BENCH_LOADGEN_CLIENT_SPACE_H_
