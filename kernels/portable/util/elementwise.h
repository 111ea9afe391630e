// Broadcasting element-wise loops. Inputs are read as their own type and the
// functor's result is stored as the output type, so comparison ops can write
// bool while reading floats.
#pragma once

#include <cstdint>

#include "sb/kernel.h"
#include "sb/tensor.h"
#include "util/shape.h"

namespace sb::kernels {

// The layout policy of every kernel whose work is these maps (unary, binary,
// ternary, comparisons, clamps, where): map_unary runs in memory order, which
// is index order when input and out share a dim order, and BroadcastIndex
// follows both tensors' dim orders. Such a kernel's KernelDef names it.
constexpr LayoutPolicy kElementwiseLayout = LayoutPolicy::kSameDimOrder;

// Maps each output element to the matching element of an input that is
// broadcast to the output's shape (input rank <= output rank).
class BroadcastIndex {
 public:
  BroadcastIndex(const Tensor& in, const Tensor& out);
  // Input element index for output element `i`.
  int64_t operator()(int64_t i) const {
    if (same_) return i;
    int64_t offset = 0;
    for (int32_t d = rank_ - 1; d >= 0; --d) {
      const int64_t coord = i % out_sizes_[d];
      i /= out_sizes_[d];
      offset += coord * in_strides_[d];
    }
    return offset;
  }

 private:
  bool same_;
  int32_t rank_;
  int64_t out_sizes_[kMaxDims];
  int64_t in_strides_[kMaxDims];  // 0 along broadcast dims
};

template <typename In, typename Out, typename F>
void map_unary(const Tensor& in, const Tensor& out, F f) {
  const In* x = in.data_as<In>();
  Out* y = out.data_as<Out>();
  const int64_t n = out.numel();
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<Out>(f(x[i]));
}

// out = f(a, b) with a and b broadcast to out's shape. Callers have checked
// that out's shape is the broadcast shape of a and b.
template <typename A, typename B, typename Out, typename F>
void map_binary(const Tensor& a, const Tensor& b, const Tensor& out, F f) {
  const A* x = a.data_as<A>();
  const B* y = b.data_as<B>();
  Out* z = out.data_as<Out>();
  const int64_t n = out.numel();
  const BroadcastIndex ia(a, out);
  const BroadcastIndex ib(b, out);
  for (int64_t i = 0; i < n; ++i) z[i] = static_cast<Out>(f(x[ia(i)], y[ib(i)]));
}

// Gives out the broadcast shape of a and b (through resize_output; out is
// always the program's tensor, taken const here for the callers' sake).
Error check_broadcast_out(const char* op, const Tensor& a, const Tensor& b, const Tensor& out);

// Checks that `in` broadcasts to `out`'s shape as it is (copy_'s src).
Error check_broadcasts_to(const char* op, const Tensor& in, const Tensor& out);

}  // namespace sb::kernels
