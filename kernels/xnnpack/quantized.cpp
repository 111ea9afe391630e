// The qs8 convolution, depthwise and fully connected node glue, compiled once for every node kind that
// runs them (quantized.h says what they take): argument reading, per image and group, then the
// micro-kernels of microkernels/.
#include "quantized.h"

#include "xnnpack/microkernels/qs8_config.h"

namespace sb::xnnpack_nodes::qs8 {
namespace {

// The convolution arguments every conv node kind takes (quantized.h), read once.
struct ConvArgs {
  const Tensor& x;
  const Tensor& w;
  const Value& bias;
  ConvShape shape;
  int64_t groups, out_channels;
  const float* multipliers;
  int32_t in_zp, out_zp, qmin, qmax;
  Tensor& y;
  Tensor& scratch;
};

ConvArgs read_conv_args(Args args) {
  const Tensor& x = *args[0]->as_tensor;
  const Tensor& w = *args[1]->as_tensor;
  const int64_t* stride = args[3]->as_int_list.data();
  const int64_t* padding = args[4]->as_int_list.data();
  const int64_t* dilation = args[5]->as_int_list.data();
  Tensor& y = *args[12]->as_tensor;
  const int64_t groups = args[6]->as_int;
  const ConvShape shape{x.sizes[1] / groups, x.sizes[2], x.sizes[3], y.sizes[2], y.sizes[3], w.sizes[2], w.sizes[3],
                        stride[0], stride[1], padding[0], padding[1], dilation[0], dilation[1]};
  return ConvArgs{x,
                  w,
                  *args[2],
                  shape,
                  groups,
                  y.sizes[1],
                  args[7]->as_tensor->data_as<float>(),
                  static_cast<int32_t>(args[8]->as_int),
                  static_cast<int32_t>(args[9]->as_int),
                  static_cast<int32_t>(args[10]->as_int),
                  static_cast<int32_t>(args[11]->as_int),
                  y,
                  *args[13]->as_tensor};
}

// Output channel blocks (of kChannelBlock) per tile of a parallel convolution or fully connected
// layer: the work of a tile must outweigh handing it to another thread.
int64_t channel_blocks_per_tile(int64_t channels, int64_t per_channel_macs) {
  const int64_t blocks = (channels + kChannelBlock - 1) / kChannelBlock;
  const int64_t macs = kChannelBlock * (per_channel_macs > 0 ? per_channel_macs : 1);
  int64_t per = (static_cast<int64_t>(kParallelMinFmas / 4) + macs - 1) / macs;
  per = per < 1 ? 1 : per;
  return per < blocks ? per : blocks;
}

}  // namespace

Error conv(Args args, ThreadPool* pool) {
  const ConvArgs a = read_conv_args(args);
  if (a.bias.is_none()) return Error::make(ErrorCode::kInvalidArgument, "xnnpack qs8 convolution: no folded bias");
  const ConvShape& s = a.shape;
  const int64_t og = a.out_channels / a.groups, n = s.oh * s.ow, steps = s.steps(), wq = s.phase_w();
  const int64_t grid = s.grid_positions();
  const int64_t filter_bytes = packed_filter_bytes(og, s.channels, s.kh * s.kw);
  const int64_t padded_og = round_up(og, kChannelBlock);
  uint8_t* scratch = a.scratch.data_as<uint8_t>();
  int32_t* step_offsets = reinterpret_cast<int32_t*>(scratch);
  uint8_t* image = scratch + steps * 4;
  int8_t* pad_row = reinterpret_cast<int8_t*>(image + s.image_bytes());
  conv_step_offsets(s, step_offsets);
  const MicroKernels& kernels = micro_kernels();
  const int32_t* bias = a.bias.as_tensor->data_as<int32_t>();
  const uint64_t macs = static_cast<uint64_t>(a.x.sizes[0] * a.out_channels) * static_cast<uint64_t>(n * steps);
  pool = pool_for(pool, macs * kStepDepth, kParallelMinFmas);
  for (int64_t b = 0; b < a.x.sizes[0]; ++b) {
    for (int64_t g = 0; g < a.groups; ++g) {
      pack_image(a.x.data_as<int8_t>() + (b * a.groups + g) * s.channels * s.h * s.w, s, a.in_zp, pad_row, image);
      const int8_t* filter = a.w.data_as<int8_t>() + g * filter_bytes;
      const int32_t* group_bias = bias + g * padded_og;
      const float* multipliers = a.multipliers + g * og;
      int8_t* out = a.y.data_as<int8_t>() + (b * a.out_channels + g * og) * n;
      if (n < kMinPositionsForPositionsKernel) {
        parallelize_1d(pool, static_cast<size_t>(s.oh), [&](size_t row) {
          const int64_t oy = static_cast<int64_t>(row);
          kernels.channels(image + oy * wq * kStepDepth, kStepDepth, step_offsets, steps, s.ow, filter, og, group_bias,
                           Requantized{out + oy * s.ow, 1, n, multipliers, a.out_zp, a.qmin, a.qmax});
        });
        continue;
      }
      // Tiles of whole channel blocks, each through the positions kernel block by block.
      const int64_t per = channel_blocks_per_tile(og, grid * steps * kStepDepth) * kChannelBlock;
      parallelize_1d(pool, tiles_of(og, per), [&](size_t t) {
        const int64_t end = (static_cast<int64_t>(t) + 1) * per < og ? (static_cast<int64_t>(t) + 1) * per : og;
        for (int64_t c0 = static_cast<int64_t>(t) * per; c0 < end; c0 += kChannelBlock) {
          Requantized y{out + c0 * n, 1, n, multipliers + c0, a.out_zp, a.qmin, a.qmax};
          y.grid_width = wq;  // the grid's columns past ow are dropped
          y.out_width = s.ow;
          kernels.positions(image, step_offsets, steps, grid, filter + c0 * steps * kStepDepth,
                            og - c0 < kChannelBlock ? og - c0 : kChannelBlock, group_bias + c0, y);
        }
      });
    }
  }
  return Error();
}

Error depthwise_conv(Args args) {
  const ConvArgs a = read_conv_args(args);
  const ConvShape& s = a.shape;
  const int64_t in_channels = a.x.sizes[1];
  const DepthwiseKernel kernel = micro_kernels().depthwise;
  for (int64_t b = 0; b < a.x.sizes[0]; ++b) {
    const DepthwiseImage image{a.x.data_as<int8_t>() + b * in_channels * s.h * s.w,
                               in_channels,
                               a.out_channels,
                               a.w.data_as<int8_t>(),
                               a.bias.is_none() ? nullptr : a.bias.as_tensor->data_as<int32_t>(),
                               a.multipliers,
                               a.in_zp,
                               a.out_zp,
                               a.qmin,
                               a.qmax,
                               a.y.data_as<int8_t>() + b * a.out_channels * s.oh * s.ow};
    kernel(image, s, a.scratch.data_as<int32_t>());
  }
  return Error();
}

Error fully_connected(Args args, ThreadPool* pool) {
  const Tensor& x = *args[0]->as_tensor;
  const Tensor& w = *args[1]->as_tensor;
  if (args[2]->is_none()) {
    return Error::make(ErrorCode::kInvalidArgument, "xnnpack qs8 fully connected: no folded bias");
  }
  const int32_t* bias = args[2]->as_tensor->data_as<int32_t>();
  const float* multipliers = args[3]->as_tensor->data_as<float>();
  const int32_t out_zp = static_cast<int32_t>(args[5]->as_int);
  const int32_t qmin = static_cast<int32_t>(args[6]->as_int), qmax = static_cast<int32_t>(args[7]->as_int);
  Tensor& y = *args[8]->as_tensor;
  const int64_t m = x.sizes[0], in = x.sizes[1], o = y.sizes[1];
  const int64_t steps = round_up(in, kStepDepth) / kStepDepth, row_bytes = steps * kStepDepth;
  int32_t* step_offsets = args[9]->as_tensor->data_as<int32_t>();
  uint8_t* rows = reinterpret_cast<uint8_t*>(step_offsets + steps);
  for (int64_t s = 0; s < steps; ++s) step_offsets[s] = static_cast<int32_t>(s * kStepDepth);
  const MicroKernels& kernels = micro_kernels();
  pool = pool_for(pool, static_cast<uint64_t>(m * o) * static_cast<uint64_t>(row_bytes), kParallelMinFmas);
  for (int64_t r0 = 0; r0 < m; r0 += kFullyConnectedRowChunk) {
    const int64_t count = m - r0 < kFullyConnectedRowChunk ? m - r0 : kFullyConnectedRowChunk;
    for (int64_t r = 0; r < count; ++r) {
      const int8_t* xr = x.data_as<int8_t>() + (r0 + r) * in;
      uint8_t* row = rows + r * row_bytes;
      for (int64_t i = 0; i < in; ++i) row[i] = static_cast<uint8_t>(xr[i] ^ 0x80);
      for (int64_t i = in; i < row_bytes; ++i) row[i] = 0;  // times zero weights
    }
    // Tiles of whole channel blocks: the packed filter holds them one after another.
    const int64_t per = channel_blocks_per_tile(o, count * row_bytes) * kChannelBlock;
    parallelize_1d(pool, tiles_of(o, per), [&](size_t t) {
      const int64_t c0 = static_cast<int64_t>(t) * per;
      kernels.channels(rows, row_bytes, step_offsets, steps, count, w.data_as<int8_t>() + c0 * row_bytes,
                       o - c0 < per ? o - c0 : per, bias + c0,
                       Requantized{y.data_as<int8_t>() + r0 * o + c0, o, 1, multipliers + c0, out_zp, qmin, qmax});
    });
  }
  return Error();
}

Error dynamic_fully_connected(Args args, ThreadPool* pool) {
  const Tensor& x = *args[0]->as_tensor;
  const float* params = args[1]->as_tensor->data_as<float>();
  const Tensor& w = *args[2]->as_tensor;
  const float* bias = args[3]->is_none() ? nullptr : args[3]->as_tensor->data_as<float>();
  const Tensor& scales = *args[4]->as_tensor;
  const float lo = static_cast<float>(args[5]->as_double), hi = static_cast<float>(args[6]->as_double);
  Tensor& y = *args[7]->as_tensor;
  int16_t* row = args[8]->as_tensor->data_as<int16_t>();
  const int64_t m = x.sizes[0], k = x.sizes[1], o = w.sizes[0];
  const int64_t blocks = scales.dim == 2 ? scales.sizes[1] : 1, block = k / blocks;
  const float* s = scales.data_as<float>();
  pool = pool_for(pool, static_cast<uint64_t>(m * o) * static_cast<uint64_t>(k), kParallelMinFmas);
  // Outputs per tile: whole ones, each a dot product of k.
  constexpr int64_t kTileMacs = static_cast<int64_t>(kParallelMinFmas / 4);
  const int64_t per = k > 0 ? (kTileMacs + k - 1) / k : o;
  for (int64_t r = 0; r < m; ++r) {
    const int8_t* xr = x.data_as<int8_t>() + r * k;
    const int32_t zero_point = static_cast<int32_t>(params[2 * r + 1]);
    const float row_scale = params[2 * r];
    for (int64_t i = 0; i < k; ++i) row[i] = static_cast<int16_t>(xr[i] - zero_point);
    float* yr = y.data_as<float>() + r * o;
    parallelize_1d(pool, tiles_of(o, per), [&](size_t t) {
      const int64_t end = (static_cast<int64_t>(t) + 1) * per < o ? (static_cast<int64_t>(t) + 1) * per : o;
      for (int64_t c = static_cast<int64_t>(t) * per; c < end; ++c) {
        const int8_t* wc = w.data_as<int8_t>() + c * k;
        float v = 0.0f;
        for (int64_t b = 0; b < blocks; ++b) {
          v += static_cast<float>(dot(row + b * block, wc + b * block, block)) * (row_scale * s[c * blocks + b]);
        }
        if (bias != nullptr) v += bias[c];
        yr[c] = v < lo ? lo : v > hi ? hi : v;
      }
    });
  }
  return Error();
}

}  // namespace sb::xnnpack_nodes::qs8
