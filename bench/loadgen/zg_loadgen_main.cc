// SPDX-License-Identifier: Apache-2.0
// zg-loadgen: zeitgeber's NTP/PTP load generator, a DPDK application.
//
//   zg-loadgen [EAL options] -- --target=IP[:port] --rate=PPS|max
//       --duration=10s --clients=N [--mix=ntp4:90,ptp:10] [--sweep]
//       [--json=FILE]
//   zg-loadgen -l 0-1 --vdev=net_memif0,role=client,socket=/tmp/zg.sock --
//       --target=10.99.0.1 --rate=1M --duration=10s --clients=1000
//
// The EAL's main lcore re-anchors the clock and prints progress; every other
// lcore is a lane (one RX/TX queue pair of --port) sending the requests of
// its share of the clients. See doc/performance.md for the rigs.
//
// Exit codes: 0 the run completed (whatever the loss); 1 invalid flags;
// 2 EAL initialisation failed; 3 port, link or target resolution failed
// (an unreachable target ends here, after --arp_timeout); 4 the run failed.
#include <rte_ethdev.h>
#include <rte_lcore.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "bench/loadgen/config.h"
#include "bench/loadgen/dpdk_lane.h"
#include "bench/loadgen/generator_clock.h"
#include "bench/loadgen/lane_network.h"
#include "bench/loadgen/nts_credentials.h"
#include "bench/loadgen/report.h"
#include "bench/loadgen/sweep.h"
#include "bench/loadgen/target_resolver.h"
#include "bench/loadgen/trial_runner.h"
#include "core/base/status_macros.h"
#include "dataplane/daemon/command_line.h"
#include "dataplane/daemon/flags/nts.h"
#include "dataplane/daemon/log.h"
#include "dataplane/port/eal.h"
#include "dataplane/port/mempools.h"
#include "dataplane/port/port.h"
#include "dataplane/worker/worker.h"
#include "servo/clock/system_time.h"
#include "servo/clock/tsc_clock.h"

using zg::bench::Rate;
using zg::bench::Target;
using zg::bench::TrafficMix;

ABSL_FLAG(Target, target, Target{},
          "The server: IPv4 or IPv6 address, optionally with the NTP port "
          "(10.99.0.1, 10.99.0.1:123, [fd99::1]:123). Required.");
ABSL_FLAG(std::string, target_mac, "",
          "The server's MAC address; empty: resolve it with ARP (IPv4).");
ABSL_FLAG(std::string, source_mac, "",
          "Our frames' source MAC; empty: the port's (a MAC-less vdev such "
          "as net_ring gets a random one when the port is set up).");
ABSL_FLAG(Rate, rate, Rate{},
          "Requests per second from all lanes together (250000, 1.5M), or "
          "'max'. With --sweep: the first trial's rate.");
ABSL_FLAG(absl::Duration, duration, absl::Seconds(10),
          "How long to send (each sweep trial: --sweep_trial).");
ABSL_FLAG(uint64_t, count, 0,
          "Stop after this many requests in all (0: --duration only).");
ABSL_FLAG(uint32_t, clients, 256, "Simulated clients.");
ABSL_FLAG(std::string, source_ip, "",
          "First client address; empty: the target's address + 1.");
ABSL_FLAG(uint32_t, source_addresses, 1,
          "Client addresses (consecutive from --source_ip); clients are "
          "spread over them first, then over source ports.");
ABSL_FLAG(uint32_t, source_port, 10000, "First client UDP port (NTP).");
ABSL_FLAG(TrafficMix, mix, TrafficMix{},
          "What clients send: ntp4, ntp3, ptp (Delay_Req), weighted: "
          "ntp4:90,ptp:10.");
ABSL_FLAG(absl::Duration, timeout, absl::Milliseconds(200),
          "A reply later than this after its request counts as late.");
ABSL_FLAG(uint32_t, burst, 32, "Requests per tx_burst at most.");
ABSL_FLAG(bool, reflector, false,
          "The target is a packet reflector (dpdk-testpmd "
          "--forward-mode=5tswap): count its echoes of our requests as "
          "answers. The baseline zeitgeberd is compared with.");
