// Comparison and logical kernels: arith.h's engine with ExecuTorch's rules
// for them. The common dtype is the promoted one (Float when two different
// floating dtypes meet), the comparison runs in it, and out may have any
// dtype (it receives 0/1). Logical ops read every operand as bool.
#pragma once

#include "util/arith.h"

namespace sb::kernels {

using CompareRule = ArithRule<kRealB, kRealHBBF16, kRealHBBF16, kAnyOut | kMixedFloatIsFloat>;

// out = cmp(a, b) with broadcasting; cmp is called with two values of the compute type.
template <const char* Op, typename Cmp>
Error compare_tensor(const Tensor& a, const Tensor& b, Tensor& out, Cmp cmp) {
  return arith_tensor<Op, CompareRule>(a, b, out, [&](auto x, auto y) { return static_cast<bool>(cmp(x, y)); });
}

// out = cmp(a, s), the Scalar converted to the compute type (as ATen does: an
// integer tensor compares with an integer Scalar in its own dtype).
template <const char* Op, typename Cmp>
Error compare_scalar(const Tensor& a, const Value& s, Tensor& out, Cmp cmp) {
  return arith_scalar<Op, CompareRule>(a, s, out, [&](auto x, auto y) { return static_cast<bool>(cmp(x, y)); });
}

// out = f(bool(a), bool(b)) with broadcasting, for any operand and out dtypes.
template <const char* Op, typename F>
Error logical_tensor(const Tensor& a, const Tensor& b, Tensor& out, F f) {
  Error err = resize_to_broadcast(Op, a, b, out);
  if (!err.ok()) return err;
  return map_binary_as<Op, kRealHBBF16, kRealHBBF16, bool>(a, b, out,
                                                          [&](bool x, bool y) { return static_cast<bool>(f(x, y)); });
}

}  // namespace sb::kernels
