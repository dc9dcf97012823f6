// SPDX-License-Identifier: Apache-2.0
// zgctl's human tables (zgctl_format.h).
#include "servo/zgctl/zgctl_format.h"

#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace zg::zgctl {
namespace {

using nlohmann::json;

const json& Get(const json& j, const char* key) {
  static const json kNull;
  if (!j.is_object()) return kNull;
  const auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}

std::string Str(const json& j, const char* key) {
  const json& v = Get(j, key);
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "-";
  return v.dump();
}

bool HasNum(const json& j, const char* key) { return Get(j, key).is_number(); }

double Num(const json& j, const char* key, double fallback = 0) {
  const json& v = Get(j, key);
  return v.is_number() ? v.get<double>() : fallback;
}

std::string Int(const json& j, const char* key) {
  const json& v = Get(j, key);
  if (v.is_number_integer()) return absl::StrCat(v.get<int64_t>());
  if (v.is_number_unsigned()) return absl::StrCat(v.get<uint64_t>());
  if (v.is_number()) return absl::StrFormat("%.0f", v.get<double>());
  return "-";
}

bool Bool(const json& j, const char* key) {
  const json& v = Get(j, key);
  return v.is_boolean() && v.get<bool>();
}

// chronyc's "Label           : value" lines.
std::string Row(const std::string& label, const std::string& value) {
  return absl::StrFormat("%-16s: %s\n", label, value);
}

std::string Rule(size_t width) { return std::string(width, '=') + "\n"; }

std::string Seconds(double s) {
  if (s >= 86400 * 2) return absl::StrFormat("%.1f days", s / 86400);
  if (s >= 7200) return absl::StrFormat("%.1f hours", s / 3600);
  return absl::StrFormat("%.1f s", s);
}

std::string Rate(double pps) {
  if (pps >= 1e6) return absl::StrFormat("%.2fM", pps / 1e6);
  if (pps >= 1e4) return absl::StrFormat("%.1fk", pps / 1e3);
  return absl::StrFormat("%.0f", pps);
}

std::string NumOrDash(const json& j, const char* key,
                      std::string (*fmt)(double)) {
  return HasNum(j, key) ? fmt(Num(j, key)) : std::string("-");
}

std::string CountsLine(const json& obj) {
  std::vector<std::string> parts;
  if (obj.is_object()) {
    for (const auto& [k, v] : obj.items()) {
      if (v.is_number() && v.get<double>() != 0) {
        parts.push_back(absl::StrCat(k, " ", v.dump()));
      }
    }
  }
  return parts.empty() ? std::string("none") : absl::StrJoin(parts, ", ");
}

// The `selected` of a source change: the source, or what "" means.
std::string Selected(const json& change) {
  const json& s = Get(change, "selected");
  if (!s.is_string()) return "-";
  return s.get<std::string>().empty() ? std::string("none (holdover)")
                                      : s.get<std::string>();
}

// "#*" mode and state columns of chronyc's sources.
char StateSymbol(const json& src) {
  const std::string sel = Str(src, "selection");
  if (sel == "selected") return '*';
  if (sel == "candidate") return '+';
  if (sel == "falseticker") return 'x';
  if (sel == "suspect") return '~';
  if (sel == "disabled") return '-';
  return '?';
}

}  // namespace

std::string FormatDurationNs(double ns) {
  const double a = std::fabs(ns);
  if (a < 1e3) return absl::StrFormat("%.0fns", a);
  if (a < 1e6) return absl::StrFormat("%.3fus", a / 1e3);
  if (a < 1e9) return absl::StrFormat("%.3fms", a / 1e6);
  return absl::StrFormat("%.6fs", a / 1e9);
}

std::string FormatOffsetNs(double ns) {
  return absl::StrCat(ns < 0 ? "-" : "+", FormatDurationNs(ns));
}

