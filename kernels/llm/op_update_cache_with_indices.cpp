// llama::update_cache_with_indices.out(Tensor value, Tensor(a!) cache, SymInt start_pos, Tensor indices, *,
//                                      Tensor(b!) out)
//
// update_cache with each token's cache position given: value [B, S, H, D]'s
// token (b, s) goes to cache [B, S_max, H, D] at position indices[b, s]
// (int64, [B, S]); start_pos is not used, as in ExecuTorch. `out` is a
// placeholder. Every index is checked before anything is copied, so a bad
// one leaves the cache as it was.
#include <cstring>

#include "sb/kernel.h"
#include "sb/scalar_type.h"

namespace sb::llm {
namespace {

constexpr char kOp[] = "llama::update_cache_with_indices.out";

Error update_cache_with_indices_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& value = *args[0]->as_tensor;
  Tensor& cache = *args[1]->as_tensor;
  const Tensor& indices = *args[3]->as_tensor;
  if (value.dim != 4 || cache.dim != 4) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: value and cache must be 4-D [batch, seq, heads, head_dim]",
                       kOp);
  }
  if (value.sizes[0] != cache.sizes[0] || value.sizes[2] != cache.sizes[2] || value.sizes[3] != cache.sizes[3]) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: value's batch, heads and head_dim differ from the cache's",
                       kOp);
  }
  if (value.dtype != cache.dtype) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: value is %s, cache is %s", kOp,
                       scalar_type_name(value.dtype), scalar_type_name(cache.dtype));
  }
  if (indices.dtype != ScalarType::kLong || indices.dim != 2 || indices.sizes[0] != value.sizes[0] ||
      indices.sizes[1] != value.sizes[1]) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: indices must be Long [batch, seq] as value has them", kOp);
  }
  const int64_t capacity = cache.sizes[1];
  const int64_t* positions = indices.data_as<int64_t>();
  const int64_t count = indices.numel();
  for (int64_t i = 0; i < count; ++i) {
    if (positions[i] < 0 || positions[i] >= capacity) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: index %lld is outside the cache's %lld positions", kOp,
                         static_cast<long long>(positions[i]), static_cast<long long>(capacity));
    }
  }
  const int64_t seq = value.sizes[1];
  const size_t token_bytes = static_cast<size_t>(value.sizes[2] * value.sizes[3]) * element_size(value.dtype);
  const auto* from = static_cast<const uint8_t*>(value.data);
  auto* to = static_cast<uint8_t*>(cache.data);
  for (int64_t batch = 0; batch < value.sizes[0]; ++batch) {
    for (int64_t token = 0; token < seq; ++token) {
      const int64_t position = positions[batch * seq + token];
      std::memmove(to + static_cast<size_t>(batch * capacity + position) * token_bytes,
                   from + static_cast<size_t>(batch * seq + token) * token_bytes, token_bytes);
    }
  }
  return Error();
}

}  // namespace

extern const KernelDef update_cache_with_indices_out{kOp, "TWiT|T", &update_cache_with_indices_out_impl, {}};

}  // namespace sb::llm
