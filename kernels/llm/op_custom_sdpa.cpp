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
// No scratch memory: per query row, one pass over the keys finds the softmax's
// maximum and sum together (the sum rescaled whenever the maximum grows), and
// a second forms the weighted sum of values, kAccumulatorLanes head_dim lanes
// at a time in float (Half and BFloat16 included), rounded once into out.
#include <algorithm>
#include <cmath>

#include "sb/kernel.h"
#include "sb/scalar_type.h"
#include "util/dtype_switch.h"
#include "util/matmul.h"
#include "util/promote.h"
#include "util/shape.h"

namespace sb::llm {
namespace {

using kernels::check_no_overlap;
using kernels::convert;
using kernels::dtype_bit;
using kernels::DtypeMask;

constexpr char kOp[] = "llama::custom_sdpa.out";
// The dtypes ExecuTorch's kernel takes (its int8 form is custom_quantized_sdpa's).
constexpr DtypeMask kAttentionDtypes =
    dtype_bit(ScalarType::kFloat) | dtype_bit(ScalarType::kHalf) | dtype_bit(ScalarType::kBFloat16);
// head_dim lanes one pass over the values accumulates (a float array on the stack).
constexpr int64_t kAccumulatorLanes = 64;

struct Geometry {
  int64_t batch, query_len, heads, head_dim;
  int64_t cache_len, kv_heads;
  int64_t start_pos;
  int64_t keys;  // cache positions attended at most
  bool causal;
  float scale;
};

long long as_ll(int64_t v) { return static_cast<long long>(v); }

Error check_arguments(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* mask, int64_t start_pos,
                      bool causal, Geometry* g) {
  if (q.dim != 4 || k.dim != 4 || v.dim != 4) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: query, key and value must be 4-D [batch, seq, heads, head_dim]",
                       kOp);
  }
  if (q.dtype != k.dtype || q.dtype != v.dtype) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: query is %s, key %s, value %s: they must match", kOp,
                       scalar_type_name(q.dtype), scalar_type_name(k.dtype), scalar_type_name(v.dtype));
  }
  if (q.sizes[3] != k.sizes[3] || q.sizes[3] != v.sizes[3]) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: head dims differ: query %lld, key %lld, value %lld", kOp,
                       as_ll(q.sizes[3]), as_ll(k.sizes[3]), as_ll(v.sizes[3]));
  }
  if (k.sizes[0] != q.sizes[0] || v.sizes[0] != q.sizes[0] || k.sizes[1] != v.sizes[1] || k.sizes[2] != v.sizes[2]) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "%s: key [%lld, %lld, %lld, _] and value [%lld, %lld, %lld, _] must match, with query's batch %lld",
                       kOp, as_ll(k.sizes[0]), as_ll(k.sizes[1]), as_ll(k.sizes[2]), as_ll(v.sizes[0]),
                       as_ll(v.sizes[1]), as_ll(v.sizes[2]), as_ll(q.sizes[0]));
  }
  if (k.sizes[2] == 0 || q.sizes[2] % k.sizes[2] != 0) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: %lld query heads are not a multiple of %lld kv heads", kOp,
                       as_ll(q.sizes[2]), as_ll(k.sizes[2]));
  }
  if (mask != nullptr && causal) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: attn_mask and is_causal cannot both be set", kOp);
  }
  const int64_t query_len = q.sizes[1], cache_len = k.sizes[1];
  if (start_pos < 0) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: start_pos %lld is negative", kOp, as_ll(start_pos));
  }
  int64_t keys = cache_len;
  if (mask != nullptr) {
    if (mask->dtype != ScalarType::kFloat || mask->dim != 2 || mask->sizes[0] != query_len ||
        mask->sizes[1] != cache_len) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: attn_mask must be Float [%lld, %lld]", kOp,
                         as_ll(query_len), as_ll(cache_len));
    }
  } else {
    // The tokens written so far; written so that no sum can overflow.
    if (start_pos > cache_len || query_len > cache_len - start_pos) {
      return Error::make(ErrorCode::kInvalidArgument,
                         "%s: start_pos %lld and %lld new positions do not fit a cache of %lld", kOp,
                         as_ll(start_pos), as_ll(query_len), as_ll(cache_len));
    }
    keys = start_pos + query_len;
  }
  *g = Geometry{q.sizes[0], query_len, q.sizes[2], q.sizes[3], cache_len, k.sizes[2], start_pos, keys, causal, 0.0f};
  return Error();
}

