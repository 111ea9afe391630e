#include "util/random.h"

#include <cmath>
#if SB_BARE_METAL
#include "sb/limits.h"
#else
#include <atomic>
#include <chrono>
#endif

namespace sb::kernels {
namespace {

constexpr uint64_t kGolden = 0x9e3779b97f4a7c15ull;

#if SB_BARE_METAL
// Bare metal (Cortex-M): one thread, and no 64-bit atomics (v7-M has no LDREXD);
// the seed comes from the firmware's clock hook, not an OS clock.
uint64_t g_counter = 0;
bool g_seeded = false;
#else
std::atomic<uint64_t> g_counter{0};
std::atomic<bool> g_seeded{false};
#endif

uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace

uint64_t random_bits() {
#if SB_BARE_METAL
  if (!g_seeded) {
    g_seeded = true;
    g_counter += mix(monotonic_ns());
  }
  g_counter += kGolden;
  return mix(g_counter);
#else
  if (!g_seeded.exchange(true)) {
    const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
    g_counter.fetch_add(mix(static_cast<uint64_t>(now)));
  }
  return mix(g_counter.fetch_add(kGolden) + kGolden);
#endif
}

double random_normal() {
  const double u1 = 1.0 - random_uniform();  // (0, 1]: log is finite
  const double u2 = random_uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

}  // namespace sb::kernels
