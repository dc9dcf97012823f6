// SPDX-License-Identifier: Apache-2.0
#include "dataplane/trust/access_config.h"

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace zg::dataplane {

absl::StatusOr<NtpDenyAction> ParseNtpDenyAction(absl::string_view text) {
  const std::string t = absl::AsciiStrToLower(text);
  if (t == "drop") return NtpDenyAction::kDrop;
  if (t == "kod") return NtpDenyAction::kKod;
  return absl::InvalidArgumentError(absl::StrCat(
      "--ntp_deny_action=", text,
      ": expected drop (answer nothing) or kod (Kiss-o'-Death DENY)"));
}

const char* NtpDenyActionName(NtpDenyAction a) {
  return a == NtpDenyAction::kKod ? "kod" : "drop";
}

}  // namespace zg::dataplane
