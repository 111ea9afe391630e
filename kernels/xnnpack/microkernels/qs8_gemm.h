// Int8 GEMM micro-kernels of the qs8 convolution and fully connected nodes, on raw pointers, and the
// layouts they read (packed once at init by native/backends/xnnpack/plan.cpp, or per call into the
// plan's scratch).
//
// The arithmetic is XNNPACK's: activations enter as unsigned bytes x ^ 0x80 (= x + 128) so that one
// u8 x s8 four-way dot product (vpdpbusd) takes four reduction steps at once. The input zero point
// then leaves the inner loop: sum w * (x - zx) = sum w * (x + 128) - (zx + 128) * sum w, the last
// term folded into the bias at init. Padding taps hold zx + 128, so they contribute nothing.
//
// Layouts (bytes unless said otherwise; "step" = 4 consecutive reduction elements):
//   - packed filter, per group: [ceil(O/16)][steps][16][4] int8 (lanes = output channels; rows past
//     O and reduction elements past the real ones are zero), and a folded int32 bias [ceil(O/16)*16];
//   - conv activations, per group: the image's channels in fours, each phase of the stride
//     (sh * sw of them) a padded plane of Hq x Wq positions of 4 channel bytes, so every filter tap
//     reads a contiguous run of positions: [C/4][sh][sw][Hq][Wq][4];
//   - fully connected activations: rows of steps * 4 bytes.
// A step of the reduction is found through a table of byte offsets (one per step), so both share a
// kernel: for a convolution a step is (4 channels, ky, kx), for a fully connected layer 4 inputs.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sb::xnnpack_nodes::qs8 {

constexpr int64_t kChannelBlock = 16;  // output channels of a packed filter block: one 512-bit int32 vector
constexpr int64_t kStepDepth = 4;      // reduction elements per step: the 4 bytes of an int32 lane
constexpr int64_t kPositionTile = 32;  // output positions a positions kernel computes at once
// Below this many output positions per image a convolution runs the channels kernel (lanes over
// output channels) rather than the positions kernel (lanes over positions).
constexpr int64_t kMinPositionsForPositionsKernel = 16;

inline int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

// Where a kernel's int8 results go and how they are requantized (XNNPACK's fp32 rule).
struct Requantized {
  int8_t* out;
  int64_t position_stride, channel_stride;  // in bytes of out (the channels kernel)
  const float* multipliers;                  // one per output channel of the call
  int32_t zero_point, qmin, qmax;
  // The positions kernel's grid: position q is (q / grid_width, q % grid_width), stored at
  // out[channel * channel_stride + row * out_width + column] when column < out_width.
  int64_t grid_width = 1, out_width = 1;
};

// out[r][q] for r < rows (<= 16) and q < positions (of y's grid): lanes over positions, for images
// whose planes fill vectors. x + step_offsets[s] + 4 * q is step s of position q; bytes are read up to position
// round_up(positions, kPositionTile). filter is one packed block [steps][16][4], bias its 16 int32.
using PositionsKernel = void (*)(const uint8_t* x, const int32_t* step_offsets, int64_t steps, int64_t positions,
                                 const int8_t* filter, int64_t rows, const int32_t* bias, const Requantized& y);

// out[c][q] for c < channels and q < positions: lanes over output channels, for a few positions (a
// small plane, the rows of a fully connected layer). Position q's step s is at
// x + q * x_position_stride + step_offsets[s]; filter holds ceil(channels/16) packed blocks.
using ChannelsKernel = void (*)(const uint8_t* x, int64_t x_position_stride, const int32_t* step_offsets,
                                int64_t steps, int64_t positions, const int8_t* filter, int64_t channels,
                                const int32_t* bias, const Requantized& y);

// The portable kernels (also the reference the others are tested against).
void positions_scalar(const uint8_t* x, const int32_t* step_offsets, int64_t steps, int64_t positions,
                      const int8_t* filter, int64_t rows, const int32_t* bias, const Requantized& y);
void channels_scalar(const uint8_t* x, int64_t x_position_stride, const int32_t* step_offsets, int64_t steps,
                     int64_t positions, const int8_t* filter, int64_t channels, const int32_t* bias,
                     const Requantized& y);

// ---- packing (the plan, once at init) -------------------------------------------------------------------

// Bytes of one group's packed filter: outputs rows, `inputs` channels of `taps` taps each.
inline int64_t packed_filter_bytes(int64_t outputs, int64_t inputs, int64_t taps) {
  return round_up(outputs, kChannelBlock) * round_up(inputs, kStepDepth) * taps;
}

