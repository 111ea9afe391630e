"""The bounded yaml loader: hostile documents are refused quickly with one line,
legitimate ones load exactly as `yaml.safe_load` loads them."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.safety import safe_yaml
from bot.safety.limits import DEFAULT_LIMITS, MIB
from bot.selection import oplist
from tests.conftest import REPO_ROOT

ZOO_OPLISTS = sorted((REPO_ROOT / "models" / "oplist").glob("*.yaml"))


def billion_laughs(levels: int) -> str:
    """The classic alias bomb: each level is a list of nine aliases of the one before."""
    lines = ['l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, levels + 1)]
    return "\n".join(lines) + "\n"


def refusal(text: str | bytes, source: str = "x.yaml") -> str:
    with pytest.raises(safe_yaml.YamlError) as caught:
        safe_yaml.loads(text, source)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(f"{source}: "), message
    return message


def test_the_alias_bomb_is_refused_at_once_with_bounded_memory(tmp_path: Path) -> None:
    # In a child process, so its peak RSS is its own (RUSAGE_CHILDREN of a fresh parent).
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(billion_laughs(9))
    child = (
        "import json, sys, time\n"
        "from bot.safety import safe_yaml\n"
        "start = time.perf_counter()\n"
        "try:\n"
        f"    safe_yaml.load_file(__import__('pathlib').Path({str(bomb)!r}))\n"
        "    outcome = 'loaded'\n"
        "except safe_yaml.YamlError as exc:\n"
        "    outcome = str(exc)\n"
        "print(json.dumps({'seconds': time.perf_counter() - start, 'outcome': outcome}))\n"
    )
    parent = (
        "import resource, subprocess, sys\n"
        f"out = subprocess.run([sys.executable, '-c', {child!r}], capture_output=True, text=True, timeout=60)\n"
        "print(out.stdout.strip())\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    proc = subprocess.run([sys.executable, "-c", parent], capture_output=True, text=True, env=env, timeout=120)
    result_line, rss_kib = proc.stdout.strip().splitlines()
    result = json.loads(result_line)
    assert "aliases expand to more than" in result["outcome"], result
    assert result["seconds"] < 0.5, result
    # An interpreter with yaml and the bot imported is ~30 MB; the bomb expanded would be gigabytes.
    assert int(rss_kib) < 150 * 1024, rss_kib


@pytest.mark.parametrize(
    "text",
    [
        "[" * 5000 + "]" * 5000,
        "{a: " * 5000 + "1" + "}" * 5000,
        # Block nesting costs indentation: 2,000 levels is 4 MB, under the size cap.
        "".join("  " * i + f"k{i}:\n" for i in range(2000)),
        "".join("  " * i + "-\n" for i in range(2000)),
    ],
    ids=["flow-lists", "flow-maps", "block-maps", "block-lists"],
)
def test_deep_nesting_is_refused_without_recursing(text: str) -> None:
    start = time.perf_counter()
    assert f"nested deeper than {safe_yaml.MAX_DEPTH} levels" in refusal(text)
    assert time.perf_counter() - start < 1.0


def test_nesting_through_aliases_is_bounded_too() -> None:
    # Each anchor nests the one before; no single node is deep, the expanded document is.
    chain = ["a0: &a0 [x]"] + [f"a{i}: &a{i} [*a{i - 1}]" for i in range(1, 400)]
    assert "aliases nest deeper than" in refusal("\n".join(chain))


def test_merge_key_chains_cannot_recurse_or_multiply() -> None:
    doubling = ["m0: &m0 {k: v}"] + [f"m{i}: &m{i} {{<<: [*m{i - 1}, *m{i - 1}], k{i}: v}}" for i in range(1, 40)]
    assert "aliases expand to more than" in refusal("\n".join(doubling))
    chain = ["c0: &c0 {k: v}"] + [f"c{i}: &c{i} {{<<: *c{i - 1}, k{i}: v}}" for i in range(1, 600)]
    assert "aliases" in refusal("\n".join(chain))


def test_self_referencing_alias_is_refused() -> None:
    assert "contains itself through an alias" in refusal("a: &a [1, *a]")


def test_a_yaml_over_the_size_cap_is_refused_before_parsing(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    with big.open("wb") as handle:  # 200 MB that the loader must not read: sparse beyond the first line
        handle.write(b"operators:\n")
        handle.truncate(200 * MIB)
    start = time.perf_counter()
    with pytest.raises(ValueError, match="200 MB, over the limit of 8 MB for yaml"):
        safe_yaml.load_file(big)
    assert time.perf_counter() - start < 0.5


@pytest.mark.parametrize(
    ("text", "key", "line"),
    [
        ("a: 1\nb: 2\na: 3\n", "'a'", 3),
        ("outer:\n  x: 1\n  y: 2\n  x: 1\n", "'x'", 4),
        ("1: one\n0x1: also one\n", "1", 2),  # equal as the dict compares them
        ("{a: 1, a: 1}", "'a'", 1),
    ],
)
def test_duplicate_keys_are_refused_with_their_line(text: str, key: str, line: int) -> None:
    assert refusal(text, "dup.yaml") == f"dup.yaml: duplicate key {key} at line {line}"


def test_a_merged_key_may_be_overridden() -> None:
    text = "base: &b {x: 1, y: 2}\nderived: {<<: *b, x: 3}\n"
    assert safe_yaml.loads(text, "m.yaml") == yaml.safe_load(text)


def test_arbitrary_objects_are_not_constructed() -> None:
    assert "not valid YAML at line 1" in refusal("!!python/object/apply:os.system ['true']")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("x: " + "1" * 5000, "value at line 1 cannot be represented"),  # past Python's int digit limit
        ("x: 2001-13-45", "value at line 1 cannot be represented"),
        ("a: \x07", "not valid YAML (unreadable character at offset 3)"),
        ("a: [1,\n", "not valid YAML at line 2, column 1"),
    ],
)
def test_unrepresentable_or_invalid_values(text: str, message: str) -> None:
    assert message in refusal(text)


def test_a_legitimate_yaml_at_the_size_cap_loads() -> None:
    """The node budget follows the byte cap: a selected_operators.yaml grown from the
    zoo's own selections to just under the cap still loads, as safe_load would load it."""
    zoo = oplist.merge(oplist.load(p) for p in ZOO_OPLISTS)
    one_copy = len(oplist.dumps(zoo).encode())
    copies = int(DEFAULT_LIMITS.yaml_bytes * 0.95) // one_copy
    grown = oplist.merge(
        oplist.SelectedOps(
            operators={f"zoo{i}{op.removeprefix('aten')}": info for op, info in zoo.operators.items()},
            et_kernel_metadata={f"zoo{i}{op.removeprefix('aten')}": k for op, k in zoo.et_kernel_metadata.items()},
        )
        for i in range(copies)
    )
    text = yaml.dump(oplist.to_dict(grown), Dumper=yaml.CSafeDumper, default_flow_style=False, sort_keys=True)
    assert DEFAULT_LIMITS.yaml_bytes * 0.8 < len(text.encode()) <= DEFAULT_LIMITS.yaml_bytes
    start = time.perf_counter()
    loaded = safe_yaml.loads(text, "grown.yaml")
    elapsed = time.perf_counter() - start
    assert oplist.from_dict(loaded, "grown.yaml") == grown
    assert elapsed < 60, f"{elapsed:.1f} s"


