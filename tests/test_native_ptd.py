"""Program-data separation: programs whose weights ExecuTorch's exporter wrote to .ptd files
(tests/ptd_programs.py) run on our runtime with those files and match ExecuTorch's runtime; the .ptd
reader (native/core: sb/data_file.h) turns every flaw of a hostile file into one error line, under ASan
and UBSan too, finds every key of a file of thousands, and survives a short session of its fuzz target
(ptd_fuzzer) seeded with ExecuTorch's files; execute stays off the heap; the static op list still equals
gen_oplist."""

from __future__ import annotations

import random
import shutil
import struct
import subprocess
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from bot.build import cmake, runner
from bot.errors import BotError
from bot.selection.pte import FlatReader
from tests import ptd_programs as pp
from tests.test_oplist import assert_static_oplist_is_gen_oplist
from tests.test_runtime_sanitized import FUZZ, SANITIZED, SANITIZER_REPORT, fuzzer_report, run_fuzzer


@pytest.fixture(scope="module")
def programs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, pp.Separated]:
    return pp.export(tmp_path_factory.mktemp("ptd"))


@pytest.mark.parametrize("name", ["portable", "xnnpack"])
def test_outputs_equal_executorch(name: str, programs: dict[str, pp.Separated], runner: Path, tmp_path: Path) -> None:
    program = programs[name]
    result = runner_run(runner, program, tmp_path)
    assert len(result.outputs) == len(program.expected)
    for ours, theirs in zip(result.outputs, program.expected, strict=True):
        np.testing.assert_allclose(ours, theirs, atol=1e-4, rtol=1e-4)


def runner_run(
    binary: Path, program: pp.Separated, out: Path, data: tuple[Path, ...] | None = None
) -> runner.RunResult:
    files = program.data if data is None else data
    return runner.run_model(binary, program.program, list(program.inputs), out, data=files)


