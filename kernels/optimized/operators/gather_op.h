// The index kernels' row gathers (index, index_select, embedding) on an Int or
// Long index tensor, over optimized/microkernels/gather_rows.h.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sb/tensor.h"

namespace sb::optimized {

// out row i = table row index[i] for the `count` Int or Long indices (already
// checked to lie in [-rows, rows); negative ones count from the end), rows of
// `row_bytes`; `outer` blocks of table_rows rows each gather the same indices.
void gather_rows(const void* table, int64_t table_rows, size_t row_bytes, const Tensor& index, int64_t outer,
                 void* out);

// Whether every index of an Int or Long tensor lies in [-rows, rows) (negative
// ones allowed when `negative`); false for any other dtype.
bool indices_within(const Tensor& index, int64_t rows, bool negative);

}  // namespace sb::optimized
