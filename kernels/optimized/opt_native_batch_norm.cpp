// aten::_native_batch_norm_legit_no_training.out: the float fast path of
// kernels/portable/op_native_batch_norm.cpp: per channel, y = (x - mean) *
// (invstd * weight) + bias, vectorised along the plane for the contiguous
// layout and along the channels when they are innermost (channels-last);
// everything else goes to the portable kernel. Like portable, it writes out0
// only.
#include <cmath>

#include "optimized/util/vec.h"
#include "optimized/util/vec_math.h"
#include "sb/kernel.h"
#include "util/shape.h"

namespace sb::kernels {
extern const KernelDef _native_batch_norm_legit_no_training_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::_native_batch_norm_legit_no_training.out";

// Channels whose scale and shift one block of the channels-last loop keeps on
// the stack: 3 arrays of floats, 12 KiB.
constexpr int64_t kChannelBlock = 1024;

// check_optional_param's success condition for a Float parameter of
// `channels` elements (checked inline: the fast path builds no Error values).
bool float_param(const Value& v, int64_t channels) {
  return v.is_none() || (v.as_tensor->dtype == ScalarType::kFloat && v.as_tensor->numel() == channels);
}

struct Params {
  const float* w;
  const float* b;
  const float* mean;
  const float* var;
  double eps;
  // The portable kernel's per-channel factors: invstd rounded to float, times weight.
  float scale(int64_t c) const {
    const float invstd = static_cast<float>(1.0 / std::sqrt(static_cast<double>(var[c]) + eps));
    return invstd * (w != nullptr ? w[c] : 1.0f);
  }
  float shift(int64_t c) const { return b != nullptr ? b[c] : 0.0f; }
};

// Contiguous layout: channel c's elements are `inner` contiguous floats at
// (o * channels + c) * inner.
void planes(const float* x, float* y, int64_t outer, int64_t channels, int64_t inner, const Params& p) {
  for (int64_t c = 0; c < channels; ++c) {
    const float m = p.mean[c];
    const float s = p.scale(c);
    const float t = p.shift(c);
    const VecF vm = splat(m);
    const VecF vs = splat(s);
    const VecF vt = splat(t);
    for (int64_t o = 0; o < outer; ++o) {
      const int64_t base = (o * channels + c) * inner;
      const float* src = x + base;
      float* dst = y + base;
      int64_t i = 0;
      for (; i + kLanes <= inner; i += kLanes) store(dst + i, (load(src + i) - vm) * vs + vt);
      for (; i < inner; ++i) dst[i] = (src[i] - m) * s + t;
    }
  }
}

// Channels innermost: `outer` rows of `channels` contiguous floats.
void rows(const float* x, float* y, int64_t outer, int64_t channels, const Params& p) {
  float m[kChannelBlock];
  float s[kChannelBlock];
  float t[kChannelBlock];
  for (int64_t c0 = 0; c0 < channels; c0 += kChannelBlock) {
    const int64_t nc = channels - c0 < kChannelBlock ? channels - c0 : kChannelBlock;
    for (int64_t c = 0; c < nc; ++c) {
      m[c] = p.mean[c0 + c];
      s[c] = p.scale(c0 + c);
      t[c] = p.shift(c0 + c);
    }
    for (int64_t o = 0; o < outer; ++o) {
      const float* src = x + o * channels + c0;
      float* dst = y + o * channels + c0;
      int64_t c = 0;
      for (; c + kLanes <= nc; c += kLanes) store(dst + c, (load(src + c) - load(m + c)) * load(s + c) + load(t + c));
      for (; c < nc; ++c) dst[c] = (src[c] - m[c]) * s[c] + t[c];
    }
  }
}

Error opt_batch_norm_out_impl(KernelContext& ctx, Args args) {
  const Tensor& input = *args[0]->as_tensor;
  Tensor& out = *args[7]->as_tensor;
  const auto& portable = kernels::_native_batch_norm_legit_no_training_out;
  if (input.dtype != ScalarType::kFloat || out.dtype != ScalarType::kFloat || input.dim < 2) {
    return portable.fn(ctx, args);
  }
  // The portable kernel's checks, in its order; any failure is reported by it.
  const int64_t channels = input.sizes[1];
  if (!same_shape(input, out) && !kernels::resize_output_like(kOp, out, input).ok()) return portable.fn(ctx, args);
  for (int i = 1; i <= 4; ++i) {
    if (!float_param(*args[i], channels)) return portable.fn(ctx, args);
  }
  if (!same_dim_order(input, out)) return portable.fn(ctx, args);
  const bool contiguous = input.is_default_dim_order();
  const bool channels_last = input.dim_order[input.dim - 1] == 1;
  if (!contiguous && !channels_last) return portable.fn(ctx, args);
  const Params p{args[1]->is_none() ? nullptr : args[1]->as_tensor->data_as<float>(),
                 args[2]->is_none() ? nullptr : args[2]->as_tensor->data_as<float>(),
                 args[3]->as_tensor->data_as<float>(), args[4]->as_tensor->data_as<float>(),
                 args[6]->scalar_as_double()};
  const int64_t numel = out.numel();
  if (numel == 0) return Error();
  if (contiguous) {
    const int64_t inner = kernels::size_product(input, 2, input.dim);
    planes(input.data_as<float>(), out.data_as<float>(), numel / (channels * inner), channels, inner, p);
  } else {
    rows(input.data_as<float>(), out.data_as<float>(), numel / channels, channels, p);
  }
  return Error();
}

}  // namespace

extern const KernelDef opt__native_batch_norm_legit_no_training_out{kOp, "TttTTdd|TTT", &opt_batch_norm_out_impl, {},
                                                               LayoutPolicy::kAny};

}  // namespace sb::optimized
