// zeitgeberd's --ntp_keys flag: the symmetric-key file (chrony's keyfile
// format, core/ntp/ntp_keys.h) that NTP requests with a MAC are checked
// against (dataplane/ntp/ntp_auth.h).
//
//   --ntp_keys=/etc/zeitgeber/ntp.keys   (mode 0600 or 0400)
//
//   c.ntp_keys = NtpKeysFlag();   // in ParseDaemonFlags
#ifndef ZG_DATAPLANE_DAEMON_NTP_KEY_FLAGS_H_
#define ZG_DATAPLANE_DAEMON_NTP_KEY_FLAGS_H_

#include <string>

namespace zg::dataplane {

// The value of --ntp_keys ("" when unset: no keys, MACed requests dropped).
std::string NtpKeysFlag();

}  // namespace zg::dataplane

#endif  // ZG_DATAPLANE_DAEMON_NTP_KEY_FLAGS_H_
