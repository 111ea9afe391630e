// The core's optional parts, chosen when the runtime is configured (CMake
// options; see native/CMakeLists.txt). A selective runtime leaves out what
// none of its programs needs, and a program that does need it is refused at
// load in one line saying what the runtime lacks.
#pragma once

// SB_EXTERNAL_DATA: read data a program keeps outside its .pte (.ptd files:
// external constants by name, delegate weights by key). Off, Program and
// Method never look at data files, and none of the .ptd reader is linked.
#ifndef SB_EXTERNAL_DATA
#define SB_EXTERNAL_DATA 1
#endif

// SB_DYNAMIC_LISTS: int lists holding a value written while the method runs
// (a size a prim op computes), re-read before each call that takes one.
#ifndef SB_DYNAMIC_LISTS
#define SB_DYNAMIC_LISTS 1
#endif

// SB_DIM_ORDERS: tensors in another dim order than the contiguous one
// (channels-last images), checked against what each kernel takes.
#ifndef SB_DIM_ORDERS
#define SB_DIM_ORDERS 1
#endif

// SB_CONTROL_FLOW: the move and jump instructions ExecuTorch emits for
// control flow (torch.cond, loops).
#ifndef SB_CONTROL_FLOW
#define SB_CONTROL_FLOW 1
#endif

// SB_INLINE_CONSTANTS: constants stored inside the flatbuffer (Program.
// constant_buffer), the layout older exports wrote, rather than in the
// constant segment after it.
#ifndef SB_INLINE_CONSTANTS
#define SB_INLINE_CONSTANTS 1
#endif

// SB_MUTABLE_DATA: mutable state whose initial value the program stores
// (ExecuTorch's mutable_data_segments), copied into planned memory at load.
#ifndef SB_MUTABLE_DATA
#define SB_MUTABLE_DATA 1
#endif

namespace sb {

// The one line a runtime built without a part gives for a program that needs it.
constexpr const char kNoExternalData[] = "this runtime was built without external data (.ptd) support";
constexpr const char kNoDynamicLists[] = "this runtime was built without dynamic list support";
constexpr const char kNoDimOrders[] = "this runtime was built without dim order (channels-last) support";
constexpr const char kNoControlFlow[] = "this runtime was built without control flow support";
constexpr const char kNoInlineConstants[] = "this runtime was built without inline constant support";
constexpr const char kNoMutableData[] = "this runtime was built without mutable data support";

}  // namespace sb
