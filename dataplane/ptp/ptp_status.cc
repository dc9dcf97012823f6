// SPDX-License-Identifier: Apache-2.0
// PtpPlugin::FillStatus: the PTP ports as zgctl's `ptp` shows them (one
// servo::PtpStatus each): state and BMCA decision from the control side's
// runtime, the grandmaster dataset it announces, and the workers' message
// and unicast-grant counters (single-writer, read here on the control
// thread as the metrics read them). PtpPlugin::QueryPtpSubscribers: `ptp
// subscribers`, gathered from every worker's subscriber export.
#include <arpa/inet.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/ptp/ptp_port_state.h"
#include "core/ptp/ptp_wire.h"
#include "core/time/tsc.h"
#include "dataplane/ptp/ptp_plugin.h"

namespace zg::dataplane {
namespace {

const char* TimeSourceName(core::PtpTimeSource s) {
  switch (s) {
    case core::PtpTimeSource::kAtomicClock:
      return "ATOMIC_CLOCK";
    case core::PtpTimeSource::kGnss:
      return "GNSS";
    case core::PtpTimeSource::kTerrestrialRadio:
      return "TERRESTRIAL_RADIO";
    case core::PtpTimeSource::kSerialTimeCode:
      return "SERIAL_TIME_CODE";
    case core::PtpTimeSource::kPtp:
      return "PTP";
    case core::PtpTimeSource::kNtp:
      return "NTP";
    case core::PtpTimeSource::kHandSet:
      return "HAND_SET";
    case core::PtpTimeSource::kOther:
      return "OTHER";
    case core::PtpTimeSource::kInternalOscillator:
      return "INTERNAL_OSCILLATOR";
  }
  return "?";
}

servo::PtpSubscriberStatus SubscriberStatus(const core::PtpSubscriberEntry& e,
                                            const std::string& port,
                                            unsigned worker) {
  servo::PtpSubscriberStatus s;
  s.port = port;
  const core::PtpUnicastAddress& a = e.key.address;
  char text[INET6_ADDRSTRLEN] = {};
  switch (a.transport) {
    case core::PtpUnicastTransport::kUdpIpv4:
      inet_ntop(AF_INET, a.octets.data(), text, sizeof(text));
      s.transport = "udp4";
      s.address = text;
      break;
    case core::PtpUnicastTransport::kUdpIpv6:
      inet_ntop(AF_INET6, a.octets.data(), text, sizeof(text));
      s.transport = "udp6";
      s.address = text;
      break;
    case core::PtpUnicastTransport::kL2:
    case core::PtpUnicastTransport::kNone:
      s.transport = "l2";
      s.address = absl::StrFormat("%02x:%02x:%02x:%02x:%02x:%02x", a.octets[0],
                                  a.octets[1], a.octets[2], a.octets[3],
                                  a.octets[4], a.octets[5]);
      break;
  }
  s.port_identity = absl::StrFormat(
      "%s-%u", PtpClockIdentityText(e.key.port_identity.clock_identity),
      e.key.port_identity.port_number);
  s.worker = worker;
  s.rate = e.rate;
  for (size_t g = 0; g < core::kPtpGrantTypeCount; ++g) {
    if (((e.granted >> g) & 1u) == 0) continue;
    s.grants.push_back({core::PtpMessageTypeName(core::PtpGrantMessageType(
                            static_cast<core::PtpGrantType>(g))),
                        e.log_interval[g], e.expires_in_s[g]});
  }
  return s;
}

}  // namespace

void PtpPlugin::FillStatus(std::vector<servo::PtpStatus>& status) const {
  status.resize(config_.enabled ? ports_.size() : 0);
  for (size_t i = 0; i < status.size(); ++i) {
    FillPortStatus(*ports_[i], status[i]);
  }
}

void PtpPlugin::FillPortStatus(const Port& port, servo::PtpStatus& p) const {
  p.enabled = true;
  const PtpPortRuntime& rt = *port.runtime;
  p.port = port.name;
  p.interface = port.interface;
  p.profile = core::PtpProfileName(config_.port.profile);
  p.domain = config_.port.domain_number;
  p.port_identity =
      absl::StrFormat("%s-%u", PtpClockIdentityText(rt.port().clock_identity),
                      rt.port().port_number);
  p.port_state = core::PtpPortStateName(rt.state());
  p.port_state_value = static_cast<int>(rt.state());
  p.decision = core::PtpDecisionCodeName(rt.code());
  p.state_changes = rt.state_changes();
  p.foreign_masters = rt.foreign_masters();
  const core::PtpGrandmasterView& gm = rt.gm();
  p.gm_identity = PtpClockIdentityText(gm.identity);
  p.priority1 = gm.priority1;
  p.priority2 = gm.priority2;
  p.clock_class = gm.quality.clock_class;
  p.clock_accuracy = gm.quality.clock_accuracy;
  p.offset_scaled_log_variance = gm.quality.offset_scaled_log_variance;
  const core::PtpTimePropertiesDataSet& tp = gm.time_properties;
  p.time_source = TimeSourceName(tp.time_source);
  p.current_utc_offset = tp.current_utc_offset;
  p.utc_offset_valid = tp.current_utc_offset_valid;
  p.ptp_timescale = tp.ptp_timescale;
  p.time_traceable = tp.time_traceable;
  p.frequency_traceable = tp.frequency_traceable;
  p.leap61 = tp.leap61;
  p.leap59 = tp.leap59;
  p.announces_received.clear();
  for (size_t i = 0; i < rt.announce_verdicts().size(); ++i) {
    p.announces_received.push_back(
        {core::PtpAnnounceVerdictName(static_cast<core::PtpAnnounceVerdict>(i)),
         rt.announce_verdicts()[i].Load()});
  }
  auto sum = [&](auto field) {
    uint64_t n = 0;
    for (const auto& w : port.stats) n += field(*w);
    return n;
  };
  p.messages_sent.clear();
  for (core::PtpMessageType t : kPtpSentMessageTypes) {
    const size_t i = static_cast<size_t>(t);
    p.messages_sent.push_back(
        {core::PtpMessageTypeName(t),
         sum([i](const PtpWorkerStats& w) { return w.sent[i].Load(); })});
  }
  p.grants.clear();
  for (size_t i = 0; i < core::kPtpGrantTypeCount; ++i) {
    p.grants.push_back(
        {core::PtpMessageTypeName(
             core::PtpGrantMessageType(static_cast<core::PtpGrantType>(i))),
         sum([i](const PtpWorkerStats& w) { return w.grants[i].Load(); }),
         sum([i](const PtpWorkerStats& w) { return w.renewals[i].Load(); }),
         sum([i](const PtpWorkerStats& w) { return w.cancels[i].Load(); }),
         sum([i](const PtpWorkerStats& w) { return w.expiries[i].Load(); })});
  }
  p.denials.clear();
  for (size_t i = 1; i < core::kPtpGrantDenialCount; ++i) {
    p.denials.push_back(
        {core::PtpGrantDenialName(static_cast<core::PtpGrantDenial>(i)),
         sum([i](const PtpWorkerStats& w) { return w.denials[i].Load(); })});
  }
  p.subscribers =
      sum([](const PtpWorkerStats& w) { return w.unicast_subscribers.Load(); });
  const double units = static_cast<double>(core::kPtpRateUnitsPerMessage);
  p.committed_rate = static_cast<double>(sum([](const PtpWorkerStats& w) {
                       return w.committed_units.Load();
                     })) /
                     units;
  p.tx_budget = static_cast<double>(sum([](const PtpWorkerStats& w) {
                  return w.budget_units.Load();
                })) /
                units;
}

bool PtpPlugin::QueryPtpSubscribers(
    uint32_t top, const PipelineFactory::PtpSubscribersDone& done) {
  if (!config_.enabled || ports_.empty()) return false;
  if (query_.has_value()) {
    done(absl::UnavailableError(
        "another subscriber query is running; try again in a second"));
    return true;
  }
  SubscriberQuery q{top, done, {}, core::ReadTsc()};
  for (const auto& p : ports_) {
    for (auto& e : p->exports) q.generations.push_back(e->Request(top));
  }
  query_ = std::move(q);
  return true;
}

void PtpPlugin::PollSubscriberQuery(uint64_t tsc, double tsc_hz) {
  if (!query_.has_value()) return;
  size_t i = 0;  // the export's index in query_->generations
  for (const auto& p : ports_) {
    for (size_t w = 0; w < p->exports.size(); ++w, ++i) {
      if (p->exports[w]->Done(query_->generations[i])) continue;
      const double waited_s =
          tsc_hz > 0 ? static_cast<double>(tsc - query_->started_tsc) / tsc_hz
                     : 0;
      if (waited_s < 5) return;
      query_->done(absl::DeadlineExceededError(absl::StrCat(
          "worker ", w, " has not walked its subscriber table of PTP port ",
          p->name,
          " in 5 s; is it stuck? (zgctl workers shows its last "
          "progress)")));
      query_.reset();
      return;
    }
  }
  servo::PtpSubscribers out;
  struct Found {
    const core::PtpSubscriberEntry* entry;
    const Port* port;
    unsigned worker;
  };
  std::vector<Found> all;
  for (const auto& p : ports_) {
    for (size_t w = 0; w < p->exports.size(); ++w) {
      out.total += p->exports[w]->total();
      for (const core::PtpSubscriberEntry& e : p->exports[w]->entries()) {
        all.push_back({&e, p.get(), static_cast<unsigned>(w)});
      }
    }
  }
  // The order each worker kept its share by.
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
    return core::PtpSubscriberBusier(*a.entry, *b.entry);
  });
  if (all.size() > query_->top) all.resize(query_->top);
  for (const Found& f : all) {
    out.top.push_back(SubscriberStatus(*f.entry, f.port->name, f.worker));
  }
  PipelineFactory::PtpSubscribersDone done = std::move(query_->done);
  query_.reset();
  done(std::move(out));
}

}  // namespace zg::dataplane
