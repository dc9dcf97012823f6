// SPDX-License-Identifier: Apache-2.0
#include "dataplane/clock/nic_clock.h"

#include <fcntl.h>
#include <rte_errno.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/time/tsc.h"

namespace zg::dataplane {

absl::StatusOr<EthdevNicClock> EthdevNicClock::Open(uint16_t port_id) {
  uint64_t ticks = 0;
  const int rc = rte_eth_read_clock(port_id, &ticks);
  if (rc != 0) {
    return absl::UnimplementedError(absl::StrCat(
        "port ", port_id,
        " cannot read its clock (rte_eth_read_clock: ", std::strerror(-rc),
        "); hardware RX timestamps cannot be converted to TAI, so software "
        "(TSC) timestamps will be used"));
  }
  return EthdevNicClock(port_id);
}

absl::StatusOr<NicTscSample> EthdevNicClock::Sample() {
  NicTscSample s;
  s.tsc_before = core::ReadTscOrdered();
  const int rc = rte_eth_read_clock(port_id_, &s.nic_ticks);
  s.tsc_after = core::ReadTscOrdered();
  if (rc != 0) {
    return absl::UnavailableError(absl::StrCat(
        "rte_eth_read_clock(port ", port_id_, "): ", std::strerror(-rc)));
  }
  return s;
}

std::string EthdevNicClock::name() const {
  return absl::StrCat("port", port_id_);
}

absl::Status EnableTimesync(uint16_t port_id) {
  const int rc = rte_eth_timesync_enable(port_id);
  if (rc == 0) return absl::OkStatus();
  if (rc == -ENOTSUP) {
    return absl::UnimplementedError(absl::StrCat(
        "port ", port_id,
        " has no IEEE 1588 timesync support in its PMD; PTP will use "
        "software timestamps"));
  }
  return absl::InternalError(absl::StrCat("rte_eth_timesync_enable(port ",
                                          port_id, "): ", std::strerror(-rc)));
}

absl::StatusOr<NicTscSample> TimesyncNicClock::Sample() {
  NicTscSample s;
  timespec ts{};
  s.tsc_before = core::ReadTscOrdered();
  const int rc = rte_eth_timesync_read_time(port_id_, &ts);
  s.tsc_after = core::ReadTscOrdered();
  if (rc != 0) {
    return absl::UnavailableError(
        absl::StrCat("rte_eth_timesync_read_time(port ", port_id_,
                     "): ", std::strerror(-rc)));
  }
  s.nic_ticks = static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL +
                static_cast<uint64_t>(ts.tv_nsec);
  return s;
}

std::string TimesyncNicClock::name() const {
  return absl::StrCat("timesync:port", port_id_);
}

std::optional<timespec> ReadTimesyncTxStamp(uint16_t port_id) {
  timespec ts{};
  if (rte_eth_timesync_read_tx_timestamp(port_id, &ts) != 0)
    return std::nullopt;
  return ts;
}

namespace {
uint64_t RateQ32(double ticks_per_tsc) {
  if (!(ticks_per_tsc > 0 && ticks_per_tsc < 16)) ticks_per_tsc = 1;
  return static_cast<uint64_t>(ticks_per_tsc * 4294967296.0 + 0.5);
}
}  // namespace

XdpStampClock::~XdpStampClock() {
  Detach();
  if (phc_fd_ >= 0) close(phc_fd_);
}

absl::Status XdpStampClock::OpenPhc(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) {
    return absl::NotFoundError(absl::StrCat("cannot open PTP hardware clock ",
                                            path, ": ", std::strerror(errno)));
  }
  if (phc_fd_ >= 0) close(phc_fd_);
  phc_fd_ = fd;
  clock_ = core::XdpClock::kNic;
  return absl::OkStatus();
}

absl::Status XdpStampClock::AttachRx(uint16_t port_id, uint16_t queue_id) {
  if (!field_.valid()) {
    return absl::FailedPreconditionError(
        "XDP RX stamps: RX-timestamp dynfield not registered");
  }
  const rte_eth_rxtx_callback* cb = rte_eth_add_rx_callback(
      port_id, queue_id, &XdpStampClock::StampBurst, this);
  if (cb == nullptr) {
    return absl::InternalError(absl::StrCat(
        "XDP RX stamps: cannot add an RX callback on port ", port_id, " queue ",
        queue_id, ": ", rte_strerror(rte_errno)));
  }
  attached_.push_back({port_id, queue_id, cb});
  return absl::OkStatus();
}

void XdpStampClock::Detach() {
  for (const Attached& a : attached_) {
    rte_eth_remove_rx_callback(a.port_id, a.queue_id, a.cb);
  }
  attached_.clear();
}

