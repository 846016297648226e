"""The sanitizer seam of a page (DESIGN Invariant 6): every secret in every field of a parsed
page is redacted before anything of it is stored, and pages whose file name holds a secret
are left out of a scan. Used by the page preparation (:mod:`vault_sync.prepare`), the sync's
scan (:mod:`vault_sync.sync`) and ``lint`` / ``redact`` (the vault's compiled sanitizer).
"""

from __future__ import annotations

from collections.abc import Container
from dataclasses import replace
from typing import Any

from vault_sync.config import Config
from vault_sync.frontmatter_secrets import scrub_value, value_secrets
from vault_sync.page import Evidence, Issue, Link, LinkOrigin, Page, Severity
from vault_sync.parser import written_keys
from vault_sync.sanitize import Finding, Scrubber, lines_of
from vault_sync.scan_result import ScanResult
from vault_sync.secret_values import FoundValues


def scrubber_for(config: Config) -> Scrubber:
    """The vault's sanitizer (config ``[sanitize]``), compiled once per process."""
    return Scrubber.from_config(config)


def _clean_value(scrubber: Scrubber, value: Any, key: str | None = None) -> Any:
    """Scrub a frontmatter value; a string is scrubbed with its key in front (``key: value``)
    so rules that need the name (``aws_secret_access_key: ...``) still see it."""
    if isinstance(value, str):
        return scrub_value(scrubber, value, key)[0]
    if isinstance(value, list):
        return [_clean_value(scrubber, v, key) for v in value]
    if isinstance(value, dict):
        return {
            scrubber.scrub(str(k))[0]: _clean_value(scrubber, v, str(k)) for k, v in value.items()
        }
    return value


def _leaf_texts(value: Any, key: str = "") -> list[str]:
    """Every string in a frontmatter value, as ``key: value`` (rules need the name)."""
    if isinstance(value, str):
        return [f"{key}: {value}" if key else value]
    if isinstance(value, list):
        return [t for v in value for t in _leaf_texts(v, key)]
    if isinstance(value, dict):
        return [t for k, v in value.items() for t in (str(k), *_leaf_texts(v, str(k)))]
    return []


def _hidden(found: FoundValues, value: Any) -> Any:
    """A scrubbed frontmatter value with every found value hidden in its strings."""
    if isinstance(value, str):
        return found.hide(value)
    if isinstance(value, list):
        return [_hidden(found, v) for v in value]
    if isinstance(value, dict):
        return {found.hide(str(k)): _hidden(found, v) for k, v in value.items()}
    return value


def clean_page(page: Page, text: str, scrubber: Scrubber) -> Page:
    """The sanitizer seam of everything stored (DESIGN Invariant 6): return ``page`` with every
    secret in every text field replaced by ``[REDACTED:<label>]``, plus one ``secret`` error
    issue per secret (file line and label, never the secret) for ``lint``.

    The whole file text is scrubbed once; only pages with a finding (rare) are then scrubbed
    field by field, so a clean vault pays one pass. Every output (index, sidecar, snippets,
    ``show``, ``lint``, ``--json``) reads from the stores, so none can carry a secret.
    """
    scanned, findings, in_text = _page_findings(page, text, scrubber)
    if not findings:
        return page
    # Every field is scrubbed again, then any value found in the text (or a cut-off or
    # split-off piece of one: a clamped title, a split tag) is hidden in it (issue 17).
    found = FoundValues(scanned, findings)
    # one issue per secret, at its file line: those in the text as written, and those only
    # the parsed frontmatter spells (YAML escapes), at their scalar's line — the secrets and
    # lines `redact` reports (redaction.redact_bytes)
    in_file = findings if in_text else ()
    labels = [f.label for f in in_file]
    lines = list(zip(lines_of(text, [f.start for f in in_file]), labels, strict=True))
    lines += [
        (v.line, label)
        for v in (value_secrets(text, scrubber, in_file) if page.frontmatter else ())
        for label in v.labels
    ]
    if not lines:  # found only across parsed values (no one scalar holds it): line 1
        lines = [(1, f.label) for f in findings]
    secrets = tuple(
        Issue(
            Severity.ERROR,
            "secret",
            f"a secret ({label}) is in this page; it is redacted from every output"
            " (vault-sync redact --write removes it from the file)",
            line,
        )
        for line, label in sorted(lines, key=lambda pair: pair[0])  # stable: offset order
    )
    links, evidence, dropped = _without_secret_names(page, scrubber, found)
    # the parser's warning quotes a cut of the kind (40 characters): a piece no value hides
    gone = {i.line for i in dropped}
    issues = tuple(i for i in page.issues
                   if not (i.code == "unknown_evidence_kind" and i.line in gone))  # fmt: skip
    page = replace(page, links=links, evidence=evidence, issues=issues)
    return _cleaned(page, scrubber, found, (*secrets, *dropped))


#: Where a link's type is a key the page's author wrote (a custom frontmatter key, a
#: Dataview ``key::`` field), not one of the fixed edge types.
_KEYED = (LinkOrigin.FRONTMATTER, LinkOrigin.INLINE_FIELD)


