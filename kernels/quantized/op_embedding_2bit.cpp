// quantized_decomposed::embedding_2bit.out(Tensor weight, Tensor weight_scales, Tensor? weight_zero_points,
//     int weight_quant_min, int weight_quant_max, Tensor indices, *, Tensor(a!) out)
//
// The lookup of util/embedding.h with 2-bit values; scales and zero points have out's dtype.
#include "quantized/util/embedding.h"

namespace sb::quantized {
namespace {

constexpr char kOp[] = "quantized_decomposed::embedding_2bit.out";
constexpr int kBits = 2;

Error embedding_2bit_out_impl(KernelContext& /*ctx*/, Args args) {
  Tensor& out = *args[6]->as_tensor;
  EmbeddingShape shape;
  Error err = check_embedding(kOp, args, nullptr, out, kBits, EmbeddingParams::kAsOutput, &shape);
  if (!err.ok()) return err;
  return embedding_lookup<kOp>(args, out, kBits, EmbeddingParams::kAsOutput, shape);
}

}  // namespace

extern const KernelDef embedding_2bit_out{kOp, "TTtiiT|T", &embedding_2bit_out_impl, {}};

}  // namespace sb::quantized
