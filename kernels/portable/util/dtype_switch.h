// Compile-time dtype dispatch for kernels.
//
// A kernel names the element types it implements; a selective build may
// narrow that further per op through a generated header (dtype-selective
// build). Branches for types that are not selected are discarded by
// `if constexpr`, so their code is never emitted.
//
// The masks follow ExecuTorch's dtype-set names (ET_SWITCH_<SET>_TYPES):
// INT = the five integer types, FLOAT = Float and Double, REAL = both, and
// the suffixes H (Half), B (Bool) and BF16 (BFloat16) add those types.
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

constexpr DtypeMask kByteType = dtype_bit(ScalarType::kByte);
constexpr DtypeMask kCharType = dtype_bit(ScalarType::kChar);
constexpr DtypeMask kShortType = dtype_bit(ScalarType::kShort);
constexpr DtypeMask kIntType = dtype_bit(ScalarType::kInt);
constexpr DtypeMask kLongType = dtype_bit(ScalarType::kLong);
constexpr DtypeMask kHalfType = dtype_bit(ScalarType::kHalf);
constexpr DtypeMask kFloatType = dtype_bit(ScalarType::kFloat);
constexpr DtypeMask kDoubleType = dtype_bit(ScalarType::kDouble);
constexpr DtypeMask kBoolType = dtype_bit(ScalarType::kBool);
constexpr DtypeMask kBFloat16Type = dtype_bit(ScalarType::kBFloat16);
constexpr DtypeMask kComplexHalfType = dtype_bit(ScalarType::kComplexHalf);
constexpr DtypeMask kComplexFloatType = dtype_bit(ScalarType::kComplexFloat);
constexpr DtypeMask kComplexDoubleType = dtype_bit(ScalarType::kComplexDouble);

constexpr DtypeMask kIntTypes = kByteType | kCharType | kShortType | kIntType | kLongType;
constexpr DtypeMask kIntBTypes = kIntTypes | kBoolType;
constexpr DtypeMask kFloatTypes = kFloatType | kDoubleType;
constexpr DtypeMask kFloatHTypes = kFloatTypes | kHalfType;
constexpr DtypeMask kFloatHBF16 = kFloatHTypes | kBFloat16Type;
constexpr DtypeMask kRealTypes = kIntTypes | kFloatTypes;
constexpr DtypeMask kRealB = kRealTypes | kBoolType;
constexpr DtypeMask kRealH = kRealTypes | kHalfType;
constexpr DtypeMask kRealHBF16 = kRealH | kBFloat16Type;
constexpr DtypeMask kRealHBBF16 = kRealHBF16 | kBoolType;
// The complex types (ET_SWITCH_COMPLEXH_TYPES): only the kernels that name
// them take complex tensors.
constexpr DtypeMask kComplexHTypes = kComplexHalfType | kComplexFloatType | kComplexDoubleType;
// Every real dtype the runtime holds (the complex ones are not in it).
constexpr DtypeMask kAllTypes = kRealHBBF16;
// Older name for REALB, kept for kernels that use it.
constexpr DtypeMask kRealAndBool = kRealB;

template <const char* Op, DtypeMask Implemented>
constexpr bool dtype_enabled(ScalarType t) {
  return (Implemented & dtype_bit(t)) != 0 && selection::dtype_selected(Op, t);
}

// A type a kernel computes in is built when it is selected, or when the
// selected dtypes can promote to it without a tensor of it: Float (Half and
// BFloat16 compute in it; an integer or bool tensor meets a floating
// Scalar), Long (a bool tensor meets an integer Scalar), Short (Byte meets
// Char).
template <const char* Op, DtypeMask Implemented>
constexpr bool compute_enabled(ScalarType t) {
  using selection::dtype_selected;
  if ((Implemented & dtype_bit(t)) == 0) return false;
  if (dtype_selected(Op, t)) return true;
  const bool bool_in = dtype_selected(Op, ScalarType::kBool);
  const bool int_in = dtype_selected(Op, ScalarType::kByte) || dtype_selected(Op, ScalarType::kChar) ||
                      dtype_selected(Op, ScalarType::kShort) || dtype_selected(Op, ScalarType::kInt) ||
                      dtype_selected(Op, ScalarType::kLong);
  const bool half_in = dtype_selected(Op, ScalarType::kHalf) || dtype_selected(Op, ScalarType::kBFloat16);
  switch (t) {
    case ScalarType::kFloat: return bool_in || int_in || half_in;
    case ScalarType::kLong: return bool_in;
    case ScalarType::kShort: return dtype_selected(Op, ScalarType::kByte) && dtype_selected(Op, ScalarType::kChar);
    default: return false;
  }
}

