// SPDX-License-Identifier: Apache-2.0
// zgctl: ask a running zeitgeberd what it is doing and whom it serves, and
// tell it to reload, drain, change its sources or its log level, over its
// control socket
// (servo/api/control_server.h). Human tables by default (laid out like
// chronyc's), the reply's JSON with --json. doc/zgctl.md has every command,
// the JSON schema and the exit codes.
//
//   zgctl tracking
//   zgctl --json sources
//   zgctl --socket=/tmp/zg.sock audit --since 10m --kind source_down --follow
//
// Adding a command: one entry in Commands() (its options, the server
// command and args, the formatter).
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "servo/zgctl/zgctl_client.h"
#include "servo/zgctl/zgctl_format.h"

namespace zg::zgctl {
namespace {

using nlohmann::json;

constexpr char kDefaultSocket[] = "/run/zeitgeber/zeitgeberd.sock";

struct Options {
  std::string socket = kDefaultSocket;
  bool json = false;
  bool verbose = false;
  bool follow = false;
};

// What one command line asks for.
struct Invocation {
  std::string command;  // the server's
  json args = json::object();
};

using Parse = std::function<std::optional<std::string>(
    std::vector<std::string>& argv, Invocation& inv, Options& o)>;
using Format = std::function<std::string(const json& data, const Options& o)>;

struct CliCommand {
  std::string name;   // as typed
  std::string usage;  // its options
  Parse parse;        // null: takes no options
  Format format;
};

std::optional<std::string> NoOptions(std::vector<std::string>& argv,
                                     Invocation&, Options&) {
  if (argv.empty()) return std::nullopt;
  return absl::StrCat("unexpected argument \"", argv.front(), "\"");
}

// "10m", "2h" (that long ago) or an RFC 3339 time.
std::optional<int64_t> ParseSince(const std::string& text) {
  absl::Duration ago;
  if (absl::ParseDuration(text, &ago)) {
    return absl::ToUnixNanos(absl::Now() - ago);
  }
  absl::Time t;
  std::string err;
  if (absl::ParseTime(absl::RFC3339_full, text, &t, &err)) {
    return absl::ToUnixNanos(t);
  }
  return std::nullopt;
}

// "--name=V" or "--name V" at argv[i] (moving i past V).
std::optional<std::string> FlagValue(const std::vector<std::string>& argv,
                                     size_t& i, const char* flag) {
  const std::string eq = absl::StrCat(flag, "=");
  if (absl::StartsWith(argv[i], eq)) return argv[i].substr(eq.size());
  if (argv[i] == flag && i + 1 < argv.size()) return argv[++i];
  return std::nullopt;
}

std::optional<std::string> ParseAudit(std::vector<std::string>& argv,
                                      Invocation& inv, Options& o) {
  json kinds = json::array();
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* flag) { return FlagValue(argv, i, flag); };
    if (a == "--follow" || a == "-f") {
      o.follow = true;
    } else if (auto v = value("--since")) {
      std::optional<int64_t> ns = ParseSince(*v);
      if (!ns) {
        return absl::StrCat("--since=", *v,
                            ": give a duration ago (10m, 2h) or an RFC 3339 "
                            "time (2024-05-01T12:00:00Z)");
      }
      inv.args["since_utc_ns"] = *ns;
    } else if (auto v = value("--kind")) {
      for (absl::string_view k : absl::StrSplit(*v, ',')) {
        kinds.push_back(std::string(k));
      }
    } else if (auto v = value("--limit")) {
      int64_t n = 0;
      if (!absl::SimpleAtoi(*v, &n) || n < 1) {
        return absl::StrCat("--limit=", *v, ": a positive number");
      }
      inv.args["limit"] = n;
    } else {
      return absl::StrCat("unexpected argument \"", a, "\"");
    }
  }
  if (!kinds.empty()) inv.args["kind"] = kinds;
  argv.clear();
  return std::nullopt;
}

// clients [--top N] [--sort requests|drops|kod|last] [--address PREFIX]:
// the server checks the values (core::ParseNtpClientQuery) and names the
// bad one.
std::optional<std::string> ParseClients(std::vector<std::string>& argv,
                                        Invocation& inv, Options&) {
  for (size_t i = 0; i < argv.size(); ++i) {
    if (auto v = FlagValue(argv, i, "--top")) {
      int64_t n = 0;
      if (!absl::SimpleAtoi(*v, &n)) {
        return absl::StrCat("--top=", *v, ": a number");
      }
      inv.args["top"] = n;
    } else if (auto v = FlagValue(argv, i, "--sort")) {
      inv.args["sort"] = *v;
    } else if (auto v = FlagValue(argv, i, "--address")) {
      inv.args["address"] = *v;
    } else {
      return absl::StrCat("unexpected argument \"", argv[i], "\"");
    }
  }
  argv.clear();
  return std::nullopt;
}

