// SPDX-License-Identifier: Apache-2.0
// Names of the service states (service_status.h).
#include "servo/api/service_status.h"

namespace zg::servo {

const char* DrainStateName(DrainState s) {
  switch (s) {
    case DrainState::kServing:
      return "SERVING";
    case DrainState::kDraining:
      return "DRAINING";
    case DrainState::kDrained:
      return "DRAINED";
  }
  return "?";
}

}  // namespace zg::servo
