// The Tensor side of the avg and max pool kernels' band path
// (optimized/microkernels/pool_rows.h).
#pragma once

#include <cstdint>

#include "optimized/microkernels/pool_rows.h"
#include "sb/kernel.h"

namespace sb::optimized {

// The avg and max pool kernels' shared prologue: pool_geometry's checks (an invalid window is
// its error), then `*fast`: whether the band path takes this geometry with `arrays` scratch
// arrays of band rows in kPoolScratchFloats; if so, `outs` are resized.
Error plan_pool_bands(const char* op, const Tensor& in, Args args, bool has_dilation, int64_t arrays,
                      Span<Tensor* const> outs, PoolBands* plan, bool* fast);

}  // namespace sb::optimized
