"""The bounds every hostile input meets: how long and how much memory PR code may
use, and how many bytes of each kind of file the bot reads.

A PR controls the models, yamls and kernel sources it carries, so none of
them may be able to hang the job or exhaust the machine. The defaults fit real
mobile models with room to spare; `.selective-build.yml` can raise or lower
them (`limits:`), within the schema's ceilings.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

MIB = 1 << 20


@dataclass(frozen=True)
class Limits:
    run_seconds: float = 300.0  # each runtime or tracer process (one model)
    run_memory_bytes: int = 4096 * MIB  # address space of each runtime or tracer process
    build_seconds: float = 1800.0  # each CMake configure or build step
    yaml_bytes: int = 8 * MIB  # any yaml the bot reads
    model_bytes: int = 1024 * MIB  # a .pte file
    npy_bytes: int = 1024 * MIB  # a .npy input
    log_bytes: int = 1 * MIB  # what is kept of a subprocess's output
    processes: int = 256  # processes and threads PR code may have at once (a build's compilers included)
    file_bytes: int = 2048 * MIB  # largest file PR code may write (an object, a binary, a log)
    listing_entries: int = 200_000  # entries one directory listing (a glob, a tree walk) may see
    listing_seconds: float = 10.0  # time one directory listing may take

    @staticmethod
    def from_config(section: dict[str, Any] | None) -> Limits:
        """`limits:` of the config (already schema-checked), megabytes and seconds as written there."""
        if not section:
            return DEFAULT_LIMITS
        values: dict[str, Any] = {}
        for spec in fields(Limits):
            unit_key = spec.name.removesuffix("_bytes") + "_mb" if spec.name.endswith("_bytes") else spec.name
            if unit_key in section:
                value = section[unit_key]
                if spec.name.endswith("_bytes"):
                    values[spec.name] = int(value * MIB)
                else:
                    values[spec.name] = int(value) if spec.type in (int, "int") else float(value)
        return Limits(**values)


DEFAULT_LIMITS = Limits()
