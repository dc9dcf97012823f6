// SPDX-License-Identifier: Apache-2.0
#include "bench/loadgen/report.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"

namespace zg::bench {

RequestCounts& RequestCounts::operator+=(const RequestCounts& o) {
  sent += o.sent;
  answered += o.answered;
  kod += o.kod;
  bad_reply += o.bad_reply;
  late += o.late;
  lost += o.lost;
  in_flight += o.in_flight;
  duplicate += o.duplicate;
  unmatched += o.unmatched;
  skipped += o.skipped;
  return *this;
}

NtsCounts& NtsCounts::operator+=(const NtsCounts& o) {
  sent += o.sent;
  answered += o.answered;
  verified_ok += o.verified_ok;
  verified_bad += o.verified_bad;
  nak += o.nak;
  return *this;
}

double RequestCounts::Loss() const {
  if (sent == 0) return 0;
  if (answered >= sent) return 0;
  return static_cast<double>(sent - answered) / static_cast<double>(sent);
}

bool RequestCounts::Consistent() const {
  return sent == answered + kod + bad_reply + late + lost + in_flight;
}

Distribution Summarize(const LogHistogram& h) {
  auto v = [](uint64_t x) {
    return x > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX
                                                : static_cast<int64_t>(x);
  };
  return {h.count(),
          h.mean(),
          v(h.min()),
          v(h.Percentile(0.50)),
          v(h.Percentile(0.90)),
          v(h.Percentile(0.99)),
          v(h.Percentile(0.999)),
          v(h.max())};
}

Distribution Summarize(const SignedHistogram& h) {
  return {h.count(),
          h.mean(),
          h.min(),
          h.Percentile(0.50),
          h.Percentile(0.90),
          h.Percentile(0.99),
          h.Percentile(0.999),
          h.max()};
}

double RunSummary::AchievedPps() const {
  return sending_s > 0 ? counts.sent / sending_s : 0;
}
double RunSummary::AnsweredPps() const {
  return sending_s > 0 ? counts.answered / sending_s : 0;
}

std::string FormatRate(double pps) {
  if (pps >= 1e6) return absl::StrFormat("%.3f Mpps", pps / 1e6);
  if (pps >= 1e3) return absl::StrFormat("%.3f kpps", pps / 1e3);
  return absl::StrFormat("%.0f pps", pps);
}

std::string FormatNanos(double ns) {
  const double a = std::fabs(ns);
  if (a >= 1e9) return absl::StrFormat("%.3f s", ns / 1e9);
  if (a >= 1e6) return absl::StrFormat("%.3f ms", ns / 1e6);
  if (a >= 1e3) return absl::StrFormat("%.2f us", ns / 1e3);
  return absl::StrFormat("%.0f ns", ns);
}

namespace {

std::string DistributionLine(absl::string_view name, const Distribution& d) {
  if (d.count == 0) return absl::StrFormat("  %-11s no samples\n", name);
  return absl::StrFormat(
      "  %-11s p50 %s  p90 %s  p99 %s  p99.9 %s  max %s  (min %s, mean %s, "
      "n=%d)\n",
      name, FormatNanos(d.p50), FormatNanos(d.p90), FormatNanos(d.p99),
      FormatNanos(d.p999), FormatNanos(d.max), FormatNanos(d.min),
      FormatNanos(d.mean), d.count);
}

std::string NamedCountsText(const NamedCounts& counts) {
  return absl::StrJoin(counts, ", ", [](std::string* out, const auto& kv) {
    absl::StrAppend(out, kv.first, "=", kv.second);
  });
}

std::string SweepText(const SweepResult& sweep, double loss_threshold) {
  std::string out;
  if (sweep.found) {
    absl::StrAppend(&out, "  sweep: no-drop rate ",
                    FormatRate(sweep.no_drop_pps()),
                    absl::StrFormat(" (loss <= %.4f %%)", loss_threshold * 100),
                    sweep.generator_limited
                        ? "; the server kept up with the generator's maximum"
                        : "",
                    "\n");
  } else {
    absl::StrAppend(&out,
                    "  sweep: no rate passed (every trial lost more than ",
                    absl::StrFormat("%.4f %%", loss_threshold * 100), ")\n");
  }
  absl::StrAppend(&out,
                  "    trial  offered        achieved       sent        "
                  "loss\n");
  for (size_t i = 0; i < sweep.trials.size(); ++i) {
    const TrialResult& t = sweep.trials[i];
    absl::StrAppend(
        &out,
        absl::StrFormat(
            "    %5d  %-13s  %-13s  %-10d  %.4f %%%s\n", i + 1,
            t.offered_pps == 0 ? std::string("max") : FormatRate(t.offered_pps),
            FormatRate(t.achieved_pps), t.sent, t.Loss() * 100,
            TrialPasses(t, loss_threshold) ? "" : "  fail"));
  }
  return out;
}

}  // namespace

std::string FormatSummary(const RunSummary& s) {
  const RequestCounts& c = s.counts;
  std::string out = absl::StrFormat(
      "zg-loadgen summary: target %s, mix %s, %d lanes, %d clients, offered "
      "%s, timeout %s\n",
      s.target, s.mix, s.lanes, s.clients,
      s.offered_pps == 0 ? std::string("max") : FormatRate(s.offered_pps),
      FormatNanos(s.timeout_s * 1e9));
  if (s.reflector) {
    absl::StrAppend(&out,
                    "  (reflector mode: the target echoes requests; answered "
                    "= echoes, round trip only)\n");
  }
  if (s.ptp_unicast.has_value()) {
    if (!s.generator.empty()) {
      absl::StrAppend(&out, "  generator:  ", NamedCountsText(s.generator),
                      "\n");
    }
    absl::StrAppend(&out, FormatPtpSubscriberSummary(*s.ptp_unicast));
    return out;
  }
  absl::StrAppend(
      &out,
      absl::StrFormat("  sent        %d  (%s over %.3f s; %d skipped)\n",
                      c.sent, FormatRate(s.AchievedPps()), s.sending_s,
                      c.skipped),
      absl::StrFormat("  answered    %d  (%s)\n", c.answered,
                      FormatRate(s.AnsweredPps())),
      absl::StrFormat(
          "  loss        %.4f %%  (sent but not answered in time)\n",
          c.Loss() * 100),
      absl::StrFormat("  lost %d  late %d  kod %d  bad_reply %d  duplicate %d  "
                      "unmatched %d",
                      c.lost, c.late, c.kod, c.bad_reply, c.duplicate,
                      c.unmatched),
      c.in_flight > 0 ? absl::StrFormat("  in_flight %d", c.in_flight) : "",
      "\n");
  if (!s.invalid.empty()) {
    absl::StrAppend(&out, "  invalid:    ", NamedCountsText(s.invalid), "\n");
  }
  if (!s.kod_codes.empty()) {
    absl::StrAppend(&out, "  kod codes:  ", NamedCountsText(s.kod_codes), "\n");
  }
  if (!s.generator.empty()) {
    absl::StrAppend(&out, "  generator:  ", NamedCountsText(s.generator), "\n");
  }
  absl::StrAppend(&out, DistributionLine("round trip", s.rtt_ns),
                  DistributionLine("residence", s.residence_ns),
                  DistributionLine("offset", s.offset_ns));
  if (s.offset_ns.count > 0) {
    absl::StrAppend(&out,
                    "              (offset = ((T2-T1)+(T3-T4))/2: the stamping "
                    "error when generator and server share a clock)\n");
  }
  if (s.has_nts) {
    absl::StrAppend(
        &out,
        absl::StrFormat("  nts (%s): sent %d  answered %d  verified_ok "
                        "%d  verified_bad %d  nak %d\n",
                        s.nts_credentials, s.nts.sent, s.nts.answered,
                        s.nts.verified_ok, s.nts.verified_bad, s.nts.nak));
  }
  if (s.sweep.has_value()) {
    absl::StrAppend(&out, SweepText(*s.sweep, s.sweep_loss_threshold));
  }
  return out;
}

namespace {

nlohmann::json DistributionJson(const Distribution& d) {
  return {{"count", d.count}, {"mean", d.mean}, {"min", d.min},
          {"p50", d.p50},     {"p90", d.p90},   {"p99", d.p99},
          {"p99_9", d.p999},  {"max", d.max}};
}

nlohmann::json NamedCountsJson(const NamedCounts& counts) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, n] : counts) j[name] = n;
  return j;
}

