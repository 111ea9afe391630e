// Which qs8 micro-kernels this CPU runs: decided once, here, from what the CPU reports (as XNNPACK's
// hardware config does). In a runtime built for speed on x86-64 (SB_XNNPACK_SIMD_VARIANTS, set by
// native/CMakeLists.txt with the optimized kernels) the AVX512-VNNI variants (and an AVX2 GEMM for
// CPUs without them) are compiled for that target alone (function target attributes) whatever the
// build's -march; size-first runtimes and other targets build the portable kernels only. Every variant gives the same bytes (SB_XNNPACK_KERNELS=portable or =avx2 in the
// environment caps the choice on x86-64, for tests).
#pragma once

#include "xnnpack/microkernels/qs8_dwconv.h"
#include "xnnpack/microkernels/qs8_gemm.h"

#if defined(SB_XNNPACK_SIMD_VARIANTS) && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SB_QS8_X86_VARIANTS 1
#define SB_QS8_AVX512VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))
#define SB_QS8_AVX2 __attribute__((target("avx2")))
#endif

namespace sb::xnnpack_nodes::qs8 {

struct MicroKernels {
  PositionsKernel positions;
  ChannelsKernel channels;
  DepthwiseKernel depthwise;
  InterleaveRowKernel interleave_row;
};

// The micro-kernels chosen for this CPU (on the first call).
const MicroKernels& micro_kernels();

#if defined(SB_QS8_X86_VARIANTS)
void positions_avx2(const uint8_t* x, const int32_t* step_offsets, int64_t steps, int64_t positions,
                    const int8_t* filter, int64_t rows, const int32_t* bias, const Requantized& y);
void positions_avx512vnni(const uint8_t* x, const int32_t* step_offsets, int64_t steps, int64_t positions,
                          const int8_t* filter, int64_t rows, const int32_t* bias, const Requantized& y);
void channels_avx512vnni(const uint8_t* x, int64_t x_position_stride, const int32_t* step_offsets, int64_t steps,
                         int64_t positions, const int8_t* filter, int64_t channels, const int32_t* bias,
                         const Requantized& y);
void depthwise_avx512vnni(const DepthwiseImage& image, const ConvShape& s, int32_t* scratch);
void interleave_row_avx512(const int8_t* const* lanes, int64_t origin, int64_t sw, int64_t first, int64_t last,
                           uint8_t* image);
#endif

}  // namespace sb::xnnpack_nodes::qs8
