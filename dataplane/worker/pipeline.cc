// SPDX-License-Identifier: Apache-2.0
#include "dataplane/worker/pipeline.h"

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace zg::dataplane {

absl::Status Pipeline::SetHandler(uint8_t kind,
                                  std::unique_ptr<FrameHandler> handler) {
  if (kind >= kMaxFrameKinds) {
    return absl::OutOfRangeError(
        absl::StrCat("frame kind ", kind, " is beyond the ", kMaxFrameKinds,
                     " kinds a pipeline dispatches; raise kMaxFrameKinds"));
  }
  if (handler == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("null handler for frame kind ", kind));
  }
  if (handlers_[kind] != nullptr) {
    return absl::AlreadyExistsError(
        absl::StrCat("frame kind ", kind, " already has a handler"));
  }
  handlers_[kind] = std::move(handler);
  return absl::OkStatus();
}

absl::StatusOr<nlohmann::json> PipelineFactory::QueryNtpClients(
    const core::NtpClientQuery& /*query*/,
    const core::PublishedClock& /*clock*/) const {
  return absl::UnavailableError("this server keeps no NTP client records");
}

}  // namespace zg::dataplane
