// The prim ops (see sb/prim_ops.h), with ExecuTorch's runtime semantics
// (kernels/prim_ops/register_prim_ops.cpp): an op on two ints gives an int,
// on an int and a double a double; comparisons give a bool. The returned
// value is a placeholder the emitter writes as Int(0); these kernels
// overwrite it with whatever they produce (the loader marks such values, and
// re-checks the signature of any call that reads one before it runs).
//
// Integer arithmetic wraps (two's complement) instead of overflowing, and a
// division or remainder by an int zero is an error rather than a crash.
#include "sb/prim_ops.h"

#include <cmath>
#include <cstring>

#include "sb/checked.h"
#include "sb/tensor.h"

namespace sb {
namespace {

Error bad_type(const char* op, const Value& a) {
  return Error::make(ErrorCode::kInvalidArgument, "%s: unsupported argument type %s", op, tag_name(a.tag));
}

Error bad_types(const char* op, const Value& a, const Value& b) {
  return Error::make(ErrorCode::kInvalidArgument, "%s: unsupported argument types %s and %s", op, tag_name(a.tag),
                     tag_name(b.tag));
}

bool is_number(const Value& v) { return v.tag == Tag::kInt || v.tag == Tag::kDouble; }
double as_double(const Value& v) { return v.tag == Tag::kInt ? static_cast<double>(v.as_int) : v.as_double; }

// Wrapping int64 arithmetic.
int64_t wrap(uint64_t v) {
  int64_t r;
  memcpy(&r, &v, sizeof r);
  return r;
}
int64_t add_wrap(int64_t a, int64_t b) { return wrap(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)); }
int64_t sub_wrap(int64_t a, int64_t b) { return wrap(static_cast<uint64_t>(a) - static_cast<uint64_t>(b)); }
int64_t mul_wrap(int64_t a, int64_t b) { return wrap(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)); }
int64_t neg_wrap(int64_t a) { return wrap(0 - static_cast<uint64_t>(a)); }

// C division and remainder (truncating), defined for INT64_MIN / -1.
int64_t div_trunc(int64_t a, int64_t b) { return b == -1 ? neg_wrap(a) : a / b; }
int64_t rem_trunc(int64_t a, int64_t b) { return b == -1 ? 0 : a % b; }

// A double converted to int64 the way a C cast does for values in range;
// out of range and NaN saturate instead of being undefined.
int64_t to_int(double d) { return Value::from_double(d).scalar_as_int(); }

Value& ret(Args args, size_t arity) { return *args[arity]; }

Error zero_division(const char* op) {
  return Error::make(ErrorCode::kInvalidArgument, "%s: integer division by zero", op);
}

enum class Arith { kAdd, kSub, kMul };

template <Arith kOp>
Error arith(KernelContext& ctx, Args args) {
  const Value& a = *args[0];
  const Value& b = *args[1];
  if (!is_number(a) || !is_number(b)) return bad_types(ctx.kernel().op, a, b);
  if (a.tag == Tag::kInt && b.tag == Tag::kInt) {
    const int64_t r = kOp == Arith::kAdd   ? add_wrap(a.as_int, b.as_int)
                      : kOp == Arith::kSub ? sub_wrap(a.as_int, b.as_int)
                                           : mul_wrap(a.as_int, b.as_int);
    ret(args, 2) = Value::from_int(r);
  } else {
    const double x = as_double(a);
    const double y = as_double(b);
    ret(args, 2) = Value::from_double(kOp == Arith::kAdd ? x + y : kOp == Arith::kSub ? x - y : x * y);
  }
  return Error();
}

enum class Cmp { kEq, kGt, kLt, kGe, kLe };

template <typename T>
bool compare(Cmp op, T x, T y) {
  switch (op) {
    case Cmp::kEq: return x == y;
    case Cmp::kGt: return x > y;
    case Cmp::kLt: return x < y;
    case Cmp::kGe: return x >= y;
    case Cmp::kLe: return x <= y;
  }
  return false;
}

