// SPDX-License-Identifier: Apache-2.0
// Precompiled header of the unit and integration tests: GoogleTest,
// GoogleMock and core_pch.h. Each folder's tests compile as one object
// library with this header (test_objects in tests/meson.build), so the
// header is parsed once per folder instead of once per test.
#ifndef ZEITGEBER_PCH_TEST_PCH_H_
#define ZEITGEBER_PCH_TEST_PCH_H_

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "pch/core_pch.h"

#endif  // ZEITGEBER_PCH_TEST_PCH_H_
