#include "optimized/microkernels/copy_box.h"

#include <cstring>

#include "sb/tensor.h"  // kMaxDims
#include "util/strided.h"

namespace sb::optimized {
namespace {

#if defined(__x86_64__) || defined(__aarch64__)
constexpr bool kBlockShuffles = true;
typedef uint32_t Row8 __attribute__((vector_size(32)));

Row8 load_row(const uint8_t* p) {
  Row8 v;
  memcpy(&v, p, sizeof v);
  return v;
}

// Lanes 0, 1, 4, 5 of the interleaved pairs of a and b (lo) and lanes 2, 3, 6, 7 (hi).
Row8 pairs_lo(Row8 a, Row8 b) { return __builtin_shufflevector(a, b, 0, 8, 1, 9, 4, 12, 5, 13); }
Row8 pairs_hi(Row8 a, Row8 b) { return __builtin_shufflevector(a, b, 2, 10, 3, 11, 6, 14, 7, 15); }
Row8 quads_lo(Row8 a, Row8 b) { return __builtin_shufflevector(a, b, 0, 1, 8, 9, 4, 5, 12, 13); }
Row8 quads_hi(Row8 a, Row8 b) { return __builtin_shufflevector(a, b, 2, 3, 10, 11, 6, 7, 14, 15); }

// Columns c and c + 4 of the block from the quads of rows 0-3 (a) and 4-7 (b).
void store_columns(uint8_t* d, int64_t ds, int64_t c, Row8 a, Row8 b) {
  const Row8 low = __builtin_shufflevector(a, b, 0, 1, 2, 3, 8, 9, 10, 11);
  const Row8 high = __builtin_shufflevector(a, b, 4, 5, 6, 7, 12, 13, 14, 15);
  memcpy(d + c * ds, &low, sizeof low);
  memcpy(d + (c + 4) * ds, &high, sizeof high);
}

// A full 8x8 block of 4-byte elements: rows of s (ss bytes apart) become
// columns of d (rows ds bytes apart), in three rounds of two-source shuffles.
// Out of line: inlined into copy_box's loops its 16 vectors spilled to the
// stack (hf_bert 2%, gru 4% slower).
__attribute__((noinline)) void transpose8x8(const uint8_t* s, int64_t ss, uint8_t* d, int64_t ds) {
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
#else
constexpr bool kBlockShuffles = false;  // no SIMD unit to shuffle with (Cortex-M): element by element
void transpose8x8(const uint8_t*, int64_t, uint8_t*, int64_t) {}
#endif

// d[a][b] = s[b][a] for a < rows_a, b < rows_b, 4-byte elements: s's rows
// (along a) are ss bytes apart, d's (along b) ds bytes apart. Blocks of 8x8
// so both sides stream through cache lines.
void transpose(const uint8_t* s, int64_t ss, uint8_t* d, int64_t ds, int64_t rows_a, int64_t rows_b) {
  constexpr int64_t kBlock = 8;
  for (int64_t b0 = 0; b0 < rows_b; b0 += kBlock) {
    const int64_t nb = rows_b - b0 < kBlock ? rows_b - b0 : kBlock;
    for (int64_t a0 = 0; a0 < rows_a; a0 += kBlock) {
      const int64_t na = rows_a - a0 < kBlock ? rows_a - a0 : kBlock;
      const uint8_t* from = s + b0 * ss + a0 * 4;
      uint8_t* to = d + a0 * ds + b0 * 4;
      if (kBlockShuffles && na == kBlock && nb == kBlock) {
        transpose8x8(from, ss, to, ds);
        continue;
      }
      for (int64_t a = 0; a < na; ++a) {
        for (int64_t b = 0; b < nb; ++b) memcpy(to + a * ds + b * 4, from + b * ss + a * 4, 4);
      }
    }
  }
}

}  // namespace

void row_major_strides(const int64_t* sizes, int32_t rank, int64_t* strides) {
  int64_t s = 1;
  for (int32_t d = rank - 1; d >= 0; --d) {
    strides[d] = s;
    s *= sizes[d];
  }
}

void copy_box(const void* src, const int64_t* src_strides, void* dst, const int64_t* dst_strides,
              const int64_t* sizes, int32_t rank, size_t elem) {
  int64_t size[kMaxDims];
  int64_t from[kMaxDims];
  int64_t to[kMaxDims];
  int32_t dims = 0;
  for (int32_t d = 0; d < rank; ++d) {
    if (sizes[d] == 0) return;
    if (sizes[d] == 1) continue;
    if (dims > 0 && from[dims - 1] == src_strides[d] * sizes[d] && to[dims - 1] == dst_strides[d] * sizes[d]) {
      size[dims - 1] *= sizes[d];
      from[dims - 1] = src_strides[d];
      to[dims - 1] = dst_strides[d];
      continue;
    }
    size[dims] = sizes[d];
    from[dims] = src_strides[d];
    to[dims] = dst_strides[d];
    ++dims;
  }
  const auto* in = static_cast<const uint8_t*>(src);
  auto* out = static_cast<uint8_t*>(dst);
  if (dims == 0) {
    memcpy(out, in, elem);
    return;
  }
  const int64_t e = static_cast<int64_t>(elem);
  const int64_t row = size[dims - 1];
  // The innermost two dims transposed (src contiguous along the outer one,
  // dst along the inner one, 4-byte elements: a permute of the last two dims,
  // NCHW <-> NHWC) go as 8x8 blocks; everything else row by row.
  const bool blocks = elem == 4 && dims >= 2 && from[dims - 2] == 1 && to[dims - 1] == 1 && from[dims - 1] != 1;
  const int32_t leaf = blocks ? 2 : 1;
  int64_t coord[kMaxDims] = {};
  for (;;) {
    if (blocks) {
      transpose(in, from[dims - 1] * e, out, to[dims - 2] * e, size[dims - 2], row);
    } else {
      kernels::copy_row_any(in, from[dims - 1], out, to[dims - 1], row, elem);
    }
    int32_t d = dims - 1 - leaf;
    for (; d >= 0; --d) {
      in += from[d] * e;
      out += to[d] * e;
      if (++coord[d] < size[d]) break;
      in -= coord[d] * from[d] * e;
      out -= coord[d] * to[d] * e;
      coord[d] = 0;
    }
    if (d < 0) return;
  }
}

void copy_to_contiguous(const void* src, const int64_t* src_strides, void* dst, const int64_t* sizes, int32_t rank,
                        size_t elem) {
  int64_t strides[kMaxDims];
  row_major_strides(sizes, rank, strides);
  copy_box(src, src_strides, dst, strides, sizes, rank, elem);
}

}  // namespace sb::optimized
