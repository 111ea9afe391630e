// The shared body of ExecuTorch's mixed-dtype binary kernels (arithmetic,
// bitwise, comparisons, min/max): a dtype rule picks the common and compute
// dtypes, out gets the broadcast shape, and the element function runs in the
// compute type with inputs converted on load and the result on store
// (util/promote.h). Each kernel is then its rule and its element function:
//
//   using Rule = ArithRule<kRealTypes, kRealHBBF16, kRealHBF16, kNoBool>;
//   return arith_tensor<kOp, Rule>(a, b, out, [](auto x, auto y) { return ...; });
//
// The element function is generic: it is called with two values of the
// compute type C (for a Scalar argument, the Scalar converted to C is the
// second one) and returns C, or bool for comparisons. Complex tensors take
// their own rule (arith_complex, ahead of the real one): one complex dtype
// for self, other and out, the element function called with that type.
#pragma once

#include <cstdint>

#include "sb/tensor.h"
#include "sb/value.h"
#include "util/complex.h"
#include "util/dtype_switch.h"
#include "util/elementwise.h"
#include "util/promote.h"
#include "util/shape.h"

namespace sb::kernels {

// Flags of an ArithRule.
enum : uint32_t {
  kNoBool = 1u << 0,         // a Bool common dtype is refused (pow, division, remainder)
  kFloatMath = 1u << 1,      // computes in Float when the common dtype is Float/Half/BFloat16, else Double
  kIntToFloat = 1u << 2,     // integer and bool operands promote to Float (true division, atan2)
  kOutIsCommon = 1u << 3,    // out must have exactly the common dtype (add/sub/rsub.Scalar_out)
  kAnyOut = 1u << 4,         // out may have any dtype (comparisons, logical ops)
  kMixedFloatIsFloat = 1u << 5,  // two different floating dtypes compare in Float (ExecuTorch's comparisons)
  // A dtype-selective build keeps only the compute types the selected dtypes
  // reach (compute_enabled), not the Float, Double and Long a Scalar or float
  // math can bring in: add, sub, mul, div and mul/div.Scalar, whose compute
  // types never go past those.
  kComputeAsSelected = 1u << 6,
};

// What an ExecuTorch portable kernel accepts: the dtypes it computes in, the
// input and output storage dtypes it reads and writes, and flags above.
template <DtypeMask Compute, DtypeMask Inputs, DtypeMask Outputs, uint32_t Flags = 0>
struct ArithRule {
  static constexpr DtypeMask kCompute = Compute;
  static constexpr DtypeMask kInputs = Inputs;
  static constexpr DtypeMask kOutputs = Outputs;
  static constexpr uint32_t kFlags = Flags;
};

// Rules several kernels share (ExecuTorch's dtype sets for them).
// Bitwise ops and shifts: integers and bool.
using BitwiseRule = ArithRule<kIntBTypes, kIntBTypes, kRealHBBF16>;
// maximum, minimum, clamp: any real or bool dtype.
using MinMaxRule = ArithRule<kRealB, kRealHBBF16, kRealHBBF16>;
// Rounding division, floor_divide, remainder: no bool, no bool out.
using DivisionRule = ArithRule<kRealTypes, kRealHBBF16, kRealHBF16, kNoBool>;
// pow, fmod: computed in Float or Double whatever the operands.
using FloatMathRule = ArithRule<kFloatTypes, kRealHBBF16, kRealHBF16, kNoBool | kFloatMath>;

namespace arith_detail {

template <typename Rule>
constexpr bool has(uint32_t flag) {
  return (Rule::kFlags & flag) != 0;
}

// The common dtype of two tensors under Rule.
template <typename Rule>
ScalarType common_of(ScalarType a, ScalarType b) {
  if constexpr (has<Rule>(kIntToFloat)) {
    const bool fa = is_floating_type(a);
    const bool fb = is_floating_type(b);
    if (fa && fb) return promote_types(a, b);
    if (fa || fb) return fa ? a : b;
    return ScalarType::kFloat;
  } else {
    const ScalarType common = promote_types(a, b);
    if constexpr (has<Rule>(kMixedFloatIsFloat)) {
      if (a != b && is_floating_type(common)) return ScalarType::kFloat;
    }
    return common;
  }
}

template <typename Rule>
ScalarType common_with_scalar(ScalarType t, const Value& s) {
  if constexpr (has<Rule>(kIntToFloat)) {
    // A Scalar never lifts a floating tensor's dtype, and whatever it makes
    // of an integer or bool one is not floating or is Float: Float either way.
    (void)s;
    return is_floating_type(t) ? t : ScalarType::kFloat;
  } else {
    return promote_with_scalar(t, s);
  }
}

// A refused Bool common dtype (kNoBool).
Error bool_operands_refused(const char* op);

// Whether any out a rule's store takes can hold the common dtype: the common
// dtype is always floating (true division) and out is any floating dtype,
// which every floating dtype casts to.
template <typename Rule>
constexpr bool out_always_holds_common() {
  return has<Rule>(kIntToFloat) && !has<Rule>(kOutIsCommon) && (Rule::kOutputs & ~kFloatHBF16) == 0;
}

// Refuses what Rule does not take: a Bool common dtype under kNoBool, then an
// out that does not fit (kAnyOut: any out fits; kOutIsCommon: exactly the
// common dtype; else one the common dtype casts to). Each check is a shared
// function every kernel calls; a check that cannot fail is not made.
template <typename Rule>
Error check_common(const char* op, ScalarType common, const Tensor& out) {
  if constexpr (has<Rule>(kNoBool)) {
    if (common == ScalarType::kBool) return bool_operands_refused(op);
  }
  if constexpr (has<Rule>(kAnyOut) || out_always_holds_common<Rule>()) {
    (void)op;
    (void)common;
    (void)out;
    return Error();
  } else if constexpr (has<Rule>(kOutIsCommon)) {
    return check_dtype(op, "out", out, common);
  } else {
    return check_can_cast(op, common, out);
  }
}

// Whether alpha's dtype casts to the common dtype: a bool common dtype also
// takes an integer alpha; a kNoBool rule takes no bool alpha.
template <typename Rule>
bool alpha_casts(ScalarType common, ScalarType alpha) {
  if constexpr (has<Rule>(kNoBool)) {
    return alpha != ScalarType::kBool && can_cast(alpha, common);
  } else {
    return can_cast(alpha, common) || (common == ScalarType::kBool && alpha == ScalarType::kLong);
  }
}

// The compute types a dtype-selective build keeps: those of selected dtypes
// (compute_enabled), and the three a Scalar argument or the rule itself can
// introduce without any tensor of that dtype (Float: an integer tensor with a
// floating Scalar, or two floating dtypes compared; Double: float math on
// integers; Long: a bool tensor with an integer Scalar).
template <const char* Op, DtypeMask Implemented>
struct ComputeTypesPolicy {
  static constexpr DtypeMask kImplemented = Implemented;
  static constexpr bool enabled(ScalarType t) {
    return (Implemented & dtype_bit(t)) != 0 &&
           (compute_enabled<Op, Implemented>(t) || t == ScalarType::kFloat || t == ScalarType::kDouble ||
            t == ScalarType::kLong);
  }
};

template <const char* Op, DtypeMask Implemented, typename Fn>
Error switch_compute(ScalarType t, Fn&& fn) {
  return detail::dispatch<ComputeTypesPolicy<Op, Implemented>>(Op, t, fn);
}

// switch_compute under Rule's flags.
template <const char* Op, typename Rule, typename Fn>
Error switch_rule_compute(ScalarType t, Fn&& fn) {
  if constexpr (has<Rule>(kComputeAsSelected)) {
    return switch_compute_dtype<Op, Rule::kCompute>(t, fn);
  } else {
    return switch_compute<Op, Rule::kCompute>(t, fn);
  }
}

// arith_complex's body: make(C{}) gives the element function for the complex type C.
template <const char* Op, DtypeMask ComplexTypes, typename Make>
bool complex_dispatch(const Tensor& a, const Tensor& b, Tensor& out, Error* result, Make make);

template <typename Rule>
ScalarType compute_of(ScalarType common) {
  const ScalarType c = compute_type(common);
  if constexpr (has<Rule>(kFloatMath)) return c == ScalarType::kFloat ? c : ScalarType::kDouble;
  return c;
}

}  // namespace arith_detail

// Resizes out to the broadcast shape of a and b (check_broadcast_out: one
// function for every broadcasting kernel, so a runtime links it once).
inline Error resize_to_broadcast(const char* op, const Tensor& a, const Tensor& b, Tensor& out) {
  return check_broadcast_out(op, a, b, out);
}

// out = f(a, b) element-wise with broadcasting, under Rule. (Each check below
// has an Error of its own rather than one assigned over: an Error is a few
// hundred bytes, and a successful call then copies none.)
template <const char* Op, typename Rule, typename F>
Error arith_tensor(const Tensor& a, const Tensor& b, Tensor& out, F f) {
  const ScalarType common = arith_detail::common_of<Rule>(a.dtype, b.dtype);
  if (Error err = arith_detail::check_common<Rule>(Op, common, out); !err.ok()) return err;
  if (Error err = resize_to_broadcast(Op, a, b, out); !err.ok()) return err;
  return arith_detail::switch_rule_compute<Op, Rule>(arith_detail::compute_of<Rule>(common), [&](auto zero) {
    using C = decltype(zero);
    return map_binary_as<Op, Rule::kInputs, Rule::kOutputs, C>(a, b, out, [&](C x, C y) { return f(x, y); });
  });
}

// out = f(a, b, alpha) element-wise with broadcasting, alpha converted to the
// compute type, under Rule (add.out, sub.out). alpha's dtype must cast to the
// common dtype (a bool common dtype also takes an integer alpha; a kNoBool
// rule takes no bool alpha), and alpha must be representable in the compute
// type, as ExecuTorch's extract_scalar requires.
template <const char* Op, typename Rule, typename F>
Error arith_tensor_alpha(const Tensor& a, const Tensor& b, const Value& alpha, Tensor& out, F f) {
  const ScalarType common = arith_detail::common_of<Rule>(a.dtype, b.dtype);
  if (Error err = arith_detail::check_common<Rule>(Op, common, out); !err.ok()) return err;
  const ScalarType alpha_type = scalar_dtype(alpha);
  if (!arith_detail::alpha_casts<Rule>(common, alpha_type)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: alpha's dtype %s does not cast to %s", Op,
                       scalar_type_name(alpha_type), scalar_type_name(common));
  }
  if (Error err = resize_to_broadcast(Op, a, b, out); !err.ok()) return err;
  return arith_detail::switch_rule_compute<Op, Rule>(arith_detail::compute_of<Rule>(common), [&](auto zero) {
    using C = decltype(zero);
    C k{};
    if (!extract_scalar<C>(alpha, &k)) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: alpha does not fit the result's dtype", Op);
    }
    return map_binary_as<Op, Rule::kInputs, Rule::kOutputs, C>(a, b, out, [f, k](C x, C y) { return f(x, y, k); });
  });
}

