// aten::_to_copy.out(Tensor self, *, bool non_blocking=False, MemoryFormat? memory_format=None,
//                    Tensor(a!) out)
//
// A dtype-converting copy (out's dtype is the target). Composite, as in ATen:
// a copy into out through the dispatcher (aten::copy.out).
#include "sb/kernel.h"
#include "util/memory_format.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::_to_copy.out";
constexpr const char* kCalls[] = {"aten::copy.out"};

Error to_copy_out_impl(KernelContext& ctx, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[3]->as_tensor;
  if (args[1]->as_bool) return Error::make(ErrorCode::kNotSupported, "%s: non_blocking copies are not supported", kOp);
  Error err = check_contiguous_memory_format(kOp, *args[2]);
  if (!err.ok()) return err;
  // copy.out would broadcast; _to_copy keeps the shape.
  if (!(err = resize_output_like(kOp, out, self)).ok()) return err;
  Value* copy_args[] = {args[3], args[0], args[1], args[3]};
  return ctx.call("aten::copy.out", copy_args);
}

}  // namespace

extern const KernelDef _to_copy_out{kOp, "Tbn|T", &to_copy_out_impl, kCalls};

}  // namespace sb::kernels
