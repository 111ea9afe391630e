"""Making PR-controlled text inert wherever the bot shows it: markdown (`text`), monospace (`code`),
raw HTML (`html_text`) and plain one-line text (`plain`: check-run titles, annotations, the job log).

Each caps its value, shows invisible characters (zero-width, bidi controls) as <U+XXXX>, and turns
whatever could form markup into an entity or an escape: no HTML, no links or images, no @-mentions,
no breaking out of a table or a code span.
"""

from __future__ import annotations

import html
import re
import unicodedata

NAME_LIMIT = 200  # characters of an op, model, file or target name
ELLIPSIS = "…"
COMMIT = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}|working tree")

_MARKDOWN_SPECIAL = set("\\`*_{}[]()<>#+-.!|~=:$")  # $: GitHub renders $...$ as math
_INVISIBLE_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Zl", "Zp"}
# Letters and marks that render as nothing (fillers, joiners, variation selectors).
_BLANK_LOOKING = {0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x2800, 0x3164, 0xFFA0}


def _invisible(ch: str) -> bool:
    code_point = ord(ch)
    return (
        unicodedata.category(ch) in _INVISIBLE_CATEGORIES
        or code_point in _BLANK_LOOKING
        or 0xFE00 <= code_point <= 0xFE0F
        or 0xE0100 <= code_point <= 0xE01EF
    )


def visible(value: str) -> str:
    """Control, format (zero-width, bidi) and blank-looking characters as <U+XXXX>."""
    return "".join(f"<U+{ord(ch):04X}>" if _invisible(ch) else ch for ch in value)


def cap(value: str, limit: int) -> str:
    return value if len(value) <= limit else value[: limit - 1] + ELLIPSIS


def plain(value: object, limit: int = NAME_LIMIT) -> str:
    """PR-controlled text for plain-text places (check-run titles, annotations):
    one line, capped, invisible characters shown."""
    return visible(cap(" ".join(str(value).split()), limit))


def text(value: object, limit: int = NAME_LIMIT) -> str:
    """PR-controlled text as inert markdown: entities for HTML and @, escapes for markdown."""
    out = []
    for ch in plain(value, limit):
        if ch in "&<>\"'":
            out.append(html.escape(ch, quote=True))
        elif ch == "@":
            out.append("&#64;&#8203;")  # a zero-width space after @: never a mention
        elif ch in _MARKDOWN_SPECIAL:
            out.append("\\" + ch)
        else:
            out.append(ch)
    return "".join(out)


# In <code>: every character that can start markdown inside an HTML tag (links,
# images, emphasis, strikethrough, math, escapes, code spans, table cells, HTML).
_CODE_ENTITIES = {
    "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;", "@": "&#64;&#8203;", "|": "&#124;",
    "`": "&#96;", "[": "&#91;", "]": "&#93;", "*": "&#42;", "~": "&#126;", "\\": "&#92;", "$": "&#36;",
}  # fmt: skip


def code(value: object, limit: int = NAME_LIMIT) -> str:
    """PR-controlled text in monospace: an HTML <code>, not a code span (a backtick
    in the value could close that). Markdown inside an HTML tag is still markdown,
    so what could form a construct is an entity; identifiers (aten::add.out,
    models/zoo/op_x.pte) stay as they are, readable in the raw report."""
    return "<code>" + html_text(value, limit) + "</code>"


def html_text(value: object, limit: int = NAME_LIMIT) -> str:
    """PR-controlled text for raw HTML (a <summary>, which markdown leaves alone, so a
    markdown backslash escape would show as typed): entities only. What could form
    markdown is an entity too, so the same text is inert wherever it lands."""
    shown = plain(value, limit)
    out = []
    for i, ch in enumerate(shown):
        before, after = shown[i - 1 : i], shown[i + 1 : i + 2]
        if ch in _CODE_ENTITIES:
            out.append(_CODE_ENTITIES[ch])
        elif ch == "_" and not (before.isalnum() and after.isalnum()):
            out.append("&#95;")  # only an underscore inside a word can never open or close emphasis
        elif ch == ":" and after == "/":
            out.append("&#58;")  # a URL scheme: GitHub would autolink it
        elif ch == "." and shown[max(0, i - 3) : i].lower() == "www" and not shown[max(0, i - 4) : i - 3].isalnum():
            out.append("&#46;")  # www. starts one of GitHub's autolinks too
        else:
            out.append(ch)
    return "".join(out)


def commit(value: str) -> str:
    """A commit id where one is expected (the head marker, which is an HTML comment): nothing else passes."""
    return value if COMMIT.fullmatch(value) else "unknown"


def count(n: int, noun: str, plural: str = "") -> str:
    """'1 target', '2 targets': the noun in the number's grammatical number."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"
