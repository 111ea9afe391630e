// A dense tensor. Sizes live inline so that kernels can make temporary views
// on the stack without allocating.
//
// Elements are laid out in `dim_order` (ExecuTorch's dim order: the dims from
// outermost to innermost in memory). The identity order, the default, is the
// contiguous row-major layout; [0, 2, 3, 1] is channels-last. The loader
// checks that a program's dim order is a permutation; which kernels take a
// non-default order is each KernelDef's LayoutPolicy, checked at load.
//
// A tensor the program marks DYNAMIC_BOUND (or DYNAMIC_UNBOUND, which
// ExecuTorch also treats as bounded) may change shape at run time, within the
// memory behind `data`: `capacity` elements, from the sizes the program gives
// as its upper bound. Shapes change only through resize() (kernels call it
// through resize_output), which keeps the rank and never exceeds the capacity.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sb/error.h"
#include "sb/scalar_type.h"

namespace sb {

constexpr int kMaxDims = 8;

enum class ShapeDynamism : uint8_t { kStatic = 0, kDynamicBound = 1, kDynamicUnbound = 2 };

struct Tensor {
  ScalarType dtype = ScalarType::kFloat;
  int32_t dim = 0;
  int64_t sizes[kMaxDims] = {};
  void* data = nullptr;
  ShapeDynamism dynamism = ShapeDynamism::kStatic;
  int64_t capacity = 0;  // elements `data` holds; meaningful for dynamic tensors
  uint8_t dim_order[kMaxDims] = {0, 1, 2, 3, 4, 5, 6, 7};

  bool is_dynamic() const { return dynamism != ShapeDynamism::kStatic; }

  int64_t numel() const {
    int64_t n = 1;
    for (int32_t i = 0; i < dim; ++i) n *= sizes[i];
    return n;
  }
  size_t nbytes() const { return static_cast<size_t>(numel()) * element_size(dtype); }

  // Size of dimension d; negative d counts from the back. d must be valid.
  int64_t size(int64_t d) const { return sizes[d < 0 ? d + dim : d]; }

  // True for the contiguous (identity) dim order.
  bool is_default_dim_order() const {
    for (int32_t i = 0; i < dim; ++i) {
      if (dim_order[i] != i) return false;
    }
    return true;
  }

  template <typename T>
  T* data_as() const {
    return static_cast<T*>(data);
  }
};

// True when both tensors have the same rank and sizes.
bool same_shape(const Tensor& a, const Tensor& b);
// True when `t` has rank `rank` and these sizes.
bool has_sizes(const Tensor& t, const int64_t* sizes, int32_t rank);

// Gives `t` the shape `sizes` (ExecuTorch's resize_tensor): a static tensor
// must already have it; a dynamic one keeps its rank and may take any shape
// of at most `capacity` elements. The message says what was wrong, without
// naming an op (callers prefix it).
Error resize(Tensor& t, const int64_t* sizes, int32_t rank);

// "[2, 3]" into buf (truncated to fit).
void format_shape(char* buf, size_t cap, const int64_t* sizes, int32_t rank);

// "[0, 2, 3, 1]" into buf (truncated to fit).
void format_dim_order(char* buf, size_t cap, const Tensor& t);

// True when both tensors have the same rank and dim order.
bool same_dim_order(const Tensor& a, const Tensor& b);

// Whether `order[0..rank)` is a permutation of 0..rank-1 (a valid dim order).
bool is_dim_order(const uint8_t* order, int32_t rank);

// Element strides of each (logical) dim of `t`, from its sizes and dim order:
// the innermost dim in memory has stride 1.
void dim_order_strides(const Tensor& t, int64_t* strides);

// Copies the elements of `src` into `dst` (same dtype and shape, any dim
// orders): dst's element at each logical index becomes src's. No allocation.
void copy_across_dim_orders(const Tensor& src, const Tensor& dst);

}  // namespace sb
