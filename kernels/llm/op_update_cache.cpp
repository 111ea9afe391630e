// llama::update_cache.out(Tensor value, Tensor(a!) cache, SymInt start_pos, *, Tensor(b!) out)
//
// ExecuTorch's KV-cache write (extension/llm/custom_ops): value [B, S, H, D]
// goes into cache [B, S_max, H, D] at sequence positions start_pos ..
// start_pos + S - 1 of every batch line. The cache is the program's mutable
// buffer, so what this writes persists to the next execute. `out` is a
// placeholder the op never reads or writes, as in ExecuTorch.
//
// A program is untrusted: start_pos comes from its inputs, so every
// position is checked against the cache before a byte is copied
// (ExecuTorch's kernel does not check a negative start_pos).
#include <cstring>

#include "sb/kernel.h"
#include "sb/scalar_type.h"

namespace sb::llm {
namespace {

constexpr char kOp[] = "llama::update_cache.out";

Error update_cache_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& value = *args[0]->as_tensor;
  Tensor& cache = *args[1]->as_tensor;
  const int64_t start_pos = args[2]->as_int;
  if (value.dim != 4 || cache.dim != 4) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: value and cache must be 4-D [batch, seq, heads, head_dim]",
                       kOp);
  }
  if (value.sizes[0] != cache.sizes[0] || value.sizes[2] != cache.sizes[2] || value.sizes[3] != cache.sizes[3]) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "%s: value [%lld, _, %lld, %lld] does not match cache [%lld, _, %lld, %lld]", kOp,
                       static_cast<long long>(value.sizes[0]), static_cast<long long>(value.sizes[2]),
                       static_cast<long long>(value.sizes[3]), static_cast<long long>(cache.sizes[0]),
                       static_cast<long long>(cache.sizes[2]), static_cast<long long>(cache.sizes[3]));
  }
  if (value.dtype != cache.dtype) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: value is %s, cache is %s", kOp,
                       scalar_type_name(value.dtype), scalar_type_name(cache.dtype));
  }
  const int64_t seq = value.sizes[1];
  const int64_t capacity = cache.sizes[1];
  // Written so that no sum can overflow: start_pos may be anything a program computed.
  if (start_pos < 0 || start_pos > capacity || seq > capacity - start_pos) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: start_pos %lld and %lld new positions do not fit a cache of %lld",
                       kOp, static_cast<long long>(start_pos), static_cast<long long>(seq),
                       static_cast<long long>(capacity));
  }
  const size_t element = element_size(value.dtype);
  const size_t token_bytes = static_cast<size_t>(value.sizes[2] * value.sizes[3]) * element;
  const auto* from = static_cast<const uint8_t*>(value.data);
  auto* to = static_cast<uint8_t*>(cache.data);
  for (int64_t batch = 0; batch < value.sizes[0]; ++batch) {
    const size_t source = static_cast<size_t>(batch * seq) * token_bytes;
    const size_t target = static_cast<size_t>(batch * capacity + start_pos) * token_bytes;
    // memmove: a program may hand the cache itself (or a view of it) as the value.
    std::memmove(to + target, from + source, static_cast<size_t>(seq) * token_bytes);
  }
  return Error();
}

}  // namespace

extern const KernelDef update_cache_out{kOp, "TWi|T", &update_cache_out_impl, {}};

}  // namespace sb::llm