// source add SPEC | delete NAME | priority NAME N | enable NAME |
// disable NAME.
std::optional<std::string> ParseSource(std::vector<std::string>& argv,
                                       Invocation& inv, Options&) {
  if (argv.empty()) return "give an action";
  const std::string action = argv.front();
  const size_t want = action == "priority" ? 3 : 2;
  if (action != "add" && action != "delete" && action != "priority" &&
      action != "enable" && action != "disable") {
    return absl::StrCat("unknown action \"", action, "\"");
  }
  if (argv.size() != want) {
    return absl::StrCat("source ", action, " takes ",
                        action == "add"        ? "one SPEC"
                        : action == "priority" ? "a NAME and a number"
                                               : "one NAME");
  }
  inv.args["action"] = action;
  if (action == "add") {
    inv.args["spec"] = argv[1];
  } else {
    inv.args["name"] = argv[1];
  }
  if (action == "priority") {
    int64_t n = 0;
    if (!absl::SimpleAtoi(argv[2], &n)) {
      return absl::StrCat("priority \"", argv[2], "\": a number");
    }
    inv.args["priority"] = n;
  }
  argv.clear();
  return std::nullopt;
}

std::vector<CliCommand> Commands() {
  auto fmt = [](std::string (*f)(const json&)) -> Format {
    return [f](const json& d, const Options&) { return f(d); };
  };
  return {
      {"tracking", "", nullptr, fmt(&FormatTracking)},
      {"sources", "[-v]",
       [](std::vector<std::string>& argv, Invocation&,
          Options& o) -> std::optional<std::string> {
         for (const std::string& a : argv) {
           if (a != "-v" && a != "--verbose") {
             return absl::StrCat("unexpected argument \"", a, "\"");
           }
           o.verbose = true;
         }
         argv.clear();
         return std::nullopt;
       },
       [](const json& d, const Options& o) {
         return FormatSources(d, o.verbose);
       }},
      {"sourcestats", "", nullptr, fmt(&FormatSourceStats)},
      {"serverstats", "", nullptr, fmt(&FormatServerStats)},
      {"ptp", "[subscribers [--top N]]",
       [](std::vector<std::string>& argv, Invocation& inv,
          Options&) -> std::optional<std::string> {
         if (argv.empty()) return std::nullopt;
         if (argv.front() != "subscribers") {
           return absl::StrCat("unexpected argument \"", argv.front(), "\"");
         }
         inv.command = "ptp_subscribers";
         for (size_t i = 1; i < argv.size(); ++i) {
           const std::optional<std::string> v = FlagValue(argv, i, "--top");
           if (!v) {
             return absl::StrCat("unexpected argument \"", argv[i], "\"");
           }
           int64_t n = 0;
           if (!absl::SimpleAtoi(*v, &n) || n < 1) {
             return absl::StrCat("--top=", *v, ": a positive number");
           }
           inv.args["top"] = n;
         }
         argv.clear();
         return std::nullopt;
       },
       [](const json& d, const Options&) {
         return d.contains("subscribers") ? FormatPtpSubscribers(d)
                                          : FormatPtp(d);
       }},
      {"clients",
       "[--top N] [--sort requests|drops|kod|last] [--address PREFIX]",
       &ParseClients, fmt(&FormatClients)},
      {"alarms", "[--all]",
       [](std::vector<std::string>& argv, Invocation& inv,
          Options&) -> std::optional<std::string> {
         for (const std::string& a : argv) {
           if (a != "--all") {
             return absl::StrCat("unexpected argument \"", a, "\"");
           }
           inv.args["all"] = true;
         }
         argv.clear();
         return std::nullopt;
       },
       fmt(&FormatAlarms)},
      {"workers", "", nullptr, fmt(&FormatWorkers)},
      {"ports", "", nullptr, fmt(&FormatPorts)},
      {"leap", "", nullptr, fmt(&FormatLeap)},
      {"status", "", nullptr, fmt(&FormatStatus)},
      {"audit", "[--since TIME] [--kind KIND[,KIND]] [--limit N] [--follow]",
       &ParseAudit,
       [](const json& d, const Options&) {
         return FormatAuditRecords(d.value("records", json::array()));
       }},
      {"reload", "", nullptr, fmt(&FormatReload)},
      {"source",
       "add SPEC | delete NAME | priority NAME N | enable NAME | disable NAME",
       &ParseSource, fmt(&FormatSourceChange)},
      {"drain", "", nullptr, fmt(&FormatDrain)},
      {"undrain", "", nullptr, fmt(&FormatDrain)},
      {"loglevel", "[info|warning|error]",
       [](std::vector<std::string>& argv, Invocation& inv,
          Options&) -> std::optional<std::string> {
         if (argv.size() > 1) return "loglevel takes at most one level";
         if (argv.size() == 1) inv.args["level"] = argv.front();
         argv.clear();
         return std::nullopt;
       },
       fmt(&FormatLogLevel)},
      {"help", "", nullptr, fmt(&FormatHelp)},
  };
}

