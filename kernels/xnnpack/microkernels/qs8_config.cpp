// The one place the qs8 micro-kernels are chosen (qs8_config.h).
#include "xnnpack/microkernels/qs8_config.h"

#if defined(SB_QS8_X86_VARIANTS)
#include <cstdlib>
#include <cstring>
#endif

namespace sb::xnnpack_nodes::qs8 {

const MicroKernels& micro_kernels() {
#if defined(SB_QS8_X86_VARIANTS)
  static const MicroKernels chosen = [] {
    __builtin_cpu_init();
    // SB_XNNPACK_KERNELS=portable or =avx2 caps the choice, so tests can hold each variant to the
    // same bytes.
    const char* cap = getenv("SB_XNNPACK_KERNELS");
    const bool portable = cap != nullptr && strcmp(cap, "portable") == 0;
    const bool any = cap == nullptr || (!portable && strcmp(cap, "avx2") != 0);
    if (any && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni")) {
      return MicroKernels{&positions_avx512vnni, &channels_avx512vnni, &depthwise_avx512vnni,
                          &interleave_row_avx512};
    }
    if (!portable && __builtin_cpu_supports("avx2")) {
      return MicroKernels{&positions_avx2, &channels_scalar, &depthwise_scalar,
                          &interleave_row_scalar};
    }
    return MicroKernels{&positions_scalar, &channels_scalar, &depthwise_scalar,
                        &interleave_row_scalar};
  }();
  return chosen;
#else
  static constexpr MicroKernels kPortable{&positions_scalar, &channels_scalar, &depthwise_scalar,
                                          &interleave_row_scalar};
  return kPortable;
#endif
}

}  // namespace sb::xnnpack_nodes::qs8
