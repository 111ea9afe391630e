#include "trace_recorder.h"

#include "atomic_file.h"

namespace sb::runner {
namespace {

void append_tensor(std::string* key, const Tensor* t) {
  if (!key->empty() && key->back() != '/') *key += '|';
  if (t == nullptr) return;
  *key += std::to_string(static_cast<int>(t->dtype)) + ';';
  // The tensor's own dim order, as gen_oplist writes it (0,2,3,1 for a channels-last tensor).
  for (int32_t d = 0; d < t->dim; ++d) *key += (d ? "," : "") + std::to_string(t->dim_order[d]);
}

}  // namespace

void TraceRecorder::on_invoke(const KernelDef& def, const KernelDef* caller, Args args) {
  // Same shape as ExecuTorch's kernel keys: one entry per tensor argument; a
  // tensor list is described by its first element.
  std::string key = "v1/";
  for (const Value* v : args) {
    if (v == nullptr) continue;
    if (v->tag == Tag::kTensor) {
      append_tensor(&key, v->as_tensor);
    } else if ((v->tag == Tag::kTensorList || v->tag == Tag::kOptionalTensorList) && v->as_tensor_list.size() > 0) {
      append_tensor(&key, v->as_tensor_list[0]);
    }
  }
  if (key == "v1/") key = "v1";  // no tensor arguments (a prim op on sym ints), as gen_oplist writes it
  records_.insert(std::string(def.op) + '\t' + (caller ? caller->op : "-") + '\t' + key);
}

Error TraceRecorder::write(const std::string& path) const {
  std::string text;
  for (const std::string& line : records_) text += line + '\n';
  return write_file_atomic(path, {text});
}

}  // namespace sb::runner
