// SPDX-License-Identifier: Apache-2.0
#include "dataplane/port/xdp_steering.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <fcntl.h>
#include <net/if.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/base/status_macros.h"

namespace zg::dataplane {
namespace {

// Keep in sync with struct zg_config in bpf/zg_xdp.c.
constexpr uint16_t kZgPtpGroups = 1;
constexpr uint16_t kZgRxStamp = 2;
struct ZgConfig {
  uint16_t vlan_id;
  uint16_t flags;  // bit 0: steer PTP groups and PTP over Ethernet
};
constexpr uint32_t kStatSteered = 0, kStatPassed = 1;

// A dup of a descriptor this process holds whose /proc/self/fdinfo has
// "`key`:\t`id`" (prog_id, map_id); -1 if none.
int DupOwnBpfFd(absl::string_view key, uint32_t id) {
  DIR* dir = opendir("/proc/self/fdinfo");
  if (dir == nullptr) return -1;
  int found = -1;
  while (dirent* e = readdir(dir)) {
    int fd = 0;
    if (!absl::SimpleAtoi(e->d_name, &fd) || fd == dirfd(dir)) continue;
    std::ifstream info(absl::StrCat("/proc/self/fdinfo/", fd));
    for (std::string line; std::getline(info, line);) {
      absl::string_view v = line;
      uint32_t value = 0;
      if (absl::ConsumePrefix(&v, key) && absl::ConsumePrefix(&v, ":") &&
          absl::SimpleAtoi(absl::StripAsciiWhitespace(v), &value) &&
          value == id) {
        found = fcntl(fd, F_DUPFD_CLOEXEC, 0);
        break;
      }
    }
    if (found >= 0) break;
  }
  closedir(dir);
  return found;
}

// Map fds of the XDP program attached to `ifname`, by map name. The caller
// closes them.
absl::StatusOr<std::map<std::string, int>> AttachedProgramMaps(
    const std::string& ifname) {
  const unsigned ifindex = if_nametoindex(ifname.c_str());
  if (ifindex == 0) {
    return absl::NotFoundError(
        absl::StrCat("no network interface '", ifname, "'"));
  }
  uint32_t prog_id = 0;
  if (int rc = bpf_xdp_query_id(static_cast<int>(ifindex), 0, &prog_id);
      rc != 0 || prog_id == 0) {
    return absl::NotFoundError(absl::StrCat(
        "no XDP program is attached to ", ifname,
        rc != 0 ? absl::StrCat(" (", std::strerror(-rc), ")") : "",
        "; was the port started with --vdev=net_af_xdp0,iface=", ifname,
        ",xdp_prog=.../zg_xdp.o?"));
  }
  const int prog_fd = OpenXdpProgramById(prog_id);
  if (prog_fd < 0) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot open XDP program ", prog_id, " on ", ifname, ": ",
                     std::strerror(errno),
                     " (this process did not load it: opening another's needs "
                     "CAP_SYS_ADMIN)"));
  }
  absl::Cleanup close_prog = [prog_fd] { close(prog_fd); };
  bpf_prog_info info{};
  uint32_t len = sizeof(info);
  if (bpf_obj_get_info_by_fd(prog_fd, &info, &len) != 0) {
    return absl::InternalError(
        absl::StrCat("bpf_obj_get_info_by_fd: ", std::strerror(errno)));
  }
  std::vector<uint32_t> map_ids(info.nr_map_ids);
  bpf_prog_info with_maps{};
  with_maps.nr_map_ids = info.nr_map_ids;
  with_maps.map_ids = reinterpret_cast<uint64_t>(map_ids.data());
  len = sizeof(with_maps);
  if (bpf_obj_get_info_by_fd(prog_fd, &with_maps, &len) != 0) {
    return absl::InternalError(
        absl::StrCat("bpf_obj_get_info_by_fd (maps): ", std::strerror(errno)));
  }
  std::map<std::string, int> maps;
  for (uint32_t id : map_ids) {
    int fd = DupOwnBpfFd("map_id", id);
    if (fd < 0) fd = bpf_map_get_fd_by_id(id);
    if (fd < 0) continue;
    bpf_map_info map_info{};
    uint32_t map_len = sizeof(map_info);
    if (bpf_obj_get_info_by_fd(fd, &map_info, &map_len) == 0) {
      maps[map_info.name] = fd;
    } else {
      close(fd);
    }
  }
  return maps;
}

}  // namespace