template <Cmp kOp>
Error cmp(KernelContext& ctx, Args args) {
  const Value& a = *args[0];
  const Value& b = *args[1];
  bool r = false;
  if (a.tag == Tag::kInt && b.tag == Tag::kInt) {
    r = compare(kOp, a.as_int, b.as_int);
  } else if (is_number(a) && is_number(b)) {
    r = compare(kOp, as_double(a), as_double(b));
  } else if (a.tag == Tag::kBool && b.tag == Tag::kBool) {
    r = compare(kOp, static_cast<int>(a.as_bool), static_cast<int>(b.as_bool));
  } else {
    return bad_types(ctx.kernel().op, a, b);
  }
  ret(args, 2) = Value::from_bool(r);
  return Error();
}

Error sym_size(KernelContext& ctx, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const int64_t d = args[1]->as_int;  // re-checked: an int by the signature
  const int64_t rank = self.dim;
  if (d < -rank || d >= rank) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: dim %lld out of range for rank %d", ctx.kernel().op,
                       static_cast<long long>(d), static_cast<int>(self.dim));
  }
  ret(args, 2) = Value::from_int(self.sizes[d < 0 ? d + rank : d]);
  return Error();
}

Error sym_numel(KernelContext&, Args args) {
  ret(args, 1) = Value::from_int(args[0]->as_tensor->numel());
  return Error();
}

Error local_scalar_dense(KernelContext& ctx, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  if (self.numel() < 1) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: expected a tensor with at least 1 element", ctx.kernel().op);
  }
  Value& out = ret(args, 1);
  switch (self.dtype) {
    case ScalarType::kByte: out = Value::from_int(*self.data_as<uint8_t>()); break;
    case ScalarType::kChar: out = Value::from_int(*self.data_as<int8_t>()); break;
    case ScalarType::kShort: out = Value::from_int(*self.data_as<int16_t>()); break;
    case ScalarType::kInt: out = Value::from_int(*self.data_as<int32_t>()); break;
    case ScalarType::kLong: out = Value::from_int(*self.data_as<int64_t>()); break;
    case ScalarType::kFloat: out = Value::from_double(*self.data_as<float>()); break;
    case ScalarType::kDouble: out = Value::from_double(*self.data_as<double>()); break;
    case ScalarType::kBool: out = Value::from_bool(*self.data_as<uint8_t>() != 0); break;
    default:
      return Error::make(ErrorCode::kNotSupported, "%s: dtype %s is not supported", ctx.kernel().op,
                         scalar_type_name(self.dtype));
  }
  return Error();
}

template <bool kMax>
Error sym_minmax(KernelContext& ctx, Args args) {
  const Value& a = *args[0];
  const Value& b = *args[1];
  if (a.tag != Tag::kInt || b.tag != Tag::kInt) return bad_types(ctx.kernel().op, a, b);
  const bool first = kMax ? a.as_int >= b.as_int : a.as_int <= b.as_int;
  ret(args, 2) = Value::from_int(first ? a.as_int : b.as_int);
  return Error();
}

// Python's a // b for doubles: (a - fmod(a, b)) / b, one less when the
// remainder's sign differs from b's; +-inf for b == 0.
double floor_div(double a, double b) {
  if (b == 0) return std::signbit(a) ? -INFINITY : INFINITY;
  const double mod = std::fmod(a, b);
  const double div = (a - mod) / b;
  return (mod != 0 && std::signbit(b) != std::signbit(mod)) ? div - 1 : div;
}

Error floordiv_scalar(KernelContext& ctx, Args args) {
  const Value& a = *args[0];
  const Value& b = *args[1];
  if (!is_number(a) || !is_number(b)) return bad_types(ctx.kernel().op, a, b);
  if (a.tag == Tag::kInt && b.tag == Tag::kInt) {
    if (b.as_int == 0) return zero_division(ctx.kernel().op);
    const int64_t q = div_trunc(a.as_int, b.as_int);
    const bool round_down = (a.as_int < 0) != (b.as_int < 0) && rem_trunc(a.as_int, b.as_int) != 0;
    ret(args, 2) = Value::from_int(round_down ? sub_wrap(q, 1) : q);
  } else {
    ret(args, 2) = Value::from_double(floor_div(as_double(a), as_double(b)));
  }
  return Error();
}