def test_delegate_weights_and_constants_from_two_files_or_one(
    programs: dict[str, pp.Separated], runner: Path, tmp_path: Path
) -> None:
    program = programs["xnnpack"]
    assert len(program.data) == 2  # the delegate's weights in a file of their own
    merged = pp.merge(program.data, tmp_path / "merged.ptd")
    result = runner_run(runner, program, tmp_path / "out", (merged,))
    np.testing.assert_allclose(result.outputs[0], program.expected[0], atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("name", ["portable", "xnnpack"])
def test_a_missing_file_names_the_key(
    name: str, programs: dict[str, pp.Separated], runner: Path, tmp_path: Path
) -> None:
    program = programs[name]
    with pytest.raises(BotError) as raised:
        runner_run(runner, program, tmp_path, program.data[1:])
    assert "\n" not in raised.value.message
    assert "data '" in raised.value.message or "no data file holds '" in raised.value.message, raised.value.message


def test_a_key_in_two_files_is_refused(programs: dict[str, pp.Separated], runner: Path, tmp_path: Path) -> None:
    program = programs["portable"]
    with pytest.raises(BotError, match=r"data 'l1\.weight' is in both"):
        runner_run(runner, program, tmp_path, program.data * 2)


def test_a_key_in_the_program_and_a_data_file_is_refused(runner: Path, tmp_path: Path) -> None:
    """A delegated zoo program keeps its XNNPACK weights in its own named data; a .ptd holding one of those
    keys too makes the key ambiguous, and the load refuses it (ExecuTorch's merged data map does)."""
    from executorch.exir._serialize._program import deserialize_pte_binary
    from executorch.exir._serialize.data_serializer import DataEntry, DataPayload
    from executorch.extension.flat_tensor.serialize.serialize import FlatTensorSerializer

    from bot.build.runner import run_model

    model = cmake.REPO_ROOT / "models" / "delegated" / "mobilenet_v2_xnn_f32.pte"
    key = next(iter(deserialize_pte_binary(model.read_bytes()).named_data.pte_data))
    data = tmp_path / "shadow.ptd"
    payload = DataPayload(buffers=[bytes(64)], named_data={key: DataEntry(0, 64, None)})
    data.write_bytes(bytes(FlatTensorSerializer().serialize(payload)))
    inputs = sorted(model.parent.glob(f"{model.stem}.input*.npy"))
    with pytest.raises(BotError) as raised:
        run_model(runner, model, inputs, tmp_path / "out", data=(data,))
    assert "\n" not in raised.value.message
    assert f"named data '{key[:40]}" in raised.value.message and "is in both the program and" in raised.value.message


# Hostile .ptd files: each flaw, made by patching a real file, and the one line it gives.
def _entries(data: bytes) -> list[tuple[str, int]]:
    r = FlatReader(data)
    found = []
    for entry in r.tables(r.root(), 2):
        key_field = r.field_pos(entry, 0)
        assert key_field is not None
        start = key_field + r.u32(key_field)
        found.append((r.string(entry, 0), start + 4))
    return found


def truncated(data: bytes) -> bytes:
    return data[: len(data) - 40]


def segment_offset_past_end(data: bytes) -> bytes:
    r = FlatReader(data)
    # The first segment's offset is 0, which a flatbuffer leaves out: the last one's is stored.
    segment = r.tables(r.root(), 1)[-1]
    pos = r.field_pos(segment, 0)
    assert pos is not None
    return data[:pos] + struct.pack("<Q", 1 << 40) + data[pos + 8 :]


def key_renamed(data: bytes) -> bytes:
    key, pos = next((k, p) for k, p in _entries(data) if k == "l1.weight")
    return data[:pos] + b"l1.wXight" + data[pos + len(key) :]


def layout_transposed(data: bytes) -> bytes:
    """l1.weight's sizes [8, 4] stored as [4, 8]: as many bytes, another tensor."""
    r = FlatReader(data)
    entry = next(e for e in r.tables(r.root(), 2) if r.string(e, 0) == "l1.weight")
    layout = r.table(entry, 2)
    start, length = r.vector(layout, 1, 4)
    assert length == 2 and struct.unpack_from("<2i", data, start) == (8, 4)
    return data[:start] + struct.pack("<2i", 4, 8) + data[start + 8 :]


def layout_too_big(data: bytes) -> bytes:
    r = FlatReader(data)
    entry = next(e for e in r.tables(r.root(), 2) if r.string(e, 0) == "l1.weight")
    start, _ = r.vector(r.table(entry, 2), 1, 4)
    return data[:start] + struct.pack("<i", 800) + data[start + 4 :]


def segment_index_out_of_range(data: bytes) -> bytes:
    r = FlatReader(data)
    entry = r.tables(r.root(), 2)[-1]  # segment index 0 is left out of its table; the last entry's is stored
    pos = r.field_pos(entry, 1)
    assert pos is not None
    return data[:pos] + struct.pack("<I", 999) + data[pos + 4 :]


def not_a_ptd(data: bytes) -> bytes:
    return b"\0" * 4 + b"ET12" + data[8:]


def rename_key(data: bytes, key: str, to: str) -> bytes:
    """Entry `key` renamed `to` (as long): ExecuTorch's serializer writes one entry per key, so two entries of
    one key are made by hand."""
    assert len(to.encode()) == len(key.encode())
    pos = next(p for k, p in _entries(data) if k == key)
    return data[:pos] + to.encode() + data[pos + len(key.encode()) :]


def duplicate_key(data: bytes) -> bytes:
    return rename_key(data, "l2.bias", "l1.bias")


HOSTILE: dict[str, tuple[Callable[[bytes], bytes], str]] = {
    "truncated": (truncated, "data ends at byte"),
    "segment_offset": (segment_offset_past_end, "lies past the end of its"),
    "missing_key": (key_renamed, "no data file holds 'l1.weight'"),
    "size_mismatch": (layout_transposed, "data 'l1.weight' is float32 [4, 8], the program expects float32 [8, 4]"),
    "layout_larger_than_segment": (layout_too_big, "'l1.weight' is a float32 tensor of 12800 bytes in a 128-byte"),
    "segment_index": (segment_index_out_of_range, "names segment 999"),
    "not_a_ptd": (not_a_ptd, "not an ExecuTorch data file"),
    "duplicate_key": (duplicate_key, "duplicate_key.ptd: two entries have the key 'l1.bias'"),
}


def _hostile_file(programs: dict[str, pp.Separated], flaw: str, tmp_path: Path) -> Path:
    source = programs["portable"].data[0]
    path = tmp_path / f"{flaw}.ptd"
    path.write_bytes(HOSTILE[flaw][0](source.read_bytes()))
    return path


def _one_error_line(proc: subprocess.CompletedProcess[str], expected: str) -> None:
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: ") and expected in lines[0], lines[0]
    assert not any(report in proc.stderr for report in SANITIZER_REPORT), proc.stderr


@pytest.mark.parametrize("flaw", sorted(HOSTILE))
def test_hostile_data_file_gives_one_error_line(
    flaw: str, programs: dict[str, pp.Separated], runner: Path, tmp_path: Path
) -> None:
    data = _hostile_file(programs, flaw, tmp_path)
    program = programs["portable"]
    proc = subprocess.run(
        [str(runner), "--model", str(program.program), "--data", str(data)], capture_output=True, text=True, timeout=60
    )
    _one_error_line(proc, HOSTILE[flaw][1])


@pytest.fixture(scope="module")
def sanitized() -> Path:
    return cmake.runner_path(cmake.build(SANITIZED))


@pytest.mark.parametrize("flaw", sorted(HOSTILE))
def test_hostile_data_file_under_sanitizers(
    flaw: str, programs: dict[str, pp.Separated], sanitized: Path, tmp_path: Path
) -> None:
    data = _hostile_file(programs, flaw, tmp_path)
    proc = subprocess.run(
        [str(sanitized), "--model", str(programs["portable"].program), "--data", str(data)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    _one_error_line(proc, HOSTILE[flaw][1])


@pytest.mark.parametrize("name", ["portable", "xnnpack"])
def test_separated_programs_under_sanitizers(
    name: str, programs: dict[str, pp.Separated], sanitized: Path, tmp_path: Path
) -> None:
    program = programs[name]
    proc = subprocess.run(
        [
            str(sanitized),
            "--model",
            str(program.program),
            *[arg for p in program.data for arg in ("--data", str(p))],
            "--input",
            str(program.inputs[0]),
            "--output-dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert not any(report in proc.stderr for report in SANITIZER_REPORT), proc.stderr
    np.testing.assert_allclose(np.load(tmp_path / "output0.npy"), program.expected[0], atol=1e-4, rtol=1e-4)


# A file of many keys: the reader sorts them at load and finds each by binary search (sb/data_file.h).
MANY_KEYS = 5000
PTD_FUZZER = "ptd_fuzzer"
# A small file loads and is looked up some 20,000 times a second under ASan: about 5 s in CI (sessions of
# millions of inputs, run by hand, found nothing)
PTD_FUZZ_RUNS = 100_000


def many_keys(real: list[pp.Entry], count: int) -> list[pp.Entry]:
    """`real` among decoys, in a shuffled order: `count` keys that begin one another (k1, k10, k100), keys
    around each real one (one byte shorter, one longer, the last byte one more, a non-ASCII first byte),
    the empty key and bytes past ASCII; each decoy's bytes its own."""
    names = [f"k{i}" for i in range(count)] + ["", "\x7f", "\u00ff"]
    for key, _, _ in real:
        names += [key[:-1], key + ".", key[:-1] + chr(ord(key[-1]) + 1), "\u00e9" + key]
    taken = {key for key, _, _ in real}
    decoys = [name for name in dict.fromkeys(names) if name not in taken]
    data = real + [(name, struct.pack("<I", i) * (1 + i % 7), None) for i, name in enumerate(decoys)]
    random.Random(5).shuffle(data)
    return data


def shown(key: str) -> str:
    """A key as error messages and ptd_fuzzer's report show it (sb::format_key)."""
    raw = key.encode()
    text = "".join(chr(b) if 32 <= b < 127 else "?" for b in raw[:64])
    return text + ("..." if len(raw) > 64 else "")


def fnv1a(data: bytes) -> int:
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & (2**64 - 1)
    return h


@pytest.fixture(scope="module")
def ptd_fuzzer() -> Path:
    assert shutil.which("clang++"), "clang++ is needed for the fuzz targets: run scripts/setup.sh"
    return cmake.build(FUZZ, targets=(PTD_FUZZER,)) / PTD_FUZZER


def ptd_report(fuzzer: Path, files: list[Path]) -> list[str]:
    """ptd_fuzzer's outcome of each file: a load line, then one line per entry."""
    return fuzzer_report(fuzzer, files, ("load: ", "entry "))


def test_every_key_of_a_large_file_finds_its_bytes(
    programs: dict[str, pp.Separated], ptd_fuzzer: Path, tmp_path: Path
) -> None:
    """Each of some 5,000 keys, stored in no order, is looked up (ptd_fuzzer traps unless the lookup gives
    back the entry the key came from) and reads the bytes it was written with, under ASan and UBSan."""
    data = many_keys(pp.entries(programs["portable"].data[0]), MANY_KEYS)
    report = ptd_report(ptd_fuzzer, [pp.write(data, tmp_path / "many.ptd")])
    assert report[0] == f"load: ok, {len(data)} entries"
    expected = [f"entry {i}: '{shown(key)}' {len(blob)} {fnv1a(blob):016x}" for i, (key, blob, _) in enumerate(data)]
    assert report[1:] == expected


def test_a_key_twice_in_a_large_file_is_refused(
    programs: dict[str, pp.Separated], ptd_fuzzer: Path, runner: Path, tmp_path: Path
) -> None:
    """Two entries of one key, far apart among thousands, refused at load in one line naming the key (ExecuTorch
    would take the first, silently)."""
    program = programs["portable"]
    path = pp.write(many_keys(pp.entries(program.data[0]), MANY_KEYS), tmp_path / "twice.ptd")
    path.write_bytes(rename_key(path.read_bytes(), "k4321", "k1234"))
    assert ptd_report(ptd_fuzzer, [path]) == ["load: data file fuzz: two entries have the key 'k1234'"]
    proc = subprocess.run(
        [str(runner), "--model", str(program.program), "--data", str(path)], capture_output=True, text=True, timeout=60
    )
    _one_error_line(proc, "data file twice.ptd: two entries have the key 'k1234'")


def test_a_large_file_serves_the_program(programs: dict[str, pp.Separated], runner: Path, tmp_path: Path) -> None:
    """The portable program's five constants among thousands of decoys (their neighbours in key order
    among them): its outputs are ExecuTorch's; without l1.weight, the missing key is named as before."""
    program = programs["portable"]
    data = many_keys(pp.entries(program.data[0]), MANY_KEYS)
    result = runner_run(runner, program, tmp_path / "out", (pp.write(data, tmp_path / "many.ptd"),))
    np.testing.assert_allclose(result.outputs[0], program.expected[0], atol=1e-4, rtol=1e-4)
    without = pp.write([e for e in data if e[0] != "l1.weight"], tmp_path / "without.ptd")
    proc = subprocess.run(
        [str(runner), "--model", str(program.program), "--data", str(without)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    _one_error_line(proc, "no data file holds 'l1.weight' (1 file given)")


def ptd_seeds(programs: dict[str, pp.Separated], out: Path) -> list[Path]:
    """ExecuTorch's files (the portable program's, the delegated program's two and their merge) and the
    portable constants among 30 decoys: small, so that the fuzzer mutates them quickly."""
    out.mkdir(exist_ok=True)
    written = [shutil.copy2(p, out / f"{name}.{p.name}") for name, s in programs.items() for p in s.data]
    written.append(pp.merge(programs["xnnpack"].data, out / "merged.ptd"))
    written.append(pp.write(many_keys(pp.entries(programs["portable"].data[0]), 30), out / "decoys.ptd"))
    return [Path(p) for p in written]


def test_ptd_seeds_load(programs: dict[str, pp.Separated], ptd_fuzzer: Path, tmp_path: Path) -> None:
    """Every seed loads: the fuzzer starts from files that reach the index and the lookups."""
    seeds = ptd_seeds(programs, tmp_path)
    loads = [line for line in ptd_report(ptd_fuzzer, seeds) if line.startswith("load: ")]
    assert len(loads) == len(seeds) and all(line.startswith("load: ok, ") for line in loads), loads


def test_short_ptd_fuzz_session(programs: dict[str, pp.Separated], ptd_fuzzer: Path, tmp_path: Path) -> None:
    """A fixed-seed session of PTD_FUZZ_RUNS inputs (the same inputs on every machine), as the program
    loader's (tests/test_runtime_sanitized.py)."""
    corpus = tmp_path / "corpus"
    ptd_seeds(programs, corpus)
    run_fuzzer(ptd_fuzzer, corpus, PTD_FUZZ_RUNS, tmp_path)


def test_execute_does_not_allocate_with_external_data(programs: dict[str, pp.Separated], all_ops_build: Path) -> None:
    specs = [
        str(p.program) + "".join(f"+{d}" for d in p.data) + "=" + ",".join(map(str, p.inputs))
        for p in programs.values()
    ]
    proc = subprocess.run([str(all_ops_build / "execute_alloc_test"), *specs], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    counts = [line.rsplit("=", 1)[1] for line in proc.stdout.splitlines()]
    assert counts == ["0"] * len(specs), proc.stdout


@pytest.mark.parametrize("name", ["portable", "xnnpack"])
def test_static_oplist_equals_gen_oplist(name: str, programs: dict[str, pp.Separated], tmp_path: Path) -> None:
    assert_static_oplist_is_gen_oplist(programs[name].program, tmp_path)
