// One core's peak f32 multiply-add rate for the instruction set the optimized kernels are built for
// (the same -march), against which benchmarks/latency.py states each CNN's achieved GFLOP/s:
//
//   fma_peak_probe [--runs R]
//
// prints `fma_peak_gflops G` (the fastest of R runs: noise only ever slows a run down), `vector_lanes N`.
//
// Each run keeps kChains independent accumulators, so that the FMA units' latency is hidden behind their
// throughput (two units of four cycles' latency need eight chains in flight), and few enough that they
// and the two operands stay in registers (16 on AVX2). The sum is printed, so that the work is kept.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#if defined(__AVX512F__)
#include <immintrin.h>
using Vec = __m512;
constexpr int kLanes = 16;
static inline Vec broadcast(float x) { return _mm512_set1_ps(x); }
static inline Vec multiply_add(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
static inline float first_lane(Vec v) { return _mm512_cvtss_f32(v); }
#elif defined(__FMA__)
#include <immintrin.h>
using Vec = __m256;
constexpr int kLanes = 8;
static inline Vec broadcast(float x) { return _mm256_set1_ps(x); }
static inline Vec multiply_add(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
static inline float first_lane(Vec v) { return _mm256_cvtss_f32(v); }
#elif defined(__aarch64__)
#include <arm_neon.h>
using Vec = float32x4_t;
constexpr int kLanes = 4;
static inline Vec broadcast(float x) { return vdupq_n_f32(x); }
static inline Vec multiply_add(Vec a, Vec b, Vec c) { return vfmaq_f32(c, a, b); }
static inline float first_lane(Vec v) { return vgetq_lane_f32(v, 0); }
#else
#include <cmath>
using Vec = float;
constexpr int kLanes = 1;
static inline Vec broadcast(float x) { return x; }
static inline Vec multiply_add(Vec a, Vec b, Vec c) { return std::fma(a, b, c); }
static inline float first_lane(Vec v) { return v; }
#endif

namespace {

constexpr int kChains = 12;

double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// kChains * kLanes multiply-adds per iteration; returns a value the caller prints.
float run(long iterations) {
  Vec acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = broadcast(static_cast<float>(c));
  const Vec scale = broadcast(0.999999f);
  const Vec shift = broadcast(1e-7f);
  for (long i = 0; i < iterations; ++i) {
    // Unrolled whole, or GCC -O2 keeps acc in memory and every FMA waits on a store (half the peak).
#pragma GCC unroll 16
    for (int c = 0; c < kChains; ++c) acc[c] = multiply_add(acc[c], scale, shift);
  }
  float sum = 0;
  for (int c = 0; c < kChains; ++c) sum += first_lane(acc[c]);
  return sum;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 9;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--runs") == 0) runs = std::max(1, atoi(argv[i + 1]));
  }
  // Some 50 ms a run at a few tens of GFLOP/s.
  const long iterations = 40'000'000L / (kChains * kLanes);
  run(iterations / 10);  // warm-up: clocks up, caches and TLB settled
  double best = 0;
  float sink = 0;
  for (int r = 0; r < runs; ++r) {
    const double start = seconds_now();
    sink += run(iterations);
    const double took = seconds_now() - start;
    best = std::max(best, 2.0 * kChains * kLanes * static_cast<double>(iterations) / took / 1e9);
  }
  printf("fma_peak_gflops %.2f\nvector_lanes %d\nsink %g\n", best, kLanes, static_cast<double>(sink));
  return 0;
}
