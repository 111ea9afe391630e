// Random numbers for rand and randn: one process-wide stream (splitmix64 over
// an atomic counter, so concurrent kernels never share a draw), seeded once
// from the clock. Like ExecuTorch's kernels, values differ from run to run.
#pragma once

#include <cstdint>

#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/shape.h"

namespace sb::kernels {

// 64 random bits.
uint64_t random_bits();

// Uniform in [0, 1), 53 random bits.
inline double random_uniform() { return static_cast<double>(random_bits() >> 11) * 0x1.0p-53; }

// Standard normal (Box-Muller).
double random_normal();

// The body of rand.out and randn.out (SymInt[] size, *, Tensor(a!) out): out
// takes `size` and each element is draw(T{}), a value of out's floating dtype T.
template <const char* Op, typename Draw>
Error fill_random(Args args, Draw draw) {
  Tensor& out = *args[1]->as_tensor;
  Error err = resize_output_to_size(Op, out, args[0]->as_int_list);
  if (!err.ok()) return err;
  return switch_dtype<Op, kFloatHBF16>(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    T* y = out.data_as<T>();
    const int64_t n = out.numel();
    for (int64_t i = 0; i < n; ++i) y[i] = draw(zero);
    return Error();
  });
}

}  // namespace sb::kernels
