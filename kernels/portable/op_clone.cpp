// aten::clone.out(Tensor self, *, MemoryFormat? memory_format=None, Tensor(a!) out)
//
// Composite, as in ATen: a copy into out through the dispatcher (aten::copy.out).
#include "sb/kernel.h"
#include "util/memory_format.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::clone.out";
constexpr const char* kCalls[] = {"aten::copy.out"};

Error clone_out_impl(KernelContext& ctx, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[2]->as_tensor;
  Error err = check_contiguous_memory_format(kOp, *args[1]);
  if (!err.ok()) return err;
  // copy.out would broadcast and convert; a clone keeps the shape and the dtype.
  if (!(err = resize_output_like(kOp, out, self)).ok()) return err;
  if (!(err = check_dtype(kOp, "out", out, self.dtype)).ok()) return err;
  Value non_blocking = Value::from_bool(false);
  Value* copy_args[] = {args[2], args[0], &non_blocking, args[2]};
  return ctx.call("aten::copy.out", copy_args);
}

}  // namespace

extern const KernelDef clone_out{kOp, "Tn|T", &clone_out_impl, kCalls};

}  // namespace sb::kernels