template <typename T>
void attend(const Geometry& g, const T* q, const T* k, const T* v, const float* mask, T* out) {
  const int64_t group = g.heads / g.kv_heads;
  const int64_t q_token = g.heads * g.head_dim;      // elements per query (and out) position
  const int64_t kv_token = g.kv_heads * g.head_dim;  // elements per cache position
  for (int64_t b = 0; b < g.batch; ++b) {
    for (int64_t row = 0; row < g.query_len; ++row) {
      // The causal limit: the token at position start_pos + row sees keys up to its own position.
      const int64_t keys = g.causal ? std::min(g.keys, g.start_pos + row + 1) : g.keys;
      for (int64_t h = 0; h < g.heads; ++h) {
        const T* q_row = q + (b * g.query_len + row) * q_token + h * g.head_dim;
        const T* k_head = k + b * g.cache_len * kv_token + (h / group) * g.head_dim;
        const T* v_head = v + b * g.cache_len * kv_token + (h / group) * g.head_dim;
        const float* mask_row = mask != nullptr ? mask + row * g.cache_len : nullptr;
        const auto score = [&](int64_t key) {
          const T* k_row = k_head + key * kv_token;
          float dot = 0.0f;
          for (int64_t d = 0; d < g.head_dim; ++d) dot += convert<float>(q_row[d]) * convert<float>(k_row[d]);
          dot *= g.scale;
          return mask_row != nullptr ? dot + mask_row[key] : dot;
        };
        float max = -INFINITY, sum = 0.0f;
        for (int64_t key = 0; key < keys; ++key) {
          const float s = score(key);
          // A masked-out key (-inf) adds nothing; exp(-inf - -inf) would make the sum NaN.
          if (s == -INFINITY) continue;
          if (s > max) {
            sum = sum * std::exp(max - s);
            max = s;
          }
          sum += std::exp(s - max);
        }
        T* out_row = out + (b * g.query_len + row) * q_token + h * g.head_dim;
        for (int64_t lane0 = 0; lane0 < g.head_dim; lane0 += kAccumulatorLanes) {
          const int64_t lanes = std::min(kAccumulatorLanes, g.head_dim - lane0);
          float acc[kAccumulatorLanes] = {};
          for (int64_t key = 0; key < keys; ++key) {
            const float weight = std::exp(score(key) - max);
            const T* v_row = v_head + key * kv_token + lane0;
            for (int64_t d = 0; d < lanes; ++d) acc[d] += weight * convert<float>(v_row[d]);
          }
          const float reciprocal = 1.0f / sum;
          for (int64_t d = 0; d < lanes; ++d) out_row[lane0 + d] = convert<T>(acc[d] * reciprocal);
        }
      }
    }
  }
}

Error custom_sdpa_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& q = *args[0]->as_tensor;
  const Tensor& k = *args[1]->as_tensor;
  const Tensor& v = *args[2]->as_tensor;
  const int64_t start_pos = args[3]->as_int;
  const Tensor* mask = args[4]->is_none() ? nullptr : args[4]->as_tensor;
  const bool causal = args[6]->as_bool;
  const Value& scale_arg = *args[7];
  Tensor& out = *args[8]->as_tensor;
  Geometry g;
  Error err = check_arguments(q, k, v, mask, start_pos, causal, &g);
  if (!err.ok()) return err;
  // The signature's optional scalar also admits a bool, which float? does not.
  if (scale_arg.tag == Tag::kBool) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: scale must be a float, not a bool", kOp);
  }
  const double scale =
      scale_arg.is_none() ? 1.0 / std::sqrt(static_cast<double>(g.head_dim)) : scale_arg.scalar_as_double();
  g.scale = static_cast<float>(scale);
  if (!(err = kernels::resize_output_like(kOp, out, q)).ok()) return err;
  if (!(err = kernels::check_dtype(kOp, "out", out, q.dtype)).ok()) return err;
  // out is written while query, key and value are still read.
  if (!(err = check_no_overlap(kOp, out, q, k)).ok()) return err;
  if (!(err = check_no_overlap(kOp, out, v, mask != nullptr ? *mask : v)).ok()) return err;
  return kernels::switch_dtype<kOp, kAttentionDtypes>(q.dtype, [&](auto zero) {
    using T = decltype(zero);
    attend<T>(g, q.data_as<T>(), k.data_as<T>(), v.data_as<T>(), mask != nullptr ? mask->data_as<float>() : nullptr,
              out.data_as<T>());
    return Error();
  });
}

}  // namespace

extern const KernelDef custom_sdpa_out{kOp, "TTTitdbS|T", &custom_sdpa_out_impl, {}};

}  // namespace sb::llm
