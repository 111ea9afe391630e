// The prim ops: what exported programs use for symbolic sizes and views
// (aten::sym_size.int, aten::sym_numel, aten::_local_scalar_dense and the
// executorch_prim::* scalar ops, et_view and et_copy_index). ExecuTorch keeps
// them out of functions.yaml and registers them in every build; here they
// live in the core and every OpRegistry finds them, whatever the build
// selected. Selection tooling lists them like any other op (gen_oplist
// does) but never needs a kernel library entry for them.
#pragma once

#include "sb/kernel.h"
#include "sb/span.h"

namespace sb {

Span<const KernelDef* const> prim_ops();

// The prim op named `op` ("aten::sym_size.int"), or nullptr.
const KernelDef* find_prim_op(const char* op);

}  // namespace sb
