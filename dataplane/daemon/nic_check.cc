// SPDX-License-Identifier: Apache-2.0
#include "dataplane/daemon/nic_check.h"

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/time/tsc.h"
#include "dataplane/clock/nic_clock.h"
#include "dataplane/daemon/daemon.h"
#include "dataplane/daemon/log.h"

namespace zg::dataplane {
namespace {

constexpr int kClockReads = 64;
constexpr int kTxFrames = 8;
constexpr double kTxStampTimeoutUs = 10'000;
constexpr uint8_t kCheckDomain = 127;  // not a domain a PTP slave uses

void Line(const std::string& key, const std::string& value) {
  std::printf("nic_check %s: %s\n", key.c_str(), value.c_str());
}

const char* YesNo(bool b) { return b ? "yes" : "no"; }

double TscToNs(uint64_t ticks) {
  return static_cast<double>(ticks) * 1e9 /
         static_cast<double>(rte_get_tsc_hz());
}

// "min 40 ns, median 52 ns, max 300 ns over 64" of `ns` (sorted here).
std::string Spread(std::vector<double> ns, const char* unit, double scale) {
  if (ns.empty()) return "none";
  std::sort(ns.begin(), ns.end());
  return absl::StrFormat("min %.1f %s, median %.1f %s, max %.1f %s over %d",
                         ns.front() * scale, unit, ns[ns.size() / 2] * scale,
                         unit, ns.back() * scale, unit, ns.size());
}

// The TSC bracket of reading the RX stamps' clock (NicClock::Sample):
// rte_eth_read_clock for a NIC, clock_gettime for the XDP program's stamps.
void CheckClockBracket(NicClock* nic) {
  std::vector<double> widths;
  for (int i = 0; i < kClockReads; ++i) {
    absl::StatusOr<NicTscSample> s = nic->Sample();
    if (!s.ok()) {
      Line("rx_clock_error", std::string(s.status().message()));
      break;
    }
    widths.push_back(TscToNs(s->tsc_after - s->tsc_before));
  }
  Line("rx_clock", nic->name());
  Line("rx_clock_bracket", Spread(widths, "ns", 1));
}

// An L2 PTP Sync (two-step) from `mac` in domain kCheckDomain.
void WriteSync(uint8_t* f, const rte_ether_addr& mac, uint16_t seq) {
  static constexpr uint8_t kDst[] = {0x01, 0x1b, 0x19, 0x00, 0x00, 0x00};
  std::memset(f, 0, 14 + 44);
  std::memcpy(f, kDst, 6);
  std::memcpy(f + 6, mac.addr_bytes, 6);
  f[12] = 0x88;
  f[13] = 0xf7;
  uint8_t* p = f + 14;
  p[0] = 0x00;  // transportSpecific 0, messageType Sync
  p[1] = 0x02;  // versionPTP 2
  p[3] = 44;    // messageLength
  p[4] = kCheckDomain;
  p[6] = 0x02;                             // twoStepFlag
  std::memcpy(p + 20, mac.addr_bytes, 3);  // clockIdentity: EUI-64 of mac
  p[23] = 0xff;
  p[24] = 0xfe;
  std::memcpy(p + 25, mac.addr_bytes + 3, 3);
  p[29] = 1;  // portNumber 1
  p[30] = static_cast<uint8_t>(seq >> 8);
  p[31] = static_cast<uint8_t>(seq);
}

// Sends one stamped Sync and waits for its stamp; the latency in TSC ticks,
// -1 on timeout, -2 when tx_burst refused it.
int64_t OneTxStamp(const Port& port, rte_mempool* pool, uint16_t seq) {
  rte_mbuf* m = rte_pktmbuf_alloc(pool);
  if (m == nullptr) return -2;
  char* f = rte_pktmbuf_append(m, 14 + 44);
  if (f == nullptr) {
    rte_pktmbuf_free(m);
    return -2;
  }
  WriteSync(reinterpret_cast<uint8_t*>(f), port.mac(), seq);
  m->ol_flags |= RTE_MBUF_F_TX_IEEE1588_TMST;
  timespec ts{};
  (void)rte_eth_timesync_read_tx_timestamp(port.id(), &ts);  // clear latch
  if (rte_eth_tx_burst(port.id(), 0, &m, 1) != 1) {
    rte_pktmbuf_free(m);
    return -2;
  }
  const uint64_t sent = core::ReadTscOrdered();
  const uint64_t limit =
      sent + static_cast<uint64_t>(kTxStampTimeoutUs * 1e-6 *
                                   static_cast<double>(rte_get_tsc_hz()));
  for (uint64_t now = sent; now < limit; now = core::ReadTscOrdered()) {
    if (rte_eth_timesync_read_tx_timestamp(port.id(), &ts) == 0) {
      return static_cast<int64_t>(core::ReadTscOrdered() - sent);
    }
    rte_delay_us_block(1);
  }
  return -1;
}

int CheckTxStamps(const Port& port, MbufPools* pools) {
  absl::StatusOr<rte_mempool*> pool =
      pools->ForSocket(rte_eth_dev_socket_id(port.id()));
  if (!pool.ok()) {
    LogError(pool.status().message());
    return kExitPort;
  }
  std::vector<double> latencies;
  int timeouts = 0, refused = 0;
  for (uint16_t i = 0; i < kTxFrames; ++i) {
    const int64_t t = OneTxStamp(port, *pool, i);
    if (t == -1) ++timeouts;
    if (t == -2) ++refused;
    if (t >= 0) latencies.push_back(TscToNs(static_cast<uint64_t>(t)));
  }
  Line("tx_stamp_latency", Spread(latencies, "us", 1e-3));
  Line("tx_stamp_timeouts",
       absl::StrCat(timeouts, " of ", kTxFrames, " (no stamp within ",
                    kTxStampTimeoutUs / 1000, " ms)"));
  if (refused != 0) Line("tx_stamp_refused", absl::StrCat(refused));
  return kExitOk;
}

}  // namespace

int RunNicCheck(const Port& port, const PortStamps& stamps, MbufPools* pools) {
  const PortStampCaps& c = stamps.caps();
  const StampPlan& plan = stamps.plan();
  Line("port", absl::StrCat(port.id(), " (", port.name(), ")"));
  Line("driver", c.driver);
  Line("rx_dynfield", YesNo(c.rx_dynfield));
  Line("read_clock", YesNo(c.read_clock));
  Line("timesync", YesNo(c.timesync));
  Line("timesync_one_latch", YesNo(c.timesync && c.timesync_one_latch));
  Line("send_on_timestamp", YesNo(c.send_on_timestamp));
  Line("af_xdp", YesNo(c.af_xdp));
  Line("xdp_rx_metadata", YesNo(c.xdp_rx_metadata));
  Line("plan", StampPlanString(plan));
  Line("ntp_rx", RxStampSourceName(plan.ntp_rx));
  Line("ntp_tx", TxStampSourceName(plan.ntp_tx));
  Line("ptp_rx", RxStampSourceName(plan.ptp_rx));
  Line("ptp_tx", TxStampSourceName(plan.ptp_tx));
  Line("ntp_one_clock", YesNo(plan.ntp_one_clock));
  if (stamps.nic() != nullptr) {
    CheckClockBracket(stamps.nic());
  } else {
    Line("rx_clock", "tsc");
    Line("rx_clock_bracket", "n/a (RX stamps are TSC reads)");
  }
  int rc = kExitOk;
  if (c.timesync) {
    rc = CheckTxStamps(port, pools);
  } else {
    Line("tx_stamp_latency",
         "n/a (no timesync: give --timesync on a port whose PMD has it)");
  }
  std::fflush(stdout);
  return rc;
}

}  // namespace zg::dataplane