// Packs `groups` groups of an OIHW int8 filter ([groups * outputs][inputs][taps]) as above and folds
// the input zero point into `bias` ([groups][round_up(outputs, 16)] int32, holding the node's bias
// or zeros, rows past `outputs` zero).
inline void pack_filter(const int8_t* oihw, int64_t groups, int64_t outputs, int64_t inputs, int64_t taps,
                        int32_t input_zero_point, int8_t* packed, int32_t* bias) {
  const int64_t blocks = round_up(outputs, kChannelBlock) / kChannelBlock;
  const int64_t steps = round_up(inputs, kStepDepth) / kStepDepth * taps;
  const int64_t padded_outputs = blocks * kChannelBlock;
  for (int64_t g = 0; g < groups; ++g) {
    int8_t* group_filter = packed + g * packed_filter_bytes(outputs, inputs, taps);
    for (int64_t o = 0; o < padded_outputs; ++o) {
      uint32_t sum = 0;  // int32 arithmetic wraps, here as in the kernels' vector adds
      for (int64_t s = 0; s < steps; ++s) {
        const int64_t quad = s / taps, tap = s % taps;
        for (int64_t j = 0; j < kStepDepth; ++j) {
          const int64_t c = quad * kStepDepth + j;
          const int8_t v = o < outputs && c < inputs ? oihw[((g * outputs + o) * inputs + c) * taps + tap] : 0;
          group_filter[((o / kChannelBlock * steps + s) * kChannelBlock + o % kChannelBlock) * kStepDepth + j] = v;
          sum += static_cast<uint32_t>(v);
        }
      }
      int32_t& b = bias[g * padded_outputs + o];
      b = static_cast<int32_t>(static_cast<uint32_t>(b) - static_cast<uint32_t>(input_zero_point + 128) * sum);
    }
  }
}

// ---- fully connected activations (per call) --------------------------------------------------------------

constexpr int64_t kFullyConnectedRowChunk = 64;  // rows flipped into scratch at a time

// Scratch of a fully connected call: step offsets, then a chunk of flipped rows of `inputs`.
inline int64_t fully_connected_scratch_bytes(int64_t inputs) {
  const int64_t steps = round_up(inputs, kStepDepth) / kStepDepth;
  return steps * 4 + kFullyConnectedRowChunk * steps * kStepDepth;
}

// ---- convolution activations (per call) ----------------------------------------------------------------

// A convolution's geometry on one NCHW image, and the phase-split planes its activations are packed in.
struct ConvShape {
  int64_t channels, h, w;  // input channels of one group, plane
  int64_t oh, ow;
  int64_t kh, kw, sh, sw, ph, pw, dh, dw;
  int64_t phase_h() const { return (h + 2 * ph + sh - 1) / sh; }
  int64_t phase_w() const { return (w + 2 * pw + sw - 1) / sw; }
  int64_t phase_plane() const { return phase_h() * phase_w(); }
  int64_t steps() const { return round_up(channels, kStepDepth) / kStepDepth * kh * kw; }
  // The packed activations, with room for a tile's reads past the last position.
  int64_t image_bytes() const {
    return (round_up(channels, kStepDepth) / kStepDepth * sh * sw * phase_plane() + phase_w() + kPositionTile) *
           kStepDepth;
  }
  // Positions of the output grid the kernels compute: output rows of phase_w() (the columns past ow
  // are discarded).
  int64_t grid_positions() const { return oh * phase_w(); }
};

// Scratch of one group's convolution: step offsets, packed activations and a row of padding.
inline int64_t conv_scratch_bytes(const ConvShape& s) { return s.steps() * 4 + s.image_bytes() + s.w + 64; }

// Columns [first, last) of one row of the packed activations: position j's 4 bytes from lanes[l]
// [j * sw + origin] ^ 0x80, l < 4.
using InterleaveRowKernel = void (*)(const int8_t* const* lanes, int64_t origin, int64_t sw, int64_t first,
                                     int64_t last, uint8_t* image);
void interleave_row_scalar(const int8_t* const* lanes, int64_t origin, int64_t sw, int64_t first, int64_t last,
                           uint8_t* image);

// Packs the `s.channels` planes at x (int8, NCHW) as the kernels read them, padding taps and channels
// past the last with `zero_point` (all as x ^ 0x80); pad_row is scratch of s.w bytes.
void pack_image(const int8_t* x, const ConvShape& s, int32_t zero_point, int8_t* pad_row, uint8_t* image);

// step_offsets[s] for the convolution's steps: (4 channels, ky, kx) -> byte offset in the image.
void conv_step_offsets(const ConvShape& s, int32_t* step_offsets);

}  // namespace sb::xnnpack_nodes::qs8
