"""The one yaml loader of the bot: PyYAML's safe loader with bounds a hostile file cannot pass.

Every yaml the bot reads comes from a pull request (the config, selected
operators, kernel libraries), so plain `yaml.safe_load` is not enough:
nesting thousands deep overflows Python's stack, nine levels of aliases
("billion laughs") expand to gigabytes, and duplicate keys silently drop
an entry. Here the document is first composed into nodes, with its nesting
depth and node count checked as each node is made; then the node graph is
walked once, without recursion, to count the nodes it would have with every
alias expanded and to find aliases that contain themselves; only then are
Python objects built. Duplicate keys are refused as each mapping is composed.

The loader is pure Python: libyaml's composer cannot be hooked, and its
recursion is on the C stack. The byte limit (`Limits.yaml_bytes`) keeps it
fast enough, and the node budget follows from it.

Errors are one line naming the source and a line number, never the text.
"""

from __future__ import annotations

import gc
from pathlib import Path

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from bot.safety.limits import DEFAULT_LIMITS
from bot.safety.safe_files import describe_size, read_bytes

MAX_DEPTH = 100  # selected_operators and functions.yaml nest 4 deep; 100 keeps composing far from the stack limit
BYTES_PER_NODE = 16  # a selected_operators.yaml averages ~20 bytes per node
MERGE_TAG = "tag:yaml.org,2002:merge"
VALUE_TAG = "tag:yaml.org,2002:value"
STR_TAG = "tag:yaml.org,2002:str"
KEY_SHOWN_CHARS = 40


class YamlError(ValueError):
    """A yaml the bot refuses; the message is one line naming the source."""