Error truediv_scalar(KernelContext& ctx, Args args) {
  const Value& a = *args[0];
  const Value& b = *args[1];
  if (!is_number(a) || !is_number(b)) return bad_types(ctx.kernel().op, a, b);
  ret(args, 2) = Value::from_double(as_double(a) / as_double(b));
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
  ret(args, 2) = Value::from_int(kMod ? rem_trunc(a.as_int, b.as_int) : div_trunc(a.as_int, b.as_int));
  return Error();
}

Error sym_float(KernelContext& ctx, Args args) {
  const Value& a = *args[0];
  if (!a.is_scalar()) return bad_type(ctx.kernel().op, a);
  ret(args, 1) = Value::from_double(a.scalar_as_double());
  return Error();
}

Error sym_int(KernelContext& ctx, Args args) {
  const Value& a = *args[0];
  if (!a.is_scalar()) return bad_type(ctx.kernel().op, a);
  ret(args, 1) = Value::from_int(a.scalar_as_int());
  return Error();
}

Error neg_scalar(KernelContext& ctx, Args args) {
  const Value& a = *args[0];
  if (a.tag == Tag::kInt) {
    ret(args, 1) = Value::from_int(neg_wrap(a.as_int));
  } else if (a.tag == Tag::kDouble) {
    ret(args, 1) = Value::from_double(-a.as_double);
  } else {
    return bad_type(ctx.kernel().op, a);
  }
  return Error();
}

Error sym_not(KernelContext& ctx, Args args) {
  const Value& a = *args[0];
  if (a.tag != Tag::kBool) return bad_type(ctx.kernel().op, a);
  ret(args, 1) = Value::from_bool(!a.as_bool);
  return Error();
}

Error sym_ite(KernelContext& ctx, Args args) {
  const Value& b = *args[0];
  if (b.tag != Tag::kBool) return bad_type(ctx.kernel().op, b);
  const Value& chosen = b.as_bool ? *args[1] : *args[2];
  if (!chosen.is_scalar()) return bad_type(ctx.kernel().op, chosen);
  ret(args, 3) = chosen;
  return Error();
}

enum class Rounding { kCeil, kRound, kTrunc };

// Python's round(): halves go to the even neighbour.
double round_half_even(double v) {
  const double r = std::round(v);
  return (std::fabs(r - v) == 0.5 && std::fmod(r, 2.0) != 0.0) ? r - (r - v) * 2 : r;
}

template <Rounding kMode>
Error rounding(KernelContext& ctx, Args args) {
  const Value& a = *args[0];
  if (a.tag != Tag::kDouble) return bad_type(ctx.kernel().op, a);
  const double v = kMode == Rounding::kCeil    ? std::ceil(a.as_double)
                   : kMode == Rounding::kRound ? round_half_even(a.as_double)
                                               : std::trunc(a.as_double);
  ret(args, 1) = Value::from_int(to_int(v));
  return Error();
}

