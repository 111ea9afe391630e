// quantized_decomposed::add.out(Tensor a, float a_scale, int a_zero_point, int a_quant_min, int a_quant_max,
//                               Tensor b, float b_scale, int b_zero_point, int b_quant_min, int b_quant_max,
//                               float out_scale, int out_zero_point, int out_quant_min, int out_quant_max, *,
//                               Tensor(a!) out)
//
// Element-wise: dequantize a and b, add in float, quantize the sum. Every
// quant range lies in [0, 255] (ExecuTorch's kernel is for uint8 ranges
// whatever the integer dtype). a, b and out have one shape and one dtype.
#include <cstdint>

#include "quantized/util/quantize.h"
#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/shape.h"

namespace sb::quantized {
namespace {

constexpr char kOp[] = "quantized_decomposed::add.out";

struct Operand {
  float scale;
  int32_t zero_point;
};

Error check_uint8_range(const char* what, int64_t quant_min, int64_t quant_max) {
  if (quant_min >= 0 && quant_max <= 255 && quant_min <= quant_max) return Error();
  return Error::make(ErrorCode::kInvalidArgument, "%s: %s quant range [%lld, %lld] is not within [0, 255]", kOp, what,
                     static_cast<long long>(quant_min), static_cast<long long>(quant_max));
}

// (q - zero_point) in int64, times the float scale in double, rounded to float: ExecuTorch's steps.
template <typename T>
float dequantized(T q, const Operand& p) {
  // Wraps instead of overflowing for Long inputs far from the zero point.
  const int64_t shifted = static_cast<int64_t>(static_cast<uint64_t>(static_cast<int64_t>(q)) -
                                               static_cast<uint64_t>(static_cast<int64_t>(p.zero_point)));
  return static_cast<float>(static_cast<double>(shifted) * static_cast<double>(p.scale));
}

Error quantized_add_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& a = *args[0]->as_tensor;
  const Tensor& b = *args[5]->as_tensor;
  Tensor& out = *args[14]->as_tensor;
  const Operand pa{static_cast<float>(args[1]->as_double), static_cast<int32_t>(args[2]->as_int)};
  const Operand pb{static_cast<float>(args[6]->as_double), static_cast<int32_t>(args[7]->as_int)};
  const Operand po{static_cast<float>(args[10]->as_double), static_cast<int32_t>(args[11]->as_int)};
  const int64_t out_quant_min = args[12]->as_int;
  const int64_t out_quant_max = args[13]->as_int;
  Error err = kernels::check_same_shape(kOp, "b", b, a);
  if (!err.ok() || !(err = kernels::resize_output_like(kOp, out, a)).ok()) return err;
  if (!(err = kernels::check_dtype(kOp, "b", b, a.dtype)).ok()) return err;
  if (!(err = kernels::check_dtype(kOp, "out", out, a.dtype)).ok()) return err;
  if (!(err = check_uint8_range("a", args[3]->as_int, args[4]->as_int)).ok()) return err;
  if (!(err = check_uint8_range("b", args[8]->as_int, args[9]->as_int)).ok()) return err;
  if (!(err = check_uint8_range("out", out_quant_min, out_quant_max)).ok()) return err;
  const double out_scale = po.scale;
  const int64_t out_zero_point = po.zero_point;
  if (!(err = check_invertible_scales(kOp, whole_tensor(out, &out_scale, &out_zero_point))).ok()) return err;
  const float inv_out_scale = 1.0f / po.scale;
  const int64_t n = a.numel();
  return kernels::switch_dtype<kOp, kernels::kIntTypes>(a.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* x = a.data_as<T>();
    const T* y = b.data_as<T>();
    T* z = out.data_as<T>();
    for (int64_t i = 0; i < n; ++i) {
      const float sum = dequantized(x[i], pa) + dequantized(y[i], pb);
      z[i] = static_cast<T>(quantize_scaled(inv_out_scale * sum, po.zero_point, out_quant_min, out_quant_max));
    }
    return Error();
  });
}

}  // namespace

extern const KernelDef quantized_add_out{kOp, "TdiiiTdiiidiii|T", &quantized_add_out_impl, {}};

}  // namespace sb::quantized
