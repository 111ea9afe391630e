// executorch_prim::et_copy_index.tensor(Tensor(a!) copy_to, Tensor copy_from, SymInt index) -> ()
//
// copy_to[index] = copy_from, growing copy_to to index + 1 rows (how exported
// loops stack their results).
#include "prim/util/scalar.h"
#include "sb/tensor.h"

namespace sb::prim {
namespace {

Error et_copy_index_impl(KernelContext& ctx, Args args) {
  const char* op = ctx.kernel().op;
  Tensor& to = *args[0]->as_tensor;
  const Tensor& from = *args[1]->as_tensor;
  const Value& index = *args[2];
  if (index.tag != Tag::kInt) return bad_type(op, index);
  if (index.as_int < 0) return Error::make(ErrorCode::kInvalidArgument, "%s: index must be non-negative", op);
  if (to.dtype != from.dtype) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: copy_to has dtype %s, copy_from %s", op,
                       scalar_type_name(to.dtype), scalar_type_name(from.dtype));
  }
  if (to.dim != from.dim + 1) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: copy_to has rank %d, copy_from %d (they differ by one)", op,
                       static_cast<int>(to.dim), static_cast<int>(from.dim));
  }
  int64_t sizes[kMaxDims];
  sizes[0] = index.as_int == INT64_MAX ? INT64_MAX : index.as_int + 1;
  for (int32_t d = 0; d < from.dim; ++d) {
    if (to.sizes[d + 1] != from.sizes[d]) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: copy_to and copy_from differ in dim %d", op,
                         static_cast<int>(d + 1));
    }
    sizes[d + 1] = from.sizes[d];
  }
  Error err = resize(to, sizes, to.dim);
  if (!err.ok()) return Error::make(err.code(), "%s: copy_to %s", op, err.message());
  // In range: the resize bounded (index + 1) * from.nbytes() by to's memory.
  const size_t row = from.nbytes();
  if (row != 0) memcpy(to.data_as<uint8_t>() + static_cast<size_t>(index.as_int) * row, from.data, row);
  return Error();
}

}  // namespace

extern const KernelDef prim_et_copy_index_tensor{"executorch_prim::et_copy_index.tensor", "WTs>", &et_copy_index_impl, {}};

}  // namespace sb::prim