// The complex rule, ahead of the real one, as ExecuTorch's portable kernels
// take complex tensors: when a, b or out is complex, all three must have one
// dtype of ComplexTypes, and out = f(a, b) in that type with broadcasting.
// Returns false (leaving *result alone) when none of them is complex; then
// the real rule applies.
template <const char* Op, DtypeMask ComplexTypes, typename F>
bool arith_complex(const Tensor& a, const Tensor& b, Tensor& out, Error* result, F f) {
  return arith_detail::complex_dispatch<Op, ComplexTypes>(a, b, out, result, [f](auto) { return f; });
}

// arith_complex with f(x, y, alpha): alpha as a complex of zero imaginary part
// (add.out: out = a + alpha * b).
template <const char* Op, DtypeMask ComplexTypes, typename F>
bool arith_complex_alpha(const Tensor& a, const Tensor& b, const Value& alpha, Tensor& out, Error* result, F f) {
  return arith_detail::complex_dispatch<Op, ComplexTypes>(a, b, out, result, [&alpha, f](auto zero) {
    using Arith = ComplexArith<decltype(zero)>;
    const auto k = Arith::of_real(scalar_to<typename Arith::W>(alpha));
    return [f, k](auto x, auto y) { return f(x, y, k); };
  });
}

template <const char* Op, DtypeMask ComplexTypes, typename Make>
bool arith_detail::complex_dispatch(const Tensor& a, const Tensor& b, Tensor& out, Error* result, Make make) {
  if (!is_complex_type(a.dtype) && !is_complex_type(b.dtype) && !is_complex_type(out.dtype)) return false;
  if (a.dtype != b.dtype || a.dtype != out.dtype) {
    *result = Error::make(ErrorCode::kInvalidArgument, "%s: complex operands need one dtype (self %s, other %s, out %s)",
                          Op, scalar_type_name(a.dtype), scalar_type_name(b.dtype), scalar_type_name(out.dtype));
    return true;
  }
  *result = resize_to_broadcast(Op, a, b, out);
  if (!result->ok()) return true;
  *result = switch_dtype<Op, ComplexTypes>(out.dtype, [&](auto zero) {
    using C = decltype(zero);
    map_binary<C, C, C>(a, b, out, make(zero));
    return Error();
  });
  return true;
}

