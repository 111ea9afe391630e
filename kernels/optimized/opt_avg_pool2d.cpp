// aten::avg_pool2d.out, optimized: fp32, default dim order, vectorised over
// output width. Each input row a window row needs is split by the stride into
// zero-padded phases (optimized/util/pool_rows.h), so every tap is a
// contiguous vector load; the divisor is ATen's (divisor_override, else the
// window clipped to input + padding with count_include_pad, else clipped to
// the input), which factors into a row and a column extent. Everything else
// goes to the portable kernel.
#include "optimized/util/pool_rows.h"
#include "optimized/util/vec.h"
#include "sb/kernel.h"
#include "util/pool.h"
#include "util/shape.h"

#include <utility>

namespace sb::kernels {
extern const KernelDef avg_pool2d_out;
}

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::avg_pool2d.out";
constexpr int64_t kRowBytes = 24 * 1024;  // stack rows per call
constexpr int64_t kRowFloats = kRowBytes / static_cast<int64_t>(sizeof(float));
constexpr int64_t kMaxKernel = 16;  // window rows and columns on the fast path

template <size_t... I>
constexpr VecI iota_scaled(int32_t s, std::index_sequence<I...>) {
  return VecI{static_cast<int32_t>(I * s)...};
}
VecI vmin_i(VecI a, VecI b) { return a < b ? a : b; }
VecI vmax_i(VecI a, VecI b) { return a > b ? a : b; }

Error avg_pool_impl(KernelContext& ctx, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  Tensor& out = *args[7]->as_tensor;
  if (in.dtype != ScalarType::kFloat || out.dtype != ScalarType::kFloat || !in.is_default_dim_order() ||
      !out.is_default_dim_order()) {
    return kernels::avg_pool2d_out.fn(ctx, args);
  }
  const bool count_include_pad = args[5]->as_bool;
  const bool has_override = !args[6]->is_none();
  const int64_t divisor_override = has_override ? args[6]->as_int : 0;
  kernels::PoolGeometry g{};
  Error err = kernels::pool_geometry(kOp, in, args[1]->as_int_list, args[2]->as_int_list, args[3]->as_int_list,
                                     Span<const int64_t>(), args[4]->as_bool, &g);
  if (!err.ok()) return err;
  const int64_t s = g.sw;
  const int64_t phase_max = g.kh <= kMaxKernel && s <= kRowFloats ? kRowFloats / g.kh / s / kLanes * kLanes : 0;
  const int64_t m_max = (g.kw - 1) / s;
  const int64_t tile_max = (phase_max - m_max) / kLanes * kLanes;
  if (has_override || g.kw > kMaxKernel || tile_max < kLanes || g.w > (int64_t{1} << 24)) {
    // divisor_override (rare; its checks are portable's) and geometries too large for the stack rows
    return kernels::avg_pool2d_out.fn(ctx, args);
  }
  int64_t sizes[kMaxDims];
  kernels::pool_out_sizes(in, g, sizes);
  if (!(err = kernels::resize_output(kOp, out, sizes, in.dim)).ok()) return err;
  (void)divisor_override;

  const int64_t tile = g.ow < tile_max ? g.ow : tile_max;
  const int64_t phase_len = ((tile + kLanes - 1) / kLanes * kLanes + m_max + kLanes - 1) / kLanes * kLanes;
  const int64_t row_len = s * phase_len;
  const VecI lane_cols = iota_scaled(static_cast<int32_t>(s), std::make_index_sequence<kLanes>{});
  float rows[kRowFloats];
  int64_t col_off[kMaxKernel];
  for (int64_t kj = 0; kj < g.kw; ++kj) col_off[kj] = (kj % s) * phase_len + kj / s;

  const float* x = in.data_as<float>();
  float* y = out.data_as<float>();
  for (int64_t p = 0; p < g.planes; ++p) {
    const float* plane = x + p * g.h * g.w;
    for (int64_t ow0 = 0; ow0 < g.ow; ow0 += tile) {
      const int64_t n = g.ow - ow0 < tile ? g.ow - ow0 : tile;
      const int64_t base = ow0 * s - g.pw;
      // Window rows are consecutive (dilation 1), so the kh rows of one output row have
      // distinct slots ih % kh; a row stays in its slot for the output rows that share it.
      int64_t slot_row[kMaxKernel];
      for (int64_t k = 0; k < g.kh; ++k) slot_row[k] = -1;
      for (int64_t oh = 0; oh < g.oh; ++oh) {
        const int64_t h0 = oh * g.sh - g.ph;
        const int64_t h1 = h0 + g.kh < g.h + g.ph ? h0 + g.kh : g.h + g.ph;
        const int64_t ih_lo = h0 < 0 ? 0 : h0;
        const int64_t ih_hi = h1 < g.h ? h1 : g.h;
        const int32_t row_ext = static_cast<int32_t>(count_include_pad ? h1 - h0 : ih_hi - ih_lo);
        float* yrow = y + (p * g.oh + oh) * g.ow;
        for (int64_t ih = ih_lo; ih < ih_hi; ++ih) {
          const int64_t k = ih % g.kh;
          if (slot_row[k] != ih) {
            fill_phase_row(rows + k * row_len, plane + ih * g.w, g.w, base, s, phase_len, 0.0f);
            slot_row[k] = ih;
          }
        }
        for (int64_t j = 0; j < n; j += kLanes) {
          VecF a0 = {}, a1 = {};
          for (int64_t ih = ih_lo; ih < ih_hi; ++ih) {
            const float* r = rows + (ih % g.kh) * row_len + j;
            int64_t kj = 0;
            for (; kj + 2 <= g.kw; kj += 2) {
              a0 += load(r + col_off[kj]);
              a1 += load(r + col_off[kj + 1]);
            }
            if (kj < g.kw) a0 += load(r + col_off[kj]);
          }
          // Column extents of each lane's window, as the row's above.
          const VecI w0 = lane_cols + static_cast<int32_t>(base + j * s);
          const VecI w1 = vmin_i(w0 + static_cast<int32_t>(g.kw), VecI{} + static_cast<int32_t>(g.w + g.pw));
          const VecI col_ext = count_include_pad
                                   ? w1 - w0
                                   : vmin_i(w1, VecI{} + static_cast<int32_t>(g.w)) - vmax_i(w0, VecI{});
          const VecI divisor = col_ext * row_ext;
          const VecF sum = a0 + a1;
          const VecF q = sum / __builtin_convertvector(divisor > 0 ? divisor : VecI{} + 1, VecF);
          const VecF avg = divisor > 0 ? q : VecF{};
          if (n - j >= kLanes) {
            store(yrow + ow0 + j, avg);
          } else {
            store_partial(yrow + ow0 + j, avg, n - j);
          }
        }
      }
    }
  }
  return Error();
}

}  // namespace

extern const KernelDef opt_avg_pool2d_out{kOp, "TIIIbbn|T", &avg_pool_impl, {}, LayoutPolicy::kAny};

}  // namespace sb::optimized
