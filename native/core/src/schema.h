// Field numbers and enum values of the .pte flatbuffer schema (program.fbs,
// as shipped in the executorch wheel). A union occupies two field slots:
// its type byte, then its value.
#pragma once

#include <cstdint>

namespace sb::schema {

namespace program {
constexpr int kVersion = 0, kExecutionPlan = 1, kConstantBuffer = 2, kBackendDelegateData = 3, kSegments = 4,
              kConstantSegment = 5, kMutableDataSegments = 6, kNamedData = 7;
}
namespace plan {
constexpr int kName = 0, kValues = 2, kInputs = 3, kOutputs = 4, kChains = 5, kOperators = 6, kDelegates = 7,
              kNonConstBufferSizes = 8;
}
namespace evalue {
constexpr int kValType = 0, kVal = 1;
}
// KernelTypes union members.
enum ValueType : uint8_t {
  kNone = 0,
  kNull = 1,
  kInt = 2,
  kBool = 3,
  kDouble = 4,
  kTensor = 5,
  kString = 6,
  kIntList = 7,
  kDoubleList = 8,
  kBoolList = 9,
  kTensorList = 10,
  kOptionalTensorList = 11,
};
namespace tensor {
constexpr int kScalarType = 0, kStorageOffset = 1, kSizes = 2, kDimOrder = 3, kDataBufferIdx = 5,
              kAllocationInfo = 6, kShapeDynamism = 8, kExtraTensorInfo = 9;
}
namespace allocation {
constexpr int kMemoryId = 0, kOffsetLow = 1, kOffsetHigh = 2;
}
namespace extra_tensor_info {
constexpr int kMutableDataSegmentsIdx = 0, kFullyQualifiedName = 1, kLocation = 2;
constexpr int8_t kExternal = 1;
}
namespace operator_ {
constexpr int kName = 0, kOverload = 1;
}
namespace chain {
constexpr int kInputs = 0, kOutputs = 1, kInstructions = 2;
}
namespace instruction {
constexpr int kArgsType = 0, kArgs = 1;
}
// InstructionArguments union members.
enum InstructionType : uint8_t {
  kKernelCall = 1,
  kDelegateCall = 2,
  kMoveCall = 3,
  kJumpFalseCall = 4,
  kFreeCall = 5,
};
namespace kernel_call {
constexpr int kOpIndex = 0, kArgs = 1;
}
namespace delegate_call {
constexpr int kDelegateIndex = 0, kArgs = 1;
}
namespace delegate {
constexpr int kId = 0, kProcessed = 1, kCompileSpecs = 2;
}
// BackendDelegateDataReference: where a delegate's payload is.
namespace data_reference {
constexpr int kLocation = 0, kIndex = 1;
constexpr int8_t kInline = 0;   // Program.backend_delegate_data[index]
constexpr int8_t kSegment = 1;  // Program.segments[index]
}
namespace compile_spec {
constexpr int kKey = 0, kValue = 1;
}
namespace inline_data {  // BackendDelegateInlineData
constexpr int kData = 0;
}
namespace named_data {
constexpr int kKey = 0, kSegmentIndex = 1;
}
namespace move_call {
constexpr int kFrom = 0, kTo = 1;
}
namespace jump_false_call {
constexpr int kCondition = 0, kDestination = 1;
}
namespace buffer {
constexpr int kStorage = 0;
}
namespace segment {
constexpr int kOffset = 0, kSize = 1;
}
namespace subsegment {
constexpr int kSegmentIndex = 0, kOffsets = 1;
}


// flat_tensor.fbs (the .ptd format, as shipped in the executorch wheel).
namespace flat_tensor {
constexpr int kVersion = 0, kSegments = 1, kNamedData = 2;
namespace segment {
constexpr int kOffset = 0, kSize = 1;
}
namespace named_data {
constexpr int kKey = 0, kSegmentIndex = 1, kTensorLayout = 2;
}
namespace tensor_layout {
constexpr int kScalarType = 0, kSizes = 1, kDimOrder = 2;
}
}  // namespace flat_tensor

}  // namespace sb::schema