std::string FormatTracking(const json& d) {
  std::string out;
  out += Row("Reference ID", Str(d, "reference_id"));
  out += Row("Source", Str(d, "selected_source"));
  out += Row("State", absl::StrCat(Str(d, "state"), " (servo ",
                                   Str(d, "servo_state"), ")"));
  out += Row("Stratum", Int(d, "stratum"));
  out += Row(
      "Clock class",
      absl::StrCat(Int(d, "clock_class"), " (accuracy 0x",
                   absl::Hex(static_cast<int>(Num(d, "clock_accuracy")),
                             absl::kZeroPad2),
                   Bool(d, "time_traceable") ? ", time traceable" : "", ")"));
  out += Row("Ref time (UTC)", Str(d, "reference_time_utc"));
  out += Row("Last offset", HasNum(d, "offset_ns")
                                ? FormatOffsetNs(Num(d, "offset_ns"))
                                : std::string("-"));
  const double ppb = Num(d, "frequency_ppb");
  out += Row("Frequency",
             absl::StrFormat("%.3f ppb %s (+/- %.3f ppb)", std::fabs(ppb),
                             ppb < 0 ? "slow" : "fast",
                             Num(d, "frequency_uncertainty_ppb")));
  out +=
      Row("Error bound",
          absl::StrCat(FormatDurationNs(Num(d, "error_bound_now_ns")),
                       " (grows ", Int(d, "error_growth_ns_per_s"), " ns/s)"));
  const std::string leap = Str(d, "leap");
  out += Row("Leap status", leap == "insert"   ? "Insert second"
                            : leap == "delete" ? "Delete second"
                                               : "Normal");
  out += Row("TAI-UTC", absl::StrCat(Int(d, "utc_offset_s"), " s"));
  const json& h = Get(d, "holdover");
  std::string hold = absl::StrCat(
      "limit ", FormatDurationNs(Num(h, "in_spec_limit_ns")), ", in spec ",
      HasNum(h, "in_spec_left_s")
          ? absl::StrCat(Seconds(Num(h, "in_spec_left_s")), " more")
          : std::string("unknown (no sample yet)"));
  if (Num(h, "in_holdover_s") > 0) {
    hold = absl::StrCat("for ", Seconds(Num(h, "in_holdover_s")), "; ", hold);
  }
  out += Row("Holdover", hold);
  out += Row("Steps", Int(d, "steps"));
  out += Row("Uptime", Seconds(Num(d, "uptime_s")));
  return out;
}

std::string FormatSources(const json& d, bool verbose) {
  std::string out;
  if (verbose) {
    out +=
        "  .-- Source mode '#' = local reference (every source of "
        "zeitgeberd).\n"
        " / .- Source state '*' = selected, '+' = candidate,\n"
        "| /   'x' = out-voted (falseticker), '~' = suspect (jumps), "
        "'?' = unusable, '-' = disabled.\n"
        "||                                  .- Priority (lower is "
        "preferred).\n"
        "||                                  |     .- Reach: the last 8 "
        "polls (octal).\n"
        "||                                  |     |    .- Seconds since "
        "the last sample.\n"
        "||                                  |     |    |   .- Offset of "
        "the last sample\n"
        "||                                  |     |    |   |  +/- its "
        "error bound.\n"
        "||                                  |     |    |   |\n";
  }
  out += absl::StrFormat("%-2s %-30s %4s %-8s %5s %6s  %s\n", "MS", "Name",
                         "Prio", "Health", "Reach", "LastRx", "Last sample");
  out += Rule(79);
  for (const json& s : Get(d, "sources")) {
    const std::string sample =
        HasNum(s, "last_offset_ns")
            ? absl::StrCat(FormatOffsetNs(Num(s, "last_offset_ns")), " +/- ",
                           FormatDurationNs(Num(s, "last_error_ns")))
            : std::string("-");
    out += absl::StrFormat(
        "#%c %-30s %4s %-8s %5o %6s  %s\n", StateSymbol(s), Str(s, "name"),
        Int(s, "priority"), Str(s, "health"), static_cast<int>(Num(s, "reach")),
        HasNum(s, "last_sample_age_s")
            ? absl::StrFormat("%.0f", Num(s, "last_sample_age_s"))
            : std::string("-"),
        sample);
    if (!verbose) continue;
    out += absl::StrFormat(
        "   %s, %s samples (%s accepted), jitter %s, "
        "polls %s (%s errors)%s\n",
        Str(s, "spec"), Int(s, "samples"), Int(s, "accepted"),
        FormatDurationNs(Num(s, "jitter_ns")), Int(s, "polls"),
        Int(s, "poll_errors"),
        Str(s, "problem") == "" || Str(s, "problem") == "-"
            ? ""
            : absl::StrCat("; ", Str(s, "problem")));
  }
  return out;
}

