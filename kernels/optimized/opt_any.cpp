// aten::any.out(Tensor self, int dim, bool keepdim, *, Tensor(a!) out): the
// bool-to-bool fast path of kernels/portable/op_any.cpp (the attention
// masks' "is any key visible" rows): the reduced dim innermost scans its row
// a word at a time and stops at the first non-zero byte; otherwise the rows
// along dim are OR-ed together a vector at a time. Everything else goes to
// the portable kernel.
#include <cstdint>
#include <cstring>

#include "optimized/simd/vec.h"
#include "sb/kernel.h"
#include "util/shape.h"

namespace sb::kernels {
extern const KernelDef any_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::any.out";

typedef uint8_t VecU8 __attribute__((vector_size(kVectorBytes)));
constexpr int64_t kBytes = static_cast<int64_t>(kVectorBytes);

// Whether any of the n bytes at p is non-zero.
bool any_byte(const uint8_t* p, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, sizeof w);
    if (w != 0) return true;
  }
  for (; i < n; ++i) {
    if (p[i] != 0) return true;
  }
  return false;
}

Error opt_any_out_impl(KernelContext& ctx, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const bool keepdim = args[2]->as_bool;
  Tensor& out = *args[3]->as_tensor;
  int32_t dim = 0;
  if (self.dtype != ScalarType::kBool || out.dtype != ScalarType::kBool || self.dim == 0 ||
      !kernels::normalize_dim(kOp, args[1]->as_int, self.dim, &dim).ok()) {
    return kernels::any_out.fn(ctx, args);
  }
  int64_t sizes[kMaxDims];
  int32_t rank = 0;
  for (int32_t d = 0; d < self.dim; ++d) {
    if (d != dim) {
      sizes[rank++] = self.sizes[d];
    } else if (keepdim) {
      sizes[rank++] = 1;
    }
  }
  if (!kernels::resize_output(kOp, out, sizes, rank).ok()) return kernels::any_out.fn(ctx, args);
  const int64_t outer = kernels::size_product(self, 0, dim);
  const int64_t reduced = self.sizes[dim];
  const int64_t inner = kernels::size_product(self, dim + 1, self.dim);
  // Bytes, not bools: a program's bool tensor may hold any byte (non-zero is true).
  const uint8_t* x = self.data_as<uint8_t>();
  uint8_t* y = out.data_as<uint8_t>();
  if (inner == 1) {
    for (int64_t o = 0; o < outer; ++o) y[o] = any_byte(x + o * reduced, reduced);
    return Error();
  }
  for (int64_t o = 0; o < outer; ++o, y += inner) {
    const uint8_t* block = x + o * reduced * inner;
    int64_t i = 0;
    for (; i + kBytes <= inner; i += kBytes) {
      VecU8 acc{};
      for (int64_t r = 0; r < reduced; ++r) {
        VecU8 v;
        std::memcpy(&v, block + r * inner + i, sizeof v);
        acc |= v;
      }
      acc = (acc != 0) & 1;  // lanes 0xff / 0 -> 1 / 0
      std::memcpy(y + i, &acc, sizeof acc);
    }
    for (; i < inner; ++i) {
      uint8_t acc = 0;
      for (int64_t r = 0; r < reduced; ++r) acc |= block[r * inner + i];
      y[i] = acc != 0;
    }
  }
  return Error();
}

}  // namespace

extern const KernelDef opt_any_out{kOp, "Tib|T", &opt_any_out_impl, {}};

}  // namespace sb::optimized
