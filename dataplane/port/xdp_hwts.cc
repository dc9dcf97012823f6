// SPDX-License-Identifier: Apache-2.0
#include "dataplane/port/xdp_hwts.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"
#include "dataplane/port/xdp_steering.h"

#ifndef BPF_F_XDP_DEV_BOUND_ONLY
#define BPF_F_XDP_DEV_BOUND_ONLY (1U << 6)  // linux/bpf.h, kernel >= 6.3
#endif

namespace zg::dataplane {

std::optional<std::string> InterfacePhc(const std::string& ifname) {
  const int fd = socket(AF_INET, SOCK_DGRAM, 0);
  if (fd < 0) return std::nullopt;
  absl::Cleanup close_fd = [fd] { close(fd); };
  ethtool_ts_info info{};
  info.cmd = ETHTOOL_GET_TS_INFO;
  ifreq ifr{};
  std::strncpy(ifr.ifr_name, ifname.c_str(), IFNAMSIZ - 1);
  ifr.ifr_data = reinterpret_cast<char*>(&info);
  if (ioctl(fd, SIOCETHTOOL, &ifr) != 0 || info.phc_index < 0) {
    return std::nullopt;
  }
  return absl::StrCat("/dev/ptp", info.phc_index);
}

absl::Status SwapInXdpHwts(const std::string& ifname,
                           const std::string& hwts_object) {
  const int ifindex = static_cast<int>(if_nametoindex(ifname.c_str()));
  if (ifindex == 0) {
    return absl::NotFoundError(absl::StrCat("no interface '", ifname, "'"));
  }
  LIBBPF_OPTS(bpf_xdp_query_opts, query);
  if (int rc = bpf_xdp_query(ifindex, 0, &query); rc != 0) {
    return absl::InternalError(
        absl::StrCat("bpf_xdp_query(", ifname, "): ", std::strerror(-rc)));
  }
  if (query.attach_mode != XDP_ATTACHED_DRV || query.drv_prog_id == 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the XDP program on ", ifname,
        " is not attached in native (driver) mode; a device-bound program "
        "cannot run in generic mode (the driver has no native XDP)"));
  }
  const int old_fd = OpenXdpProgramById(query.drv_prog_id);
  if (old_fd < 0) {
    return absl::PermissionDeniedError(absl::StrCat("cannot open XDP program ",
                                                    query.drv_prog_id, ": ",
                                                    std::strerror(errno)));
  }
  absl::Cleanup close_old = [old_fd] { close(old_fd); };
  ZG_ASSIGN_OR_RETURN(const auto maps, AttachedXdpProgramMaps(ifname));
  absl::Cleanup close_maps = [&maps] {
    for (const auto& [name, fd] : maps) close(fd);
  };

  bpf_object* obj = bpf_object__open_file(hwts_object.c_str(), nullptr);
  if (obj == nullptr) {
    return absl::NotFoundError(absl::StrCat(
        "cannot open ", hwts_object, ": ", std::strerror(errno),
        " (built next to zg_xdp.o: ninja dataplane/zg_xdp_hwts.o)"));
  }
  absl::Cleanup close_obj = [obj] { bpf_object__close(obj); };
  bpf_program* prog = bpf_object__next_program(obj, nullptr);
  if (prog == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(hwts_object, " has no program"));
  }
  bpf_program__set_ifindex(prog, static_cast<uint32_t>(ifindex));
  if (int rc = bpf_program__set_flags(prog, BPF_F_XDP_DEV_BOUND_ONLY);
      rc != 0) {
    return absl::InternalError(
        absl::StrCat("bpf_program__set_flags: ", std::strerror(-rc)));
  }
  bpf_map* map;
  bpf_object__for_each_map(map, obj) {
    const char* name = bpf_map__name(map);
    auto it = maps.find(name);
    if (it == maps.end()) {
      return absl::FailedPreconditionError(
          absl::StrCat("the XDP program on ", ifname, " has no map '", name,
                       "': not zeitgeber's zg_xdp.o of the same build"));
    }
    if (int rc = bpf_map__reuse_fd(map, it->second); rc != 0) {
      return absl::FailedPreconditionError(absl::StrCat(
          "map '", name, "' of ", hwts_object,
          " does not match the attached one's: ", std::strerror(-rc),
          " (rebuild both programs)"));
    }
  }
  if (int rc = bpf_object__load(obj); rc != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("the kernel refused ", hwts_object, " bound to ", ifname,
                     ": ", std::strerror(-rc),
                     " (kernel < 6.3 has no XDP RX metadata kfuncs; run with "
                     "LIBBPF_LOG or bpftool for the verifier log)"));
  }
  LIBBPF_OPTS(bpf_xdp_attach_opts, attach, .old_prog_fd = old_fd);
  if (int rc = bpf_xdp_attach(ifindex, bpf_program__fd(prog),
                              XDP_FLAGS_DRV_MODE | XDP_FLAGS_REPLACE, &attach);
      rc != 0) {
    return absl::InternalError(
        absl::StrCat("cannot replace the XDP program on ", ifname, ": ",
                     std::strerror(-rc)));
  }
  // The kernel keeps the attached program; closing the object drops only
  // our references.
  return absl::OkStatus();
}

}  // namespace zg::dataplane