// out = f(a, s) element-wise, with the Scalar s converted to the compute type, under Rule.
template <const char* Op, typename Rule, typename F>
Error arith_scalar(const Tensor& a, const Value& s, Tensor& out, F f) {
  const ScalarType common = arith_detail::common_with_scalar<Rule>(a.dtype, s);
  if (Error err = arith_detail::check_common<Rule>(Op, common, out); !err.ok()) return err;
  if (Error err = resize_output_like(Op, out, a); !err.ok()) return err;
  return arith_detail::switch_rule_compute<Op, Rule>(arith_detail::compute_of<Rule>(common), [&](auto zero) {
    using C = decltype(zero);
    const C sc = scalar_to<C>(s);
    return map_unary_as<Op, Rule::kInputs, Rule::kOutputs, C>(a, out, [&](C x) { return f(x, sc); });
  });
}

// out = f(a, s, alpha) element-wise with s and alpha converted to the compute
// type (add/sub/rsub.Scalar_out); alpha must be representable in it, as
// ExecuTorch's extract_scalar requires. The caller checks alpha's dtype.
template <const char* Op, typename Rule, typename F>
Error arith_scalar_alpha(const Tensor& a, const Value& s, const Value& alpha, Tensor& out, F f) {
  const ScalarType common = arith_detail::common_with_scalar<Rule>(a.dtype, s);
  if (Error err = arith_detail::check_common<Rule>(Op, common, out); !err.ok()) return err;
  if (Error err = resize_output_like(Op, out, a); !err.ok()) return err;
  return arith_detail::switch_rule_compute<Op, Rule>(arith_detail::compute_of<Rule>(common), [&](auto zero) {
    using C = decltype(zero);
    const C sc = scalar_to<C>(s);
    C ac{};
    if (!extract_scalar<C>(alpha, &ac)) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: alpha does not fit the result's dtype", Op);
    }
    return map_unary_as<Op, Rule::kInputs, Rule::kOutputs, C>(a, out, [&](C x) { return f(x, sc, ac); });
  });
}

