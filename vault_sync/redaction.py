"""``vault-sync redact``: find secrets in pages and, when asked, remove them from the files.

Writes go through :func:`vault_sync.vault.write_page` (atomic, refuses a page that changed
since it was read) and keep every byte they do not mean to change (DESIGN Invariant 5): each
secret's characters become ``[REDACTED:<label>]`` and nothing else moves — except in
frontmatter, where a token that would begin a plain YAML scalar (``key: [REDACTED:x]`` is a
YAML list) is written inside double quotes with the rest of that scalar, so the value stays a
string. A write that would add a YAML error is refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vault_sync.parser import parse_frontmatter
from vault_sync.sanitize import Finding, Scrubber, line_of

BOM = "\ufeff".encode()

#: Where a plain YAML scalar may begin: after ``key:`` or a ``-`` list marker, and spaces.
_VALUE_START = re.compile(r"(?:^|:|-)[ \t]*\Z")
#: The rest of a plain scalar on its line: up to `` #`` (a comment) or the end of the line.
_SCALAR_REST = re.compile(r"[^\n]*?(?=[ \t]+#|[ \t]*(?:\r?\n|\Z))")


@dataclass(frozen=True)
class Redaction:
    """One secret found: the page, its 1-based file line, its label (never the secret)."""

    path: str
    line: int
    label: str


@dataclass(frozen=True)
class PageRedaction:
    """What ``redact`` did to one page.

    Attributes:
        path: the page's vault-relative path.
        found: the secrets found.
        written: True when the file was rewritten without them.
        skipped: why a page with secrets was not written (``--write`` only), or None.
    """

    path: str
    found: tuple[Redaction, ...]
    written: bool = False
    skipped: str | None = None


def _yaml_errors(text: str) -> int:
    return sum(1 for i in parse_frontmatter(text)[3] if i.severity.value == "error")


def redact_text(text: str, findings: tuple[Finding, ...]) -> str:
    """Return ``text`` with each finding replaced by its token (frontmatter-safe, see module).

    Args:
        text: the page text the findings were made on.
        findings: sorted, non-overlapping findings.
    """
    body_start = len(text) - len(parse_frontmatter(text)[1])
    parts: list[str] = []
    pos = 0
    for f in findings:
        if f.start < pos:
            continue
        token = f"[REDACTED:{f.label}]"
        end = f.end
        line_start = text.rfind("\n", 0, f.start) + 1
        if f.end <= body_start and _VALUE_START.search(text[line_start : f.start]):
            rest = _SCALAR_REST.match(text, f.end)
            end = rest.end() if rest else f.end
            tail = text[f.end : end].replace("\\", "\\\\").replace('"', '\\"')
            token = f'"{token}{tail}"'
        parts.append(text[pos : f.start])
        parts.append(token)
        pos = end
    parts.append(text[pos:])
    return "".join(parts)


def redact_bytes(
    path: str, raw: bytes, scrubber: Scrubber
) -> tuple[tuple[Redaction, ...], bytes | None, str | None]:
    """Find secrets in a page's bytes and make the redacted bytes.

    Returns:
        ``(found, new_bytes, problem)``: ``new_bytes`` is None when there is nothing to write
        or it must not be written, and ``problem`` then says why (not UTF-8, would break YAML).
    """
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("utf-8-sig", errors="replace")
        _, findings = scrubber.scrub(text)
        found = tuple(Redaction(path, line_of(text, f.start), f.label) for f in findings)
        return found, None, "not valid UTF-8: not rewritten"
    _, findings = scrubber.scrub(text)
    found = tuple(Redaction(path, line_of(text, f.start), f.label) for f in findings)
    if not findings:
        return found, None, None
    new_text = redact_text(text, findings)
    if _yaml_errors(new_text) > _yaml_errors(text):
        return found, None, "redacting would break its frontmatter: not rewritten"
    return found, (BOM if raw.startswith(BOM) else b"") + new_text.encode("utf-8"), None
