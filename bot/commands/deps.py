"""`python -m bot deps`: the op -> op call graph of the kernel library, as compiled."""

from __future__ import annotations

import argparse
import json
import sys

from bot.commands import output
from bot.errors import BotError, ExitCode


def run(args: argparse.Namespace) -> int:
    from bot import config as config_mod
    from bot.build import cmake
    from bot.selection import depgraph
    from bot.selection.kernel_library import KernelLibraryError, load_libraries

    root = args.root.resolve()
    cfg = config_mod.load(root)
    try:
        library = load_libraries(config_mod.selection_libraries(cfg), cfg.limits.yaml_bytes)
        options = cmake.kernel_library_options(root, cfg.libraries())
    except KernelLibraryError as exc:
        raise BotError(str(exc), ExitCode.CONFIG) from None
    with output.console().status("compiling the kernel library"):
        graph = depgraph.graph_for_checkout(root / cfg.runtime_source, library, cfg.limits, options, repo_root=root)
    if args.op:
        if args.op not in library:
            raise BotError(f"{args.op} is not in the kernel library", ExitCode.BAD_INPUT)
        closure = sorted(graph.closure([args.op]) - {args.op})
        if args.json:
            print(json.dumps({"op": args.op, "closure": closure}))
        else:
            print(output.safe(f"{args.op} reaches {len(closure)} op(s): " + (", ".join(closure) or "none")))
        return ExitCode.OK
    if args.json:
        edges = [{"caller": e.caller, "callee": e.callee, "via": e.via, "source": e.source} for e in graph.edges]
        print(json.dumps({"edges": edges, "kernel_sources": graph.kernel_sources}, indent=1))
        return ExitCode.OK
    for op in sorted(graph.kernel_sources):
        callees = sorted(graph.callees(op))
        if callees:
            print(output.safe(f"{op} ({graph.kernel_sources[op]}) -> {', '.join(callees)}"))
    leaf = len(graph.kernel_sources) - len({e.caller for e in graph.edges})
    print(f"{len(graph.edges)} edge(s); {leaf} kernel(s) call no other op", file=sys.stderr)
    return ExitCode.OK
