// SPDX-License-Identifier: Apache-2.0
#include "dataplane/daemon/flag_help.h"

#include <algorithm>
#include <cstdint>

#include "absl/flags/reflection.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"

namespace zg::dataplane {
namespace {

constexpr size_t kTextColumns = 80;
constexpr absl::string_view kTextIndent = "      ";

// What the value looks like, for "--name=KIND"; "" for a bool.
absl::string_view ValueKind(const absl::CommandLineFlag& f) {
  if (f.IsOfType<bool>()) return "";
  if (f.IsOfType<int32_t>() || f.IsOfType<int64_t>() ||
      f.IsOfType<uint32_t>() || f.IsOfType<uint64_t>() ||
      f.IsOfType<int16_t>() || f.IsOfType<uint16_t>()) {
    return "INT";
  }
  if (f.IsOfType<double>() || f.IsOfType<float>()) return "NUMBER";
  if (f.IsOfType<absl::Duration>()) return "DURATION";
  if (f.IsOfType<std::string>()) return "TEXT";
  if (f.IsOfType<std::vector<std::string>>()) return "LIST";
  return "VALUE";
}

// The default as a user would write it; nothing when the help text says it
// in words ("default: the profile's").
std::string DefaultText(const absl::CommandLineFlag& f) {
  const std::string help = f.Help();
  if (absl::StrContains(help, "(default: ") ||
      absl::StrContains(help, "; default: ")) {
    return "";
  }
  const std::string value = f.DefaultValue();
  if (f.IsOfType<std::string>()) return "\"" + value + "\"";
  if (value.empty()) return "none";
  return value;
}

bool InGroup(const absl::CommandLineFlag& f, const FlagHelpGroup& g) {
  if (!g.file.empty()) {
    const std::string file = NormalizeFlagFilename(f.Filename());
    return file == g.file || (absl::EndsWith(file, g.file) &&
                              file[file.size() - g.file.size() - 1] == '/');
  }
  return std::find(g.flags.begin(), g.flags.end(), f.Name()) != g.flags.end();
}

// `text` wrapped at kTextColumns, each line indented.
void WriteWrapped(absl::string_view text, std::ostream& out) {
  size_t column = 0;
  for (absl::string_view word : absl::StrSplit(text, ' ', absl::SkipEmpty())) {
    if (column > 0 && column + 1 + word.size() > kTextColumns) {
      out << '\n';
      column = 0;
    }
    if (column == 0) {
      out << kTextIndent << word;
      column = kTextIndent.size() + word.size();
    } else {
      out << ' ' << word;
      column += 1 + word.size();
    }
  }
  out << '\n';
}

void WriteTextFlag(const absl::CommandLineFlag& f, std::ostream& out) {
  const absl::string_view kind = ValueKind(f);
  out << "  --" << (kind.empty() ? "[no]" : "") << f.Name();
  if (!kind.empty()) out << '=' << kind;
  const std::string def = DefaultText(f);
  if (!def.empty()) out << "  (default " << def << ')';
  out << '\n';
  WriteWrapped(f.Help(), out);
}

// Backslash before every character pandoc's markdown could read as markup.
std::string MarkdownEscape(absl::string_view text) {
  std::string out;
  for (char c : text) {
    if (absl::string_view("\\`*_[]<>#~^$|@").find(c) !=
        absl::string_view::npos) {
      out += '\\';
    }
    out += c;
  }
  return out;
}

void WriteMarkdownFlag(const absl::CommandLineFlag& f, std::ostream& out) {
  const absl::string_view kind = ValueKind(f);
  out << "**\\--" << MarkdownEscape(f.Name()) << "**";
  if (!kind.empty()) out << "=*" << kind << '*';
  const std::string def = DefaultText(f);
  if (!def.empty()) out << " (default " << MarkdownEscape(def) << ')';
  out << "\n:   " << MarkdownEscape(f.Help()) << "\n\n";
}

}  // namespace

std::string NormalizeFlagFilename(absl::string_view filename) {
  absl::string_view f = filename;
  while (absl::ConsumePrefix(&f, "./") || absl::ConsumePrefix(&f, "../")) {
  }
  return std::string(f);
}

std::vector<const absl::CommandLineFlag*> FlagsOfGroup(
    const FlagHelpGroup& group) {
  std::vector<const absl::CommandLineFlag*> flags;
  for (const auto& [name, flag] : absl::GetAllFlags()) {
    if (InGroup(*flag, group)) flags.push_back(flag);
  }
  std::sort(flags.begin(), flags.end(),
            [](const auto* a, const auto* b) { return a->Name() < b->Name(); });
  return flags;
}

void WriteFlagHelp(const ProgramHelp& help, HelpFormat format,
                   std::ostream& out) {
  if (format == HelpFormat::kText) out << help.synopsis << '\n';
  for (const FlagHelpGroup& group : help.groups) {
    const std::vector<const absl::CommandLineFlag*> flags = FlagsOfGroup(group);
    if (flags.empty() && group.builtins.empty()) continue;
    if (format == HelpFormat::kText) {
      out << '\n' << group.title << ":\n";
      for (const absl::CommandLineFlag* f : flags) WriteTextFlag(*f, out);
      for (const BuiltinFlagHelp& b : group.builtins) {
        out << "  --" << b.name << '\n';
        WriteWrapped(b.help, out);
      }
    } else {
      out << "## " << MarkdownEscape(group.title) << "\n\n";
      for (const absl::CommandLineFlag* f : flags) WriteMarkdownFlag(*f, out);
      for (const BuiltinFlagHelp& b : group.builtins) {
        out << "**\\--" << MarkdownEscape(b.name)
            << "**\n:   " << MarkdownEscape(b.help) << "\n\n";
      }
    }
  }
}

}  // namespace zg::dataplane
