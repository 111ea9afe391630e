// A test backend registered as "XnnpackBackend": a payload inspector that
// does real work on the real XNNPACK payload, so tests can see what reaches
// init() and execute() (tests/test_native_delegates.py).
//
// init() reads the payload as ExecuTorch 1.5.1 serializes it
// (backends/xnnpack/serialization/xnnpack_graph_serialize.py): a 30-byte
// header, zeros then magic "XH00" at byte 4, its length (u16), the
// flatbuffer's offset and size (u32, u32) and the constant data's offset and
// size (u32, u64), little-endian; the flatbuffer (identifier "XN01",
// schema.fbs XNNGraph) and its constants, each either at an offset of the
// constant data or under a key of the program's named data, which it looks up.
// It prints one line on stdout:
//
//   init delegate=0 backend=XnnpackBackend method=forward payload=N header=30 flatbuffer=OFF+SIZE
//        constants=OFF+SIZE identifier=XN01 nodes=N values=N inputs=I,J outputs=K specs=key:N,...
//        named=KEY:N,...  (every named constant the graph uses, with its bytes)
//
// execute() checks the call passes the graph's inputs then outputs, all
// tensors, fills float output k with 0.25 * (k + 1), and records the call
// (no heap, no output: print_calls() prints them after the run):
//
//   execute delegate=0 instruction=0 args=float32[2,8],float32[2,4]
#pragma once

#include "sb/backend.h"

namespace sb_test {

extern const sb::Backend payload_inspector;

// One "execute ..." line per recorded call.
void print_calls();

}  // namespace sb_test