# Text made of YAML's own syntax, so the examples reach anchors, aliases, tags,
# flow and block collections, merges and duplicate keys rather than plain scalars.
YAML_ALPHABET = "ab01 \n-:,[]{}&*!<>|'\"#?%.=~+@`\\\t"
yamlish = st.text(alphabet=YAML_ALPHABET, max_size=200)
yaml_fragments = st.lists(
    st.sampled_from(
        ["a", "b: ", "- ", "&x ", "*x", "<<: ", "[", "]", "{", "}", ", ", "\n", "  ", "!!str ", "!!int ", "1", "~"]
    ),
    max_size=60,
).map("".join)


def _same(ours: object, theirs: object) -> bool:
    if isinstance(ours, float) and isinstance(theirs, float) and math.isnan(ours) and math.isnan(theirs):
        return True
    return type(ours) is type(theirs) and (ours == theirs or repr(ours) == repr(theirs))


@settings(max_examples=600, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=200), yamlish, yaml_fragments))
def test_any_text_loads_as_safe_load_does_or_is_refused_in_one_line(text: str) -> None:
    try:
        ours = safe_yaml.loads(text, "fuzz.yaml")
    except safe_yaml.YamlError as exc:
        assert "\n" not in str(exc) and str(exc).startswith("fuzz.yaml: ")
        return
    theirs = yaml.safe_load(text)
    assert _same(ours, theirs), (ours, theirs)


@settings(max_examples=200, deadline=2000)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
        lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5),
        max_leaves=40,
    )
)
def test_documents_safe_dump_writes_load_back(data: object) -> None:
    text = yaml.safe_dump(data)
    assert safe_yaml.loads(text, "dumped.yaml") == yaml.safe_load(text)