// executorch_prim::et_view.default(Tensor self, int[] size) -> Tensor: out
// becomes a view of self's data with `size` (one entry may be -1).
Error et_view(KernelContext& ctx, Args args) {
  const char* op = ctx.kernel().op;
  const Tensor& self = *args[0]->as_tensor;
  const Span<const int64_t> size = args[1]->as_int_list;
  Tensor& out = *args[2]->as_tensor;
  if (out.dtype != self.dtype) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: out has dtype %s, self %s", op, scalar_type_name(out.dtype),
                       scalar_type_name(self.dtype));
  }
  if (size.size() != static_cast<size_t>(out.dim)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: %zu sizes for an out of rank %d", op, size.size(), static_cast<int>(out.dim));
  }
  int64_t sizes[kMaxDims];
  int32_t infer = -1;
  uint64_t known = 1;
  for (int32_t i = 0; i < out.dim; ++i) {
    sizes[i] = size[i];
    if (size[i] == -1) {
      if (infer >= 0) return Error::make(ErrorCode::kInvalidArgument, "%s: at most one size can be -1", op);
      infer = i;
    } else if (size[i] < 0) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: negative size %lld", op, static_cast<long long>(size[i]));
    } else {
      known = sat_mul(known, static_cast<uint64_t>(size[i]));
    }
  }
  if (infer >= 0) {
    if (known == 0) return Error::make(ErrorCode::kInvalidArgument, "%s: cannot infer a -1 size next to a 0", op);
    sizes[infer] = known == kSaturated ? 0 : self.numel() / static_cast<int64_t>(known);
  }
  if (shape_numel(sizes, out.dim) != static_cast<uint64_t>(self.numel())) {
    char want[80];
    format_shape(want, sizeof want, sizes, out.dim);
    return Error::make(ErrorCode::kInvalidArgument, "%s: shape %s does not hold self's %lld elements", op, want,
                       static_cast<long long>(self.numel()));
  }
  Error err = resize(out, sizes, out.dim);
  if (!err.ok()) return Error::make(err.code(), "%s: out %s", op, err.message());
  // The view holds what self's memory holds: self's elements now, and
  // whatever self may grow to.
  out.data = self.data;
  out.capacity = self.capacity > self.numel() ? self.capacity : self.numel();
  return Error();
}

// executorch_prim::et_copy_index.tensor(Tensor(a!) copy_to, Tensor copy_from,
// SymInt index): copy_to[index] = copy_from, growing copy_to to index + 1 rows.
Error et_copy_index(KernelContext& ctx, Args args) {
  const char* op = ctx.kernel().op;
  Tensor& to = *args[0]->as_tensor;
  const Tensor& from = *args[1]->as_tensor;
  const Value& index = *args[2];
  if (index.tag != Tag::kInt) return bad_type(op, index);
  if (index.as_int < 0) return Error::make(ErrorCode::kInvalidArgument, "%s: index must be non-negative", op);
  if (to.dtype != from.dtype) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: copy_to has dtype %s, copy_from %s", op,
                       scalar_type_name(to.dtype), scalar_type_name(from.dtype));
  }
  if (to.dim != from.dim + 1) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: copy_to has rank %d, copy_from %d (they differ by one)", op,
                       static_cast<int>(to.dim), static_cast<int>(from.dim));
  }
  int64_t sizes[kMaxDims];
  sizes[0] = index.as_int == INT64_MAX ? INT64_MAX : index.as_int + 1;
  for (int32_t d = 0; d < from.dim; ++d) {
    if (to.sizes[d + 1] != from.sizes[d]) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: copy_to and copy_from differ in dim %d", op, static_cast<int>(d + 1));
    }
    sizes[d + 1] = from.sizes[d];
  }
  Error err = resize(to, sizes, to.dim);
  if (!err.ok()) return Error::make(err.code(), "%s: copy_to %s", op, err.message());
  // In range: the resize bounded (index + 1) * from.nbytes() by to's memory.
  const size_t row = from.nbytes();
  if (row != 0) memcpy(to.data_as<uint8_t>() + static_cast<size_t>(index.as_int) * row, from.data, row);
  return Error();
}

constexpr Span<const char* const> no_calls;

