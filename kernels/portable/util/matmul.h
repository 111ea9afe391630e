// Matrix multiply shared by mm and bmm.
#pragma once

#include <cstdint>

#include "sb/error.h"
#include "sb/tensor.h"
#include "util/complex.h"
#include "util/promote.h"
#include "util/shape.h"

namespace sb::kernels {

// c[m x n] = a[m x k] * b[k x n], row-major, c not aliasing a or b.
// Integers wrap; Half and BFloat16 accumulate each dot product in float and
// round once, as ExecuTorch's runtime does. Complex dot products add each
// product (util/complex.h) to a sum that starts at 0, in order.
template <typename T>
void matmul(const T* __restrict a, const T* __restrict b, T* __restrict c, int64_t m, int64_t k, int64_t n) {
  if constexpr (is_complex_v<T>) {
    using Arith = ComplexArith<T>;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        T sum = Arith::zero();
        for (int64_t p = 0; p < k; ++p) sum = Arith::add(sum, Arith::mul(a[i * k + p], b[p * n + j]));
        c[i * n + j] = sum;
      }
    }
  } else if constexpr (!std::is_same_v<acc_t<T>, T>) {
    using Acc = acc_t<T>;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        Acc sum{};
        for (int64_t p = 0; p < k; ++p) sum = mul_add(sum, convert<Acc>(a[i * k + p]), convert<Acc>(b[p * n + j]));
        c[i * n + j] = convert<T>(sum);
      }
    }
  } else {
    for (int64_t i = 0; i < m; ++i) {
      T* row = c + i * n;
      for (int64_t j = 0; j < n; ++j) row[j] = T(0);
      // i-k-j order: the inner loop streams through rows of b and c.
      for (int64_t p = 0; p < k; ++p) {
        const T av = a[i * k + p];
        const T* brow = b + p * n;
        for (int64_t j = 0; j < n; ++j) row[j] += av * brow[j];
      }
    }
  }
}

// c[m x n] = a[m x k] * b[n x k]^T (+ bias), row-major, c not aliasing a, b or
// bias: linear's product, whose weight holds one row of k per output column.
// `bias` is null, one value (bias_stride 0) or n values (bias_stride 1),
// added to each dot product before it is rounded. Each dot product sums
// along k in order, in acc_t<T> (float for Half and BFloat16), as matmul does.
template <typename T>
void matmul_transposed_b(const T* __restrict a, const T* __restrict b, const T* __restrict bias, int64_t bias_stride,
                         T* __restrict c, int64_t m, int64_t k, int64_t n) {
  using Acc = acc_t<T>;
  for (int64_t i = 0; i < m; ++i) {
    const T* arow = a + i * k;
    for (int64_t j = 0; j < n; ++j) {
      const T* brow = b + j * k;
      Acc sum{};
      for (int64_t p = 0; p < k; ++p) sum = mul_add(sum, convert<Acc>(arow[p]), convert<Acc>(brow[p]));
      if (bias != nullptr) sum = sum + convert<Acc>(bias[j * bias_stride]);
      c[i * n + j] = convert<T>(sum);
    }
  }
}

// `batch` independent products, matrices stored back to back.
template <typename T>
void batched_matmul(const T* a, const T* b, T* c, int64_t batch, int64_t m, int64_t k, int64_t n) {
  for (int64_t i = 0; i < batch; ++i) matmul<T>(a + i * m * k, b + i * k * n, c + i * m * n, m, k, n);
}

// Fails when out's bytes overlap either input's (matmul cannot run in place).
Error check_no_overlap(const char* op, const Tensor& out, const Tensor& a, const Tensor& b);

// What mm and bmm check before multiplying: out's shape, one dtype for all
// three, and no overlap.
Error check_product(const char* op, const Tensor& a, const Tensor& b, const Tensor& out, const int64_t* out_sizes,
                    int32_t rank);

}  // namespace sb::kernels
