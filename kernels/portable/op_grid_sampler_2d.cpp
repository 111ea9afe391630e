// aten::grid_sampler_2d.out(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, bool align_corners,
//                           *, Tensor(a!) out)
// out[n, c, h, w] samples input[n, c] at grid[n, h, w] = (x, y) in [-1, 1]: bilinear (0), nearest (1) or bicubic (2);
// coordinates outside the image read zeros (0), the border (1) or the reflected image (2). Float, Double, Half,
// BFloat16 and (as ExecuTorch's kernel, in their own arithmetic) the integer dtypes; grid has the input's dtype.
#include <cmath>
#include <type_traits>

#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::grid_sampler_2d.out";

enum Padding : int64_t { kZeros = 0, kBorder = 1, kReflection = 2 };

// A Half/BFloat16 value whose every arithmetic result is rounded to T, as ExecuTorch's bicubic path computes in the
// tensor dtype (each operation of two 16-bit values yields a float that is stored back).
template <typename T>
struct Rounded {
  float v = 0;
  Rounded() = default;
  template <typename A, typename = std::enable_if_t<std::is_arithmetic_v<A>>>
  explicit Rounded(A a) : v(static_cast<float>(T(static_cast<float>(a)))) {}
  explicit Rounded(T t) : v(static_cast<float>(t)) {}
  static Rounded of(float f) { return Rounded(f); }
  friend Rounded operator+(Rounded a, Rounded b) { return of(a.v + b.v); }
  friend Rounded operator-(Rounded a, Rounded b) { return of(a.v - b.v); }
  friend Rounded operator*(Rounded a, Rounded b) { return of(a.v * b.v); }
  friend Rounded operator/(Rounded a, Rounded b) { return of(a.v / b.v); }
  friend bool operator<(Rounded a, Rounded b) { return a.v < b.v; }
  friend bool operator>(Rounded a, Rounded b) { return a.v > b.v; }
  friend bool operator!=(Rounded a, Rounded b) { return a.v != b.v; }
};

float to_float(float v) { return v; }
double to_float(double v) { return v; }
template <typename T>
float to_float(Rounded<T> r) { return r.v; }

float floor_of(float v) { return std::floor(v); }
double floor_of(double v) { return std::floor(v); }
template <typename T>
Rounded<T> floor_of(Rounded<T> r) { return Rounded<T>(std::floor(r.v)); }
float fabs_of(float v) { return std::fabs(v); }
double fabs_of(double v) { return std::fabs(v); }
template <typename T>
Rounded<T> fabs_of(Rounded<T> r) { return Rounded<T>(std::fabs(r.v)); }
float fmod_of(float a, float b) { return std::fmod(a, b); }
double fmod_of(double a, double b) { return std::fmod(a, b); }
template <typename T>
Rounded<T> fmod_of(Rounded<T> a, Rounded<T> b) { return Rounded<T>(std::fmod(a.v, b.v)); }

// Grid coordinate in [-1, 1] -> pixel coordinate (align_corners: corner pixel centres, else image edges).
template <typename S>
S unnormalize(S v, int64_t size, bool align_corners) {
  const S n = static_cast<S>(size);
  if (align_corners) return (v + S(1)) / S(2) * (n - S(1));
  return ((v + S(1)) * n - S(1)) / S(2);
}

template <typename S>
S clip(S v, int64_t size) {
  const S hi = static_cast<S>(size - 1);
  const S lo = v > S(0) ? v : S(0);  // NaN stays NaN here ...
  return hi < lo ? hi : lo;          // ... and becomes the far border here, as std::min/max order it
}

// Reflects `v` into [twice_lo / 2, twice_hi / 2].
template <typename S>
S reflect(S v, int64_t twice_lo, int64_t twice_hi) {
  if (twice_lo == twice_hi) return S(0);
  const S lo = static_cast<S>(twice_lo) / S(2);
  const S span = static_cast<S>(twice_hi - twice_lo) / S(2);
  v = fabs_of(v - lo);
  const S extra = fmod_of(v, span);
  const S flips = floor_of(v / span);
  const bool odd = std::isfinite(to_float(flips)) && fmod_of(flips, S(2)) != S(0);
  return odd ? span - extra + lo : extra + lo;
}