std::string FormatSourceStats(const json& d) {
  std::string out =
      absl::StrFormat("%-30s %7s %7s %14s %12s %10s\n", "Name", "NP", "NA",
                      "Rej out/jmp/inv", "Offset", "Jitter");
  out += Rule(85);
  std::string gnss;
  for (const json& s : Get(d, "sources")) {
    const json& rej = Get(s, "rejected");
    out +=
        absl::StrFormat("%-30s %7s %7s %14s %12s %10s\n", Str(s, "name"),
                        Int(s, "samples"), Int(s, "accepted"),
                        absl::StrCat(Int(rej, "outlier"), "/", Int(rej, "jump"),
                                     "/", Int(rej, "invalid")),
                        NumOrDash(s, "last_offset_ns", &FormatOffsetNs),
                        FormatDurationNs(Num(s, "jitter_ns")));
    const json& g = Get(s, "gnss");
    if (!g.is_object()) continue;
    absl::StrAppend(&gnss, "\n", Str(s, "name"), ": ",
                    Bool(g, "connected") ? "connected" : "not connected",
                    ", fix ", Str(g, "fix"), " (mode ", Int(g, "fix_mode"),
                    "), satellites used ", Int(g, "satellites_used"), " of ",
                    Int(g, "satellites_seen"), " in view\n");
    absl::StrAppend(
        &gnss, absl::StrFormat("  %-10s %5s %5s\n", "System", "Used", "View"));
    for (const auto& [name, c] : Get(g, "constellations").items()) {
      if (Num(c, "seen") == 0 && Num(c, "used") == 0 && name != "beidou" &&
          name != "gps") {
        continue;  // GPS and BeiDou always; the others when present
      }
      absl::StrAppend(&gnss, absl::StrFormat("  %-10s %5s %5s\n", name,
                                             Int(c, "used"), Int(c, "seen")));
    }
  }
  return out + gnss;
}

std::string FormatLeap(const json& d) {
  std::string out;
  out += Row("Leap table", Str(d, "table"));
  out += Row("Expires",
             absl::StrCat(Str(d, "expiry_utc"), " (",
                          Bool(d, "expired")
                              ? std::string("EXPIRED")
                              : absl::StrFormat("in %.0f days",
                                                Num(d, "expires_in_days")),
                          ")"));
  out += Row("TAI-UTC", absl::StrCat(Int(d, "utc_offset_s"), " s"));
  const json& p = Get(d, "pending");
  out += Row("Pending leap",
             p.is_object()
                 ? absl::StrCat(Str(p, "kind"), " at ", Str(p, "at_tai"),
                                Bool(p, "announced") ? " (announced now)" : "")
                 : std::string("none"));
  return out;
}

namespace {

// The drain state's rows: state, why, and the anycast route if any.
std::string DrainRows(const json& d) {
  const json& drain = Get(d, "drain");
  std::string out =
      Row("Drain state", absl::StrCat(Str(drain, "state"), " (since ",
                                      Str(drain, "changed_utc"), ")"));
  if (drain.contains("reason") && drain["reason"].is_string() &&
      !drain["reason"].get<std::string>().empty()) {
    out += Row("Drain reason", Str(drain, "reason"));
  }
  if (d.contains("anycast") && d["anycast"].is_object()) {
    const json& a = d["anycast"];
    out += Row("Anycast route",
               absl::StrCat(Str(a, "route"), " (", Str(a, "why"), "); BIRD ",
                            a.value("bird_reachable", false) ? "reachable"
                                                             : "unreachable"));
  }
  return out;
}

}  // namespace

