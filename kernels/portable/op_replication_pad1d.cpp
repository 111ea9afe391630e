// aten::replication_pad1d.out(Tensor self, SymInt[2] padding, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/pad.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::replication_pad1d.out";

Error replication_pad1d_out_impl(KernelContext& /*ctx*/, Args args) {
  return pad_op<kOp>(*args[0]->as_tensor, args[1]->as_int_list, PadMode::kReplicate, 1, nullptr, *args[2]->as_tensor);
}

}  // namespace

extern const KernelDef replication_pad1d_out{kOp, "TI|T", &replication_pad1d_out_impl, {}};

}  // namespace sb::kernels
