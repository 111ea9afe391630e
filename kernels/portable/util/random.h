// Random numbers for rand and randn: one process-wide stream (splitmix64 over
// an atomic counter, so concurrent kernels never share a draw), seeded once
// from the clock. Like ExecuTorch's kernels, values differ from run to run.
#pragma once

#include <cstdint>

namespace sb::kernels {

// 64 random bits.
uint64_t random_bits();

// Uniform in [0, 1), 53 random bits.
inline double random_uniform() { return static_cast<double>(random_bits() >> 11) * 0x1.0p-53; }

// Standard normal (Box-Muller).
double random_normal();

}  // namespace sb::kernels