std::string FormatStatus(const json& d) {
  std::string out;
  out += Row("Version", Str(d, "version"));
  out += Row("PID", absl::StrCat(Int(d, "pid"), " (uid ", Int(d, "uid"), ")"));
  out += Row("Started (UTC)", Str(d, "started_utc"));
  out += Row("Uptime", Seconds(Num(d, "uptime_s")));
  out += DrainRows(d);
  out += Row("Log level", Str(d, "log_level"));
  const json& t = Get(d, "control_tick");
  out += Row("Control tick",
             absl::StrCat("every ", FormatDurationNs(Num(t, "interval_ns")),
                          ", ", Int(t, "ticks"), " ticks, ",
                          Int(t, "late_ticks"), " late, max lateness ",
                          FormatDurationNs(Num(t, "max_lateness_ns"))));
  out += Row("Changes run", Int(d, "control_requests"));
  out += Row("Control socket", Str(d, "control_socket"));
  return out;
}

std::string FormatWorkers(const json& d) {
  std::string out =
      absl::StrFormat("%-6s %-5s %-14s %9s %9s %8s %12s %12s %10s %13s\n",
                      "Worker", "Lcore", "Port", "RX pkt/s", "TX pkt/s",
                      "Drop/s", "RX", "TX", "Dropped", "Last progress");
  out += Rule(107);
  for (const json& w : Get(d, "workers")) {
    out += absl::StrFormat(
        "%-6s %-5s %-14s %9s %9s %8s %12s %12s %10s %13s\n", Int(w, "index"),
        Int(w, "lcore"), Str(w, "port"), Rate(Num(w, "rx_pps")),
        Rate(Num(w, "tx_pps")), Rate(Num(w, "drop_pps")), Int(w, "rx_packets"),
        Int(w, "tx_packets"), Int(w, "dropped"),
        HasNum(w, "last_progress_age_s")
            ? absl::StrCat(
                  FormatDurationNs(Num(w, "last_progress_age_s") * 1e9), " ago")
            : std::string("never"));
  }
  return out;
}

std::string FormatPorts(const json& d) {
  std::string out = absl::StrFormat(
      "%-14s %-12s %-5s %7s %9s %9s %12s %12s %8s %8s\n", "Port", "Driver",
      "Link", "Mb/s", "RX pkt/s", "TX pkt/s", "RX", "TX", "Missed", "Errors");
  out += Rule(104);
  std::string plans;
  for (const json& p : Get(d, "ports")) {
    out += absl::StrFormat(
        "%-14s %-12s %-5s %7s %9s %9s %12s %12s %8s %8.0f\n", Str(p, "name"),
        Str(p, "driver"), Bool(p, "link_up") ? "up" : "down",
        Int(p, "speed_mbps"), Rate(Num(p, "rx_pps")), Rate(Num(p, "tx_pps")),
        Int(p, "ipackets"), Int(p, "opackets"), Int(p, "imissed"),
        Num(p, "ierrors") + Num(p, "oerrors") + Num(p, "rx_nombuf"));
    std::vector<std::string> plan;
    for (const auto& [what, from] : Get(p, "stamping").items()) {
      plan.push_back(absl::StrCat(
          what, "=", from.is_string() ? from.get<std::string>() : from.dump()));
    }
    absl::StrAppend(&plans, Str(p, "name"),
                    " stamping: ", absl::StrJoin(plan, " "),
                    Get(p, "nic_clock").is_string()
                        ? absl::StrCat(" (NIC clock ", Str(p, "nic_clock"), ")")
                        : std::string(),
                    "\n");
  }
  return out + plans;
}

