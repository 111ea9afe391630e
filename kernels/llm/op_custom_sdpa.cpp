// llama::custom_sdpa.out(Tensor query, Tensor key, Tensor value, SymInt start_pos, Tensor? attn_mask=None,
//                        float drpout_p=0., bool is_causal=False, float? scale=None, *, Tensor(a!) out)
//
// ExecuTorch's attention over a KV cache (extension/llm/custom_ops), in its
// [batch, seq, heads, head_dim] layout:
//   query [B, S, H, D] holds the tokens at positions start_pos .. start_pos + S - 1;
//   key and value [B, S_kv, H_kv, D] are the caches (H a multiple of H_kv:
//     query head h reads kv head h / (H / H_kv), grouped-query attention);
//   out [B, S, H, D] = softmax(scale * q . k + mask) . v, scale 1 / sqrt(D) unless given.
// Without a mask the keys are the first start_pos + S positions of the cache
// (what has been written so far); is_causal then lets the token at position
// p see keys 0 .. p. With a mask (Float [S, S_kv], added after scaling) every
// cache position is a key; a mask and is_causal together are refused, as
// ExecuTorch refuses them. dropout_p is ignored, as ExecuTorch ignores it.
//
// Float, Half and BFloat16, computed in float (llm/util/attention.h, which
// llama::custom_quantized_sdpa.out shares); no scratch memory.
#include "llm/util/attention.h"
#include "sb/kernel.h"
#include "sb/scalar_type.h"
#include "util/dtype_switch.h"
#include "util/matmul.h"
#include "util/shape.h"

namespace sb::llm {
namespace {

using kernels::check_no_overlap;

constexpr char kOp[] = "llama::custom_sdpa.out";

Error custom_sdpa_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& q = *args[0]->as_tensor;
  const Tensor& k = *args[1]->as_tensor;
  const Tensor& v = *args[2]->as_tensor;
  const int64_t start_pos = args[3]->as_int;
  const Tensor* mask = args[4]->is_none() ? nullptr : args[4]->as_tensor;
  const bool causal = args[6]->as_bool;
  Tensor& out = *args[8]->as_tensor;
  Attention a;
  Error err = check_attention(kOp, q, k, v, mask, start_pos, causal, /*seq_at_dim_2=*/false, &a);
  if (!err.ok()) return err;
  if (q.dtype != k.dtype || q.dtype != v.dtype) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: query is %s, key %s, value %s: they must match", kOp,
                       scalar_type_name(q.dtype), scalar_type_name(k.dtype), scalar_type_name(v.dtype));
  }
  if (!(err = softmax_scale(kOp, *args[7], a.head_dim, &a.scale)).ok()) return err;
  if (!(err = kernels::resize_output_like(kOp, out, q)).ok()) return err;
  if (!(err = kernels::check_dtype(kOp, "out", out, q.dtype)).ok()) return err;
  // out is written while query, key and value are still read.
  if (!(err = check_no_overlap(kOp, out, q, k)).ok()) return err;
  if (!(err = check_no_overlap(kOp, out, v, mask != nullptr ? *mask : v)).ok()) return err;
  return kernels::switch_dtype<kOp, kFloatDtypes>(q.dtype, [&](auto zero) {
    using T = decltype(zero);
    attend(a, FloatRows<T>{q.data_as<T>(), a.query}, FloatRows<T>{k.data_as<T>(), a.cache},
           FloatRows<T>{v.data_as<T>(), a.cache}, mask != nullptr ? mask->data_as<float>() : nullptr,
           out.data_as<T>());
    return Error();
  });
}

}  // namespace

extern const KernelDef custom_sdpa_out{kOp, "TTTitdbS|T", &custom_sdpa_out_impl, {}};

}  // namespace sb::llm