// out = f(a, b, c) computed in C, with a, b and c broadcast to out's shape
// (checked by the caller), converted on load and store as map_binary_as does.
template <const char* Op, DtypeMask InTypes, DtypeMask OutTypes, typename C, typename F>
Error map_ternary_as(const Tensor& a, const Tensor& b, const Tensor& c, const Tensor& out, F f) {
  using R = decltype(f(C{}, C{}, C{}));
  LoadFn<C> load_a = nullptr;
  LoadFn<C> load_b = nullptr;
  LoadFn<C> load_c = nullptr;
  StoreFn<R> store = nullptr;
  Error err = get_load<Op, InTypes, C>(a, &load_a);
  if (!err.ok() || !(err = get_load<Op, InTypes, C>(b, &load_b)).ok()) return err;
  if (!(err = get_load<Op, InTypes, C>(c, &load_c)).ok()) return err;
  if (!(err = get_store<Op, OutTypes, R>(out, &store)).ok()) return err;
  const BroadcastIndex ia(a, out);
  const BroadcastIndex ib(b, out);
  const BroadcastIndex ic(c, out);
  const int64_t n = out.numel();
  for (int64_t i = 0; i < n; ++i) {
    store(out.data, i, f(load_a(a.data, ia(i)), load_b(b.data, ib(i)), load_c(c.data, ic(i))));
  }
  return Error();
}

