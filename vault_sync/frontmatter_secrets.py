"""Secrets that only the parsed frontmatter spells (fresh-user report, kind 4).

YAML escapes (``"\\x67hp_…"``, ``"\\u0041"``), folding and quoting can make a value that the
file's text does not spell: the sanitizer finds nothing in the text, yet the value stored and
shown is a token. :func:`value_secrets` scrubs each scalar of the frontmatter as parsed (as
``key: value``, so rules that need the name see it) and says where each one holding a secret
sits in the file — its line for ``lint`` and ``redact``, its span so ``redact --write`` can
rewrite the whole scalar as a double-quoted string of its redacted value.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from vault_sync.parser import parse_frontmatter
from vault_sync.sanitize import Finding, Scrubber, line_of

if TYPE_CHECKING:  # PyYAML (~10 ms to import): loaded only when a page holds a secret
    import yaml


@dataclass(frozen=True)
class ValueSecret:
    """A frontmatter scalar whose parsed value holds secrets its text does not spell.

    Attributes:
        start: offset of the scalar (as written, quotes included) in the page text.
        end: offset just past it.
        line: the 1-based file line where it starts.
        labels: one label per secret found in the value.
        clean: the parsed value with its secrets redacted.
    """

    start: int
    end: int
    line: int
    labels: tuple[str, ...]
    clean: str


def frontmatter_block(text: str) -> tuple[int, int]:
    """``(start, end)`` offsets of the YAML between the frontmatter delimiters, or (0, 0)."""
    body = parse_frontmatter(text)[1]
    head_end = len(text) - len(body)
    head = text[:head_end]
    if not head.lstrip("\ufeff").startswith("---"):
        return 0, 0
    start = head.find("\n") + 1
    end = head.rstrip("\r\n").rfind("\n") + 1
    return (start, end) if 0 < start <= end else (0, 0)


def scalars(
    node: yaml.Node | None, key: str | None = None
) -> list[tuple[yaml.ScalarNode, str | None]]:
    """Every scalar of a composed YAML node, with the key it is the value of (or ``None``)."""
    import yaml  # loaded already: the node was composed by it

    if isinstance(node, yaml.ScalarNode):
        return [(node, key)]
    if isinstance(node, yaml.SequenceNode):
        return [s for child in node.value for s in scalars(child, key)]
    if isinstance(node, yaml.MappingNode):
        out: list[tuple[yaml.ScalarNode, str | None]] = []
        for k, v in node.value:
            out += scalars(k)
            out += scalars(v, k.value if isinstance(k, yaml.ScalarNode) else None)
        return out
    return []


#: The tag of a ``!!binary`` scalar: its text is base64, its value the bytes it encodes.
_BINARY = "tag:yaml.org,2002:binary"


def _parsed(node: yaml.ScalarNode) -> str | None:
    """A scalar's value as the page model holds it: its text, or for ``!!binary`` the bytes
    its base64 encodes read as UTF-8 (:mod:`vault_sync.parser.yaml_plain`'s rule; None when
    it is no base64) — so ``lint`` and ``redact`` find the same secrets the page's parsed
    frontmatter shows (fresh-user report 5, finding 10)."""
    if node.tag != _BINARY:
        return node.value if isinstance(node.value, str) else None
    try:
        return base64.decodebytes(node.value.encode("ascii")).decode("utf-8", "replace")
    except (ValueError, binascii.Error):  # UnicodeEncodeError is a ValueError
        return None


def scrub_value(scrubber: Scrubber, value: str, key: str | None) -> tuple[str, tuple[Finding, ...]]:
    """``value`` scrubbed with its key in front (``key: value``) so rules that need the name
    (``aws_secret_access_key: …``) see it; the findings are those inside the value (offsets
    into that text: a secret in the key is the key's own, scrubbed as a scalar itself)."""
    if key is None:
        return scrubber.scrub(value)
    head = f"{key}: "
    out, found = scrubber.scrub(head + value)
    in_value = tuple(f for f in found if f.end > len(head))
    if out.startswith(head):
        return out[len(head) :], in_value
    return scrubber.scrub(value)[0], in_value


def value_secrets(
    text: str, scrubber: Scrubber, found: Sequence[Finding] = ()
) -> list[ValueSecret]:
    """The frontmatter scalars of ``text`` whose parsed value holds a secret, leaving out those
    holding one of ``found`` (the findings on the text itself: already told and redacted as
    written). Never raises: frontmatter that does not load has no scalars."""
    start, end = frontmatter_block(text)
    if start == end:
        return []
    import yaml  # here: only a page with a secret is read again (clean.clean_page)

    try:
        root = yaml.compose(text[start:end], Loader=yaml.CSafeLoader)
    except yaml.YAMLError:
        return []
    out = []
    for node, key in scalars(root):
        lo, hi = start + node.start_mark.index, start + node.end_mark.index
        value = _parsed(node)
        if value is None or any(lo <= f.start < hi for f in found):
            continue
        clean, in_value = scrub_value(scrubber, value, key)
        if in_value:
            labels = tuple(f.label for f in in_value)
            out.append(ValueSecret(lo, hi, line_of(text, lo), labels, clean))
    return out
