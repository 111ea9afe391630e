// The attention over a KV cache that llama::custom_sdpa.out and
// llama::custom_quantized_sdpa.out share (ExecuTorch's cpu_flash_attention,
// extension/llm/custom_ops): their argument checks, and one loop over rows
// read through an operand type, so the float kernel and the int8 one differ
// only in how a row's element becomes a float.
//
// Layout: query (and out) [B, S, H, D], key and value [B, S_kv, H_kv, D]; or,
// with seq_at_dim_2 (custom_quantized_sdpa's is_seq_at_dim_2), [B, H, S, D] and
// [B, H_kv, S_kv, D]. H is a multiple of H_kv: query head h reads kv head
// h / (H / H_kv) (grouped-query attention). Every tensor is contiguous (the
// kernels take the default dim order only).
//
//   out = softmax(scale * q . k + mask) . v, scale 1 / sqrt(D) unless given.
//
// Without a mask the keys are the first start_pos + S positions of the cache
// (what has been written so far); is_causal then lets the query row at
// position p = start_pos + row see keys 0 .. p. With a mask (Float [S, S_kv],
// added after scaling) every cache position is a key; a mask and is_causal
// together are refused, as ExecuTorch refuses them. dropout_p is ignored, as
// ExecuTorch ignores it.
//
// No scratch memory: per query row, one pass over the keys finds the
// softmax's maximum and sum together (the sum rescaled whenever the maximum
// grows), and a second forms the weighted sum of values, kAccumulatorLanes
// head_dim lanes at a time in float, rounded once into out. Each q . k is a
// float sum over d in order, as ExecuTorch's int8 q @ k^T kernel sums it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "sb/error.h"
#include "sb/tensor.h"
#include "sb/value.h"
#include "util/dtype_switch.h"
#include "util/promote.h"

namespace sb::llm {

// The float dtypes the attention reads and writes, computing in float: custom_sdpa's q, k, v and out,
// custom_quantized_sdpa's out (as ExecuTorch's runtime takes them).
constexpr kernels::DtypeMask kFloatDtypes = kernels::dtype_bit(ScalarType::kFloat) |
                                            kernels::dtype_bit(ScalarType::kHalf) |
                                            kernels::dtype_bit(ScalarType::kBFloat16);

inline long long as_ll(int64_t v) { return static_cast<long long>(v); }

// Element strides of a 4-D contiguous tensor along its batch, sequence and
// head dims (head_dim's stride is 1).
struct RowLayout {
  int64_t batch = 0, seq = 0, head = 0;

  int64_t at(int64_t b, int64_t s, int64_t h) const { return b * batch + s * seq + h * head; }
};

// The dims of a [B, S, H, D] tensor, or of a [B, H, S, D] one with seq_at_dim_2.
inline int32_t seq_dim(bool seq_at_dim_2) { return seq_at_dim_2 ? 2 : 1; }
inline int32_t heads_dim(bool seq_at_dim_2) { return seq_at_dim_2 ? 1 : 2; }

inline RowLayout row_layout(const Tensor& t, bool seq_at_dim_2) {
  const int64_t inner = t.sizes[3];             // stride of dim 2
  const int64_t middle = t.sizes[2] * inner;    // stride of dim 1
  const int64_t outer = t.sizes[1] * middle;    // stride of dim 0
  return seq_at_dim_2 ? RowLayout{outer, inner, middle} : RowLayout{outer, middle, inner};
}

struct Attention {
  int64_t batch, query_len, heads, head_dim;
  int64_t cache_len, kv_heads;
  int64_t start_pos;
  int64_t keys;  // cache positions attended at most
  bool causal;
  float scale;
  RowLayout query;  // query's and out's
  RowLayout cache;  // key's and value's
};

// The shape checks both kernels make (dtypes are each kernel's own): ranks,
// head dims, key and value alike, the head ratio, the mask, and start_pos
// with the query rows inside the cache when there is no mask.
inline Error check_attention(const char* op, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* mask,
                             int64_t start_pos, bool causal, bool seq_at_dim_2, Attention* a) {
  if (q.dim != 4 || k.dim != 4 || v.dim != 4) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: query, key and value must be 4-D %s", op,
                       seq_at_dim_2 ? "[batch, heads, seq, head_dim]" : "[batch, seq, heads, head_dim]");
  }
  if (q.sizes[3] != k.sizes[3] || q.sizes[3] != v.sizes[3]) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: head dims differ: query %lld, key %lld, value %lld", op,
                       as_ll(q.sizes[3]), as_ll(k.sizes[3]), as_ll(v.sizes[3]));
  }
  if (k.sizes[0] != q.sizes[0] || v.sizes[0] != q.sizes[0] || k.sizes[1] != v.sizes[1] || k.sizes[2] != v.sizes[2]) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "%s: key [%lld, %lld, %lld, _] and value [%lld, %lld, %lld, _] must match, with query's batch %lld",
                       op, as_ll(k.sizes[0]), as_ll(k.sizes[1]), as_ll(k.sizes[2]), as_ll(v.sizes[0]),
                       as_ll(v.sizes[1]), as_ll(v.sizes[2]), as_ll(q.sizes[0]));
  }
  const int32_t s_dim = seq_dim(seq_at_dim_2), h_dim = heads_dim(seq_at_dim_2);
  const int64_t heads = q.sizes[h_dim], kv_heads = k.sizes[h_dim];
  if (kv_heads == 0 || heads % kv_heads != 0) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: %lld query heads are not a multiple of %lld kv heads", op,
                       as_ll(heads), as_ll(kv_heads));
  }
  if (mask != nullptr && causal) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: attn_mask and is_causal cannot both be set", op);
  }
  const int64_t query_len = q.sizes[s_dim], cache_len = k.sizes[s_dim];
  if (start_pos < 0) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: start_pos %lld is negative", op, as_ll(start_pos));
  }
  int64_t keys = cache_len;
  if (mask != nullptr) {
    if (mask->dtype != ScalarType::kFloat || mask->dim != 2 || mask->sizes[0] != query_len ||
        mask->sizes[1] != cache_len) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: attn_mask must be Float [%lld, %lld]", op,
                         as_ll(query_len), as_ll(cache_len));
    }
  } else {
    // The tokens written so far; written so that no sum can overflow.
    if (start_pos > cache_len || query_len > cache_len - start_pos) {
      return Error::make(ErrorCode::kInvalidArgument,
                         "%s: start_pos %lld and %lld new positions do not fit a cache of %lld", op, as_ll(start_pos),
                         as_ll(query_len), as_ll(cache_len));
    }
    keys = start_pos + query_len;
  }
  *a = Attention{q.sizes[0], query_len, heads, q.sizes[3], cache_len, kv_heads, start_pos, keys, causal, 0.0f,
                 row_layout(q, seq_at_dim_2), row_layout(k, seq_at_dim_2)};
  return Error();
}

