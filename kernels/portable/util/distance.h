// The p-norm distance between two rows, shared by _cdist_forward and
// _pdist_forward: p = 0 counts differing elements, p = inf takes the largest
// |difference|, otherwise (sum |d|^p)^(1/p), in double.
#pragma once

#include <cmath>

#include "sb/error.h"

namespace sb::kernels {

inline Error check_norm_p(const char* op, double p) {
  if (p >= 0) return Error();  // NaN fails too
  return Error::make(ErrorCode::kInvalidArgument, "%s: p must be a non-negative number", op);
}

// Rows a[0..m) and b[0..m).
template <typename T>
double pnorm_distance(const T* a, const T* b, int64_t m, double p) {
  double acc = 0.0;
  for (int64_t i = 0; i < m; ++i) {
    const double d = std::fabs(static_cast<double>(a[i]) - static_cast<double>(b[i]));
    if (p == 0.0) acc += d != 0.0 ? 1.0 : 0.0;
    else if (std::isinf(p)) acc = (d > acc || std::isnan(d)) ? d : acc;
    else if (p == 1.0) acc += d;
    else if (p == 2.0) acc += d * d;
    else acc += std::pow(d, p);
  }
  if (p == 0.0 || p == 1.0 || std::isinf(p)) return acc;
  if (p == 2.0) return std::sqrt(acc);
  return std::pow(acc, 1.0 / p);
}

}  // namespace sb::kernels
