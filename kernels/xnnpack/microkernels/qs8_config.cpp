// The one place the qs8 micro-kernels are chosen (qs8_config.h).
#include "xnnpack/microkernels/qs8_config.h"

#if defined(SB_QS8_X86_VARIANTS)
#include <cstdlib>
#endif

namespace sb::xnnpack_nodes::qs8 {

const MicroKernels& micro_kernels() {
#if defined(SB_QS8_X86_VARIANTS)
  static const MicroKernels chosen = [] {
    __builtin_cpu_init();
    // SB_XNNPACK_PORTABLE=1 runs the portable kernels, so tests can hold them to the same bytes.
    const char* portable = getenv("SB_XNNPACK_PORTABLE");
    if ((portable == nullptr || portable[0] != '1') && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni")) {
      return MicroKernels{&positions_avx512vnni, &channels_avx512vnni, &depthwise_avx512vnni, &max_pool_row_avx512,
                          &interleave_row_avx512};
    }
    return MicroKernels{&positions_scalar, &channels_scalar, &depthwise_scalar, &max_pool_row_scalar,
                        &interleave_row_scalar};
  }();
  return chosen;
#else
  static constexpr MicroKernels kPortable{&positions_scalar, &channels_scalar, &depthwise_scalar,
                                          &max_pool_row_scalar, &interleave_row_scalar};
  return kPortable;
#endif
}

}  // namespace sb::xnnpack_nodes::qs8
