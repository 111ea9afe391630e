// aten::_native_batch_norm_legit_no_training.out: the float fast path of
// kernels/portable/op_native_batch_norm.cpp: per channel, y = (x - mean) *
// (invstd * weight) + bias, vectorised along the plane for the contiguous
// layout and along the channels when they are innermost (channels-last);
// everything else goes to the portable kernel. Like portable, it writes out0
// only.
#include "optimized/simd/vec.h"
#include "optimized/simd/vec_math.h"
#include "sb/kernel.h"
#include "util/shape.h"

namespace sb::kernels {
extern const KernelDef _native_batch_norm_legit_no_training_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::_native_batch_norm_legit_no_training.out";

// Channels whose factors one block keeps on the stack: 3 arrays of floats, 12 KiB.
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
  float eps;
};

// Channel c0 + c's mean m[c], scale s[c] = weight / sqrt(var + eps) and shift
// t[c] = bias for c < nc (nc <= kChannelBlock), a vector of channels at a time
// (vrsqrt: a few ulp from the portable kernel's double-precision division).
void factors(const Params& p, int64_t c0, int64_t nc, float* m, float* s, float* t) {
  const VecF eps = splat(p.eps);
  for (int64_t c = 0; c < nc; c += kLanes) {
    const int64_t k = nc - c < kLanes ? nc - c : kLanes;
    const VecF w = p.w != nullptr ? load_tail(p.w + c0 + c, k) : splat(1.0f);
    const VecF b = p.b != nullptr ? load_tail(p.b + c0 + c, k) : VecF{};
    // The padding lanes of var read as 0: rsqrt(eps) there, never stored.
    store_tail(s + c, vrsqrt(load_tail(p.var + c0 + c, k) + eps) * w, k);
    store_tail(t + c, b, k);
    store_tail(m + c, load_tail(p.mean + c0 + c, k), k);
  }
}

// y[i] = (x[i] - m) * s + t over n contiguous floats (one channel's plane).
void plane(const float* x, float* y, int64_t n, float m, float s, float t) {
  const VecF vm = splat(m);
  const VecF vs = splat(s);
  const VecF vt = splat(t);
  int64_t i = 0;
  for (; i + 2 * kLanes <= n; i += 2 * kLanes) {
    const VecF r0 = (load(x + i) - vm) * vs + vt;
    const VecF r1 = (load(x + i + kLanes) - vm) * vs + vt;
    store(y + i, r0);
    store(y + i + kLanes, r1);
  }
  if (i + kLanes <= n) {
    store(y + i, (load(x + i) - vm) * vs + vt);
    i += kLanes;
  }
  if (i < n) store_tail(y + i, (load_tail(x + i, n - i) - vm) * vs + vt, n - i);
}

// The contiguous layout ([outer, channels, inner]: channel c's elements are
// `inner` contiguous floats at (o * channels + c) * inner), vectorised along
// the planes; with inner 1 (channels innermost, as channels-last has them:
// `outer` rows of `channels` contiguous floats), along the channels.
__attribute__((noinline)) void batch_norm(const float* x, float* y, int64_t outer, int64_t channels, int64_t inner,
                                          const Params& p) {
  float m[kChannelBlock];
  float s[kChannelBlock];
  float t[kChannelBlock];
  for (int64_t c0 = 0; c0 < channels; c0 += kChannelBlock) {
    const int64_t nc = channels - c0 < kChannelBlock ? channels - c0 : kChannelBlock;
    factors(p, c0, nc, m, s, t);
    if (inner != 1) {
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t c = 0; c < nc; ++c) {
          const int64_t base = (o * channels + c0 + c) * inner;
          plane(x + base, y + base, inner, m[c], s[c], t[c]);
        }
      }
      continue;
    }
    for (int64_t o = 0; o < outer; ++o) {
      const float* src = x + o * channels + c0;
      float* dst = y + o * channels + c0;
      int64_t c = 0;
      for (; c + kLanes <= nc; c += kLanes) store(dst + c, (load(src + c) - load(m + c)) * load(s + c) + load(t + c));
      if (c < nc) {
        const int64_t k = nc - c;
        store_tail(dst + c, (load_tail(src + c, k) - load(m + c)) * load(s + c) + load(t + c), k);
      }
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
                 static_cast<float>(args[6]->scalar_as_double())};
  const int64_t numel = out.numel();
  if (numel == 0) return Error();
  const int64_t inner = contiguous ? kernels::size_product(input, 2, input.dim) : 1;
  batch_norm(input.data_as<float>(), out.data_as<float>(), numel / (channels * inner), channels, inner, p);
  return Error();
}

}  // namespace

extern const KernelDef opt__native_batch_norm_legit_no_training_out{kOp, "TttTTdd|TTT", &opt_batch_norm_out_impl, {},
                                                               LayoutPolicy::kAny};

}  // namespace sb::optimized