nlohmann::json TrialJson(const TrialResult& t, double threshold) {
  return {{"offered_pps", t.offered_pps},
          {"achieved_pps", t.achieved_pps},
          {"sent", t.sent},
          {"answered", t.answered},
          {"loss", t.Loss()},
          {"pass", TrialPasses(t, threshold)}};
}

}  // namespace

std::string SummaryToJson(const RunSummary& s) {
  const RequestCounts& c = s.counts;
  nlohmann::json j = {
      {"target", s.target},
      {"mix", s.mix},
      {"offered_pps", s.offered_pps},
      {"lanes", s.lanes},
      {"clients", s.clients},
      {"timeout_s", s.timeout_s},
      {"reflector", s.reflector},
      {"sending_s", s.sending_s},
      {"achieved_pps", s.AchievedPps()},
      {"answered_pps", s.AnsweredPps()},
      {"loss", c.Loss()},
      {"counts",
       {{"sent", c.sent},
        {"answered", c.answered},
        {"kod", c.kod},
        {"bad_reply", c.bad_reply},
        {"late", c.late},
        {"lost", c.lost},
        {"in_flight", c.in_flight},
        {"duplicate", c.duplicate},
        {"unmatched", c.unmatched},
        {"skipped", c.skipped}}},
      {"invalid", NamedCountsJson(s.invalid)},
      {"kod_codes", NamedCountsJson(s.kod_codes)},
      {"generator", NamedCountsJson(s.generator)},
      {"rtt_ns", DistributionJson(s.rtt_ns)},
      {"residence_ns", DistributionJson(s.residence_ns)},
      {"offset_ns", DistributionJson(s.offset_ns)},
  };
  if (s.has_nts) {
    j["nts"] = {{"credentials", s.nts_credentials},
                {"sent", s.nts.sent},
                {"answered", s.nts.answered},
                {"verified_ok", s.nts.verified_ok},
                {"verified_bad", s.nts.verified_bad},
                {"nak", s.nts.nak}};
  }
  if (s.ptp_unicast.has_value()) {
    PtpSubscriberSummaryToJson(*s.ptp_unicast, &j["ptp_unicast"]);
  }
  if (s.sweep.has_value()) {
    nlohmann::json trials = nlohmann::json::array();
    for (const TrialResult& t : s.sweep->trials) {
      trials.push_back(TrialJson(t, s.sweep_loss_threshold));
    }
    j["sweep"] = {{"found", s.sweep->found},
                  {"no_drop_pps", s.sweep->no_drop_pps()},
                  {"loss_threshold", s.sweep_loss_threshold},
                  {"generator_limited", s.sweep->generator_limited},
                  {"trials", trials}};
  }
  return j.dump(2) + "\n";
}

