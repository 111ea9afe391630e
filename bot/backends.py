"""The runtime's bundled backends (native/backends/<namespace>/): what every layer of the bot needs to know
of them, in one place. A selection holding one of a bundled backend's node kinds (`<namespace>::<kind>.<dtype>`,
kernels/<namespace>/functions.yaml) registers it (bot/selection/codegen.py), so a yaml regenerated for a program
that delegates to it brings it in; the size report counts its own code as one bucket (bot/pipeline.py)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BundledBackend:
    """A backend of the runtime: the namespace of its node kinds' ops, the symbol of its `const sb::Backend`,
    and the id programs name it by."""

    namespace: str
    symbol: str
    backend_id: str


BUNDLED_BACKENDS = (BundledBackend("xnnpack", "sb::xnnpack::backend", "XnnpackBackend"),)


def is_bundled(backend_id: str) -> bool:
    return any(b.backend_id == backend_id for b in BUNDLED_BACKENDS)