uint16_t XdpStampClock::TakeStamps(const NicStampField& field, rte_mbuf* pkts[],
                                   uint16_t n, core::XdpClock clock) {
  uint16_t stamped = 0;
  for (uint16_t i = 0; i < n; ++i) {
    rte_mbuf* m = pkts[i];
    if (m->nb_segs != 1) continue;
    const std::optional<core::XdpStamp> s =
        core::ParseXdpStamp(std::span<const uint8_t>(
            rte_pktmbuf_mtod(m, const uint8_t*), m->data_len));
    if (!s.has_value()) continue;
    rte_pktmbuf_adj(m, kStampLen);
    if (s->clock != clock) continue;  // another clock: the burst's TSC stamp
    field.Write(m, s->ns);
    ++stamped;
  }
  return stamped;
}

uint16_t XdpStampClock::StampBurst(uint16_t, uint16_t, rte_mbuf* pkts[],
                                   uint16_t n, uint16_t, void* self) {
  const auto* clock = static_cast<const XdpStampClock*>(self);
  TakeStamps(clock->field_, pkts, n, clock->clock_);
  return n;
}

absl::StatusOr<NicTscSample> XdpStampClock::Sample() {
  NicTscSample s;
  timespec ts;
  // A PHC's dynamic clock id (linux/posix-timers.h FD_TO_CLOCKID).
  const clockid_t id = phc_fd_ >= 0
                           ? static_cast<clockid_t>((~phc_fd_ << 3) | 3)
                           : CLOCK_MONOTONIC;
  s.tsc_before = core::ReadTscOrdered();
  const int rc = clock_gettime(id, &ts);
  s.tsc_after = core::ReadTscOrdered();
  if (rc != 0) {
    return absl::InternalError(
        absl::StrCat("clock_gettime(", phc_fd_ >= 0 ? "PHC" : "CLOCK_MONOTONIC",
                     ") failed: ", std::strerror(errno)));
  }
  s.nic_ticks = static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL +
                static_cast<uint64_t>(ts.tv_nsec);
  return s;
}

FakeNicClock::FakeNicClock(NicStampField field, uint64_t offset_ticks,
                           double ticks_per_tsc)
    : field_(field),
      offset_ticks_(offset_ticks),
      ticks_per_tsc_q32_(RateQ32(ticks_per_tsc)) {}

FakeNicClock::~FakeNicClock() { Detach(); }

absl::Status FakeNicClock::AttachRx(uint16_t port_id, uint16_t queue_id) {
  if (!field_.valid()) {
    return absl::FailedPreconditionError(
        "fake NIC clock: RX-timestamp dynfield not registered");
  }
  const rte_eth_rxtx_callback* cb = rte_eth_add_rx_callback(
      port_id, queue_id, &FakeNicClock::StampBurst, this);
  if (cb == nullptr) {
    return absl::InternalError(absl::StrCat(
        "fake NIC clock: cannot add an RX callback on port ", port_id,
        " queue ", queue_id, ": ", rte_strerror(rte_errno),
        " (DPDK built without RTE_ETHDEV_RXTX_CALLBACKS?)"));
  }
  attached_.push_back({port_id, queue_id, cb});
  return absl::OkStatus();
}

void FakeNicClock::Detach() {
  // The callback memory is not freed by DPDK (a worker may still be inside
  // it); once the port stops nothing calls it.
  for (const Attached& a : attached_) {
    rte_eth_remove_rx_callback(a.port_id, a.queue_id, a.cb);
  }
  attached_.clear();
}

uint16_t FakeNicClock::StampBurst(uint16_t, uint16_t, rte_mbuf* pkts[],
                                  uint16_t n, uint16_t, void* self) {
  const auto* clock = static_cast<const FakeNicClock*>(self);
  // Like a NIC: each frame gets the clock at its arrival; here, one read per
  // burst (the PMD's ring dequeue is the "arrival").
  const uint64_t ticks = clock->TicksAt(core::ReadTsc());
  for (uint16_t i = 0; i < n; ++i) clock->field_.Write(pkts[i], ticks);
  return n;
}

absl::StatusOr<NicTscSample> FakeNicClock::Sample() {
  NicTscSample s;
  s.tsc_before = core::ReadTscOrdered();
  s.nic_ticks = TicksAt(s.tsc_before);
  s.tsc_after = s.tsc_before;  // computed from that TSC: a zero-width bracket
  return s;
}

servo::NicClockReadFn NicClockReader(NicClock* nic) {
  return [nic]() -> absl::StatusOr<servo::BracketedRead> {
    absl::StatusOr<NicTscSample> s = nic->Sample();
    if (!s.ok()) return s.status();
    return servo::BracketedRead{s->tsc_before, s->nic_ticks, s->tsc_after};
  };
}

}  // namespace zg::dataplane
