// Small pieces shared by the indexing kernels: overflow-free accumulation,
// checked scalar casts, and the walk of gather/scatter-style index tensors
// ("an index tensor picks positions along one dim").
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "sb/error.h"
#include "sb/half.h"
#include "sb/tensor.h"
#include "sb/value.h"
#include "util/dtype_switch.h"

namespace sb::kernels {

// a + b with integer overflow wrapping (as ATen's) and bool as logical or.
template <typename T>
T wrapping_add(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a || b;
  } else if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return static_cast<T>(static_cast<float>(a) + static_cast<float>(b));
  }
}

template <>
inline double wrapping_add<double>(double a, double b) {
  return a + b;
}

// A Scalar argument as T, refusing a value T cannot hold (ExecuTorch's
// check_overflow_scalar_cast): integers take values in their range (an
// unsigned type also takes the negatives its two's complement wraps),
// floating types take any int and any double that is finite within range,
// infinite or NaN; bool takes anything.
template <typename T>
bool scalar_cast_fits(const Value& s, T* out) {
  if constexpr (std::is_same_v<T, bool>) {
    *out = s.tag == Tag::kDouble ? s.as_double != 0 : s.scalar_as_int() != 0;
    return true;
  } else if constexpr (std::is_integral_v<T>) {
    const double lo = std::is_unsigned_v<T> ? -static_cast<double>(std::numeric_limits<T>::max())
                                            : static_cast<double>(std::numeric_limits<T>::lowest());
    const double hi = static_cast<double>(std::numeric_limits<T>::max());
    if (s.tag == Tag::kDouble) {
      if (!(s.as_double >= lo && s.as_double <= hi)) return false;  // NaN fails too
      *out = static_cast<T>(static_cast<int64_t>(s.as_double));
      return true;
    }
    const int64_t v = s.scalar_as_int();
    const int64_t ilo = std::is_unsigned_v<T> ? -static_cast<int64_t>(std::numeric_limits<T>::max())
                                              : static_cast<int64_t>(std::numeric_limits<T>::lowest());
    if (std::numeric_limits<T>::digits < 63 && (v < ilo || v > static_cast<int64_t>(std::numeric_limits<T>::max()))) {
      return false;
    }
    *out = static_cast<T>(static_cast<std::make_unsigned_t<T>>(static_cast<uint64_t>(v)));
    return true;
  } else {
    const double d = s.scalar_as_double();
    if constexpr (!std::is_same_v<T, double>) {
      const double big = std::is_same_v<T, float>  ? static_cast<double>(std::numeric_limits<float>::max())
                         : std::is_same_v<T, Half> ? 65504.0
                                                   : 3.3895313892515355e38;  // BFloat16
      if (d == d && (d > big || d < -big) && d - d == 0) return false;  // finite and out of range
    }
    *out = static_cast<T>(d);
    return true;
  }
}

// The shapes of a gather/scatter along one dim, each seen with at least one
// dim (a 0-d tensor as [1], as ATen does).
struct DimIndex {
  int32_t rank = 1;
  int32_t dim = 0;
  int64_t index_sizes[kMaxDims] = {};
  int64_t self_strides[kMaxDims] = {};
  int64_t src_strides[kMaxDims] = {};
  int64_t numel = 0;  // index elements
  const int64_t* index = nullptr;
};

// Checks a gather/scatter index against self (and src, when given): Long
// dtype; when non-empty, the same rank as self (and src), no larger than self
// along every other dim (and than src along every dim), and every value in
// [0, self.size(dim)). `dim` may be negative.
Error plan_dim_index(const char* op, const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src,
                     DimIndex* plan);

// What every scatter kernel does before it writes: plans the index (against
// src when given), gives out self's shape, requires self (and src) to have
// out's dtype, and starts out as a copy of self. The kernel then writes the
// indexed elements with for_each_dim_index.
Error begin_scatter(const char* op, const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src,
                    Tensor& out, DimIndex* plan);

// Calls fn(self_offset, src_offset) for each index element, row-major: the
// self element at the index element's coordinate with the index value along
// dim, and the src element at the index element's coordinate.
template <typename F>
void for_each_dim_index(const DimIndex& p, F fn) {
  int64_t coord[kMaxDims] = {};
  for (int64_t i = 0; i < p.numel; ++i) {
    int64_t self_off = 0;
    int64_t src_off = 0;
    for (int32_t d = 0; d < p.rank; ++d) {
      self_off += (d == p.dim ? p.index[i] : coord[d]) * p.self_strides[d];
      src_off += coord[d] * p.src_strides[d];
    }
    fn(self_off, src_off);
    for (int32_t d = p.rank - 1; d >= 0; --d) {
      if (++coord[d] < p.index_sizes[d]) break;
      coord[d] = 0;
    }
  }
}

// scatter.src_out and scatter_add.out: out starts as self (begin_scatter),
// then out[to] = combine(out[to], src[from]) for each index element, in index
// order (so repeated targets combine as in ATen's serial loop).
template <const char* Op, typename Combine>
Error scatter_from_src(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, Tensor& out,
                       Combine combine) {
  DimIndex plan;
  Error err = begin_scatter(Op, self, dim, index, &src, out, &plan);
  if (!err.ok()) return err;
  return switch_dtype<Op, kRealHBBF16>(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* s = src.data_as<const T>();
    T* y = out.data_as<T>();
    for_each_dim_index(plan, [&](int64_t to, int64_t from) { y[to] = combine(y[to], s[from]); });
    return Error();
  });
}

}  // namespace sb::kernels
