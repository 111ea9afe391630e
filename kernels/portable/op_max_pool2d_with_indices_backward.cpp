// aten::max_pool2d_with_indices_backward.grad_input(Tensor grad_output, Tensor self, int[2] kernel_size,
//     int[2] stride, int[2] padding, int[2] dilation, bool ceil_mode, Tensor indices, *, Tensor(a!) grad_input)
// grad_input is zeroed, then each grad_output value is added at the input position its index names
// (an index of -1, a window that saw no input, adds nothing). Every index is checked before anything is written.
#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/pool.h"
#include "util/promote.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::max_pool2d_with_indices_backward.grad_input";

Error max_pool_backward_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& grad_out = *args[0]->as_tensor;
  const Tensor& self = *args[1]->as_tensor;
  const Tensor& indices = *args[7]->as_tensor;
  Tensor& grad_in = *args[8]->as_tensor;
  PoolGeometry g{};
  Error err = pool_geometry(kOp, self, args[2]->as_int_list, args[3]->as_int_list, args[4]->as_int_list,
                            args[5]->as_int_list, args[6]->as_bool, &g);
  if (!err.ok()) return err;
  if (!(err = check_dtype(kOp, "grad_output", grad_out, self.dtype)).ok()) return err;
  if (!(err = check_dtype(kOp, "grad_input", grad_in, self.dtype)).ok()) return err;
  if (!(err = check_dtype(kOp, "indices", indices, ScalarType::kLong)).ok()) return err;
  int64_t sizes[kMaxDims];
  pool_out_sizes(self, g, sizes);
  if (grad_out.dim != self.dim || indices.dim != self.dim) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: grad_output and indices must have the input's rank", kOp);
  }
  for (int32_t d = 0; d < self.dim; ++d) {
    if (grad_out.sizes[d] != sizes[d] || indices.sizes[d] != sizes[d]) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: grad_output and indices must have the pooled shape", kOp);
    }
  }
  if (!(err = resize_output_like(kOp, grad_in, self)).ok()) return err;

  const int64_t plane_in = g.h * g.w;  // pool_geometry bounded both by the input's element count
  const int64_t plane_out = g.oh * g.ow;
  const int64_t* idx = indices.data_as<int64_t>();
  for (int64_t i = 0; i < g.planes * plane_out; ++i) {
    if (idx[i] < -1 || idx[i] >= plane_in) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: index out of range of the input plane", kOp);
    }
  }

  return switch_dtype<kOp, kFloatHBF16>(self.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* go = grad_out.data_as<T>();
    T* gi = grad_in.data_as<T>();
    for (int64_t i = 0; i < g.planes * plane_in; ++i) gi[i] = T(0);
    for (int64_t p = 0; p < g.planes; ++p) {
      T* plane = gi + p * plane_in;
      for (int64_t o = p * plane_out; o < (p + 1) * plane_out; ++o) {
        const int64_t at = idx[o];
        if (at < 0) continue;
        plane[at] = convert<T>(convert<compute_t<T>>(plane[at]) + convert<compute_t<T>>(go[o]));
      }
    }
    return Error();
  });
}

}  // namespace

extern const KernelDef max_pool2d_with_indices_backward_grad_input{kOp, "TTIIIIbT|T", &max_pool_backward_impl, {}};

}  // namespace sb::kernels