absl::Status WriteJsonFile(absl::string_view path, const RunSummary& s) {
  const std::string text = SummaryToJson(s);
  const std::string p(path);
  std::FILE* f = std::fopen(p.c_str(), "w");
  if (f == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--json=", path, ": cannot open for writing: ", std::strerror(errno)));
  }
  const bool wrote = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const bool closed = std::fclose(f) == 0;
  if (!wrote || !closed) {
    return absl::InternalError(absl::StrCat(
        "--json=", path, ": write failed: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

std::string FormatProgressLine(const ProgressSample& prev,
                               const ProgressSample& now) {
  const double dt = now.t_s - prev.t_s;
  const RequestCounts& a = prev.counts;
  const RequestCounts& b = now.counts;
  const uint64_t sent = b.sent - a.sent;
  const uint64_t answered = b.answered - a.answered;
  const double loss =
      sent == 0 || answered >= sent ? 0 : 100.0 * (sent - answered) / sent;
  return absl::StrFormat(
      "[%6.1fs] sent %s  answered %s  loss %.3f %%  in flight %d  lost %d  "
      "late %d  kod %d  invalid %d  dup %d",
      now.t_s, FormatRate(dt > 0 ? sent / dt : 0),
      FormatRate(dt > 0 ? answered / dt : 0), loss, b.in_flight, b.lost, b.late,
      b.kod, now.invalid, b.duplicate);
}

}  // namespace zg::bench