void Usage(std::ostream& out) {
  out << "usage: zgctl [--json] [--socket=PATH] COMMAND [OPTIONS]\n"
         "  --json         print the reply's JSON (doc/zgctl.md)\n"
         "  --socket=PATH  zeitgeberd's control socket (default "
      << kDefaultSocket << ")\ncommands:\n";
  for (const CliCommand& c : Commands()) {
    out << "  " << c.name << (c.usage.empty() ? "" : " ") << c.usage << "\n";
  }
  out << "exit codes: 0 ok, 1 the command failed, 2 bad command or "
         "arguments, 3 permission refused, 4 zeitgeberd not running or "
         "gone, 5 protocol error\n";
}

int Report(const ClientResult& r, const Options& o) {
  std::cerr << "zgctl: " << r.message << "\n";
  if (o.json && r.exit_code != kZgctlNotRunning) {
    std::cout << json{{"error",
                       {{"code", r.reply.ok
                                     ? "client"
                                     : servo::ErrorCodeName(r.reply.code)},
                        {"message", r.message}}}}
                     .dump()
              << "\n";
  }
  return r.exit_code;
}

// audit --follow: the records so far, then whatever is appended, once a
// second, until interrupted or zeitgeberd goes away.
int Follow(const ZgctlClient& client, Invocation inv, const Options& o,
           const Format& format) {
  for (;;) {
    ClientResult r = client.Call(inv.command, inv.args);
    if (r.exit_code != kZgctlOk) return Report(r, o);
    const json records = r.reply.data.value("records", json::array());
    if (o.json) {
      for (const json& rec : records) std::cout << rec.dump() << "\n";
    } else {
      std::cout << format(r.reply.data, o);
    }
    std::cout.flush();
    inv.args["cursor"] = r.reply.data.value("cursor", std::string());
    if (!r.reply.data.value("truncated", false)) sleep(1);
  }
}

int Main(int argc, char** argv) {
  Options o;
  std::vector<std::string> rest;
  int i = 1;
  for (; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--json") {
      o.json = true;
    } else if (absl::StartsWith(a, "--socket=")) {
      o.socket = a.substr(9);
    } else if (a == "--socket" && i + 1 < argc) {
      o.socket = argv[++i];
    } else if (a == "-h" || a == "--help") {
      Usage(std::cout);
      return kZgctlOk;
    } else if (absl::StartsWith(a, "-")) {
      std::cerr << "zgctl: unknown option " << a << " (see zgctl --help)\n";
      return kZgctlUsage;
    } else {
      break;
    }
  }
  if (i >= argc) {
    std::cerr << "zgctl: no command given (zgctl --help lists them)\n";
    return kZgctlUsage;
  }
  const std::string name = argv[i++];
  for (; i < argc; ++i) rest.push_back(argv[i]);
  for (const CliCommand& c : Commands()) {
    if (c.name != name) continue;
    Invocation inv{c.name};
    const std::optional<std::string> err =
        c.parse ? c.parse(rest, inv, o) : NoOptions(rest, inv, o);
    if (err) {
      std::cerr << "zgctl " << name << ": " << *err << " (usage: zgctl " << name
                << (c.usage.empty() ? "" : " ") << c.usage << ")\n";
      return kZgctlUsage;
    }
    const ZgctlClient client(o.socket);
    if (o.follow) return Follow(client, inv, o, c.format);
    ClientResult r = client.Call(inv.command, inv.args);
    if (r.exit_code != kZgctlOk) {
      if (!r.reply.ok && r.reply.data.is_object() && !o.json) {
        std::cout << c.format(r.reply.data, o);  // e.g. a rejected reload
      }
      return Report(r, o);
    }
    if (o.json) {
      std::cout << r.reply.data.dump(2) << "\n";
    } else {
      std::cout << c.format(r.reply.data, o);
    }
    return kZgctlOk;
  }
  std::cerr << "zgctl: unknown command \"" << name
            << "\" (zgctl --help lists them)\n";
  return kZgctlUsage;
}

}  // namespace
}  // namespace zg::zgctl

int main(int argc, char** argv) { return zg::zgctl::Main(argc, argv); }