ABSL_FLAG(bool, sweep, false,
          "Search the highest rate with loss <= --sweep_loss (RFC 2544 "
          "no-drop rate).");
ABSL_FLAG(absl::Duration, sweep_trial, absl::Seconds(2),
          "Sending time of each sweep trial.");
ABSL_FLAG(double, sweep_loss, 1e-4,
          "Loss a sweep trial may have and pass (0.0001 = 0.01 %).");
ABSL_FLAG(double, sweep_resolution, 0.01,
          "Stop the sweep when the bounds are this close (fraction).");
ABSL_FLAG(double, sweep_min_rate, 1000, "Give the sweep up below this rate.");
ABSL_FLAG(uint32_t, sweep_max_trials, 20, "Sweep trials at most.");
ABSL_FLAG(std::string, json, "", "Write the summary as JSON to this file.");
ABSL_FLAG(absl::Duration, arp_timeout, absl::Seconds(3),
          "How long to wait for the link and the target's ARP reply.");
// NTS clients (--mix=nts...): keys and cookies from one of two sources.
// --nts_master_key and --nts_key_period are zeitgeberd's own flags
// (dataplane/daemon/flags/nts.h, linked in with the data plane): here
// --nts_master_key is a TEST HARNESS standing in for NTS-KE, the generator
// minting its own cookies with the servers' master key.
ABSL_FLAG(uint32_t, nts_associations, 64,
          "NTS associations (key pairs and cookies) per lane with "
          "--nts_master_key; clients share them round-robin.");
ABSL_FLAG(std::string, nts_ke, "",
          "Get NTS keys and 8 cookies from one NTS-KE handshake with this "
          "IP[:port] (default port 4460); the cookies are spread over the "
          "clients.");
ABSL_FLAG(std::string, nts_ke_ca, "",
          "PEM trust anchors for --nts_ke (default: the system's).");
ABSL_FLAG(std::string, nts_ke_name, "",
          "The name the --nts_ke server's certificate must carry (and SNI); "
          "default: its address.");
ABSL_FLAG(uint32_t, nts_verify_every, 16,
          "Check every N-th NTS reply in full (authenticator, cookies); 1: "
          "all; 0: none (only the NTP header).");
// Unicast PTP subscribers (--mix=ptp_unicast): bench/loadgen/ptp_subscribers.h.
// Not --ptp_*: zeitgeberd's own --ptp_* flags are linked in with the data
// plane.
ABSL_FLAG(uint32_t, ptp_subscribers, 0,
          "--mix=ptp_unicast: unicast PTP subscribers (G.8275.2 slaves), "
          "each on its own address from --source_ip (--clients and "
          "--source_addresses follow this), sending from ports 319/320.");
ABSL_FLAG(int, subscriber_domain, 44,
          "--mix=ptp_unicast: the subscribers' domainNumber (G.8275.2: 44).");
ABSL_FLAG(int, subscriber_log_announce, 0,
          "--mix=ptp_unicast: Announce logInterMessagePeriod asked (log2 s; "
          "G.8275.2: -3..0).");
ABSL_FLAG(int, subscriber_log_sync, 0,
          "--mix=ptp_unicast: Sync logInterMessagePeriod asked (log2 s; "
          "G.8275.2: -7..0, its default -4).");
ABSL_FLAG(int, subscriber_log_delay_req, 0,
          "--mix=ptp_unicast: Delay_Resp logInterMessagePeriod asked; "
          "Delay_Reqs go at the granted one (G.8275.2: -7..0, default -4).");
ABSL_FLAG(absl::Duration, subscriber_grant_duration, absl::Seconds(300),
          "--mix=ptp_unicast: durationField asked (G.8275.2: 60..1000 s); "
          "grants are renewed at half their duration.");
ABSL_FLAG(absl::Duration, subscriber_ramp, absl::Seconds(1),
          "--mix=ptp_unicast: the subscribers' first REQUESTs are spread "
          "over this.");
