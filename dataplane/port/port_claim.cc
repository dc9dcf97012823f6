// SPDX-License-Identifier: Apache-2.0
// One zeitgeberd per port (port_claim.h).
#include "dataplane/port/port_claim.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <fcntl.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "core/base/status_macros.h"
#include "dataplane/daemon/log.h"
#include "dataplane/port/xdp_steering.h"

namespace zg::dataplane {
namespace {

// The program's name in dataplane/bpf/zg_xdp.c (and zg_xdp_hwts.c).
constexpr char kZgXdpProgram[] = "zg_xdp_steer";

// "--opt=value", "--opt value", "-a value", "-avalue": the value of one of
// `names` at args[*i] (advancing *i past a separate value).
std::optional<std::string> OptionValue(
    absl::Span<char* const> args, size_t* i,
    std::initializer_list<const char*> names) {
  const absl::string_view a = args[*i];
  for (absl::string_view name : names) {
    if (!absl::StartsWith(a, name)) continue;
    absl::string_view rest = a.substr(name.size());
    if (rest.empty()) {
      if (*i + 1 >= args.size()) return std::nullopt;
      return std::string(args[++*i]);
    }
    if (absl::StartsWith(name, "--")) {
      if (!absl::ConsumePrefix(&rest, "=")) continue;  // a longer option
    }
    return std::string(rest);
  }
  return std::nullopt;
}

std::optional<ClaimedDevice> AfXdpDevice(const std::string& vdev) {
  const std::string name = vdev.substr(0, vdev.find(','));
  if (!absl::StartsWith(name, "net_af_xdp")) return std::nullopt;
  const std::string args = vdev.find(',') == std::string::npos
                               ? ""
                               : vdev.substr(vdev.find(',') + 1);
  const std::optional<std::string> iface = DevargValue(args, "iface");
  if (!iface.has_value() || iface->empty()) return std::nullopt;
  return ClaimedDevice{.key = absl::StrCat("af_xdp-", *iface),
                       .label = absl::StrCat(name, " (interface ", *iface, ")"),
                       .iface = *iface,
                       .xdp_prog = DevargValue(args, "xdp_prog").has_value()};
}

ClaimedDevice PciDevice(const std::string& allow) {
  std::string addr = absl::AsciiStrToLower(allow.substr(0, allow.find(',')));
  if (std::count(addr.begin(), addr.end(), ':') == 1) {
    addr = absl::StrCat("0000:", addr);
  }
  return {.key = absl::StrCat("pci-", addr), .label = addr};
}

std::string RunDir(std::string run_dir) {
  if (!run_dir.empty()) return run_dir;
  if (const char* env = std::getenv("RUNTIME_DIRECTORY");
      env != nullptr && env[0] != '\0') {
    return std::string(env).substr(0, std::string(env).find(':'));
  }
  return "/run/zeitgeber";
}

// A lock file holds "<pid>\n", then "xdp_prog_id <id>\n" once the holder's
// PMD attached its XDP program.
struct LockRecord {
  std::optional<int> pid;
  uint32_t xdp_prog_id = 0;
};

LockRecord ReadRecord(int fd) {
  char buf[128] = {};
  LockRecord r;
  if (pread(fd, buf, sizeof(buf) - 1, 0) <= 0) return r;
  const std::vector<absl::string_view> lines = absl::StrSplit(buf, '\n');
  int pid = 0;
  if (absl::SimpleAtoi(lines[0], &pid)) r.pid = pid;
  for (absl::string_view line : lines) {
    if (absl::ConsumePrefix(&line, "xdp_prog_id ")) {
      (void)absl::SimpleAtoi(line, &r.xdp_prog_id);
    }
  }
  return r;
}

void WriteRecord(int fd, uint32_t xdp_prog_id, const std::string& name) {
  std::string text = absl::StrCat(getpid(), "\n");
  if (xdp_prog_id != 0) {
    absl::StrAppend(&text, "xdp_prog_id ", xdp_prog_id, "\n");
  }
  if (ftruncate(fd, 0) != 0 || pwrite(fd, text.data(), text.size(), 0) !=
                                   static_cast<ssize_t>(text.size())) {
    LogDebug(absl::StrCat("port claim ", name,
                          ": cannot write its record: ", std::strerror(errno)));
  }
}

std::string ProcessName(int pid) {
  char buf[64] = {};
  const int fd =
      open(absl::StrCat("/proc/", pid, "/comm").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  const ssize_t n = read(fd, buf, sizeof(buf) - 1);
  close(fd);
  return n > 0 ? std::string(absl::StripTrailingAsciiWhitespace(buf)) : "";
}

std::string Holder(std::optional<int> pid) {
  if (!pid.has_value()) return "another zeitgeberd";
  const std::string name = ProcessName(*pid);
  return absl::StrCat(name.empty() ? "zeitgeberd" : name, " (pid ", *pid, ")");
}

// Takes the lock on `fd`, waiting up to `wait` for its holder.
absl::Status Lock(int fd, const ClaimedDevice& d, absl::Duration wait) {
  if (flock(fd, LOCK_EX | LOCK_NB) == 0) return absl::OkStatus();
  if (errno != EWOULDBLOCK) {
    return absl::InternalError(
        absl::StrCat("cannot lock ", d.label, ": ", std::strerror(errno)));
  }
  const std::string holder = Holder(ReadRecord(fd).pid);
  LogInfo(absl::StrCat(d.label, " is held by ", holder,
                       ", still running or still stopping: waiting up to ",
                       absl::FormatDuration(wait), " for it"));
  const absl::Time deadline = absl::Now() + wait;
  while (absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(10));
    if (flock(fd, LOCK_EX | LOCK_NB) == 0) return absl::OkStatus();
  }
  return absl::FailedPreconditionError(absl::StrCat(
      d.label, " is in use by ", holder, ", which did not release it within ",
      absl::FormatDuration(wait),
      ": one zeitgeberd per port; stop that one first (systemctl stop "
      "zeitgeberd, or kill it) or give this one another port"));
}

}  // namespace

std::vector<ClaimedDevice> DevicesInEalArgs(absl::Span<char* const> eal_args) {
  std::vector<ClaimedDevice> out;
  for (size_t i = 0; i < eal_args.size(); ++i) {
    if (std::optional<std::string> v = OptionValue(eal_args, &i, {"--vdev"})) {
      if (std::optional<ClaimedDevice> d = AfXdpDevice(*v)) out.push_back(*d);
    } else if (std::optional<std::string> a = OptionValue(
                   eal_args, &i, {"--allow", "-a", "--pci-whitelist", "-w"})) {
      out.push_back(PciDevice(*a));
    }
  }
  return out;
}

absl::StatusOr<std::unique_ptr<PortClaim>> PortClaim::Acquire(
    absl::Span<char* const> eal_args, absl::Duration wait,
    std::string run_dir) {
  std::unique_ptr<PortClaim> claim(new PortClaim());
  const std::vector<ClaimedDevice> devices = DevicesInEalArgs(eal_args);
  if (devices.empty()) return claim;
  const std::string dir = RunDir(std::move(run_dir));
  if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    LogDebug(absl::StrCat("no port claims: cannot create ", dir, ": ",
                          std::strerror(errno)));
    return claim;
  }
  for (const ClaimedDevice& d : devices) {
    const std::string path = absl::StrCat(dir, "/", d.key, ".lock");
    const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
      LogDebug(absl::StrCat("no claim on ", d.label, ": cannot open ", path,
                            ": ", std::strerror(errno)));
      continue;
    }
    claim->fds_.push_back(fd);
    claim->devices_.push_back(d);
    ZG_RETURN_IF_ERROR(Lock(fd, d, wait));
    const LockRecord last = ReadRecord(fd);  // the last holder's
    WriteRecord(fd, 0, path);
    if (!d.iface.empty()) {
      ZG_RETURN_IF_ERROR(
          RemoveStaleXdpProgram(d.iface, d.xdp_prog, last.xdp_prog_id));
    }
  }
  return claim;
}

