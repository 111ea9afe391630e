// Which XNNPACK node kinds this runtime selects, known when it compiles.
//
// The backend's planner and shape rules serve every node kind; a part whose kinds are all unselected is
// dead code in a selective runtime (a node reaches it only once its kind resolved in the registry). These
// predicates let that code say so, so the compiler drops it. In a runtime built without a selection
// (sb/selected_ops.h) everything is kept.
#pragma once

#include "graph.h"
#include "sb/selected_ops.h"

namespace sb::xnnpack {

// Whether a kind of node type `type` is selected whose dtype suffix matches `dtypes` (a glob). A node's
// kind is "<type>.<its input's dtype>..." (node_kind()), so selects(type, "qs8*") holds in every runtime
// that can meet an int8 node of that type.
constexpr bool selects(NodeType type, const char* dtypes = "*") {
  return selection::any_selected("xnnpack", node_type_name(type), dtypes);
}

template <typename... Types>
constexpr bool selects_any(const char* dtypes, Types... types) {
  return (selects(types, dtypes) || ...);
}

}  // namespace sb::xnnpack