def _without_secret_names(
    page: Page, scrubber: Scrubber, found: FoundValues
) -> tuple[tuple[Link, ...], tuple[Evidence, ...], tuple[Issue, ...]]:
    """``page``'s links and evidence without those named by a secret, and one warning each.

    A relation type (a key snake-cased) and an evidence kind are names: stored as keys,
    counted by ``status``, printed by ``show``/``related``; a ``[REDACTED:…]`` label cannot
    stand in for one (``link`` and ``reinforce`` refuse such names). So a link whose type,
    or the key it came from (:func:`~vault_sync.parser.written_keys`), holds a secret — one
    the sanitizer finds in it, or a value found elsewhere on the page — is left out, as is
    an evidence entry whose kind holds one; each with a warning at its file line.
    """

    def holds(name: str) -> bool:
        return bool(scrubber.scrub(name)[1]) or found.hide(name) != name

    keys = written_keys(page.frontmatter, page.body)
    named: dict[str, bool] = {}
    for link in page.links:
        if link.type not in named:
            written = keys.get(link.type, []) if link.origin in _KEYED else []
            named[link.type] = holds(link.type) or any(holds(k) for k in written)
    links = tuple(link for link in page.links if not named[link.type])
    evidence = tuple(e for e in page.evidence if not holds(e.kind))
    dropped = [
        Issue(Severity.WARNING, "secret_name", "a relation type holding a secret: this link"
              " is left out (rename the key)", link.line)
        for link in page.links if named[link.type]
    ] + [
        Issue(Severity.WARNING, "secret_name", "an evidence kind holding a secret: this entry"
              " is left out", e.line)
        for e in page.evidence if holds(e.kind)
    ]  # fmt: skip
    return links, evidence, tuple(dropped)


def found_values(page: Page, text: str, scrubber: Scrubber) -> list[FoundValues]:
    """Every secret value of a page, to hide in any text shown of it (a write's diff): those
    found in its file text and those found in its parsed frontmatter values (YAML escapes can
    spell a value the raw text does not: ``"finnhub = \\"…\\""``)."""
    out = []
    _, findings = scrubber.scrub(text)
    if findings:
        out.append(FoundValues(text, findings))
    if page.frontmatter:
        values = "\n".join(_leaf_texts(page.frontmatter))
        _, in_values = scrubber.scrub(values)
        if in_values:
            out.append(FoundValues(values, in_values))
    return out


def _page_findings(
    page: Page, text: str, scrubber: Scrubber
) -> tuple[str, tuple[Finding, ...], bool]:
    """``(the text scanned, its findings, whether that is the file text)``: the file text, or
    when it holds none, the parsed frontmatter values (YAML escapes such as ``"\\n"`` or
    ``"\\u0041"`` and folding can make a value that the raw text does not spell)."""
    _, findings = scrubber.scrub(text)
    if findings or not page.frontmatter:
        return text, findings, bool(findings)
    values = "\n".join(_leaf_texts(page.frontmatter))
    _, found_in_values = scrubber.scrub(values)
    return (values, found_in_values, False) if found_in_values else (text, (), False)


def _cleaned(
    page: Page, scrubber: Scrubber, found: FoundValues, secrets: tuple[Issue, ...]
) -> Page:
    """``page`` with every field scrubbed and every found value hidden, ``secrets`` added."""

    def clean(value: str) -> str:
        return found.hide(scrubber.scrub(value)[0])

    def clean_opt(value: str | None) -> str | None:
        return None if value is None else clean(value)

    return replace(
        page,
        id=clean(page.id),
        title=clean(page.title),
        project=clean_opt(page.project),
        tags=tuple(clean(t) for t in page.tags),
        # An alias holding a secret would be a link name made of a redaction token, which
        # other pages' redacted link targets would match: such aliases are dropped.
        aliases=tuple(a for a in page.aliases if not scrubber.scrub(a)[1] and clean(a) == a),
        valid_from=clean_opt(page.valid_from),
        valid_to=clean_opt(page.valid_to),
        headings=tuple(replace(h, text=clean(h.text)) for h in page.headings),
        links=tuple(
            replace(
                link,
                target=clean(link.target),
                anchor=clean(link.anchor),
                display=clean_opt(link.display),
            )
            for link in page.links
        ),
        evidence=tuple(
            replace(e, source=clean(e.source), at=clean_opt(e.at), note=clean_opt(e.note))
            for e in page.evidence
        ),
        frontmatter={
            clean(str(k)): _hidden(found, _clean_value(scrubber, v, str(k)))
            for k, v in page.frontmatter.items()
        },
        metadata=tuple(clean(m) for m in page.metadata),
        body=found.hide(scrubber.scrub(page.body)[0], pieces=False),
        issues=(*(replace(i, message=clean(i.message)) for i in page.issues), *secrets),
    )


def without_secret_names(
    result: ScanResult, scrubber: Scrubber, stored: Container[str] = ()
) -> tuple[ScanResult, dict[str, str]]:
    """Leave out pages and attachments whose file name holds a secret (Invariant 6: a path is
    shown in every result and stored as a key, so it cannot be redacted in place).

    Args:
        result: the scan.
        scrubber: the vault's sanitizer.
        stored: paths of pages and attachments already in the stores, which passed this
            check when they were stored (a name holding a secret never is): only names new
            to the stores are scrubbed (~15 ms less per sync at 10k pages); when there are
            none, the sanitizer is not even started (compiling its rules: ~15 ms of a
            no-change sync).

    Returns:
        The scan without them, and ``{redacted path: message}`` errors naming them safely.
    """
    names = [*result.pages, *sorted(result.attachments)]
    fresh = [n for n in names if n not in stored]
    bad = scrubber.scrub_names(fresh) if fresh else {}
    if not bad:
        return result, {}
    errors = {
        shown: "its file name holds a secret: not indexed (rename the file)"
        for shown in bad.values()
    }
    pages = {p: e for p, e in result.pages.items() if p not in bad}
    attachments = frozenset(a for a in result.attachments if a not in bad)
    return replace(result, pages=pages, attachments=attachments), errors
