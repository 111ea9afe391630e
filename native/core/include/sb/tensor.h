// A dense, contiguous tensor. Sizes live inline so that kernels can make
// temporary views on the stack without allocating.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sb/scalar_type.h"

namespace sb {

constexpr int kMaxDims = 8;

struct Tensor {
  ScalarType dtype = ScalarType::kFloat;
  int32_t dim = 0;
  int64_t sizes[kMaxDims] = {};
  void* data = nullptr;

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

}  // namespace sb
