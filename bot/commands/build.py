"""`python -m bot build`: a selective runtime with a kernel choice, and its size."""

from __future__ import annotations

import argparse
import dataclasses
import json
import tempfile
from pathlib import Path

from bot.build.kernel_choice import KernelChoice
from bot.commands import inputs, output
from bot.errors import BotError, ExitCode
from bot.safety.limits import DEFAULT_LIMITS


def run(args: argparse.Namespace) -> int:
    from bot import config as config_mod
    from bot.build import arch as arches
    from bot.build import cmake, size

    ops_yaml, dtype_selective, limits = args.ops_yaml, not args.no_dtype_selection, DEFAULT_LIMITS
    arch = arches.get(args.arch)
    # The kernel choice: the target's (with --target), then what the options say.
    kernels = KernelChoice()
    if args.target:
        cfg = config_mod.load(args.root.resolve())
        limits = cfg.limits
        target = cfg.target(args.target)
        ops_yaml, dtype_selective, kernels = (
            cfg.root / target.yaml,
            dtype_selective and target.dtype_selective,
            target.kernels,
        )
        if not ops_yaml.is_file():
            raise BotError(
                f"{target.yaml}: target {target.name} has no yaml yet: run python -m bot regenerate", ExitCode.CONFIG
            )
    if args.kernels:
        kernels = KernelChoice(True, (), kernels.cpus) if args.kernels == "optimized" else KernelChoice()
    if args.cpu is not None:
        if not config_mod.MARCH.fullmatch(args.cpu):
            raise BotError(
                f"--cpu: {args.cpu!r} is not a -march value (e.g. x86-64-v3; letters, digits, . + _ -)", ExitCode.USAGE
            )
        if not kernels.optimized:
            raise BotError(
                "--cpu: a cpu is the -march of the optimized kernels; add --kernels optimized", ExitCode.USAGE
            )
        kernels = dataclasses.replace(kernels, cpus=((arch.name, args.cpu),))
    cpu = kernels.cpu_for(arch)
    inputs.check_selection(ops_yaml, limits)
    flavour = cmake.selective_flavour(ops_yaml, dtype_selective, arch=arch.name, kernels=kernels)
    with output.make_progress() as progress:
        with progress.step(f"build {flavour.name} ({kernels.label} kernels) for {arch.name}"):
            build_dir = cmake.build(flavour, targets=cmake.runtime_targets(arch), build_dir=args.build_dir)
        with progress.step(f"size analysis ({arch.name})"), tempfile.TemporaryDirectory() as tmp:
            probe = build_dir / cmake.SIZE_PROBE
            sizes = size.analyse(probe, None, {}, Path(tmp), arch=arch, limits=limits)
    output.print_timings(progress)
    if args.json:
        figures = {"vm_bytes": sizes.vm_size, "bss_bytes": sizes.bss, "file_bytes": sizes.file_size}
        print(json.dumps({"build_dir": str(build_dir), "kernels": kernels.label, "cpu": cpu, **figures}))
    else:
        choice = f"{kernels.label} kernels" + (f", -march={cpu}" if cpu else "")
        print(
            f"selective runtime ({choice}): {sizes.vm_size:,} VM bytes (loadable sections, stripped), "
            f"+ {sizes.bss:,} bss; stripped file {sizes.file_size:,} bytes ({build_dir})"
        )
    return ExitCode.OK
