"""``vault-sync redact``: find secrets in pages and, when asked, remove them from the files.

Writes go through :func:`vault_sync.vault.write_page` (atomic, refuses a page that changed
since it was read) and keep every byte they do not mean to change (DESIGN Invariant 5): in the
body, each secret's characters become ``[REDACTED:<label>]`` and nothing else moves. In the
frontmatter, a token written into YAML could change what the value means (``[REDACTED:x]``
begins a flow list; inside ``[a, b]`` it nests one): only the secret's characters change when
the frontmatter then reads back as intended (a line of a block scalar, a quoted string), else
the whole YAML scalar holding a secret is rewritten as a double-quoted string of its redacted
value; the new frontmatter must parse to the same shape (keys, list lengths, nesting) as
before — else its secrets are left for a person and reported.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import yaml

from vault_sync.frontmatter_secrets import ValueSecret, frontmatter_block, scalars, value_secrets
from vault_sync.pagefile import decode_page
from vault_sync.parser import parse_frontmatter
from vault_sync.sanitize import Finding, Scrubber, lines_of

if TYPE_CHECKING:
    from vault_sync.config import Config

BOM = "\ufeff".encode()


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
        written: True when the file was rewritten without (some of) them.
        skipped: why secrets were left in the file (``--write`` only), or None.
        left: how many secrets are still in the file after a write.
    """

    path: str
    found: tuple[Redaction, ...]
    written: bool = False
    skipped: str | None = None
    left: int = 0


def _redactions(path: str, text: str, findings: Sequence[Finding]) -> list[Redaction]:
    """One :class:`Redaction` per finding, with its line in ``text``."""
    lines = lines_of(text, [f.start for f in findings])
    return [Redaction(path, line, f.label) for line, f in zip(lines, findings, strict=True)]


def _shape(value: Any) -> Any:
    if isinstance(value, dict):
        return ("map", tuple(_shape(v) for v in value.values()), len(value))
    if isinstance(value, list):
        return ("seq", tuple(_shape(v) for v in value))
    return type(value).__name__


def _replace_spans(text: str, spans: list[tuple[int, int, str]]) -> str:
    parts: list[str] = []
    pos = 0
    for start, end, token in sorted(spans):
        if start < pos:
            continue
        parts.append(text[pos:start])
        parts.append(token)
        pos = end
    parts.append(text[pos:])
    return "".join(parts)


def redact_text(
    text: str,
    findings: tuple[Finding, ...],
    scrubber: Scrubber,
    values: Sequence[ValueSecret] = (),
) -> tuple[str, int]:
    """Return ``text`` without the secrets it can remove safely, and how many are left.

    Args:
        text: the page text the findings were made on.
        findings: sorted, non-overlapping findings.
        scrubber: the sanitizer, to redact whole YAML scalars.
        values: frontmatter scalars whose parsed value holds secrets the text does not spell
            (:func:`~vault_sync.frontmatter_secrets.value_secrets`): each is rewritten whole.
    """
    start, end = frontmatter_block(text)
    in_front = [f for f in findings if start <= f.start < end]
    spans = [(f.start, f.end, f"[REDACTED:{f.label}]") for f in findings if f not in in_front]
    if not in_front and not values:
        return _replace_spans(text, spans), 0
    yaml_text = text[start:end]
    try:
        nodes = [n for n, _ in scalars(yaml.compose(yaml_text, Loader=yaml.CSafeLoader))]
    except yaml.YAMLError:
        nodes = []
    front_spans: list[tuple[int, int, str]] = []
    covered = 0
    for node in nodes:
        lo, hi = start + node.start_mark.index, start + node.end_mark.index
        inside = [f for f in in_front if lo <= f.start < hi]
        if not inside:
            continue
        value = scrubber.scrub(node.value)[0]
        for f in inside:
            value = value.replace(text[f.start : f.end], f"[REDACTED:{f.label}]")
        front_spans += _scalar_spans(text, (lo, hi), inside, value)
        covered += len(inside)
    front_spans += [(v.start, v.end, _quoted(text[v.start : v.end], v.clean)) for v in values]
    candidate = _replace_spans(text, spans + front_spans)
    before, after = parse_frontmatter(text), parse_frontmatter(candidate)
    same = _shape(before[0]) == _shape(after[0]) and len(after[3]) <= len(before[3])
    if same and covered == len(in_front):
        return candidate, 0
    return _replace_spans(text, spans), len(in_front) + sum(len(v.labels) for v in values)


def _scalar_spans(
    text: str, where: tuple[int, int], inside: list[Finding], value: str
) -> list[tuple[int, int, str]]:
    """How to write the scalar at ``where`` (offsets in ``text``) as ``value``: only its
    secrets' characters replaced by their tokens when the frontmatter then reads back the same
    as with the whole scalar rewritten (a line of a ``|`` or ``>`` block scalar, a quoted
    string: every other byte kept), else the whole scalar as a double-quoted string (a plain
    ``[REDACTED:x]`` would begin a flow list)."""
    lo, hi = where
    whole = [(lo, hi, _quoted(text[lo:hi], value))]
    in_place = [(f.start, f.end, f"[REDACTED:{f.label}]") for f in inside]
    wanted = parse_frontmatter(_replace_spans(text, whole))
    got = parse_frontmatter(_replace_spans(text, in_place))
    if got[0] == wanted[0] and len(got[3]) <= len(wanted[3]):
        return in_place
    return whole