std::string FormatServerStats(const json& d) {
  std::string out;
  out += Row("Packets received", Int(d, "rx_packets"));
  out += Row("Packets sent", Int(d, "tx_packets"));
  out += Row("Packets not sent", Int(d, "tx_dropped"));
  out += absl::StrFormat("\n%-24s %14s %14s\n", "Frames by kind", "Received",
                         "Replied");
  out += Rule(54);
  for (const auto& [kind, f] : Get(d, "frames").items()) {
    out += absl::StrFormat("%-24s %14s %14s\n", kind, Int(f, "received"),
                           Int(f, "replied"));
  }
  out += absl::StrFormat("\n%-40s %14s\n", "Drops by reason", "Frames");
  out += Rule(55);
  bool any = false;
  for (const auto& [reason, n] : Get(d, "drops").items()) {
    if (!n.is_number() || n.get<double>() == 0) continue;
    any = true;
    out += absl::StrFormat("%-40s %14s\n", reason, n.dump());
  }
  if (!any) out += "none\n";
  for (const auto& [group, counters] : Get(d, "counters").items()) {
    out += absl::StrFormat("\n%-40s %14s\n", absl::StrCat("Counters: ", group),
                           "Value");
    out += Rule(55);
    for (const auto& [name, n] : counters.items()) {
      out += absl::StrFormat("%-40s %14s\n", name, n.dump());
    }
  }
  return out;
}

namespace {

// One PTP port's block of `zgctl ptp`.
std::string FormatPtpPort(const json& d) {
  std::string out = absl::StrCat("\nPTP port ", Str(d, "port"), " on ",
                                 Str(d, "interface"), "\n");
  out += Rule(58);
  out += Row("Port identity", Str(d, "port_identity"));
  out += Row("Port state", absl::StrCat(Str(d, "port_state"), " (decision ",
                                        Str(d, "decision"), ", ",
                                        Int(d, "state_changes"), " changes)"));
  out += Row("Foreign masters", Int(d, "foreign_masters"));
  out += Row("Announces in", CountsLine(Get(d, "announces_received")));
  out += Row("Messages sent", CountsLine(Get(d, "messages_sent")));
  const json& u = Get(d, "unicast");
  out +=
      Row("Unicast",
          absl::StrCat(Int(u, "subscribers"), " subscribers, committed ",
                       absl::StrFormat("%.1f", Num(u, "committed_rate")),
                       " msg/s, budget ",
                       Num(u, "tx_budget") > 0
                           ? absl::StrFormat("%.0f msg/s", Num(u, "tx_budget"))
                           : std::string("none")));
  out += absl::StrFormat("\n%-14s %10s %10s %10s %10s\n", "Grants", "Granted",
                         "Renewals", "Cancels", "Expiries");
  out += Rule(58);
  for (const auto& [type, g] : Get(u, "grants").items()) {
    out += absl::StrFormat("%-14s %10s %10s %10s %10s\n", type,
                           Int(g, "granted"), Int(g, "renewals"),
                           Int(g, "cancels"), Int(g, "expiries"));
  }
  out += Row("Denials", CountsLine(Get(u, "denials")));
  return out;
}

}  // namespace

std::string FormatPtp(const json& d) {
  if (!Bool(d, "enabled")) return "PTP is off (zeitgeberd --ptp)\n";
  std::string out;
  out += Row("Profile",
             absl::StrCat(Str(d, "profile"), ", domain ", Int(d, "domain")));
  const json& gm = Get(d, "grandmaster");
  out += Row("Grandmaster", Str(gm, "identity"));
  out += Row("Priority 1/2",
             absl::StrCat(Int(gm, "priority1"), " / ", Int(gm, "priority2")));
  out +=
      Row("Clock quality",
          absl::StrCat(
              "class ", Int(gm, "clock_class"), ", accuracy 0x",
              absl::Hex(static_cast<int>(Num(gm, "clock_accuracy")),
                        absl::kZeroPad2),
              ", variance 0x",
              absl::Hex(static_cast<int>(Num(gm, "offset_scaled_log_variance")),
                        absl::kZeroPad4)));
  out += Row("Time source", Str(gm, "time_source"));
  out += Row("UTC offset",
             absl::StrCat(Int(gm, "current_utc_offset"), " s",
                          Bool(gm, "utc_offset_valid") ? " (valid)" : "",
                          Bool(gm, "leap61") ? ", leap61" : "",
                          Bool(gm, "leap59") ? ", leap59" : ""));
  out += Row("Traceable",
             absl::StrCat("time ", Bool(gm, "time_traceable") ? "yes" : "no",
                          ", frequency ",
                          Bool(gm, "frequency_traceable") ? "yes" : "no"));
  const json& ports = Get(d, "ports");
  if (ports.is_array()) {
    for (const json& port : ports) out += FormatPtpPort(port);
  }
  return out;
}

