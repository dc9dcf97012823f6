#include "dataplane/daemon/ntp_key_flags.h"

#include "absl/flags/flag.h"

ABSL_FLAG(std::string, ntp_keys, "",
          "Symmetric NTP keys (chrony keyfile format: 'ID TYPE KEY' per line, "
          "TYPE AES128, AES256, SHA1 or MD5, KEY HEX:... or ASCII:...). The "
          "file must be readable by its owner only. Requests with a MAC are "
          "answered with a reply MACed by the same key; unset: requests with "
          "a MAC are dropped.");

namespace zg::dataplane {

std::string NtpKeysFlag() { return absl::GetFlag(FLAGS_ntp_keys); }

}  // namespace zg::dataplane
