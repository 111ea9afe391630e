// A dense, contiguous tensor. Sizes live inline so that kernels can make
// temporary views on the stack without allocating.
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

  bool is_dynamic() const { return dynamism != ShapeDynamism::kStatic; }

  int64_t numel() const {
    int64_t n = 1;
    for (int32_t i = 0; i < dim; ++i) n *= sizes[i];
    return n;
  }
  size_t nbytes() const { return static_cast<size_t>(numel()) * element_size(dtype); }

  // Size of dimension d; negative d counts from the back. d must be valid.
  int64_t size(int64_t d) const { return sizes[d < 0 ? d + dim : d]; }

  template <typename T>
  T* data_as() const {
    return static_cast<T*>(data);
  }
};

// True when both tensors have the same rank and sizes.
bool same_shape(const Tensor& a, const Tensor& b);

// Gives `t` the shape `sizes` (ExecuTorch's resize_tensor): a static tensor
// must already have it; a dynamic one keeps its rank and may take any shape
// of at most `capacity` elements. The message says what was wrong, without
// naming an op (callers prefix it).
Error resize(Tensor& t, const int64_t* sizes, int32_t rank);

// "[2, 3]" into buf (truncated to fit).
void format_shape(char* buf, size_t cap, const int64_t* sizes, int32_t rank);

}  // namespace sb
