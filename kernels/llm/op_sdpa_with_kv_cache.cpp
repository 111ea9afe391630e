// llama::sdpa_with_kv_cache.out(Tensor query, Tensor key, Tensor value, Tensor(a!) key_cache,
//     Tensor(b!) value_cache, SymInt start_pos, SymInt seq_len, Tensor? attn_mask=None, float drpout_p=0.,
//     bool is_causal=False, float? scale=None, *, Tensor(c!) out)
//
// Composite, as ExecuTorch defines it: the new key and value rows go into
// their caches at start_pos (llama::update_cache.out, twice), then the query
// attends over the caches (llama::custom_sdpa.out), both through the
// dispatcher, so a selection holding this op holds those two as well.
// seq_len is checked against the caches as ExecuTorch checks it; the rows
// written and attended are the tensors' own, each checked by its kernel.
#include "sb/kernel.h"

namespace sb::llm {
namespace {

constexpr char kOp[] = "llama::sdpa_with_kv_cache.out";
constexpr const char* kCalls[] = {"llama::update_cache.out", "llama::custom_sdpa.out"};

Error sdpa_with_kv_cache_out_impl(KernelContext& ctx, Args args) {
  const Tensor& key_cache = *args[3]->as_tensor;
  const Tensor& value_cache = *args[4]->as_tensor;
  const int64_t start_pos = args[5]->as_int;
  const int64_t seq_len = args[6]->as_int;
  if (key_cache.dim != 4 || value_cache.dim != 4) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: the caches must be 4-D [batch, seq, heads, head_dim]", kOp);
  }
  const int64_t capacity = key_cache.sizes[1] < value_cache.sizes[1] ? key_cache.sizes[1] : value_cache.sizes[1];
  // Written so that no sum can overflow: both positions come from the program.
  if (start_pos < 0 || seq_len < 0 || start_pos >= capacity || seq_len > capacity - start_pos) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "%s: start_pos %lld and seq_len %lld do not fit caches of %lld positions", kOp,
                       static_cast<long long>(start_pos), static_cast<long long>(seq_len),
                       static_cast<long long>(capacity));
  }
  // update_cache's out is a placeholder it never touches: this op's out stands in for it.
  Value* out = args[11];
  Value* key_args[] = {args[1], args[3], args[5], out};
  Error err = ctx.call("llama::update_cache.out", key_args);
  if (!err.ok()) return err;
  Value* value_args[] = {args[2], args[4], args[5], out};
  if (!(err = ctx.call("llama::update_cache.out", value_args)).ok()) return err;
  Value* sdpa_args[] = {args[0], args[3], args[4], args[5], args[7], args[8], args[9], args[10], out};
  return ctx.call("llama::custom_sdpa.out", sdpa_args);
}

}  // namespace

extern const KernelDef sdpa_with_kv_cache_out{kOp, "TTTWWiitdbS|T", &sdpa_with_kv_cache_out_impl, kCalls};

}  // namespace sb::llm