// The softmax scale: `scale` (float?, which the signature's optional scalar
// also admits as a bool: refused), or 1 / sqrt(head_dim).
inline Error softmax_scale(const char* op, const Value& scale, int64_t head_dim, float* out) {
  if (scale.tag == Tag::kBool) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: scale must be a float, not a bool", op);
  }
  const double s = scale.is_none() ? 1.0 / std::sqrt(static_cast<double>(head_dim)) : scale.scalar_as_double();
  *out = static_cast<float>(s);
  return Error();
}

// Rows of a float (Float, Half, BFloat16) tensor: element d as float.
template <typename T>
struct FloatRows {
  const T* data;
  RowLayout layout;

  struct Row {
    const T* p;
    float operator[](int64_t d) const { return kernels::convert<float>(p[d]); }
  };
  Row row(int64_t b, int64_t s, int64_t h) const { return Row{data + layout.at(b, s, h)}; }
};

// Rows of an int8 tensor quantized per row (per token and head): one scale
// and zero point each, the first element along the last dim of the params
// tensors (which have the rows' dims). Element d is scale * (x - zero_point),
// the product ExecuTorch's int8 kernels form: the difference exact in int,
// then one float multiply.
struct QuantizedRows {
  const int8_t* data;
  RowLayout layout;
  const float* scales;
  const int8_t* zero_points;
  RowLayout params;

  struct Row {
    const int8_t* p;
    float scale;
    int32_t zero_point;
    float operator[](int64_t d) const {
      return scale * static_cast<float>(static_cast<int32_t>(p[d]) - zero_point);
    }
  };
  Row row(int64_t b, int64_t s, int64_t h) const {
    const int64_t at = params.at(b, s, h);
    return Row{data + layout.at(b, s, h), scales[at], static_cast<int32_t>(zero_points[at])};
  }
};

// head_dim lanes one pass over the values accumulates (a float array on the stack).
constexpr int64_t kAccumulatorLanes = 64;

// out (layout a.query) = the attention of q over keys k and values v, each an
// operand of the row types above; mask is Float [S, S_kv] or null.
template <typename Out, typename QRows, typename KRows, typename VRows>
void attend(const Attention& a, const QRows& q, const KRows& k, const VRows& v, const float* mask, Out* out) {
  const int64_t group = a.heads / a.kv_heads;
  for (int64_t b = 0; b < a.batch; ++b) {
    for (int64_t row = 0; row < a.query_len; ++row) {
      // The causal limit: the row at position start_pos + row sees keys up to its own position.
      const int64_t keys = a.causal ? std::min(a.keys, a.start_pos + row + 1) : a.keys;
      for (int64_t h = 0; h < a.heads; ++h) {
        const auto q_row = q.row(b, row, h);
        const int64_t kv_head = h / group;
        const float* mask_row = mask != nullptr ? mask + row * a.cache_len : nullptr;
        const auto score = [&](int64_t key) {
          const auto k_row = k.row(b, key, kv_head);
          float dot = 0.0f;
          for (int64_t d = 0; d < a.head_dim; ++d) dot += q_row[d] * k_row[d];
          dot *= a.scale;
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
        Out* out_row = out + a.query.at(b, row, h);
        for (int64_t lane0 = 0; lane0 < a.head_dim; lane0 += kAccumulatorLanes) {
          const int64_t lanes = std::min(kAccumulatorLanes, a.head_dim - lane0);
          float acc[kAccumulatorLanes] = {};
          for (int64_t key = 0; key < keys; ++key) {
            const float weight = std::exp(score(key) - max);
            const auto v_row = v.row(b, key, kv_head);
            for (int64_t d = 0; d < lanes; ++d) acc[d] += weight * v_row[lane0 + d];
          }
          const float reciprocal = 1.0f / sum;
          for (int64_t d = 0; d < lanes; ++d) out_row[lane0 + d] = kernels::convert<Out>(acc[d] * reciprocal);
        }
      }
    }
  }
}

}  // namespace sb::llm
