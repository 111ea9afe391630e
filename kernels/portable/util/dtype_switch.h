// Compile-time dtype dispatch for kernels.
//
// A kernel names the element types it implements; a selective build may
// narrow that further per op through a generated header (dtype-selective
// build). Branches for types that are not selected are discarded by
// `if constexpr`, so their code is never emitted.
#pragma once

#include <cstdint>

#include "sb/error.h"
#include "sb/scalar_type.h"

#ifdef SB_SELECTED_DTYPES_HEADER
#include SB_SELECTED_DTYPES_HEADER
#else
namespace sb::selection {
// No selection header: every op keeps every dtype it implements.
constexpr bool dtype_selected(const char* /*op*/, ScalarType /*type*/) { return true; }
}  // namespace sb::selection
#endif

namespace sb::kernels {

using DtypeMask = uint32_t;

constexpr DtypeMask dtype_bit(ScalarType t) { return DtypeMask{1} << static_cast<int>(t); }

constexpr DtypeMask kFloatTypes = dtype_bit(ScalarType::kFloat);
constexpr DtypeMask kIntTypes = dtype_bit(ScalarType::kInt) | dtype_bit(ScalarType::kLong);
constexpr DtypeMask kRealTypes = kFloatTypes | kIntTypes;
constexpr DtypeMask kRealAndBool = kRealTypes | dtype_bit(ScalarType::kBool);

template <const char* Op, DtypeMask Implemented>
constexpr bool dtype_enabled(ScalarType t) {
  return (Implemented & dtype_bit(t)) != 0 && selection::dtype_selected(Op, t);
}

Error dtype_not_built(const char* op, ScalarType t);

// Calls fn(T{}) with T the C++ type for `t`, if `Op` has that dtype built in.
template <const char* Op, DtypeMask Implemented, typename Fn>
Error switch_dtype(ScalarType t, Fn&& fn) {
  switch (t) {
    case ScalarType::kFloat:
      if constexpr (dtype_enabled<Op, Implemented>(ScalarType::kFloat)) return fn(float{});
      break;
    case ScalarType::kLong:
      if constexpr (dtype_enabled<Op, Implemented>(ScalarType::kLong)) return fn(int64_t{});
      break;
    case ScalarType::kInt:
      if constexpr (dtype_enabled<Op, Implemented>(ScalarType::kInt)) return fn(int32_t{});
      break;
    case ScalarType::kBool:
      if constexpr (dtype_enabled<Op, Implemented>(ScalarType::kBool)) return fn(bool{});
      break;
    default:
      break;
  }
  return dtype_not_built(Op, t);
}

}  // namespace sb::kernels
