// aten::topk.values(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True, *,
//     Tensor(a!) values, Tensor(b!) indices)
//
// The k largest (or smallest) elements along `dim`, best first, with their
// indices. NaN ranks above every number (first when largest, last when
// smallest), as in ATen; equal values keep index order. Selection without
// scratch memory: the j-th pick is the best element ranked after the
// (j-1)-th, O(k * n) per slice. sorted=False returns the same, sorted, order.
#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/fold.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::topk.values";

// x < y with NaN above every number.
template <typename T>
bool nan_last_less(T x, T y) {
  return (!is_nan(x) && is_nan(y)) || x < y;
}

Error topk_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const int64_t k = args[1]->as_int;
  const bool largest = args[3]->as_bool;
  Tensor& values = *args[5]->as_tensor;
  Tensor& indices = *args[6]->as_tensor;
  int32_t dim = 0;
  Error err = normalize_dim(kOp, args[2]->as_int, self.dim, &dim);
  if (!err.ok()) return err;
  const int64_t n = self.dim == 0 ? 1 : self.sizes[dim];
  if (k < 0 || k > n) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: k = %lld is out of range for a dim of size %lld", kOp,
                       static_cast<long long>(k), static_cast<long long>(n));
  }
  if (!(err = check_dtype(kOp, "values", values, self.dtype)).ok()) return err;
  if (!(err = check_dtype(kOp, "indices", indices, ScalarType::kLong)).ok()) return err;
  int64_t sizes[kMaxDims];
  for (int32_t d = 0; d < self.dim; ++d) sizes[d] = d == dim ? k : self.sizes[d];
  if (!(err = resize_output(kOp, values, sizes, self.dim)).ok()) return err;
  if (!(err = resize_output(kOp, indices, sizes, self.dim)).ok()) return err;

  const int64_t outer = size_product(self, 0, dim);
  const int64_t inner = self.dim == 0 ? 1 : size_product(self, dim + 1, self.dim);
  return switch_dtype<kOp, kRealHBF16>(self.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* x = self.data_as<T>();
    T* v = values.data_as<T>();
    int64_t* idx = indices.data_as<int64_t>();
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        const T* slice = x + o * n * inner + i;
        // Whether element a ranks before element b.
        auto before = [&](int64_t a, int64_t b) {
          const T va = slice[a * inner];
          const T vb = slice[b * inner];
          const bool better = largest ? nan_last_less(vb, va) : nan_last_less(va, vb);
          const bool worse = largest ? nan_last_less(va, vb) : nan_last_less(vb, va);
          return better || (!worse && a < b);
        };
        int64_t prev = -1;
        for (int64_t j = 0; j < k; ++j) {
          int64_t best = -1;
          for (int64_t c = 0; c < n; ++c) {
            if (prev >= 0 && !before(prev, c)) continue;
            if (best < 0 || before(c, best)) best = c;
          }
          const int64_t at = (o * k + j) * inner + i;
          v[at] = slice[best * inner];
          idx[at] = best;
          prev = best;
        }
      }
    }
    return Error();
  });
}

}  // namespace

extern const KernelDef topk_values{kOp, "Tiibb|TT", &topk_impl, {}};

}  // namespace sb::kernels