template <typename S>
S reflect_in(S v, int64_t size, bool align_corners) {
  return align_corners ? reflect(v, 0, 2 * (size - 1)) : reflect(v, -1, 2 * size - 1);
}

template <typename S>
S source_index(S v, int64_t size, int64_t padding, bool align_corners) {
  v = unnormalize(v, size, align_corners);
  if (padding == kBorder) return clip(v, size);
  if (padding == kReflection) return clip(reflect_in(v, size, align_corners), size);
  return v;
}

// A pixel coordinate as an index; NaN and huge values land far outside any image (never UB).
template <typename S>
int64_t to_index(S v) {
  constexpr double kFar = 1099511627776.0;  // 2^40
  const auto f = to_float(v);
  if (!(f > -kFar)) return -(int64_t{1} << 40);
  if (!(f < kFar)) return int64_t{1} << 40;
  return static_cast<int64_t>(f);
}

int64_t clamp_index(int64_t i, int64_t size) { return i < 0 ? 0 : i >= size ? size - 1 : i; }

template <typename S>
S cubic_near(S x, S a) {  // |x| <= 1
  return ((a + S(2)) * x - (a + S(3))) * x * x + S(1);
}

template <typename S>
S cubic_far(S x, S a) {  // 1 < |x| < 2
  return ((a * x - S(5) * a) * x + S(8) * a) * x - S(4) * a;
}

template <typename S>
S cubic(S p0, S p1, S p2, S p3, S t) {
  const S a = S(-0.75);
  return p0 * cubic_far(t + S(1), a) + p1 * cubic_near(t, a) + p2 * cubic_near(S(1) - t, a) +
         p3 * cubic_far((S(1) - t) + S(1), a);
}

struct Plane {
  int64_t h, w;
};

// Integer dtypes, as ExecuTorch's kernel computes them: its formulas evaluated in the tensor's integer type T
// with C++'s promotions (P: int, or int64 for Long), every intermediate wrapping instead of overflowing. Every
// interpolation then weighs the pixel at the integer source index by 1 and its neighbours by 0 (bicubic's -0.75
// is 0 in T), so all three modes read that one pixel.
template <typename T>
using Promoted = decltype(T() + 1);

template <typename P>
P wrap_add(P a, P b) {
  using U = std::make_unsigned_t<P>;
  return static_cast<P>(static_cast<U>(a) + static_cast<U>(b));
}

template <typename P>
P wrap_mul(P a, P b) {
  using U = std::make_unsigned_t<P>;
  return static_cast<P>(static_cast<U>(a) * static_cast<U>(b));
}

template <typename T>
T int_unnormalize(T v, int64_t size, bool align_corners) {
  using P = Promoted<T>;
  const P shifted = wrap_add<P>(static_cast<P>(v), P(1));
  if (align_corners) return static_cast<T>(wrap_mul<int64_t>(static_cast<int64_t>(shifted / 2), size - 1));
  return static_cast<T>(wrap_add<int64_t>(wrap_mul<int64_t>(shifted, size), -1) / 2);
}

template <typename T>
T int_clip(T v, int64_t size) {
  const T hi = static_cast<T>(size - 1);
  const T lo = v > T(0) ? v : T(0);
  return hi < lo ? hi : lo;
}

template <typename T>
T int_reflect(T v, int64_t twice_lo, int64_t twice_hi) {
  using P = Promoted<T>;
  using U = std::make_unsigned_t<P>;
  if (twice_lo == twice_hi) return T(0);
  const T lo = static_cast<T>(static_cast<P>(static_cast<T>(twice_lo)) / 2);
  const T span = static_cast<T>(static_cast<P>(static_cast<T>(twice_hi - twice_lo)) / 2);
  if (span == T(0)) return T(0);  // a size beyond T: ExecuTorch divides by zero here
  const P diff = wrap_add<P>(static_cast<P>(v), static_cast<P>(-static_cast<P>(lo)));
  const U magnitude = diff < 0 ? U(0) - static_cast<U>(diff) : static_cast<U>(diff);
  const P d = static_cast<P>(static_cast<T>(magnitude));
  const P sp = static_cast<P>(span);
  const bool trivial = sp == P(1) || sp == P(-1);  // also keeps min / -1 defined
  const P extra = trivial ? P(0) : d % sp;
  const P flips = trivial ? d : d / sp;
  const P r = flips % 2 == 0 ? wrap_add<P>(extra, static_cast<P>(lo))
                             : wrap_add<P>(wrap_add<P>(sp, static_cast<P>(-extra)), static_cast<P>(lo));
  return static_cast<T>(r);
}

