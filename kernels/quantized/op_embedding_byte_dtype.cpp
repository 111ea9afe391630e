// quantized_decomposed::embedding_byte.dtype_out(Tensor weight, Tensor weight_scales, Tensor? weight_zero_points,
//     int weight_quant_min, int weight_quant_max, Tensor indices, *, ScalarType? dtype=None, Tensor(a!) out)
//
// The lookup of util/embedding.h with 8-bit values; scales (and zero points) keep their own dtype and
// out has `dtype`.
#include "quantized/util/embedding.h"

namespace sb::quantized {
namespace {

constexpr char kOp[] = "quantized_decomposed::embedding_byte.dtype_out";
constexpr int kBits = 8;

Error embedding_byte_dtype_out_impl(KernelContext& /*ctx*/, Args args) {
  Tensor& out = *args[7]->as_tensor;
  EmbeddingShape shape;
  Error err = check_embedding(kOp, args, args[6], out, kBits, EmbeddingParams::kAsScales, &shape);
  if (!err.ok()) return err;
  return embedding_lookup<kOp>(args, out, kBits, EmbeddingParams::kAsScales, shape);
}

}  // namespace

extern const KernelDef embedding_byte_dtype_out{kOp, "TTtiiTn|T", &embedding_byte_dtype_out_impl, {}};

}  // namespace sb::quantized
