// SPDX-License-Identifier: Apache-2.0
#include "dataplane/daemon/command_line.h"

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "dataplane/daemon/build_info.h"

ABSL_FLAG(std::string, help_format, "text",
          "What --help writes: text, or markdown (the source of the man "
          "page's OPTIONS).");

namespace zg::dataplane {
namespace {

// --help, and abseil's --helpshort and --helppackage, which would list the
// flags of the main file (none) and say "No flags matched".
bool IsHelp(absl::string_view arg) {
  absl::ConsumePrefix(&arg, "-");
  absl::ConsumePrefix(&arg, "-");
  return arg == "help" || arg == "helpshort" || arg == "helppackage";
}

// abseil's usage message and config are set once per process.
void InstallUsage(const ProgramHelp& help) {
  static std::once_flag once;
  std::call_once(once, [&help] {
    absl::SetProgramUsageMessage(help.synopsis);
    absl::FlagsUsageConfig config;
    const std::string program(help.program);
    config.version_string = [program] { return VersionText(program); };
    config.normalize_filename = [](absl::string_view f) {
      return NormalizeFlagFilename(f);
    };
    absl::SetFlagsUsageConfig(config);
  });
}

}  // namespace

SplitArgs SplitArgs::At(int argc, char** argv) {
  SplitArgs s;
  s.eal.push_back(argv[0]);
  s.app.push_back(argv[0]);
  int i = 1;
  for (; i < argc && absl::string_view(argv[i]) != "--"; ++i) {
    s.eal.push_back(argv[i]);
  }
  for (++i; i < argc; ++i) s.app.push_back(argv[i]);
  return s;
}

bool VersionRequested(const std::vector<char*>& eal_args) {
  for (size_t i = 1; i < eal_args.size(); ++i) {
    if (absl::string_view(eal_args[i]) == "--version") return true;
  }
  return false;
}

void PrintVersion(const ProgramHelp& help) {
  std::fputs(VersionText(help.program).c_str(), stdout);
  std::fflush(stdout);
}

FlagHelpGroup HelpFlagGroup() {
  return {
      .title = "Flag files and help",
      .flags = {"flagfile", "help_format"},
      .builtins =
          {
              {.name = "help", .help = "These flags by group; then exit."},
              {.name = "help=SUBSTRING",
               .help = "Every flag whose name, defining file or help "
                       "contains SUBSTRING; then exit."},
              {.name = "helpfull",
               .help = "Every flag linked into the program, abseil's "
                       "included, by defining file; then exit."},
              {.name = "version",
               .help = "The version, the commit it was built from (git "
                       "describe), the compiler and the DPDK it runs with; "
                       "then exit. Also before the '--'."},
          },
  };
}

std::vector<char*> ParseProgramFlags(std::vector<char*> app_argv,
                                     const ProgramHelp& help) {
  InstallUsage(help);
  bool help_requested = false;
  std::vector<char*> argv;
  for (size_t i = 0; i < app_argv.size(); ++i) {
    if (absl::string_view(app_argv[i]) == "--") {  // abseil's end of flags
      argv.insert(argv.end(), app_argv.begin() + static_cast<ptrdiff_t>(i),
                  app_argv.end());
      break;
    }
    if (i > 0 && IsHelp(app_argv[i])) {
      help_requested = true;
    } else {
      argv.push_back(app_argv[i]);
    }
  }
  argv.push_back(nullptr);
  std::vector<char*> positional =
      absl::ParseCommandLine(static_cast<int>(argv.size() - 1), argv.data());
  if (help_requested) {
    const std::string format = absl::GetFlag(FLAGS_help_format);
    if (format != "text" && format != "markdown") {
      std::fprintf(stderr, "--help_format=%s: must be text or markdown\n",
                   format.c_str());
      std::exit(1);
    }
    WriteFlagHelp(
        help, format == "markdown" ? HelpFormat::kMarkdown : HelpFormat::kText,
        std::cout);
    std::cout.flush();
    std::exit(0);
  }
  return positional;
}

}  // namespace zg::dataplane