// The pixel index an integer grid coordinate selects (before the padding's bounds handling).
template <typename T>
int64_t int_source_index(T v, int64_t size, int64_t padding, bool align_corners) {
  T i = int_unnormalize(v, size, align_corners);
  if (padding == kReflection) {
    i = align_corners ? int_reflect(i, 0, 2 * (size - 1)) : int_reflect(i, -1, 2 * size - 1);
  }
  if (padding != kZeros) i = int_clip(i, size);
  return static_cast<int64_t>(i);
}

template <typename T, typename S>
S sample_bilinear(const T* img, Plane p, S ix, S iy, int64_t padding) {
  const int64_t x0 = to_index(std::floor(ix));
  const int64_t y0 = to_index(std::floor(iy));
  const int64_t x1 = x0 + 1, y1 = y0 + 1;
  const S fx0 = static_cast<S>(x0), fy0 = static_cast<S>(y0), fx1 = static_cast<S>(x1), fy1 = static_cast<S>(y1);
  const S w_nw = (fx1 - ix) * (fy1 - iy);
  const S w_ne = (ix - fx0) * (fy1 - iy);
  const S w_sw = (fx1 - ix) * (iy - fy0);
  const S w_se = (ix - fx0) * (iy - fy0);
  const int64_t xs[4] = {x0, x1, x0, x1};
  const int64_t ys[4] = {y0, y0, y1, y1};
  const S ws[4] = {w_nw, w_ne, w_sw, w_se};
  S acc = S(0);
  for (int k = 0; k < 4; ++k) {
    if (padding == kZeros) {
      if (xs[k] >= 0 && xs[k] < p.w && ys[k] >= 0 && ys[k] < p.h) {
        acc += static_cast<S>(img[ys[k] * p.w + xs[k]]) * ws[k];
      }
    } else {
      acc += static_cast<S>(img[clamp_index(ys[k], p.h) * p.w + clamp_index(xs[k], p.w)]) * ws[k];
    }
  }
  return acc;
}

template <typename T, typename S>
S pixel_bicubic(const T* img, Plane p, int64_t y, int64_t x, int64_t padding, bool align_corners) {
  if (padding == kZeros) {
    return x >= 0 && x < p.w && y >= 0 && y < p.h ? static_cast<S>(img[y * p.w + x]) : S(0);
  }
  if (padding == kReflection) {
    y = to_index(clip(reflect_in(static_cast<S>(y), p.h, align_corners), p.h));
    x = to_index(clip(reflect_in(static_cast<S>(x), p.w, align_corners), p.w));
  }
  return static_cast<S>(img[clamp_index(y, p.h) * p.w + clamp_index(x, p.w)]);
}

template <typename T, typename S>
S sample_bicubic(const T* img, Plane p, S gx, S gy, int64_t padding, bool align_corners) {
  const S ix = unnormalize(gx, p.w, align_corners);
  const S iy = unnormalize(gy, p.h, align_corners);
  const S fx = floor_of(ix), fy = floor_of(iy);
  const int64_t x0 = to_index(fx), y0 = to_index(fy);
  const S tx = ix - static_cast<S>(x0), ty = iy - static_cast<S>(y0);
  S rows[4];
  for (int r = 0; r < 4; ++r) {
    const int64_t y = y0 - 1 + r;
    S q[4];
    for (int k = 0; k < 4; ++k) q[k] = pixel_bicubic<T, S>(img, p, y, x0 - 1 + k, padding, align_corners);
    rows[r] = cubic(q[0], q[1], q[2], q[3], tx);
  }
  return cubic(rows[0], rows[1], rows[2], rows[3], ty);
}