// A dtype the kernel implements that this build left out, and one it does not implement.
Error dtype_not_built(const char* op, ScalarType t);
Error dtype_not_supported(const char* op, ScalarType t);

namespace detail {

template <bool Enabled, typename T, typename Fn>
inline bool call_if(Fn& fn, Error* result) {
  if constexpr (Enabled) {
    *result = fn(T{});
    return true;
  } else {
    (void)fn;
    (void)result;
    return false;
  }
}

// Calls fn(T{}) for `t` when Enabled(t); the enable test is a template so
// the dtype switch and the compute-type switch share one body.
template <typename Policy, typename Fn>
Error dispatch(const char* op, ScalarType t, Fn& fn) {
  Error result;
  bool done = false;
  switch (t) {
    case ScalarType::kByte: done = call_if<Policy::enabled(ScalarType::kByte), uint8_t>(fn, &result); break;
    case ScalarType::kChar: done = call_if<Policy::enabled(ScalarType::kChar), int8_t>(fn, &result); break;
    case ScalarType::kShort: done = call_if<Policy::enabled(ScalarType::kShort), int16_t>(fn, &result); break;
    case ScalarType::kInt: done = call_if<Policy::enabled(ScalarType::kInt), int32_t>(fn, &result); break;
    case ScalarType::kLong: done = call_if<Policy::enabled(ScalarType::kLong), int64_t>(fn, &result); break;
    case ScalarType::kHalf: done = call_if<Policy::enabled(ScalarType::kHalf), Half>(fn, &result); break;
    case ScalarType::kFloat: done = call_if<Policy::enabled(ScalarType::kFloat), float>(fn, &result); break;
    case ScalarType::kDouble: done = call_if<Policy::enabled(ScalarType::kDouble), double>(fn, &result); break;
    case ScalarType::kBool: done = call_if<Policy::enabled(ScalarType::kBool), bool>(fn, &result); break;
    case ScalarType::kBFloat16: done = call_if<Policy::enabled(ScalarType::kBFloat16), BFloat16>(fn, &result); break;
    case ScalarType::kComplexHalf:
      done = call_if<Policy::enabled(ScalarType::kComplexHalf), Complex<Half>>(fn, &result);
      break;
    case ScalarType::kComplexFloat:
      done = call_if<Policy::enabled(ScalarType::kComplexFloat), Complex<float>>(fn, &result);
      break;
    case ScalarType::kComplexDouble:
      done = call_if<Policy::enabled(ScalarType::kComplexDouble), Complex<double>>(fn, &result);
      break;
  }
  if (done) return result;
  const bool implemented =
      static_cast<int>(t) >= 0 && static_cast<int>(t) < 32 && (Policy::kImplemented & dtype_bit(t)) != 0;
  return implemented ? dtype_not_built(op, t) : dtype_not_supported(op, t);
}

template <const char* Op, DtypeMask Implemented>
struct SelectedPolicy {
  static constexpr DtypeMask kImplemented = Implemented;
  static constexpr bool enabled(ScalarType t) { return dtype_enabled<Op, Implemented>(t); }
};

template <const char* Op, DtypeMask Implemented>
struct ComputePolicy {
  static constexpr DtypeMask kImplemented = Implemented;
  static constexpr bool enabled(ScalarType t) { return compute_enabled<Op, Implemented>(t); }
};

}  // namespace detail

// Calls fn(T{}) with T the C++ type for `t`, if `Op` has that dtype built in.
template <const char* Op, DtypeMask Implemented, typename Fn>
Error switch_dtype(ScalarType t, Fn&& fn) {
  return detail::dispatch<detail::SelectedPolicy<Op, Implemented>>(Op, t, fn);
}

// The same for the type a kernel computes in (see compute_enabled).
template <const char* Op, DtypeMask Implemented, typename Fn>
Error switch_compute_dtype(ScalarType t, Fn&& fn) {
  return detail::dispatch<detail::ComputePolicy<Op, Implemented>>(Op, t, fn);
}

}  // namespace sb::kernels