// Sizes do not depend on the layout: any dim order.
const KernelDef kSymSize{"aten::sym_size.int", "Ti>s", &sym_size, no_calls, LayoutPolicy::kAny};
const KernelDef kSymNumel{"aten::sym_numel", "T>s", &sym_numel, no_calls, LayoutPolicy::kAny};
const KernelDef kLocalScalarDense{"aten::_local_scalar_dense", "T>s", &local_scalar_dense, no_calls};
const KernelDef kSymMax{"executorch_prim::sym_max.Scalar", "ss>s", &sym_minmax<true>, no_calls};
const KernelDef kSymMin{"executorch_prim::sym_min.Scalar", "ss>s", &sym_minmax<false>, no_calls};
const KernelDef kAdd{"executorch_prim::add.Scalar", "ss>s", &arith<Arith::kAdd>, no_calls};
const KernelDef kSub{"executorch_prim::sub.Scalar", "ss>s", &arith<Arith::kSub>, no_calls};
const KernelDef kMul{"executorch_prim::mul.Scalar", "ss>s", &arith<Arith::kMul>, no_calls};
const KernelDef kFloorDiv{"executorch_prim::floordiv.Scalar", "ss>s", &floordiv_scalar, no_calls};
const KernelDef kTrueDiv{"executorch_prim::truediv.Scalar", "ss>s", &truediv_scalar, no_calls};
const KernelDef kSymFloat{"executorch_prim::sym_float.Scalar", "s>s", &sym_float, no_calls};
const KernelDef kSymInt{"executorch_prim::sym_int.Scalar", "s>s", &sym_int, no_calls};
const KernelDef kEq{"executorch_prim::eq.Scalar", "ss>s", &cmp<Cmp::kEq>, no_calls};
const KernelDef kGt{"executorch_prim::gt.Scalar", "ss>s", &cmp<Cmp::kGt>, no_calls};
const KernelDef kLt{"executorch_prim::lt.Scalar", "ss>s", &cmp<Cmp::kLt>, no_calls};
const KernelDef kGe{"executorch_prim::ge.Scalar", "ss>s", &cmp<Cmp::kGe>, no_calls};
const KernelDef kLe{"executorch_prim::le.Scalar", "ss>s", &cmp<Cmp::kLe>, no_calls};
const KernelDef kNeg{"executorch_prim::neg.Scalar", "s>s", &neg_scalar, no_calls};
const KernelDef kSymNot{"executorch_prim::sym_not.Scalar", "s>s", &sym_not, no_calls};
const KernelDef kSymIte{"executorch_prim::sym_ite.Scalar", "sss>s", &sym_ite, no_calls};
const KernelDef kFloorDivInt{"executorch_prim::floordiv.int", "ss>s", &int_divmod<false>, no_calls};
const KernelDef kModInt{"executorch_prim::mod.int", "ss>s", &int_divmod<true>, no_calls};
const KernelDef kModScalar{"executorch_prim::mod.Scalar", "ss>s", &int_divmod<true>, no_calls};
const KernelDef kCeil{"executorch_prim::ceil.Scalar", "s>s", &rounding<Rounding::kCeil>, no_calls};
const KernelDef kRound{"executorch_prim::round.Scalar", "s>s", &rounding<Rounding::kRound>, no_calls};
const KernelDef kTrunc{"executorch_prim::trunc.Scalar", "s>s", &rounding<Rounding::kTrunc>, no_calls};
const KernelDef kCopyIndex{"executorch_prim::et_copy_index.tensor", "WTs>", &et_copy_index, no_calls};
const KernelDef kView{"executorch_prim::et_view.default", "TI>T", &et_view, no_calls};

const KernelDef* const kPrimOps[] = {
    &kSymSize, &kSymNumel, &kLocalScalarDense, &kSymMax, &kSymMin, &kAdd,      &kSub,     &kMul,       &kFloorDiv,
    &kTrueDiv, &kSymFloat, &kSymInt,           &kEq,     &kGt,     &kLt,       &kGe,      &kLe,        &kNeg,
    &kSymNot,  &kSymIte,   &kFloorDivInt,      &kModInt, &kModScalar, &kCeil, &kRound, &kTrunc, &kCopyIndex, &kView,
};

}  // namespace

Span<const KernelDef* const> prim_ops() { return Span<const KernelDef* const>(kPrimOps); }

const KernelDef* find_prim_op(const char* op) {
  for (const KernelDef* def : kPrimOps) {
    if (strcmp(def->op, op) == 0) return def;
  }
  return nullptr;
}

}  // namespace sb
