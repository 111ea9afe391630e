// aten::max_pool2d_with_indices.out(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0,
//     int[2] dilation=1, bool ceil_mode=False, *, Tensor(a!) out, Tensor(b!) indices)
#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/pool.h"
#include "util/shape.h"
#include "util/window.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::max_pool2d_with_indices.out";

Error max_pool_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  Tensor& out = *args[6]->as_tensor;
  Tensor& indices = *args[7]->as_tensor;
  PoolGeometry g{};
  Error err = pool_geometry(kOp, in, args[1]->as_int_list, args[2]->as_int_list, args[3]->as_int_list,
                            args[4]->as_int_list, args[5]->as_bool, &g);
  if (!err.ok()) return err;
  int64_t sizes[kMaxDims];
  pool_out_sizes(in, g, sizes);
  if (!(err = resize_output(kOp, out, sizes, in.dim)).ok()) return err;
  if (!(err = resize_output(kOp, indices, sizes, in.dim)).ok()) return err;
  if (!(err = check_dtype(kOp, "indices", indices, ScalarType::kLong)).ok()) return err;
  if (!(err = check_dtype(kOp, "self", in, out.dtype)).ok()) return err;

  return switch_dtype<kOp, kRealHBF16>(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* x = in.data_as<T>();
    T* y = out.data_as<T>();
    int64_t* idx = indices.data_as<int64_t>();
    // Any dim order: each tensor's elements are found through its own strides.
    const PlaneIndex xi(in), yi(out), ii(indices);
    for (int64_t p = 0; p < g.planes; ++p) {
      const T* plane = x + xi.plane(p);
      for (int64_t oh = 0; oh < g.oh; ++oh) {
        for (int64_t ow = 0; ow < g.ow; ++ow) {
          int64_t best = -1;  // index within the plane, as ATen gives it
          int64_t best_at = 0;
          for_each_window_tap(g, oh, ow, [&](int64_t, int64_t, int64_t ih, int64_t iw) {
            const int64_t at = ih * xi.h + iw * xi.w;
            // NaN wins, as in ATen.
            if (best < 0 || plane[at] > plane[best_at] || plane[at] != plane[at]) {
              best = ih * g.w + iw;
              best_at = at;
            }
          });
          y[yi.plane(p) + oh * yi.h + ow * yi.w] = best < 0 ? T(0) : plane[best_at];
          idx[ii.plane(p) + oh * ii.h + ow * ii.w] = best;
        }
      }
    }
    return Error();
  });
}

}  // namespace

extern const KernelDef max_pool2d_with_indices_out{kOp, "TIIIIb|TT", &max_pool_out_impl, {},
                                                     LayoutPolicy::kAny};

}  // namespace sb::kernels