ABSL_FLAG(std::string, port, "0",
          "DPDK port: id or name (net_memif0, net_af_xdp0, 0000:3b:00.0).");
ABSL_FLAG(uint32_t, vlan, 0, "802.1Q VLAN id of our frames (0: untagged).");
ABSL_FLAG(uint32_t, rx_desc, 1024, "RX descriptors per queue.");
ABSL_FLAG(uint32_t, tx_desc, 1024, "TX descriptors per queue.");
ABSL_FLAG(bool, progress, true, "Print a progress line every second.");
ABSL_FLAG(absl::Duration, linger, absl::ZeroDuration(),
          "After the summary (and --json) is written, keep the port open this "
          "long or until SIGINT/SIGTERM, so that a rig can stop the server "
          "before its peer leaves (DPDK 22.11's net_memif can crash a server "
          "whose worker polls while its client disconnects).");

namespace zg::bench {
namespace {

using dataplane::LogError;
using dataplane::LogInfo;

enum ExitCode : int {
  kExitOk = 0,
  kExitFlags = 1,
  kExitEal = 2,
  kExitPort = 3,
  kExitRun = 4,
};

// Written by: the signal handler. Read by: the lanes and the main lcore.
std::atomic<bool> g_abort{false};
static_assert(std::atomic<bool>::is_always_lock_free);
void OnSignal(int) { g_abort.store(true, std::memory_order_relaxed); }

// After the run: returns when `d` has passed or a signal arrived (also one
// that arrived during the run).
void Linger(absl::Duration d) {
  const absl::Time end = absl::Now() + d;
  while (!g_abort.load(std::memory_order_relaxed) && absl::Now() < end) {
    absl::SleepFor(absl::Milliseconds(10));
  }
}

LoadgenOptions OptionsFromFlags() {
  LoadgenOptions o;
  o.target = absl::GetFlag(FLAGS_target);
  o.target_mac = absl::GetFlag(FLAGS_target_mac);
  o.rate = absl::GetFlag(FLAGS_rate);
  o.duration = absl::GetFlag(FLAGS_duration);
  o.count = absl::GetFlag(FLAGS_count);
  o.clients = absl::GetFlag(FLAGS_clients);
  o.source_ip = absl::GetFlag(FLAGS_source_ip);
  o.source_addresses = absl::GetFlag(FLAGS_source_addresses);
  o.source_port = absl::GetFlag(FLAGS_source_port);
  o.mix = absl::GetFlag(FLAGS_mix);
  o.timeout = absl::GetFlag(FLAGS_timeout);
  o.burst = absl::GetFlag(FLAGS_burst);
  o.sweep = absl::GetFlag(FLAGS_sweep);
  o.sweep_trial = absl::GetFlag(FLAGS_sweep_trial);
  o.sweep_loss = absl::GetFlag(FLAGS_sweep_loss);
  o.sweep_resolution = absl::GetFlag(FLAGS_sweep_resolution);
  o.sweep_min_rate = absl::GetFlag(FLAGS_sweep_min_rate);
  o.sweep_max_trials = absl::GetFlag(FLAGS_sweep_max_trials);
  o.json = absl::GetFlag(FLAGS_json);
  o.arp_timeout = absl::GetFlag(FLAGS_arp_timeout);
  if (o.mix.ptp_unicast && absl::GetFlag(FLAGS_ptp_subscribers) > 0) {
    // One address per subscriber: the server sends Sync, Follow_Up and
    // Announce to the subscriber's address at port 319/320.
    o.clients = absl::GetFlag(FLAGS_ptp_subscribers);
    o.source_addresses = o.clients;
  }
  return o;
}

absl::StatusOr<NtsCredentialOptions> NtsOptionsFromFlags() {
  NtsCredentialOptions n;
  n.master_key_file = absl::GetFlag(FLAGS_nts_master_key);
  ZG_ASSIGN_OR_RETURN(n.key_period_s, dataplane::ParseNtsKeyPeriod(
                                          absl::GetFlag(FLAGS_nts_key_period)));
  n.associations = absl::GetFlag(FLAGS_nts_associations);
  n.ke = absl::GetFlag(FLAGS_nts_ke);
  n.ke_ca = absl::GetFlag(FLAGS_nts_ke_ca);
  n.ke_name = absl::GetFlag(FLAGS_nts_ke_name);
  n.verify_every = absl::GetFlag(FLAGS_nts_verify_every);
  return n;
}

// Everything a run needs, in teardown order (reversed).
struct Generator {
  std::unique_ptr<dataplane::Eal> eal;
  std::vector<unsigned> lcores;
  std::unique_ptr<dataplane::MbufPools> pools;
  std::unique_ptr<dataplane::Port> port;
  rte_mempool* pool = nullptr;
  std::unique_ptr<servo::TscClock> tsc;
  std::unique_ptr<GeneratorClock> clock;
  LaneNetwork net;
  std::vector<std::unique_ptr<DpdkLane>> lanes;
  std::unique_ptr<TrialRunner> runner;
  std::string nts_credentials;  // "master_key" / "nts_ke" with --mix=nts
};

absl::Status OpenPort(Generator& g) {
  const uint16_t queues = static_cast<uint16_t>(g.lcores.size());
  const uint32_t per_queue = absl::GetFlag(FLAGS_rx_desc) +
                             absl::GetFlag(FLAGS_tx_desc) + 2 * kMaxBurst +
                             DpdkLane::kRxBurst;
  uint32_t mbufs = 8191;
  while (mbufs < per_queue * queues + dataplane::kMbufCacheSize * (queues + 1))
    mbufs = mbufs * 2 + 1;
  g.pools = std::make_unique<dataplane::MbufPools>(mbufs);
  dataplane::PortOptions po;
  po.name = absl::GetFlag(FLAGS_port);
  po.num_queues = queues;
  po.rx_desc = static_cast<uint16_t>(absl::GetFlag(FLAGS_rx_desc));
  po.tx_desc = static_cast<uint16_t>(absl::GetFlag(FLAGS_tx_desc));
  po.rx_timestamp = false;  // the generator stamps with the TSC
  po.tx_checksum_offload = false;
  for (unsigned lcore : g.lcores) {
    po.queue_sockets.push_back(static_cast<int>(rte_lcore_to_socket_id(lcore)));
  }
  ZG_ASSIGN_OR_RETURN(g.port, dataplane::Port::Open(po, g.pools.get()));
  ZG_RETURN_IF_ERROR(g.port->Start());
  LogInfo(g.port->Describe());
  ZG_ASSIGN_OR_RETURN(g.pool, g.pools->ForSocket(SOCKET_ID_ANY));
  return WaitForLink(g.port->id(), g.port->name(),
                     absl::GetFlag(FLAGS_arp_timeout));
}

absl::Status SetUpNetwork(Generator& g, const LoadgenOptions& o) {
  core::MacAddr mac;
  std::memcpy(mac.b.data(), g.port->mac().addr_bytes, 6);
  if (const std::string text = absl::GetFlag(FLAGS_source_mac); !text.empty()) {
    absl::StatusOr<core::MacAddr> m = core::ParseMacAddr(text);
    if (!m.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--source_mac=", text, ": ", m.status().message()));
    }
    mac = *m;
  } else if (mac.IsZero()) {
    return absl::InvalidArgumentError(
        absl::StrCat("port ", g.port->name(),
                     " has no MAC address: give one with "
                     "--source_mac=02:xx:xx:xx:xx:xx"));
  }
  ZG_ASSIGN_OR_RETURN(
      g.net, BuildLaneNetwork(
                 o, mac, static_cast<uint16_t>(absl::GetFlag(FLAGS_vlan))));
  ZG_ASSIGN_OR_RETURN(g.net.rx_tsc_offset, RegisterRxTscField());
  if (!o.target_mac.empty()) {
    absl::StatusOr<core::MacAddr> m = core::ParseMacAddr(o.target_mac);
    if (!m.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--target_mac=", o.target_mac, ": ", m.status().message()));
    }
    g.net.dst_mac = *m;
    return absl::OkStatus();
  }
  ZG_ASSIGN_OR_RETURN(g.net.dst_mac,
                      ResolveTargetMac(g.port->id(), g.port->num_queues(),
                                       g.pool, g.net, o.arp_timeout));
  LogInfo(absl::StrCat("target ", g.net.target.ToString(), " is at ",
                       g.net.dst_mac.ToString()));
  return absl::OkStatus();
}

absl::Status SetUpClock(Generator& g) {
  ZG_ASSIGN_OR_RETURN(g.tsc, servo::TscClock::Create());
  ZG_ASSIGN_OR_RETURN(
      g.clock,
      GeneratorClock::Create(g.tsc.get(), &servo::RealSystemClockOps(), {}));
  LogInfo(
      absl::StrCat("clock: TSC ", static_cast<uint64_t>(g.clock->hz()),
                   " Hz, CLOCK_REALTIME anchor +-",
                   static_cast<int64_t>(g.clock->anchor_half_width_ns()),
                   " ns, TAI-UTC ", g.clock->tai_minus_utc_s(), " s",
                   g.clock->tai_from_kernel() ? " (kernel)" : " (assumed)"));
  return absl::OkStatus();
}

absl::Status SetUpLanes(Generator& g, const LoadgenOptions& o) {
  const uint32_t n = static_cast<uint32_t>(g.lcores.size());
  ZG_ASSIGN_OR_RETURN(
      ClientSpace space,
      ClientSpace::Create({.clients = o.clients,
                           .addresses = o.source_addresses,
                           .first_port = static_cast<uint16_t>(o.source_port),
                           .lanes = n}));
  std::shared_ptr<const NtsClientSetup> nts;
  if (o.mix.Has(TrafficKind::kNts)) {
    ZG_ASSIGN_OR_RETURN(NtsCredentialOptions nts_options,
                        NtsOptionsFromFlags());
    ZG_ASSIGN_OR_RETURN(nts,
                        MakeNtsClientSetup(nts_options, &g.nts_credentials));
    LogInfo(absl::StrCat("nts: ", nts->credentials.size(),
                         " association(s) from ", g.nts_credentials));
  }
  std::vector<LaneSlot> slots;
  for (uint32_t i = 0; i < n; ++i) {
    g.lanes.push_back(
        std::make_unique<DpdkLane>(i, g.port->queue(static_cast<uint16_t>(i)),
                                   g.pool, &g.net, &g.clock->published()));
    slots.push_back({g.lanes.back().get(), g.lcores[i]});
  }
  ZG_ASSIGN_OR_RETURN(
      g.runner,
      TrialRunner::Create(
          {.space = space,
           .mix = o.mix,
           .ntp_port = o.target.port,
           .timeout = o.timeout,
           .burst = o.burst,
           .reflector = absl::GetFlag(FLAGS_reflector),
           .nts = nts,
           .progress = absl::GetFlag(FLAGS_progress) ? stderr : nullptr},
          std::move(slots), g.clock.get()));
  return absl::OkStatus();
}

NamedCounts GeneratorCounts(const LaneFrameStats& f) {
  NamedCounts out;
  const std::pair<const char*, uint64_t> all[] = {
      {"tx_ring_full", f.tx_ring_full}, {"tx_unsent", f.tx_unsent},
      {"alloc_failed", f.alloc_failed}, {"l2_answered", f.l2_answered},
      {"handed_off", f.handed_off},     {"handoff_dropped", f.handoff_dropped}};
  for (const auto& [name, n] : all) {
    if (n != 0) out.emplace_back(name, n);
  }
  for (size_t i = 0; i < f.drops.size(); ++i) {
    if (f.drops[i] != 0) {
      out.emplace_back(
          absl::StrCat("ignored_",
                       core::FrameDropName(static_cast<core::FrameDrop>(i))),
          f.drops[i]);
    }
  }
  return out;
}

RunSummary MakeSummary(const LoadgenOptions& o, uint32_t lanes,
                       const TrialOutcome& t) {
  RunSummary s;
  s.target = AbslUnparseFlag(o.target);
  s.mix = AbslUnparseFlag(o.mix);
  s.offered_pps = t.offered_pps;
  s.lanes = lanes;
  s.clients = o.clients;
  s.timeout_s = absl::ToDoubleSeconds(o.timeout);
  s.reflector = absl::GetFlag(FLAGS_reflector);
  s.sending_s = t.sending_s;
  s.counts = t.measurements.counts;
  s.invalid = t.measurements.DefectNames();
  s.kod_codes = t.measurements.KissNames();
  s.generator = GeneratorCounts(t.frames);
  s.rtt_ns = Summarize(t.measurements.rtt_ns);
  s.residence_ns = Summarize(t.measurements.residence_ns);
  s.offset_ns = Summarize(t.measurements.offset_ns);
  s.nts = t.measurements.nts;
  return s;
}

absl::StatusOr<RunSummary> RunPlain(Generator& g, const LoadgenOptions& o) {
  ZG_ASSIGN_OR_RETURN(TrialOutcome t, g.runner->Run({.rate_pps = o.rate.pps,
                                                     .duration = o.duration,
                                                     .count = o.count},
                                                    &g_abort));
  return MakeSummary(o, static_cast<uint32_t>(g.lanes.size()), t);
}

absl::StatusOr<RunSummary> RunSweep(Generator& g, const LoadgenOptions& o) {
  const SweepConfig config{.max_rate_pps = o.rate.pps,
                           .min_rate_pps = o.sweep_min_rate,
                           .loss_threshold = o.sweep_loss,
                           .resolution = o.sweep_resolution,
                           .max_trials = o.sweep_max_trials};
  ZG_RETURN_IF_ERROR(ValidateSweepConfig(config));
  absl::Status error;
  std::optional<TrialOutcome> best;
  const SweepResult result = FindNoDropRate(config, [&](double pps) {
    if (!error.ok() || g_abort.load()) return TrialResult{pps, 0, 0, 0};
    absl::StatusOr<TrialOutcome> t = g.runner->Run(
        {.rate_pps = pps, .duration = o.sweep_trial, .count = o.count},
        &g_abort);
    if (!t.ok()) {
      error = t.status();
      return TrialResult{pps, 0, 0, 0};
    }
    const TrialResult r = t->AsTrialResult();
    std::fprintf(stderr,
                 "sweep trial: offered %s achieved %s loss %.4f %% %s\n",
                 pps == 0 ? "max" : FormatRate(pps).c_str(),
                 FormatRate(r.achieved_pps).c_str(), r.Loss() * 100,
                 TrialPasses(r, o.sweep_loss) ? "pass" : "FAIL");
    if (TrialPasses(r, o.sweep_loss) &&
        (!best.has_value() ||
         r.achieved_pps > best->AsTrialResult().achieved_pps)) {
      best = *std::move(t);
    }
    return r;
  });
  ZG_RETURN_IF_ERROR(error);
  RunSummary s;
  if (best.has_value()) {
    s = MakeSummary(o, static_cast<uint32_t>(g.lanes.size()), *best);
  } else {
    s.target = AbslUnparseFlag(o.target);
    s.mix = AbslUnparseFlag(o.mix);
    s.lanes = static_cast<uint32_t>(g.lanes.size());
    s.clients = o.clients;
    s.timeout_s = absl::ToDoubleSeconds(o.timeout);
    s.reflector = absl::GetFlag(FLAGS_reflector);
  }
  s.sweep = result;
  s.sweep_loss_threshold = o.sweep_loss;
  return s;
}

absl::StatusOr<RunSummary> RunPtpUnicast(Generator& g,
                                         const LoadgenOptions& o) {
  PtpSubscriberConfig c;
  c.subscribers = absl::GetFlag(FLAGS_ptp_subscribers);
  c.domain = static_cast<uint8_t>(absl::GetFlag(FLAGS_subscriber_domain));
  c.log_interval = {
      static_cast<int8_t>(absl::GetFlag(FLAGS_subscriber_log_announce)),
      static_cast<int8_t>(absl::GetFlag(FLAGS_subscriber_log_sync)),
      static_cast<int8_t>(absl::GetFlag(FLAGS_subscriber_log_delay_req))};
  c.duration_s = static_cast<uint32_t>(
      absl::ToInt64Seconds(absl::GetFlag(FLAGS_subscriber_grant_duration)));
  const double hz = g.clock->hz();
  c.spread_ticks = static_cast<uint64_t>(
      absl::ToDoubleSeconds(absl::GetFlag(FLAGS_subscriber_ramp)) * hz);
  c.reply_timeout_ticks = static_cast<uint64_t>(
      std::max(absl::ToDoubleSeconds(o.timeout), 0.001) * hz);
  c.retry_ticks = static_cast<uint64_t>(hz);  // 1 s after a refusal
  LaneFrameStats frames;
  ZG_ASSIGN_OR_RETURN(
      PtpSubscriberSummary p,
      g.runner->RunPtpSubscribers(c, o.duration, &g_abort, &frames));
  RunSummary s;
  s.target = AbslUnparseFlag(o.target);
  s.mix = AbslUnparseFlag(o.mix);
  s.lanes = static_cast<uint32_t>(g.lanes.size());
  s.clients = c.subscribers;
  s.timeout_s = absl::ToDoubleSeconds(o.timeout);
  s.sending_s = p.duration_s;
  s.counts.sent = p.counts.delay_reqs;
  s.counts.answered = p.counts.delay_resps_answered;
  s.counts.lost = p.counts.delay_reqs_unanswered;
  s.generator = GeneratorCounts(frames);
  s.ptp_unicast = std::move(p);
  return s;
}

const dataplane::ProgramHelp& LoadgenHelp() {
  static const dataplane::ProgramHelp* const help = new dataplane::ProgramHelp{
      .program = "zg-loadgen",
      .synopsis =
          "zg-loadgen: zeitgeber's NTP/PTP load generator.\n"
          "\n"
          "Usage: zg-loadgen [EAL options] -- --target=IP[:port] "
          "--rate=PPS|max --duration=10s --clients=N ...\n"
          "  zg-loadgen -l 0-1 "
          "--vdev=net_memif0,role=client,socket=/tmp/zg.sock "
          "-- --target=10.99.0.1 --rate=1M\n"
          "\n"
          "EAL options: `zg-loadgen --help`. Rigs: doc/performance.md; `man "
          "zg-loadgen` says more.",
      .groups =
          {
              {.title = "Target and port",
               .flags = {"arp_timeout", "port", "reflector", "rx_desc",
                         "source_mac", "target", "target_mac", "tx_desc",
                         "vlan"}},
              {.title = "Traffic",
               .flags = {"burst", "clients", "count", "duration", "linger",
                         "mix", "rate", "source_addresses", "source_ip",
                         "source_port", "timeout"}},
              {.title = "Sweep: the highest rate without loss",
               .flags = {"sweep", "sweep_loss", "sweep_max_trials",
                         "sweep_min_rate", "sweep_resolution", "sweep_trial"}},
              // --nts_master_key and --nts_key_period are zeitgeberd's
              // (dataplane/daemon/flags/nts.cc), linked in with the data plane.
              {.title = "NTS clients (--mix=nts)",
               .flags = {"nts_associations", "nts_ke", "nts_ke_ca",
                         "nts_ke_name", "nts_key_period", "nts_master_key",
                         "nts_verify_every"}},
              {.title = "PTP unicast subscribers (--mix=ptp_unicast)",
               .flags = {"ptp_subscribers", "subscriber_domain",
                         "subscriber_grant_duration", "subscriber_log_announce",
                         "subscriber_log_delay_req", "subscriber_log_sync",
                         "subscriber_ramp"}},
              {.title = "Output", .flags = {"json", "progress"}},
              dataplane::HelpFlagGroup(),
          },
  };
  return *help;
}

int Main(int argc, char** argv) {
  dataplane::SplitArgs split = dataplane::SplitArgs::At(argc, argv);
  if (dataplane::VersionRequested(split.eal)) {
    dataplane::PrintVersion(LoadgenHelp());
    return 0;
  }
  std::vector<char*>& eal_args = split.eal;
  const std::vector<char*> positional =
      dataplane::ParseProgramFlags(split.app, LoadgenHelp());
  if (positional.size() > 1) {
    LogError(absl::StrCat("unexpected argument '", positional[1],
                          "': zg-loadgen takes flags only (after --)"));
    return kExitFlags;
  }
  const LoadgenOptions o = OptionsFromFlags();
  if (o.mix.ptp_unicast != (absl::GetFlag(FLAGS_ptp_subscribers) > 0)) {
    LogError("--mix=ptp_unicast and --ptp_subscribers=N (N >= 1) go together");
    return kExitFlags;
  }
  // What can be checked before the EAL starts (lanes unknown: assume one).
  if (absl::Status s = ValidateOptions(o, 1); !s.ok()) {
    LogError(s.message());
    return kExitFlags;
  }
  if (o.mix.Has(TrafficKind::kNts) &&
      absl::GetFlag(FLAGS_nts_master_key).empty() ==
          absl::GetFlag(FLAGS_nts_ke).empty()) {
    LogError(
        "--mix=nts needs exactly one of --nts_master_key=FILE (test harness: "
        "cookies minted from the servers' master key) and --nts_ke=IP:PORT "
        "(one NTS-KE handshake)");
    return kExitFlags;
  }
  Generator g;
  absl::StatusOr<std::unique_ptr<dataplane::Eal>> eal =
      dataplane::Eal::Init(static_cast<int>(eal_args.size()), eal_args.data());
  if (!eal.ok()) {
    LogError(eal.status().message());
    return kExitEal;
  }
  g.eal = *std::move(eal);
  g.lcores = dataplane::WorkerLcores();
  if (absl::Status s =
          ValidateOptions(o, static_cast<uint32_t>(g.lcores.size()));
      !s.ok()) {
    LogError(s.message());
    return g.lcores.empty() ? kExitEal : kExitFlags;  // EAL options' fault
  }
  if (absl::Status s = OpenPort(g); !s.ok()) {
    LogError(s.message());
    return kExitPort;
  }
  if (absl::Status s = SetUpNetwork(g, o); !s.ok()) {
    LogError(s.message());
    return s.code() == absl::StatusCode::kInvalidArgument ? kExitFlags
                                                          : kExitPort;
  }
  if (absl::Status s = SetUpClock(g); !s.ok()) {
    LogError(s.message());
    return kExitRun;
  }
  if (absl::Status s = SetUpLanes(g, o); !s.ok()) {
    LogError(s.message());
    return kExitRun;
  }
  std::signal(SIGINT, &OnSignal);
  std::signal(SIGTERM, &OnSignal);
  LogInfo(absl::StrCat("zg-loadgen: ", g.lanes.size(), " lane(s) on lcore(s) ",
                       absl::StrJoin(g.lcores, ","), ", ", o.clients,
                       " clients, target ", AbslUnparseFlag(o.target)));
  absl::StatusOr<RunSummary> summary = o.mix.ptp_unicast ? RunPtpUnicast(g, o)
                                       : o.sweep         ? RunSweep(g, o)
                                                         : RunPlain(g, o);
  if (!summary.ok()) {
    LogError(summary.status().message());
    return kExitRun;
  }
  summary->has_nts = o.mix.Has(TrafficKind::kNts);
  summary->nts_credentials = g.nts_credentials;
  std::fputs(FormatSummary(*summary).c_str(), stdout);
  std::fflush(stdout);
  if (!o.json.empty()) {
    if (absl::Status s = WriteJsonFile(o.json, *summary); !s.ok()) {
      LogError(s.message());
      return kExitRun;
    }
  }
  Linger(absl::GetFlag(FLAGS_linger));
  return kExitOk;
}

}  // namespace
}  // namespace zg::bench

int main(int argc, char** argv) { return zg::bench::Main(argc, argv); }
