#include "dataplane/clock/tx_scheduler.h"

#include <rte_errno.h>

#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace zg::dataplane {

absl::StatusOr<TxLaunchField> RegisterTxLaunchField() {
  TxLaunchField f;
  if (rte_mbuf_dyn_tx_timestamp_register(&f.offset, &f.flag) != 0) {
    return absl::InternalError(absl::StrCat(
        "cannot register the mbuf TX-timestamp field (send-on-timestamp, "
        "--tx_schedule): ",
        std::strerror(rte_errno)));
  }
  return f;
}

}  // namespace zg::dataplane
