"""What a runtime must hold: reading .pte programs, op lists and their yaml, tracing, regeneration,
stale detection, the op-to-op call graph, kernel libraries and the code generated from a selection."""