def _quoted(written: str, value: str) -> str:
    """``value`` as a double-quoted YAML string, keeping the final line break a block
    scalar's span takes in (``written``: the scalar as it was)."""
    keep = written[len(written.rstrip("\r\n")) :]
    return json.dumps(value, ensure_ascii=False) + keep


def redact_bytes(
    path: str, raw: bytes, scrubber: Scrubber
) -> tuple[tuple[Redaction, ...], bytes | None, str | None, int]:
    """Find secrets in a page's bytes and make the redacted bytes.

    The secrets are those ``lint`` reports, at the same lines: the text's findings (every
    repeat of a found value among them) and the frontmatter scalars whose parsed value holds
    one the text does not spell (YAML escapes: :mod:`vault_sync.frontmatter_secrets`).

    Returns:
        ``(found, new_bytes, problem, left)``: ``new_bytes`` is None when there is nothing to
        write or it must not be written; ``problem`` says why secrets stay (not UTF-8, a
        frontmatter value that cannot be rewritten safely); ``left`` counts them.
    """
    text, problem = decode_page(raw)
    _, findings = scrubber.scrub(text)
    values = value_secrets(text, scrubber, findings)
    found = tuple(
        sorted(
            _redactions(path, text, findings)
            + [Redaction(path, v.line, label) for v in values for label in v.labels],
            key=lambda r: r.line,
        )
    )
    if problem is not None:
        return found, None, "not valid UTF-8: not rewritten", len(found)
    if not found:
        return found, None, None, 0
    new_text, left = redact_text(text, findings, scrubber, values)
    problem = (
        f"{left} secrets in the frontmatter could not be rewritten safely: edit them by hand"
        if left
        else None
    )
    if new_text == text:
        return found, None, problem, left
    return found, (BOM if raw.startswith(BOM) else b"") + new_text.encode("utf-8"), problem, left


def run_redact(
    config: Config,
    references: Iterable[str],
    *,
    every_page: bool,
    write: bool,
    find: Callable[[list[str]], list[str]],
    sync: Callable[[list[str]], object],
) -> list[PageRedaction]:
    """Find secrets in pages and, with ``write``, remove them from the files, then sync them.

    Args:
        config: the vault's configuration (its ``[sanitize]`` patterns apply).
        references: pages by id, path, file name, title or alias (as ``show`` takes them).
        every_page: look at every page of the vault instead.
        write: rewrite pages with secrets (atomically, refusing pages changed meanwhile).
        find: the engine's lookup of references -> vault paths (through the stores).
        sync: the engine's sync of the on-disk paths written (passed in, as to the watcher).

    Returns:
        One entry per page looked at, sorted by path.

    Raises:
        PageNotFoundError, AmbiguousPageError: a reference names no page, or several.
        PageChangedError: a page changed between being read and being written.
    """
    from vault_sync.confine import confined
    from vault_sync.errors import OutsideVaultError
    from vault_sync.pagefile import content_hash, write_page
    from vault_sync.vault import scan

    result = scan(config)
    # a page file this process may not read is listed by the scan as unreadable, not a page
    denied = {u.path: u.error for u in result.unreadable if u.path.lower().endswith(".md")}
    wanted = {*result.pages, *denied} if every_page else set(find(list(references)))
    paths = sorted(wanted)
    scrubber = Scrubber.from_config(config)  # the one the sync compiles (shared, cached)
    done: list[PageRedaction] = []
    written: list[str] = []
    for path in paths:
        entry = result.pages.get(path)
        if path in denied:
            done.append(PageRedaction(path, (), skipped=f"cannot read: {denied[path]}"))
            continue
        if entry is None:
            done.append(PageRedaction(path, (), skipped="not on disk any more"))
            continue
        try:
            raw = (config.vault / entry.disk_path).read_bytes()
        except OSError as exc:  # unreadable now (permissions), or gone since the scan
            done.append(PageRedaction(path, (), skipped=f"cannot read: {exc.strerror or exc}"))
            continue
        found, new, problem, left = redact_bytes(path, raw, scrubber)
        if write and new is not None:
            try:  # a write never follows a symlink, as the other write commands' (confine)
                confined(config.vault, entry.disk_path, (config.store_dir,))
            except OutsideVaultError as exc:
                done.append(PageRedaction(path, found, False, f"not written: {exc}", len(found)))
                continue
            write_page(config.vault, entry.disk_path, new, content_hash(raw))
            written.append(entry.disk_path)
        # without `write`, every secret found is still in the file afterwards
        done.append(
            PageRedaction(
                path, found, write and new is not None, problem, left if write else len(found)
            )
        )
    if written:
        sync(written)
    return done