// The common dtype arith_scalar computes with, for kernels that check the
// Scalar against it first (division by an integer zero).
template <typename Rule>
ScalarType arith_scalar_common(const Tensor& a, const Value& s) {
  return arith_detail::common_with_scalar<Rule>(a.dtype, s);
}

// A refused integer division by zero, as ATen refuses it.
Error integer_division_by_zero(const char* op);

// arith_tensor for kernels that divide (floor_divide, remainder, fmod): when
// the operands' common dtype is integral, a zero divisor anywhere refuses the
// call after the pass, as ATen refuses it.
template <const char* Op, typename Rule, typename F>
Error arith_tensor_div_checked(const Tensor& a, const Tensor& b, Tensor& out, F f) {
  const bool integral = !is_floating_type(promote_types(a.dtype, b.dtype));
  bool by_zero = false;
  Error err = arith_tensor<Op, Rule>(a, b, out, [&](auto x, auto y) {
    if (integral && y == 0) by_zero = true;
    return f(x, y);
  });
  return err.ok() && by_zero ? integer_division_by_zero(Op) : err;
}

// arith_scalar for kernels that divide: an integer division by a zero Scalar
// is refused before any element is written.
template <const char* Op, typename Rule, typename F>
Error arith_scalar_div_checked(const Tensor& a, const Value& s, Tensor& out, F f) {
  if (!is_floating_type(arith_scalar_common<Rule>(a, s)) && s.scalar_as_double() == 0.0) {
    return integer_division_by_zero(Op);
  }
  return arith_scalar<Op, Rule>(a, s, out, f);
}

// sub.Scalar_out and rsub.Scalar_out (self, other, alpha, out): no bool
// operand, result or alpha, alpha casts to the result's dtype, and out must
// have that dtype; f(x, s, alpha) as in arith_scalar_alpha.
template <const char* Op, typename F>
Error subtract_scalar_alpha(const Tensor& self, const Value& other, const Value& alpha, Tensor& out, F f) {
  using Rule = ArithRule<kRealTypes, kRealHBF16, kRealHBF16, kOutIsCommon | kNoBool>;
  const ScalarType common = arith_scalar_common<Rule>(self, other);
  const ScalarType alpha_type = scalar_dtype(alpha);
  if (alpha_type == ScalarType::kBool || !can_cast(alpha_type, common)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: alpha's dtype %s does not cast to %s", Op,
                       scalar_type_name(alpha_type), scalar_type_name(common));
  }
  return arith_scalar_alpha<Op, Rule>(self, other, alpha, out, f);
}

}  // namespace sb::kernels
