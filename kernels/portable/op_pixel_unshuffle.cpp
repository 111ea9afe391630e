// aten::pixel_unshuffle.out(Tensor self, int downscale_factor, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/pixel_shuffle.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::pixel_unshuffle.out";

Error pixel_unshuffle_out_impl(KernelContext& /*ctx*/, Args args) {
  return pixel_shuffle_copy<kOp>(*args[0]->as_tensor, args[1]->as_int, false, *args[2]->as_tensor);
}

}  // namespace

extern const KernelDef pixel_unshuffle_out{kOp, "Ti|T", &pixel_unshuffle_out_impl, {}};

}  // namespace sb::kernels
