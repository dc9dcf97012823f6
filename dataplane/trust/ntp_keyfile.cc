// SPDX-License-Identifier: Apache-2.0
#include "dataplane/trust/ntp_keyfile.h"

#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"
#include "dataplane/trust/secret_file.h"

namespace zg::dataplane {

absl::StatusOr<std::shared_ptr<const core::NtpKeyTable>> LoadNtpKeyFile(
    const std::string& path) {
  ZG_ASSIGN_OR_RETURN(
      const SecretBytes text,
      ReadOwnerOnlyFile(path, {.flag = "--ntp_keys",
                               .what = "a keyfile",
                               .max_bytes = kMaxNtpKeyFileBytes}));
  absl::StatusOr<core::NtpKeyTable> table = core::ParseNtpKeys(text.view());
  if (!table.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--ntp_keys: ", path, ": ", table.status().message()));
  }
  return std::make_shared<const core::NtpKeyTable>(std::move(*table));
}

}  // namespace zg::dataplane
