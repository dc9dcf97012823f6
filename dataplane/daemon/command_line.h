// SPDX-License-Identifier: Apache-2.0
// The command line of zeitgeber's DPDK programs (zeitgeberd, zg-loadgen):
// `PROGRAM [EAL options] -- [PROGRAM flags]`, the flags being abseil flags.
// Splits argv at the "--" and parses the program's flags with abseil, and
// answers --help (its flags by group, dataplane/daemon/flag_help.h) and
// --version (build_info.h) itself:
//
//   PROGRAM -- --help                 the program's flags, grouped; exit 0
//   PROGRAM -- --help --help_format=markdown   the same as pandoc markdown
//   PROGRAM --version, -- --version   version and build; exit 0
//   PROGRAM -- --helpfull, --help=SUBSTRING    abseil's, every linked flag
//
//   SplitArgs split = SplitArgs::At(argc, argv);
//   if (VersionRequested(split.eal)) { PrintVersion(help); return 0; }
//   std::vector<char*> positional = ParseProgramFlags(split.app, help);
#ifndef ZG_DATAPLANE_DAEMON_COMMAND_LINE_H_
#define ZG_DATAPLANE_DAEMON_COMMAND_LINE_H_

#include <vector>

#include "dataplane/daemon/flag_help.h"

namespace zg::dataplane {

// argv split at the first "--": EAL options before it, the program's flags
// after. Both vectors start with the program name. Pointers into argv.
struct SplitArgs {
  std::vector<char*> eal;
  std::vector<char*> app;
  static SplitArgs At(int argc, char** argv);
};

// Whether `eal_args` (argv before "--") ask for --version: the EAL has no
// such option, so `PROGRAM --version` means the program's.
bool VersionRequested(const std::vector<char*>& eal_args);

// Prints VersionText(help.program) to stdout.
void PrintVersion(const ProgramHelp& help);

// absl::ParseCommandLine over `app_argv` (program name first), with
// abseil's usage message, --version and file names set from `help`. A
// "--help" or "-help" among the flags prints WriteFlagHelp (in
// --help_format) to stdout and exits 0, after the other flags (a flagfile
// included) are parsed. abseil's parse errors print a message and exit 1, as
// abseil's other help flags exit. Returns the positional arguments, the
// program name first.
std::vector<char*> ParseProgramFlags(std::vector<char*> app_argv,
                                     const ProgramHelp& help);

// The group both programs' --help ends with: --flagfile, --help and the
// other flags that say how to read the command line.
FlagHelpGroup HelpFlagGroup();

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_COMMAND_LINE_H_
