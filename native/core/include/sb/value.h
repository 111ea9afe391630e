// The runtime's boxed value (ExecuTorch calls it EValue): what a program's
// values table holds and what kernels receive as arguments.
#pragma once

#include <cstdint>

#include "sb/span.h"
#include "sb/tensor.h"

namespace sb {

enum class Tag : uint8_t {
  kNone,
  kInt,
  kDouble,
  kBool,
  kString,
  kTensor,
  kIntList,
  kDoubleList,
  kBoolList,
  kTensorList,
  kOptionalTensorList,  // elements may be nullptr (None)
};

const char* tag_name(Tag tag);

struct Value {
  Tag tag = Tag::kNone;
  union {
    int64_t as_int;
    double as_double;
    bool as_bool;
    Span<const char> as_string;
    Tensor* as_tensor;
    Span<const int64_t> as_int_list;
    Span<const double> as_double_list;
    Span<const bool> as_bool_list;
    Span<Tensor* const> as_tensor_list;
  };

  Value() : as_int(0) {}
  static Value none() { return Value(); }
  static Value from_int(int64_t v) { Value r; r.tag = Tag::kInt; r.as_int = v; return r; }
  static Value from_double(double v) { Value r; r.tag = Tag::kDouble; r.as_double = v; return r; }
  static Value from_bool(bool v) { Value r; r.tag = Tag::kBool; r.as_bool = v; return r; }
  static Value from_tensor(Tensor* t) { Value r; r.tag = Tag::kTensor; r.as_tensor = t; return r; }
  static Value from_int_list(Span<const int64_t> v) { Value r; r.tag = Tag::kIntList; r.as_int_list = v; return r; }
  static Value from_double_list(Span<const double> v) { Value r; r.tag = Tag::kDoubleList; r.as_double_list = v; return r; }
  static Value from_tensor_list(Span<Tensor* const> v) { Value r; r.tag = Tag::kTensorList; r.as_tensor_list = v; return r; }

  bool is_none() const { return tag == Tag::kNone; }
  bool is_tensor() const { return tag == Tag::kTensor; }
  // ATen "Scalar": an int, double or bool argument.
  bool is_scalar() const { return tag == Tag::kInt || tag == Tag::kDouble || tag == Tag::kBool; }
  double scalar_as_double() const {
    return tag == Tag::kDouble ? as_double : tag == Tag::kInt ? static_cast<double>(as_int) : (as_bool ? 1.0 : 0.0);
  }
  int64_t scalar_as_int() const {
    if (tag == Tag::kInt) return as_int;
    if (tag == Tag::kBool) return as_bool ? 1 : 0;
    // Saturating: converting NaN or an out-of-range double to an integer is undefined in C++.
    if (!(as_double == as_double)) return 0;
    if (as_double >= 9.223372036854775807e18) return INT64_MAX;
    if (as_double <= -9.223372036854775808e18) return INT64_MIN;
    return static_cast<int64_t>(as_double);
  }
};

}  // namespace sb