int OpenXdpProgramById(uint32_t prog_id) {
  const int fd = DupOwnBpfFd("prog_id", prog_id);
  return fd >= 0 ? fd : bpf_prog_get_fd_by_id(prog_id);
}

absl::StatusOr<std::map<std::string, int>> AttachedXdpProgramMaps(
    const std::string& ifname) {
  return AttachedProgramMaps(ifname);
}

namespace {

void CloseAll(const std::map<std::string, int>& maps) {
  for (const auto& [name, fd] : maps) close(fd);
}

absl::StatusOr<int> Need(const std::map<std::string, int>& maps,
                         const std::string& name, const std::string& ifname) {
  auto it = maps.find(name);
  if (it == maps.end()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the XDP program on ", ifname, " has no map '", name,
        "': it is not zeitgeber's zg_xdp.o (or an older build of it); pass "
        "xdp_prog=<builddir>/dataplane/zg_xdp.o, or --xdp_steering=false to "
        "leave the program as it is"));
  }
  return it->second;
}

absl::Status Update(int fd, const void* key, const void* value,
                    const char* what) {
  if (bpf_map_update_elem(fd, key, value, BPF_ANY) != 0) {
    return absl::InternalError(absl::StrCat("cannot update XDP map ", what,
                                            ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ConfigureXdpSteering(const std::string& ifname,
                                  absl::Span<const InterfaceAddress> addresses,
                                  uint16_t vlan_id, bool ptp_groups,
                                  bool rx_stamps) {
  ZG_ASSIGN_OR_RETURN(const auto maps, AttachedProgramMaps(ifname));
  absl::Cleanup close_maps = [&maps] { CloseAll(maps); };
  ZG_ASSIGN_OR_RETURN(const int v4, Need(maps, "zg_addrs4", ifname));
  ZG_ASSIGN_OR_RETURN(const int v6, Need(maps, "zg_addrs6", ifname));
  ZG_ASSIGN_OR_RETURN(const int cfg, Need(maps, "zg_config", ifname));
  const uint8_t one = 1;
  for (const InterfaceAddress& a : addresses) {
    if (a.family == InterfaceAddress::kIpv4) {
      uint32_t key;  // network byte order, as the program compares it
      std::memcpy(&key, a.bytes.data(), 4);
      ZG_RETURN_IF_ERROR(Update(v4, &key, &one, "zg_addrs4"));
    } else {
      ZG_RETURN_IF_ERROR(Update(v6, a.bytes.data(), &one, "zg_addrs6"));
    }
  }
  const uint32_t zero = 0;
  const ZgConfig config{vlan_id,
                        static_cast<uint16_t>((ptp_groups ? kZgPtpGroups : 0) |
                                              (rx_stamps ? kZgRxStamp : 0))};
  return Update(cfg, &zero, &config, "zg_config");
}

absl::StatusOr<XdpSteeringCounters> ReadXdpSteeringCounters(
    const std::string& ifname) {
  ZG_ASSIGN_OR_RETURN(const auto maps, AttachedProgramMaps(ifname));
  absl::Cleanup close_maps = [&maps] { CloseAll(maps); };
  ZG_ASSIGN_OR_RETURN(const int stats, Need(maps, "zg_stats", ifname));
  const int cpus = libbpf_num_possible_cpus();
  if (cpus <= 0) return absl::InternalError("cannot count possible CPUs");
  std::vector<uint64_t> per_cpu(static_cast<size_t>(cpus));
  XdpSteeringCounters c;
  for (uint32_t key : {kStatSteered, kStatPassed}) {
    if (bpf_map_lookup_elem(stats, &key, per_cpu.data()) != 0) {
      return absl::InternalError(
          absl::StrCat("cannot read zg_stats: ", std::strerror(errno)));
    }
    uint64_t sum = 0;
    for (uint64_t v : per_cpu) sum += v;
    (key == kStatSteered ? c.steered : c.passed) = sum;
  }
  return c;
}

std::optional<std::string> DevargValue(const std::string& devargs,
                                       const std::string& key) {
  for (absl::string_view kv : absl::StrSplit(devargs, ',')) {
    std::pair<absl::string_view, absl::string_view> p =
        absl::StrSplit(kv, absl::MaxSplits('=', 1));
    if (p.first == key) return std::string(p.second);
  }
  return std::nullopt;
}

}  // namespace zg::dataplane
