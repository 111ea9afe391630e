// llama::custom_quantized_sdpa.out(Tensor query, Tensor key, Tensor value, SymInt start_pos,
//     Tensor? attn_mask=None, float drpout_p=0., bool is_causal=False, float? scale=None,
//     Tensor? q_zero_points=None, Tensor? q_scales=None, Tensor? k_zero_points=None, Tensor? k_scales=None,
//     Tensor? v_zero_points=None, Tensor? v_scales=None, bool is_seq_at_dim_2=False, *, Tensor(a!) out)
//
// llama::custom_sdpa.out's attention (llm/util/attention.h) on int8 query,
// key and value, as export_llama --quantize_kv_cache emits it: the caches
// hold int8 rows, and the query is quantized per row on the way in
// (quantized_decomposed::choose_qparams_per_token_asymmetric and
// quantize_per_token). Every row of q, k and v (one token of one head) has
// its own scale (Float) and zero point (Int8), in tensors of the row's dims
// and a last dim of 1: q_scales [B, S, H, 1], k_scales [B, S_kv, H_kv, 1], ...
// (ExecuTorch reads the first element of a longer last dim; so does this).
// Element d of a row is scale * (x - zero_point); q . k sums those products
// in float over d, and the weighted sum of values likewise, as ExecuTorch's
// int8 kernels do off Arm (torchao's fallback channelwise matmuls; on Arm
// with dot-product instructions it sums q . k exactly in int32, then scales
// once: the same within float rounding). out is [B, S, H, D] Float (the dtype
// ExecuTorch's AOT op gives it; its runtime, and so this kernel, also
// writes Half and BFloat16). is_seq_at_dim_2 takes every tensor as
// [B, H, S, D] instead. start_pos, attn_mask, is_causal and scale are
// custom_sdpa's.
//
// Unlike ExecuTorch, whose runtime also runs this op's float form (q, k and v
// Float with the params ignored, which its AOT op refuses to trace), this
// kernel takes int8 only: a program holding the op holds int8 tensors.
#include "llm/util/attention.h"
#include "sb/kernel.h"
#include "sb/scalar_type.h"
#include "util/dtype_switch.h"
#include "util/matmul.h"
#include "util/shape.h"

namespace sb::llm {
namespace {

using kernels::check_no_overlap;

constexpr char kOp[] = "llama::custom_quantized_sdpa.out";

// `t`'s rows (`name`: "query", "key", "value") with their params, the
// arguments `zero_points` and `scales` ("q_zero_points", "q_scales", ...):
// both given, Int8 and Float of one shape, [t's first three dims, n >= 1].
Error quantized_rows(const char* name, const char* prefix, const Tensor& t, const Value& zero_points,
                     const Value& scales, bool seq_at_dim_2, QuantizedRows* rows) {
  if (zero_points.is_none() || scales.is_none()) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: %s is int8: %s_zero_points and %s_scales are required", kOp,
                       name, prefix, prefix);
  }
  const Tensor& z = *zero_points.as_tensor;
  const Tensor& s = *scales.as_tensor;
  const bool rows_match = z.dim == 4 && z.sizes[0] == t.sizes[0] && z.sizes[1] == t.sizes[1] &&
                          z.sizes[2] == t.sizes[2] && z.sizes[3] >= 1 && same_shape(z, s);
  if (z.dtype != ScalarType::kChar || s.dtype != ScalarType::kFloat || !rows_match) {
    char z_shape[96], s_shape[96];
    format_shape(z_shape, sizeof z_shape, z.sizes, z.dim);
    format_shape(s_shape, sizeof s_shape, s.sizes, s.dim);
    return Error::make(ErrorCode::kInvalidArgument,
                       "%s: %s_zero_points is %s %s and %s_scales %s %s: they must be int8 and float32 "
                       "[%lld, %lld, %lld, n >= 1], one per row of %s",
                       kOp, prefix, scalar_type_name(z.dtype), z_shape, prefix, scalar_type_name(s.dtype), s_shape,
                       as_ll(t.sizes[0]), as_ll(t.sizes[1]), as_ll(t.sizes[2]), name);
  }
  *rows = QuantizedRows{t.data_as<const int8_t>(), row_layout(t, seq_at_dim_2), s.data_as<const float>(),
                        z.data_as<const int8_t>(), row_layout(z, seq_at_dim_2)};
  return Error();
}

Error custom_quantized_sdpa_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& q = *args[0]->as_tensor;
  const Tensor& k = *args[1]->as_tensor;
  const Tensor& v = *args[2]->as_tensor;
  const int64_t start_pos = args[3]->as_int;
  const Tensor* mask = args[4]->is_none() ? nullptr : args[4]->as_tensor;
  const bool causal = args[6]->as_bool;
  const bool seq_at_dim_2 = args[14]->as_bool;
  Tensor& out = *args[15]->as_tensor;
  Attention a;
  Error err = check_attention(kOp, q, k, v, mask, start_pos, causal, seq_at_dim_2, &a);
  if (!err.ok()) return err;
  if (q.dtype != ScalarType::kChar || k.dtype != ScalarType::kChar || v.dtype != ScalarType::kChar) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: query is %s, key %s, value %s: they must be int8", kOp,
                       scalar_type_name(q.dtype), scalar_type_name(k.dtype), scalar_type_name(v.dtype));
  }
  QuantizedRows q_rows, k_rows, v_rows;
  if (!(err = quantized_rows("query", "q", q, *args[8], *args[9], seq_at_dim_2, &q_rows)).ok()) return err;
  if (!(err = quantized_rows("key", "k", k, *args[10], *args[11], seq_at_dim_2, &k_rows)).ok()) return err;
  if (!(err = quantized_rows("value", "v", v, *args[12], *args[13], seq_at_dim_2, &v_rows)).ok()) return err;
  if (!(err = softmax_scale(kOp, *args[7], a.head_dim, &a.scale)).ok()) return err;
  if (!(err = kernels::resize_output_like(kOp, out, q)).ok()) return err;
  // out is written while everything else is still read.
  if (!(err = check_no_overlap(kOp, out, q, k)).ok()) return err;
  if (!(err = check_no_overlap(kOp, out, v, mask != nullptr ? *mask : v)).ok()) return err;
  for (int i = 8; i < 14; i += 2) {
    if (!(err = check_no_overlap(kOp, out, *args[i]->as_tensor, *args[i + 1]->as_tensor)).ok()) return err;
  }
  return kernels::switch_dtype<kOp, kFloatDtypes>(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    attend(a, q_rows, k_rows, v_rows, mask != nullptr ? mask->data_as<float>() : nullptr, out.data_as<T>());
    return Error();
  });
}

}  // namespace

extern const KernelDef custom_quantized_sdpa_out{kOp, "TTTitdbSttttttb|T", &custom_quantized_sdpa_out_impl, {}};

}  // namespace sb::llm
