// aten::_conj_physical.out(Tensor self, *, Tensor(a!) out)
//
// The complex conjugate, element by element: (re, im) -> (re, -im). As
// ExecuTorch's portable kernel, it takes the complex dtypes only (ComplexHalf,
// ComplexFloat, ComplexDouble; a real tensor's conjugate is itself, and ATen
// never lowers conj to this op for one), and out has self's dtype.
#include "sb/kernel.h"
#include "util/shape.h"
#include "util/unary.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::_conj_physical.out";

Error conj_physical_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[1]->as_tensor;
  return unary_op<kOp, kComplexHTypes>(self, out, [](auto x) {
    using T = decltype(x);
    using Part = decltype(x.re);
    return T{x.re, static_cast<Part>(-x.im)};
  });
}

}  // namespace

extern const KernelDef _conj_physical_out{kOp, "T|T", &conj_physical_out_impl, {}};

}  // namespace sb::kernels
