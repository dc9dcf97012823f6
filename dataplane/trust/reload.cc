// SPDX-License-Identifier: Apache-2.0
#include "dataplane/trust/reload.h"

#include <algorithm>
#include <fstream>
#include <map>

#include "absl/flags/reflection.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/base/status_macros.h"

namespace zg::dataplane {
namespace {

constexpr int kMaxFlagfileDepth = 8;

absl::Status Expand(const std::vector<std::string>& args, int depth,
                    std::vector<std::string>* out);

absl::Status ExpandFiles(absl::string_view list, int depth,
                         std::vector<std::string>* out) {
  if (depth > kMaxFlagfileDepth) {
    return absl::InvalidArgumentError(
        absl::StrCat("--flagfile nesting deeper than ", kMaxFlagfileDepth));
  }
  for (absl::string_view file : absl::StrSplit(list, ',', absl::SkipEmpty())) {
    std::ifstream in{std::string(file)};
    if (!in) {
      return absl::NotFoundError(absl::StrCat("cannot read --flagfile=", file));
    }
    std::vector<std::string> lines;
    std::string line;
    while (std::getline(in, line)) {
      absl::string_view l = absl::StripAsciiWhitespace(line);
      if (l.empty() || l[0] == '#') continue;
      lines.emplace_back(l);
    }
    ZG_RETURN_IF_ERROR(Expand(lines, depth + 1, out));
  }
  return absl::OkStatus();
}

// "--name=v" / "-name=v" -> v; "--name" / "-name" followed by a value.
bool MatchFlag(const std::vector<std::string>& args, size_t* i,
               absl::string_view name, std::string* value) {
  absl::string_view a = args[*i];
  if (!absl::ConsumePrefix(&a, "--") && !absl::ConsumePrefix(&a, "-")) {
    return false;
  }
  if (!absl::ConsumePrefix(&a, name)) return false;
  if (absl::ConsumePrefix(&a, "=")) {
    *value = std::string(a);
    return true;
  }
  if (!a.empty() || *i + 1 >= args.size()) return false;
  *value = args[++*i];
  return true;
}

absl::Status Expand(const std::vector<std::string>& args, int depth,
                    std::vector<std::string>* out) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--") {  // absl stops parsing flags here: keep the rest
      out->insert(out->end(), args.begin() + static_cast<ptrdiff_t>(i),
                  args.end());
      return absl::OkStatus();
    }
    std::string files;
    if (MatchFlag(args, &i, "flagfile", &files)) {
      ZG_RETURN_IF_ERROR(ExpandFiles(files, depth, out));
    } else {
      out->push_back(args[i]);
    }
  }
  return absl::OkStatus();
}

// "--name=v" -> (name, v); "--name" -> (name, "" or the next non-flag arg).
bool SplitFlag(const std::vector<std::string>& args, size_t* i,
               std::string* name, std::string* value) {
  absl::string_view a = args[*i];
  if (!absl::ConsumePrefix(&a, "--") && !absl::ConsumePrefix(&a, "-")) {
    return false;
  }
  if (a.empty()) return false;
  const size_t eq = a.find('=');
  if (eq != absl::string_view::npos) {
    *name = std::string(a.substr(0, eq));
    *value = std::string(a.substr(eq + 1));
    return true;
  }
  *name = std::string(a);
  value->clear();
  if (*i + 1 < args.size() && !absl::StartsWith(args[*i + 1], "-")) {
    *value = args[++*i];
  }
  return true;
}

std::string Shown(const std::vector<std::string>* values) {
  if (values == nullptr || values->empty()) return "(default)";
  return absl::StrJoin(*values, ",");
}

}  // namespace

void ReloadPlan::Stage(std::string change,
                       absl::AnyInvocable<void() &&> publish) {
  if (!change.empty()) changes_.push_back(std::move(change));
  publish_.push_back(std::move(publish));
}

void ReloadPlan::Commit() {
  std::vector<absl::AnyInvocable<void()&&>> publish = std::move(publish_);
  publish_.clear();
  for (absl::AnyInvocable<void() &&>& p : publish) std::move(p)();
}

absl::StatusOr<std::vector<std::string>> ExpandFlagfiles(
    const std::vector<std::string>& args) {
  std::vector<std::string> out;
  ZG_RETURN_IF_ERROR(Expand(args, 0, &out));
  return out;
}

absl::StatusOr<std::vector<std::string>> CollectRepeatedFlag(
    const std::vector<std::string>& args, const std::string& name) {
  ZG_ASSIGN_OR_RETURN(const std::vector<std::string> expanded,
                      ExpandFlagfiles(args));
  std::vector<std::string> out;
  for (size_t i = 0; i < expanded.size(); ++i) {
    if (expanded[i] == "--") break;  // absl stops parsing flags here too
    std::string value;
    if (MatchFlag(expanded, &i, name, &value)) out.push_back(value);
  }
  return out;
}

std::vector<FlagOccurrences> GroupFlags(const std::vector<std::string>& args) {
  std::map<std::string, std::vector<std::string>> by_name;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--") break;
    std::string name, value;
    if (!SplitFlag(args, &i, &name, &value)) continue;
    // "--nofoo" is "--foo=false" for a bool flag foo.
    if (absl::StartsWith(name, "no") &&
        absl::FindCommandLineFlag(name) == nullptr &&
        absl::FindCommandLineFlag(name.substr(2)) != nullptr) {
      name = name.substr(2);
      value = "false";
    }
    by_name[name].push_back(std::move(value));
  }
  std::vector<FlagOccurrences> out;
  for (auto& [name, values] : by_name) out.push_back({name, std::move(values)});
  return out;
}

FlagDiff DiffFlags(const std::vector<std::string>& before,
                   const std::vector<std::string>& after,
                   const std::vector<std::string>& reloadable) {
  std::map<std::string, std::vector<std::string>> old_flags, new_flags;
  for (FlagOccurrences& f : GroupFlags(before)) {
    old_flags[f.name] = std::move(f.values);
  }
  for (FlagOccurrences& f : GroupFlags(after)) {
    new_flags[f.name] = std::move(f.values);
  }
  std::map<std::string, bool> names;
  for (const auto& [name, v] : old_flags) names[name] = true;
  for (const auto& [name, v] : new_flags) names[name] = true;
  FlagDiff diff;
  for (const auto& [name, unused] : names) {
    const auto o = old_flags.find(name);
    const auto n = new_flags.find(name);
    const std::vector<std::string>* ov =
        o == old_flags.end() ? nullptr : &o->second;
    const std::vector<std::string>* nv =
        n == new_flags.end() ? nullptr : &n->second;
    if (nv != nullptr && absl::FindCommandLineFlag(name) == nullptr) {
      diff.unknown.push_back(name);
      continue;
    }
    if (Shown(ov) == Shown(nv)) continue;
    const bool can = std::find(reloadable.begin(), reloadable.end(), name) !=
                     reloadable.end();
    (can ? diff.reloadable : diff.needs_restart).push_back(name);
    diff.descriptions.push_back(
        absl::StrCat(name, ": ", Shown(ov), " -> ", Shown(nv)));
  }
  return diff;
}

}  // namespace zg::dataplane