std::string FormatPtpSubscribers(const json& d) {
  std::string out = absl::StrFormat(
      "%-5s %-39s %-4s %-22s %6s %9s  %s\n", "Port", "Address", "Tran",
      "Port identity", "Worker", "Msg/s", "Grants (log interval, expires in)");
  out += Rule(116);
  for (const json& s : Get(d, "subscribers")) {
    std::vector<std::string> grants;
    for (const auto& [type, g] : Get(s, "grants").items()) {
      grants.push_back(absl::StrCat(type, " ", Int(g, "log_interval"), " ",
                                    Int(g, "expires_in_s"), "s"));
    }
    out += absl::StrFormat(
        "%-5s %-39s %-4s %-22s %6s %9.1f  %s\n", Str(s, "port"),
        Str(s, "address"), Str(s, "transport"), Str(s, "port_identity"),
        Int(s, "worker"), Num(s, "rate"), absl::StrJoin(grants, ", "));
  }
  out += absl::StrCat(Get(d, "subscribers").size(), " of ", Int(d, "total"),
                      " subscribers\n");
  return out;
}

std::string FormatAuditRecords(const json& records) {
  std::string out;
  for (const json& r : records) {
    std::string line = absl::StrCat(Str(r, "utc"), " ", Str(r, "event"));
    if (Get(r, "source").is_string())
      absl::StrAppend(&line, " ", Str(r, "source"));
    if (Get(r, "old").is_string() || Get(r, "new").is_string()) {
      absl::StrAppend(&line, " ", Str(r, "old"), " -> ", Str(r, "new"));
    }
    for (const auto& [k, v] : Get(r, "values").items()) {
      absl::StrAppend(&line, " ", k, "=",
                      v.is_string() ? v.get<std::string>() : v.dump());
    }
    out += line + "\n";
  }
  return out;
}

std::string FormatReload(const json& d) {
  std::string out;
  out +=
      Row("Reload",
          absl::StrCat(Str(d, "outcome"), " (",
                       absl::StrFormat("%.3f", Num(d, "duration_s")), " s)"));
  if (Get(d, "error").is_string()) out += Row("Error", Str(d, "error"));
  auto list = [&](const char* key, const char* label) {
    const json& v = Get(d, key);
    if (!v.is_array() || v.empty()) {
      out += Row(label, "none");
      return;
    }
    std::vector<std::string> items;
    for (const json& i : v)
      items.push_back(i.is_string() ? i.get<std::string>() : i.dump());
    out += Row(label, absl::StrJoin(items, "; "));
  };
  list("changed", "Flags changed");
  list("in_force", "In force");
  list("needs_restart", "Needs restart");
  out += Row("Leap table", Str(d, "leap_table"));
  const json& src = Get(d, "sources");
  if (!src.is_object()) {
    out += Row("Sources", "unchanged");
  } else {
    // What changed; a reload answers before the next control step, so the
    // selection that follows is not known yet (then no "selected").
    std::vector<std::string> changes;
    for (const json& c : Get(src, "changes")) {
      if (Str(c, "change") == "unchanged") continue;
      changes.push_back(absl::StrCat(Str(c, "source"), " ", Str(c, "change")));
    }
    std::string line = absl::StrJoin(changes, ", ");
    if (Get(src, "selected").is_string()) {
      absl::StrAppend(&line, "; selected ", Selected(src));
    }
    out += Row("Sources", line);
  }
  return out;
}

std::string FormatSourceChange(const json& d) {
  std::string out;
  const std::string action = Str(d, "action");
  if (Bool(d, "ok")) {
    out += Row("Source change",
               absl::StrCat(action, ": done, ",
                            Bool(d, "persistent")
                                ? "kept across restarts (the flagfile's)"
                                : "lost at the next restart or reload (the "
                                  "flagfile's --source is what survives)"));
    out += Row("Selected", Selected(d));
  } else {
    out += Row("Source change",
               absl::StrCat(action, ": refused, the sources in force stay"));
    out += Row("Error", Str(d, "error"));
  }
  for (const json& c : Get(d, "changes")) {
    out += Row(Str(c, "source"),
               absl::StrCat(Str(c, "change"), " (", Str(c, "spec"),
                            ", priority ", Int(c, "priority"),
                            Bool(c, "enabled") ? "" : ", disabled", ")"));
  }
  return out;
}

