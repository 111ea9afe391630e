// aten::_cdist_forward.out(Tensor x1, Tensor x2, float p, int? compute_mode, *, Tensor(a!) out)
//
// x1 [*B1, P, M], x2 [*B2, R, M] -> out [*B, P, R]: the p-norm distance of
// every row pair, batch dims broadcast. compute_mode (0..2) picks ATen's
// matrix-multiply shortcut for p = 2; the result is computed directly here.
#include "sb/kernel.h"
#include "util/distance.h"
#include "util/dtype_switch.h"
#include "util/elementwise.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::_cdist_forward.out";

// The batch dims of t (all but the last two), as a tensor shape.
Tensor batch_view(const Tensor& t) {
  Tensor v = t;
  v.dim = t.dim - 2;
  return v;
}

Error cdist_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& x1 = *args[0]->as_tensor;
  const Tensor& x2 = *args[1]->as_tensor;
  const double p = args[2]->as_double;
  Tensor& out = *args[4]->as_tensor;
  if (x1.dim < 2 || x2.dim < 2 || x1.sizes[x1.dim - 1] != x2.sizes[x2.dim - 1]) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: inputs must be [..., rows, M] with the same M", kOp);
  }
  Error err = check_norm_p(kOp, p);
  if (!err.ok()) return err;
  if (!args[3]->is_none() && (args[3]->as_int < 0 || args[3]->as_int > 2)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: compute_mode must be 0, 1 or 2", kOp);
  }
  if (!(err = check_dtype(kOp, "x2", x2, x1.dtype)).ok()) return err;
  if (!(err = check_dtype(kOp, "out", out, x1.dtype)).ok()) return err;
  const Tensor b1 = batch_view(x1);
  const Tensor b2 = batch_view(x2);
  int64_t sizes[kMaxDims];
  int32_t rank = 0;
  if (!(err = broadcast_shape(kOp, b1, b2, sizes, &rank)).ok()) return err;
  const int64_t rows1 = x1.sizes[x1.dim - 2];
  const int64_t rows2 = x2.sizes[x2.dim - 2];
  const int64_t m = x1.sizes[x1.dim - 1];
  sizes[rank] = rows1;
  sizes[rank + 1] = rows2;
  if (!(err = resize_output(kOp, out, sizes, rank + 2)).ok()) return err;

  Tensor batch = out;
  batch.dim = rank;
  const BroadcastIndex at1(b1, batch);
  const BroadcastIndex at2(b2, batch);
  const int64_t batches = size_product(out, 0, rank);
  return switch_dtype<kOp, kFloatHBF16>(x1.dtype, [&](auto zero) {
    using T = decltype(zero);
    T* y = out.data_as<T>();
    for (int64_t b = 0; b < batches; ++b) {
      const T* a = x1.data_as<T>() + at1(b) * rows1 * m;
      const T* c = x2.data_as<T>() + at2(b) * rows2 * m;
      for (int64_t i = 0; i < rows1; ++i) {
        for (int64_t j = 0; j < rows2; ++j) {
          y[(b * rows1 + i) * rows2 + j] = static_cast<T>(pnorm_distance(a + i * m, c + j * m, m, p));
        }
      }
    }
    return Error();
  });
}

}  // namespace

extern const KernelDef _cdist_forward_out{kOp, "TTdn|T", &cdist_impl, {}};

}  // namespace sb::kernels
