// What the prim ops share: ExecuTorch's scalar semantics (kernels/prim_ops/
// register_prim_ops.cpp): an op on two ints gives an int, on an int and a
// double a double; comparisons give a bool. The value a prim op returns into
// is a placeholder the emitter writes as Int(0); the kernels overwrite it with
// whatever they produce (the loader marks such values, and re-checks the
// signature of any call that reads one before it runs).
//
// Integer arithmetic wraps (two's complement) instead of overflowing, and a
// division or remainder by an int zero is an error rather than a crash.
#pragma once

#include <cstdint>
#include <cstring>

#include "sb/kernel.h"

namespace sb::prim {

// One error line naming the op and the argument tags it was given (util/scalar.cpp: shared, not
// inlined, so each op's file carries a call, not the message).
Error bad_type(const char* op, const Value& a);
Error bad_types(const char* op, const Value& a, const Value& b);
Error zero_division(const char* op);

inline bool is_number(const Value& v) { return v.tag == Tag::kInt || v.tag == Tag::kDouble; }
inline double as_double(const Value& v) { return v.tag == Tag::kInt ? static_cast<double>(v.as_int) : v.as_double; }

// The value a program call passes after the op's `arity` arguments.
inline Value& returned(Args args, size_t arity) { return *args[arity]; }

inline int64_t wrap(uint64_t v) {
  int64_t r;
  memcpy(&r, &v, sizeof r);
  return r;
}
inline int64_t add_wrap(int64_t a, int64_t b) { return wrap(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)); }
inline int64_t sub_wrap(int64_t a, int64_t b) { return wrap(static_cast<uint64_t>(a) - static_cast<uint64_t>(b)); }
inline int64_t mul_wrap(int64_t a, int64_t b) { return wrap(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)); }
inline int64_t neg_wrap(int64_t a) { return wrap(0 - static_cast<uint64_t>(a)); }

// C division and remainder (truncating), defined for INT64_MIN / -1.
inline int64_t div_trunc(int64_t a, int64_t b) { return b == -1 ? neg_wrap(a) : a / b; }
inline int64_t rem_trunc(int64_t a, int64_t b) { return b == -1 ? 0 : a % b; }

enum class Arith { kAdd, kSub, kMul };

// add/sub/mul.Scalar: ints wrap, a double on either side gives a double.
template <Arith kOp>
Error arith(KernelContext& ctx, Args args) {
  const Value& a = *args[0];
  const Value& b = *args[1];
  if (!is_number(a) || !is_number(b)) return bad_types(ctx.kernel().op, a, b);
  if (a.tag == Tag::kInt && b.tag == Tag::kInt) {
    const int64_t r = kOp == Arith::kAdd   ? add_wrap(a.as_int, b.as_int)
                      : kOp == Arith::kSub ? sub_wrap(a.as_int, b.as_int)
                                           : mul_wrap(a.as_int, b.as_int);
    returned(args, 2) = Value::from_int(r);
  } else {
    const double x = as_double(a);
    const double y = as_double(b);
    returned(args, 2) = Value::from_double(kOp == Arith::kAdd ? x + y : kOp == Arith::kSub ? x - y : x * y);
  }
  return Error();
}

enum class Cmp { kEq, kGt, kLt, kGe, kLe };

template <Cmp kOp, typename T>
bool compare(T x, T y) {
  switch (kOp) {
    case Cmp::kEq: return x == y;
    case Cmp::kGt: return x > y;
    case Cmp::kLt: return x < y;
    case Cmp::kGe: return x >= y;
    case Cmp::kLe: return x <= y;
  }
  return false;
}

// eq/gt/lt/ge/le.Scalar: two ints compare as ints, numbers as doubles, two bools as ints.
template <Cmp kOp>
Error cmp(KernelContext& ctx, Args args) {
  const Value& a = *args[0];
  const Value& b = *args[1];
  bool r = false;
  if (a.tag == Tag::kInt && b.tag == Tag::kInt) {
    r = compare<kOp>(a.as_int, b.as_int);
  } else if (is_number(a) && is_number(b)) {
    r = compare<kOp>(as_double(a), as_double(b));
  } else if (a.tag == Tag::kBool && b.tag == Tag::kBool) {
    r = compare<kOp>(static_cast<int>(a.as_bool), static_cast<int>(b.as_bool));
  } else {
    return bad_types(ctx.kernel().op, a, b);
  }
  returned(args, 2) = Value::from_bool(r);
  return Error();
}

// ExecuTorch's runtime computes mod and floordiv.int with C's truncating
// operators (its exported programs only hold non-negative sizes there).
template <bool kMod>
Error int_divmod(KernelContext& ctx, Args args) {
  const Value& a = *args[0];
  const Value& b = *args[1];
  if (a.tag != Tag::kInt || b.tag != Tag::kInt) return bad_types(ctx.kernel().op, a, b);
  if (b.as_int == 0) return zero_division(ctx.kernel().op);
  returned(args, 2) = Value::from_int(kMod ? rem_trunc(a.as_int, b.as_int) : div_trunc(a.as_int, b.as_int));
  return Error();
}

}  // namespace sb::prim