std::string FormatClients(const json& d) {
  std::string out =
      absl::StrFormat("%-24s %8s %7s %7s %5s %5s %5s %-8s %-5s %9s %9s\n",
                      "Address", "NTP", "Drop", "RateLim", "ACL", "Auth", "KoD",
                      "AuthBy", "Mode", "Interval", "Last");
  out += Rule(104);
  for (const json& c : Get(d, "clients")) {
    const json& drops = Get(c, "drops");
    const double dropped =
        Num(drops, "rate_limit") + Num(drops, "acl") + Num(drops, "auth");
    std::string auth = Str(c, "auth");
    if (auth == "key" && HasNum(c, "key_id")) {
      auth = absl::StrCat("key ", Int(c, "key_id"));
    }
    out += absl::StrFormat(
        "%-24s %8s %7.0f %7s %5s %5s %5s %-8s %-5s %9s %9s\n",
        Str(c, "address"), Int(c, "requests"), dropped,
        Int(drops, "rate_limit"), Int(drops, "acl"), Int(drops, "auth"),
        Int(c, "kod"), auth,
        Str(c, "mode") == "interleaved" ? "ilv" : Str(c, "mode"),
        HasNum(c, "interval_s") ? Seconds(Num(c, "interval_s")) : "-",
        HasNum(c, "last_seen_ago_s")
            ? absl::StrCat(Seconds(Num(c, "last_seen_ago_s")), " ago")
            : std::string("-"));
  }
  out +=
      absl::StrCat(Get(d, "clients").size(), " of ", Int(d, "matched"),
                   " clients by ", Str(d, "sort"),
                   Get(d, "address").is_string()
                       ? absl::StrCat(" within ", Str(d, "address"))
                       : std::string(),
                   " (tracked ", Int(d, "tracked"), " of ", Int(d, "capacity"),
                   ", evictions ", Int(d, "evictions"), ")\n");
  return out;
}

std::string FormatAlarms(const json& d) {
  std::string out =
      absl::StrFormat("%-8s %-30s %-12s %-30s %s\n", "Severity", "Alarm",
                      "Instance", "Since (UTC)", "Message");
  out += Rule(110);
  for (const json& a : Get(d, "alarms")) {
    out += absl::StrFormat(
        "%-8s %-30s %-12s %-30s %s\n",
        Bool(a, "active") ? Str(a, "severity") : "clear", Str(a, "name"),
        Str(a, "instance").empty() ? "-" : Str(a, "instance"),
        Str(a, "since_utc").empty() ? "-" : Str(a, "since_utc"),
        Str(a, "message"));
  }
  out += absl::StrCat(Int(d, "active"), " raised\n");
  const json& events = Get(d, "events");
  if (events.is_array() && !events.empty()) {
    out += "\nLatest events:\n";
    const size_t first = events.size() > 10 ? events.size() - 10 : 0;
    for (size_t i = first; i < events.size(); ++i) {
      const json& e = events[i];
      out += absl::StrFormat("  #%-5s %-30s %-8s %-24s %s\n", Int(e, "seq"),
                             Str(e, "utc"), Str(e, "state"), Str(e, "name"),
                             Str(e, "message"));
    }
  }
  return out;
}

std::string FormatDrain(const json& d) { return DrainRows(d); }

std::string FormatLogLevel(const json& d) {
  std::string out = Row("Log level", Str(d, "level"));
  if (Get(d, "previous").is_string()) out += Row("Was", Str(d, "previous"));
  return out;
}

std::string FormatHelp(const json& d) {
  std::string out;
  for (const json& c : Get(d, "commands")) {
    out += absl::StrFormat(
        "  %-14s %s%s\n", Str(c, "name"), Str(c, "summary"),
        Bool(c, "changes") ? " (root or zeitgeberd's user)" : "");
  }
  return out;
}

}  // namespace zg::zgctl
