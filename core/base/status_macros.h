// SPDX-License-Identifier: Apache-2.0
// Status-propagation macros for setup code.
//
// abseil 20220623 (what Debian 12 ships) has absl::Status and absl::StatusOr
// but no status macros. These two cover what setup code needs:
//
//   absl::Status OpenPort(...) {
//     ZG_RETURN_IF_ERROR(ConfigureQueues(...));
//     ZG_ASSIGN_OR_RETURN(Mempool pool, CreatePool(...));
//     ...
//   }
//
// Never use them on the packet hot path: that path returns no absl::Status.
#ifndef ZG_CORE_BASE_STATUS_MACROS_H_
#define ZG_CORE_BASE_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define ZG_STATUS_CONCAT_INNER_(a, b) a##b
#define ZG_STATUS_CONCAT_(a, b) ZG_STATUS_CONCAT_INNER_(a, b)

// Evaluates `expr` (an absl::Status); returns it from the enclosing function
// if it is not OK.
#define ZG_RETURN_IF_ERROR(expr)             \
  do {                                       \
    ::absl::Status zg_status_ = (expr);      \
    if (!zg_status_.ok()) return zg_status_; \
  } while (false)

// Evaluates `rexpr` (an absl::StatusOr<T>); on error returns its status from
// the enclosing function, otherwise moves the value into `lhs`, which may be a
// declaration (`auto x`) or an existing lvalue.
#define ZG_ASSIGN_OR_RETURN(lhs, rexpr)                                     \
  ZG_ASSIGN_OR_RETURN_IMPL_(ZG_STATUS_CONCAT_(zg_statusor_, __LINE__), lhs, \
                            rexpr)

#define ZG_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, rexpr)    \
  auto statusor = (rexpr);                                 \
  if (!statusor.ok()) return std::move(statusor).status(); \
  lhs = std::move(statusor).value()

#endif  // ZG_CORE_BASE_STATUS_MACROS_H_