def node_budget(limit_bytes: int) -> int:
    """How many nodes (aliases expanded) a document may have under a byte limit."""
    return max(limit_bytes // BYTES_PER_NODE, 1000)


def _line(node_or_mark: Node | yaml.Mark | None) -> int:
    mark = node_or_mark.start_mark if isinstance(node_or_mark, Node) else node_or_mark
    return mark.line + 1 if mark is not None else 0


class _BoundedLoader(yaml.SafeLoader):
    def __init__(self, stream: str | bytes, source: str, max_nodes: int) -> None:
        super().__init__(stream)
        self.source = source
        self.max_nodes = max_nodes
        self.depth = 0
        self.composed = 0
        self.saw_alias = False

    def fetch_flow_collection_start(self, token_class: type) -> None:
        # The scanner reads a whole run of '[' or '{' ahead of the composer, and each
        # open bracket costs time for every one before it: bound it where it is scanned.
        if self.flow_level >= MAX_DEPTH:
            raise YamlError(f"{self.source}: nested deeper than {MAX_DEPTH} levels at line {_line(self.get_mark())}")
        super().fetch_flow_collection_start(token_class)

    def add_indent(self, column: int) -> bool:
        if len(self.indents) >= MAX_DEPTH:
            raise YamlError(f"{self.source}: nested deeper than {MAX_DEPTH} levels at line {_line(self.get_mark())}")
        return super().add_indent(column)

    def compose_node(self, parent: Node | None, index: object) -> Node:
        # Checked before descending, so a deep document stops long before Python's recursion limit.
        self.depth += 1
        self.composed += 1
        if self.depth > MAX_DEPTH:
            line = _line(self.peek_event().start_mark)
            raise YamlError(f"{self.source}: nested deeper than {MAX_DEPTH} levels at line {line}")
        if self.composed > self.max_nodes:
            line = _line(self.peek_event().start_mark)
            raise YamlError(f"{self.source}: more than {self.max_nodes:,} nodes (at line {line})")
        if self.check_event(yaml.AliasEvent):
            self.saw_alias = True
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def compose_mapping_node(self, anchor: str | None) -> MappingNode:
        node = super().compose_mapping_node(anchor)
        _check_duplicate_keys(self, node)
        return node

    def construct_object(self, node: Node, deep: bool = False) -> object:
        try:
            return super().construct_object(node, deep)
        except (YamlError, yaml.YAMLError):
            raise
        except (ValueError, OverflowError, TypeError, IndexError, KeyError, AttributeError):
            # What SafeConstructor raises for a value that does not fit its type: int() past Python's
            # digit limit, a date like 2001-13-45, an empty `!!int`, `!!bool maybe`, `!!timestamp x`.
            raise YamlError(f"{self.source}: value at line {_line(node)} cannot be represented") from None


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _shown_key(key: object) -> str:
    text = repr(key)
    return text if len(text) <= KEY_SHOWN_CHARS else text[: KEY_SHOWN_CHARS - 3] + "..."


def _check_duplicate_keys(loader: _BoundedLoader, node: MappingNode) -> None:
    """A key that appears twice in one mapping, compared as the dict would compare them.

    Merged (`<<`) entries may be overridden; only keys written in the mapping count.
    """
    seen: set[object] = set()
    for key_node, _ in node.value:
        if not isinstance(key_node, ScalarNode) or key_node.tag == MERGE_TAG:
            continue  # non-scalar keys are refused as unhashable when constructed
        plain_string = key_node.tag in (STR_TAG, VALUE_TAG)  # the common case, without building anything
        key = key_node.value if plain_string else loader.construct_object(key_node, deep=True)
        if key in seen:
            raise YamlError(f"{loader.source}: duplicate key {_shown_key(key)} at line {_line(key_node)}")
        seen.add(key)


def _check_aliases(loader: _BoundedLoader, root: Node) -> None:
    """Expanded size and depth of a node graph that has aliases, and alias cycles, in one
    iterative walk: each distinct node is visited once, its totals memoized.

    Without aliases the graph is a tree the composer has already bounded."""
    size: dict[int, int] = {}
    depth: dict[int, int] = {}
    in_progress: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if children_done:
            kids = _children(node)
            size[key] = 1 + sum(size[id(k)] for k in kids)
            depth[key] = 1 + max((depth[id(k)] for k in kids), default=0)
            in_progress.discard(key)
            if size[key] > loader.max_nodes:
                raise YamlError(
                    f"{loader.source}: aliases expand to more than {loader.max_nodes:,} nodes (at line {_line(node)})"
                )
            if depth[key] > MAX_DEPTH:
                raise YamlError(f"{loader.source}: aliases nest deeper than {MAX_DEPTH} levels (at line {_line(node)})")
            continue
        if key in size:
            continue
        if key in in_progress:
            raise YamlError(f"{loader.source}: the node at line {_line(node)} contains itself through an alias")
        in_progress.add(key)
        stack.append((node, True))
        for child in _children(node):
            if id(child) in in_progress:
                raise YamlError(f"{loader.source}: the node at line {_line(child)} contains itself through an alias")
            if id(child) not in size:
                stack.append((child, False))


def loads(text: str | bytes, source: str, limit_bytes: int = DEFAULT_LIMITS.yaml_bytes) -> object:
    """The document in `text` (bytes may be UTF-8 or UTF-16 with a BOM), or YamlError."""
    if len(text) > limit_bytes:
        raise YamlError(f"{source}: over the limit of {describe_size(limit_bytes)} for yaml")
    loader: _BoundedLoader | None = None
    # Composing makes hundreds of thousands of acyclic objects; the cycle collector
    # rescanning them costs a third of the time and finds nothing.
    collecting = gc.isenabled()
    gc.disable()
    try:
        loader = _BoundedLoader(text, source, node_budget(limit_bytes))
        node = loader.get_single_node()
        if node is None:
            return None
        if loader.saw_alias:
            _check_aliases(loader, node)
        return loader.construct_document(node)
    except YamlError:
        raise
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        raise YamlError(f"{source}: not valid YAML{where}") from None
    except yaml.reader.ReaderError as exc:
        raise YamlError(f"{source}: not valid YAML (unreadable character at offset {exc.position})") from None
    except yaml.YAMLError:
        raise YamlError(f"{source}: not valid YAML") from None
    except RecursionError:  # defensive: depth is bounded above, far below the interpreter's limit
        raise YamlError(f"{source}: nested too deeply") from None
    finally:
        if loader is not None:
            loader.dispose()
        if collecting:
            gc.enable()


def load_file(path: Path, limit_bytes: int = DEFAULT_LIMITS.yaml_bytes, *, shown_as: str | None = None) -> object:
    """A yaml file read with `safe_files.read_bytes` (regular files only, at most `limit_bytes`).

    Raises YamlError for the content and `safe_files.UnsafeFileError` for the file.
    """
    data = read_bytes(path, limit_bytes, "yaml", shown_as=shown_as)
    return loads(data, shown_as or str(path), limit_bytes)
