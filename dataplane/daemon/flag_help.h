// SPDX-License-Identifier: Apache-2.0
// --help for zeitgeber's programs: their own flags in named groups, each
// flag with its default and its help text, as text for a terminal or as
// markdown that pandoc turns into the OPTIONS of the man pages
// (doc/man/). abseil's own --help lists flags by the file that defines them
// and shows none of a program whose main file defines none; these programs
// say which flags are theirs and in what order.
//
//   const ProgramHelp help{
//       .program = "zeitgeberd",
//       .synopsis = "zeitgeberd [EAL options] -- [zeitgeberd flags]",
//       .groups = {{.title = "NTP", .file = "dataplane/daemon/flags/ntp.cc"},
//                  {.title = "Help", .flags = {"help", "version"}}}};
//   WriteFlagHelp(help, HelpFormat::kText, std::cout);
//
// A group is the flags defined in one file (matched as a path suffix of the
// file abseil records, so the build directory does not matter) or the flags
// it names. Within a group, flags are sorted by name.
#ifndef ZG_DATAPLANE_DAEMON_FLAG_HELP_H_
#define ZG_DATAPLANE_DAEMON_FLAG_HELP_H_

#include <ostream>
#include <string>
#include <vector>

#include "absl/flags/commandlineflag.h"
#include "absl/strings/string_view.h"

namespace zg::dataplane {

// A flag abseil answers without registering it (--help, --version).
struct BuiltinFlagHelp {
  absl::string_view name;  // as typed: "help=SUBSTRING"
  absl::string_view help;
};

struct FlagHelpGroup {
  absl::string_view title;
  // The flags defined in this file, from the source root.
  absl::string_view file;
  // Or these flags, wherever they are defined.
  std::vector<absl::string_view> flags;
  // Listed after them, in this order.
  std::vector<BuiltinFlagHelp> builtins;
};

struct ProgramHelp {
  absl::string_view program;
  // The lines printed above the groups (and abseil's usage message).
  absl::string_view synopsis;
  std::vector<FlagHelpGroup> groups;
};

enum class HelpFormat {
  kText,      // for a terminal, 80 columns
  kMarkdown,  // a pandoc definition list per group ("## Title" headings)
};

// The linked-in flags of `group`, sorted by name.
std::vector<const absl::CommandLineFlag*> FlagsOfGroup(
    const FlagHelpGroup& group);

// The synopsis (text only) and every group with its flags. A group with no
// linked-in flag is left out.
void WriteFlagHelp(const ProgramHelp& help, HelpFormat format,
                   std::ostream& out);

// `filename` as a path from the source root: leading "./" and "../" dropped
// (meson compiles "../dataplane/x.cc" from the build directory).
std::string NormalizeFlagFilename(absl::string_view filename);

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_FLAG_HELP_H_
