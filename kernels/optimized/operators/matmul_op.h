// The Tensor side of mm.out's and bmm.out's fast paths over
// optimized/microkernels/gemm.h.
#pragma once

#include <cstdint>

#include "sb/kernel.h"

namespace sb::optimized {

// aten::mm.out (rank 2) and aten::bmm.out (rank 3: batches back to back):
// args (self, mat2, out) fp32 on gemm_f32; other ranks, dtypes and shapes
// that do not chain go to `fallback` (the portable kernel), whose checks
// then speak; out's shape and dtype checked as util/matmul.h does.
Error matmul_f32(const char* op, KernelContext& ctx, Args args, const KernelDef& fallback, int32_t rank);

}  // namespace sb::optimized
