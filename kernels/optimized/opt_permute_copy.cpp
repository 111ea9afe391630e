// aten::permute_copy.out(Tensor self, int[] dims, *, Tensor(a!) out)
//
// Fast path: a batched transpose of the two innermost dims (dims = [0, .., r-1,
// r-2]) of a 4-byte dtype, as linear layers' weight permutes and attention's
// key transposes are; it moves 8×8 blocks so both sides stream through cache
// lines. Any other permutation (attention's head split [0, 2, 1, 3]) is a
// strided copy of rows (util/copy_fast.h), validated as the portable kernel
// does; a permutation it refuses goes to the portable kernel for its message.
#if defined(__GNUC__) && !defined(__clang__)
// Data movement is memcpy calls and short loops over dims: -O3's vectorized
// and unrolled copies of those loops only add bytes (util/copy_fast.h).
#pragma GCC optimize("O2")
#endif
#include <cstring>

#include "optimized/util/copy_fast.h"
#include "sb/kernel.h"
#include "sb/tensor.h"
#include "util/shape.h"

namespace sb::kernels {
extern const KernelDef permute_copy_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr int64_t kBlock = 8;

bool swaps_innermost_pair(const Tensor& self, Span<const int64_t> dims) {
  const int32_t rank = self.dim;
  if (rank < 2 || static_cast<int32_t>(dims.size()) != rank) return false;
  for (int32_t i = 0; i < rank - 2; ++i) {
    if (dims[i] != i && dims[i] != i - rank) return false;
  }
  const bool last_two = (dims[rank - 2] == rank - 1 || dims[rank - 2] == -1) &&
                        (dims[rank - 1] == rank - 2 || dims[rank - 1] == -2);
  return last_two;
}

#if defined(__x86_64__) || defined(__aarch64__)
typedef uint32_t Row8 __attribute__((vector_size(32)));

Row8 load_row(const uint32_t* p) {
  Row8 v;
  memcpy(&v, p, sizeof v);
  return v;
}

// Lanes 0, 1, 4, 5 of the interleaved pairs of a and b (lo) and lanes 2, 3, 6, 7 (hi).
Row8 pairs_lo(Row8 a, Row8 b) { return __builtin_shufflevector(a, b, 0, 8, 1, 9, 4, 12, 5, 13); }
Row8 pairs_hi(Row8 a, Row8 b) { return __builtin_shufflevector(a, b, 2, 10, 3, 11, 6, 14, 7, 15); }
Row8 quads_lo(Row8 a, Row8 b) { return __builtin_shufflevector(a, b, 0, 1, 8, 9, 4, 5, 12, 13); }
Row8 quads_hi(Row8 a, Row8 b) { return __builtin_shufflevector(a, b, 2, 3, 10, 11, 6, 7, 14, 15); }

// Column c and c + 4 of the block from the quads of rows 0-3 (a) and 4-7 (b).
void store_columns(uint32_t* d, int64_t ds, int64_t c, Row8 a, Row8 b) {
  const Row8 low = __builtin_shufflevector(a, b, 0, 1, 2, 3, 8, 9, 10, 11);
  const Row8 high = __builtin_shufflevector(a, b, 4, 5, 6, 7, 12, 13, 14, 15);
  memcpy(d + c * ds, &low, sizeof low);
  memcpy(d + (c + 4) * ds, &high, sizeof high);
}

// A full block: 8 rows of 8 from s (row stride ss) into 8 columns of d (row
// stride ds), in three rounds of two-source shuffles (pairs, quads, halves).
void transpose8x8(const uint32_t* s, int64_t ss, uint32_t* d, int64_t ds) {
  const Row8 r0 = load_row(s), r1 = load_row(s + ss), r2 = load_row(s + 2 * ss), r3 = load_row(s + 3 * ss);
  const Row8 r4 = load_row(s + 4 * ss), r5 = load_row(s + 5 * ss), r6 = load_row(s + 6 * ss);
  const Row8 r7 = load_row(s + 7 * ss);
  const Row8 t0 = pairs_lo(r0, r1), t1 = pairs_hi(r0, r1), t2 = pairs_lo(r2, r3), t3 = pairs_hi(r2, r3);
  const Row8 t4 = pairs_lo(r4, r5), t5 = pairs_hi(r4, r5), t6 = pairs_lo(r6, r7), t7 = pairs_hi(r6, r7);
  store_columns(d, ds, 0, quads_lo(t0, t2), quads_lo(t4, t6));
  store_columns(d, ds, 1, quads_hi(t0, t2), quads_hi(t4, t6));
  store_columns(d, ds, 2, quads_lo(t1, t3), quads_lo(t5, t7));
  store_columns(d, ds, 3, quads_hi(t1, t3), quads_hi(t5, t7));
}
#endif

// out[b][c][r] = in[b][r][c] for `batches` matrices of rows×cols 4-byte elements.
void transpose_batches(const uint32_t* in, uint32_t* out, int64_t batches, int64_t rows, int64_t cols) {
  for (int64_t b = 0; b < batches; ++b) {
    const uint32_t* src = in + b * rows * cols;
    uint32_t* dst = out + b * rows * cols;
    for (int64_t r0 = 0; r0 < rows; r0 += kBlock) {
      const int64_t r1 = r0 + kBlock < rows ? r0 + kBlock : rows;
      for (int64_t c0 = 0; c0 < cols; c0 += kBlock) {
        const int64_t c1 = c0 + kBlock < cols ? c0 + kBlock : cols;
#if defined(__x86_64__) || defined(__aarch64__)
        if (r1 - r0 == kBlock && c1 - c0 == kBlock) {
          transpose8x8(src + r0 * cols + c0, cols, dst + c0 * rows + r0, rows);
          continue;
        }
#endif
        for (int64_t c = c0; c < c1; ++c) {
          for (int64_t r = r0; r < r1; ++r) dst[c * rows + r] = src[r * cols + c];
        }
      }
    }
  }
}

// Any permutation: out's dim i steps through self as self's dim dims[i] does.
Error permute_rows(KernelContext& ctx, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Span<const int64_t> dims = args[1]->as_int_list;
  Tensor& out = *args[2]->as_tensor;
  if (static_cast<int32_t>(dims.size()) != self.dim || out.dtype != self.dtype) {
    return kernels::permute_copy_out.fn(ctx, args);
  }
  int64_t strides[kMaxDims];
  row_major_strides(self.sizes, self.dim, strides);
  int64_t sizes[kMaxDims];
  int64_t from[kMaxDims];
  uint32_t seen = 0;
  for (int32_t i = 0; i < self.dim; ++i) {
    const int64_t d = dims[i] < 0 ? dims[i] + self.dim : dims[i];
    if (d < 0 || d >= self.dim || (seen >> d & 1) != 0) return kernels::permute_copy_out.fn(ctx, args);
    seen |= 1u << d;
    sizes[i] = self.sizes[d];
    from[i] = strides[d];
  }
  Error err = resize(out, sizes, self.dim);
  if (!err.ok()) return Error::make(err.code(), "aten::permute_copy.out: %s", err.message());
  if (out.data == self.data) return kernels::permute_copy_out.fn(ctx, args);
  copy_to_contiguous(self.data, from, out.data, sizes, self.dim, element_size(self.dtype));
  return Error();
}

Error opt_permute_copy_out_impl(KernelContext& ctx, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Span<const int64_t> dims = args[1]->as_int_list;
  Tensor& out = *args[2]->as_tensor;
  const bool fast = swaps_innermost_pair(self, dims) && element_size(self.dtype) == 4 && out.dtype == self.dtype &&
                    out.dim == self.dim && out.data != self.data;
  if (!fast) return permute_rows(ctx, args);
  int64_t sizes[kMaxDims];
  for (int32_t i = 0; i < self.dim; ++i) sizes[i] = self.sizes[i];
  sizes[self.dim - 2] = self.sizes[self.dim - 1];
  sizes[self.dim - 1] = self.sizes[self.dim - 2];
  Error err = resize(out, sizes, self.dim);
  if (!err.ok()) return Error::make(err.code(), "aten::permute_copy.out: %s", err.message());
  const int64_t rows = self.sizes[self.dim - 2];
  const int64_t cols = self.sizes[self.dim - 1];
  const int64_t batches = rows * cols == 0 ? 0 : self.numel() / (rows * cols);
  transpose_batches(self.data_as<const uint32_t>(), out.data_as<uint32_t>(), batches, rows, cols);
  return Error();
}

}  // namespace

extern const KernelDef opt_permute_copy_out{"aten::permute_copy.out", "TI|T", &opt_permute_copy_out_impl, {}};

}  // namespace sb::optimized