PortClaim::~PortClaim() {
  for (int fd : fds_) close(fd);
}

void PortClaim::RecordXdpProgram(const std::string& iface) {
  for (size_t i = 0; i < devices_.size(); ++i) {
    if (devices_[i].iface != iface) continue;
    uint32_t prog_id = 0;
    const int ifindex = static_cast<int>(if_nametoindex(iface.c_str()));
    if (ifindex == 0 || bpf_xdp_query_id(ifindex, 0, &prog_id) != 0) return;
    WriteRecord(fds_[i], prog_id, devices_[i].key);
  }
}

absl::Status RemoveStaleXdpProgram(const std::string& ifname,
                                   bool custom_program, uint32_t recorded_id) {
  const int ifindex = static_cast<int>(if_nametoindex(ifname.c_str()));
  if (ifindex == 0) return absl::OkStatus();  // the PMD says it is missing
  bpf_xdp_query_opts query{};
  query.sz = sizeof(query);
  if (bpf_xdp_query(ifindex, 0, &query) != 0) return absl::OkStatus();
  uint32_t mode_flag = 0, prog_id = 0;
  if (query.drv_prog_id != 0) {
    mode_flag = XDP_FLAGS_DRV_MODE;
    prog_id = query.drv_prog_id;
  } else if (query.skb_prog_id != 0) {
    mode_flag = XDP_FLAGS_SKB_MODE;
    prog_id = query.skb_prog_id;
  } else if (query.hw_prog_id != 0) {
    mode_flag = XDP_FLAGS_HW_MODE;
    prog_id = query.hw_prog_id;
  } else {
    return absl::OkStatus();  // nothing attached
  }
  // Its name, where this process may open it (CAP_SYS_ADMIN).
  std::string name;
  const int prog_fd = OpenXdpProgramById(prog_id);
  absl::Cleanup close_prog = [prog_fd] {
    if (prog_fd >= 0) close(prog_fd);
  };
  if (prog_fd >= 0) {
    bpf_prog_info info{};
    uint32_t len = sizeof(info);
    if (bpf_obj_get_info_by_fd(prog_fd, &info, &len) == 0) name = info.name;
  }
  if (prog_id == recorded_id || name == kZgXdpProgram) {
    bpf_xdp_attach_opts detach{};
    detach.sz = sizeof(detach);
    detach.old_prog_fd = prog_fd;  // with it: only if still that program
    const uint32_t flags = mode_flag | (prog_fd >= 0 ? XDP_FLAGS_REPLACE : 0);
    if (int rc =
            bpf_xdp_detach(ifindex, flags, prog_fd >= 0 ? &detach : nullptr);
        rc != 0) {
      return absl::InternalError(absl::StrCat(
          ifname, ": cannot detach the XDP program (id ", prog_id,
          ") a zeitgeberd that did not stop cleanly left attached: ",
          std::strerror(-rc), "; detach it by hand: ip link set dev ", ifname,
          " xdp off"));
    }
    LogWarning(absl::StrCat(
        ifname, ": detached the XDP program ", kZgXdpProgram, " (id ", prog_id,
        ") left attached by a zeitgeberd that did not stop cleanly (killed, "
        "crashed, or stopped by the systemd watchdog)"));
    return absl::OkStatus();
  }
  if (!custom_program) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      ifname, " already has another XDP program attached (",
      name.empty() ? "" : absl::StrCat("'", name, "', "), "id ", prog_id,
      "), so net_af_xdp cannot attach xdp_prog=: detach it if nothing needs "
      "it (ip link set dev ",
      ifname, " xdp off) or serve another interface"));
}

}  // namespace zg::dataplane