Error grid_sampler_2d_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  const Tensor& grid = *args[1]->as_tensor;
  const int64_t mode = args[2]->as_int;
  const int64_t padding = args[3]->as_int;
  const bool align_corners = args[4]->as_bool;
  Tensor& out = *args[5]->as_tensor;
  if (in.dim != 4 || grid.dim != 4 || grid.sizes[3] != 2 || grid.sizes[0] != in.sizes[0]) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: needs a 4-D input and a [N, H, W, 2] grid", kOp);
  }
  if (mode < 0 || mode > 2 || padding < kZeros || padding > kReflection) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: unknown interpolation or padding mode", kOp);
  }
  Error err = check_dtype(kOp, "grid", grid, in.dtype);
  if (!err.ok()) return err;
  const int64_t sizes[] = {in.sizes[0], in.sizes[1], grid.sizes[1], grid.sizes[2]};
  if (!(err = resize_output(kOp, out, sizes, 4)).ok()) return err;
  if (!(err = check_dtype(kOp, "input", in, out.dtype)).ok()) return err;
  const Plane p{in.sizes[2], in.sizes[3]};
  const int64_t oh = grid.sizes[1], ow = grid.sizes[2];
  if (sizes[0] * sizes[1] * oh * ow > 0 && (p.h == 0 || p.w == 0)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: cannot sample an empty input", kOp);
  }
  return switch_dtype<kOp, kRealHBF16>(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    using S = std::conditional_t<std::is_same_v<T, double>, double, float>;
    const T* x = in.data_as<const T>();
    const T* g = grid.data_as<const T>();
    T* y = out.data_as<T>();
    for (int64_t n = 0; n < sizes[0]; ++n) {
      for (int64_t c = 0; c < sizes[1]; ++c) {
        const T* img = x + (n * sizes[1] + c) * p.h * p.w;
        const T* gp = g + n * oh * ow * 2;
        for (int64_t k = 0; k < oh * ow; ++k) {
          if constexpr (std::is_integral_v<T>) {
            const int64_t xi = int_source_index(gp[2 * k], p.w, padding, align_corners);
            const int64_t yi = int_source_index(gp[2 * k + 1], p.h, padding, align_corners);
            if (padding == kZeros) {
              *y++ = xi >= 0 && xi < p.w && yi >= 0 && yi < p.h ? img[yi * p.w + xi] : T(0);
            } else {
              *y++ = img[clamp_index(yi, p.h) * p.w + clamp_index(xi, p.w)];
            }
          } else {
            const S gx = static_cast<S>(gp[2 * k]);
            const S gy = static_cast<S>(gp[2 * k + 1]);
            S v;
            if (mode == 2) {
              if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
                v = sample_bicubic<T, S>(img, p, gx, gy, padding, align_corners);
              } else {  // in the tensor's 16-bit type, rounding each step like ExecuTorch
                using R = Rounded<T>;
                v = sample_bicubic<T, R>(img, p, R(gp[2 * k]), R(gp[2 * k + 1]), padding, align_corners).v;
              }
            } else {
              const S ix = source_index(gx, p.w, padding, align_corners);
              const S iy = source_index(gy, p.h, padding, align_corners);
              if (mode == 0) {
                v = sample_bilinear<T, S>(img, p, ix, iy, padding);
              } else {
                const int64_t xi = to_index(std::nearbyint(ix)), yi = to_index(std::nearbyint(iy));
                if (padding == kZeros) {
                  v = xi >= 0 && xi < p.w && yi >= 0 && yi < p.h ? static_cast<S>(img[yi * p.w + xi]) : S(0);
                } else {
                  v = static_cast<S>(img[clamp_index(yi, p.h) * p.w + clamp_index(xi, p.w)]);
                }
              }
            }
            *y++ = static_cast<T>(v);
          }
        }
      }
    }
    return Error();
  });
}

}  // namespace

extern const KernelDef grid_sampler_2d_out{kOp, "TTiib|T", &grid_sampler_2d_out_impl, {}};

}  // namespace sb::kernels
