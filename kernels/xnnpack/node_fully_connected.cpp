// xnnpack::fully_connected.f32(Tensor input, Tensor weight_t, Tensor? bias, float output_min, float output_max, *, Tensor(a!) out)
// xnnpack::fully_connected.f16 takes the same arguments on Half tensors (an fp16 program's), through the same code.
//
// XNNPACK's fully connected node on [M, I] rows (the plan packs its [O, I] filter as [I, O] once):
// aten::mm.out, then the bias and the node's clamp in one pass over the output (ATen's addmm would
// scale and broadcast-add through two more ops that a delegated runtime then carries).
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

constexpr const char* kCalls[] = {"aten::mm.out"};

// out[m, o] = clamp(out[m, o] + bias[o]), computed in float and rounded once to T.
template <typename T>
void add_bias_clamped(T* out, const T* bias, int64_t rows, int64_t columns, float lo, float hi) {
  for (int64_t m = 0; m < rows; ++m, out += columns) {
    for (int64_t o = 0; o < columns; ++o) {
      out[o] = static_cast<T>(clamp_to(static_cast<float>(out[o]) + static_cast<float>(bias[o]), lo, hi));
    }
  }
}

Error fully_connected_f32_impl(KernelContext& ctx, Args args) {
  Value* const mm_args[] = {args[0], args[1], args[5]};
  Error err = ctx.call("aten::mm.out", Args(mm_args, 3));
  if (!err.ok() || args[2]->is_none()) return err.ok() ? clamp_output(args[5], *args[3], *args[4]) : err;
  const Tensor& bias = *args[2]->as_tensor;
  Tensor& out = *args[5]->as_tensor;
  if (out.dim != 2 || bias.dtype != out.dtype || bias.numel() != out.sizes[1]) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: its bias is not one %s per output", ctx.kernel().op,
                       scalar_type_name(out.dtype));
  }
  const float lo = static_cast<float>(args[3]->as_double), hi = static_cast<float>(args[4]->as_double);
  if (out.dtype == ScalarType::kFloat) {
    add_bias_clamped(out.data_as<float>(), bias.data_as<float>(), out.sizes[0], out.sizes[1], lo, hi);
  } else if (out.dtype == ScalarType::kHalf) {
    add_bias_clamped(out.data_as<Half>(), bias.data_as<Half>(), out.sizes[0], out.sizes[1], lo, hi);
  } else {
    return Error::make(ErrorCode::kInvalidArgument, "%s: a %s output", ctx.kernel().op, scalar_type_name(out.dtype));
  }
  return Error();
}

}  // namespace

extern const KernelDef fully_connected_f32{"xnnpack::fully_connected.f32", "TTtdd|T", &fully_connected_f32_impl, kCalls};
extern const KernelDef fully_connected_f16{"xnnpack::fully_connected.f16", "TTtdd|T", &fully_connected_f32_impl, kCalls};

}  // namespace sb::xnnpack_nodes
