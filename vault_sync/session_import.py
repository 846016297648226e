"""``vault-sync import-session``: transcripts as session pages, as the page edits it makes.

:func:`import_session` reads each transcript file (any format :mod:`vault_sync.session_digest`
knows), scrubs every text of it together, and returns one :class:`~vault_sync.edits.Edit` per
session: a new page (:mod:`vault_sync.session_page`), or the session's page already in the
vault updated (the keys an import owns spliced, the evidence added, the body replaced). Like
the other write commands (:mod:`vault_sync.write_commands`), nothing is written here:
:meth:`vault_sync.app.Engine.write` runs the edits and syncs the pages.
"""

from __future__ import annotations

import hashlib
import itertools
import logging
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from vault_sync import agent_input, edits, page_refs
from vault_sync.config import Config
from vault_sync.confine import confined
from vault_sync.edits import Edit, EditReport
from vault_sync.errors import EditRefusedError, PageExistsError, TranscriptError
from vault_sync.parser.frontmatter import frontmatter_map
from vault_sync.splice import splice_key
from vault_sync.store import Sidecar
from vault_sync.typed_text import scrub_typed

if TYPE_CHECKING:  # the session modules (and the transcript readers) load only for imports
    from vault_sync.session_page import SessionPage
    from vault_sync.transcript import Transcript

_log = logging.getLogger(__name__)


def import_session(
    config: Config,
    sidecar: Sidecar,
    report: EditReport,
    files: Sequence[str],
    fmt: str = "auto",
    project: str | None = None,
) -> list[Edit]:
    """One session page per transcript file (:mod:`vault_sync.session_page`): a new page, or
    the page already citing ``session:ID`` (else at the session's path) updated — the keys
    an import owns spliced, the evidence added, the body replaced; a person's other keys are
    kept, and re-importing an unchanged transcript changes nothing. Every text of the
    transcript is scrubbed before it is used.

    Raises:
        TranscriptError: a file that cannot be read, or is in no known format (file:line), or
            whose project would be its working directory's name and that holds a secret.
        AgentInputError: an empty ``--project``, or one holding a secret (a project key
            never holds a ``[REDACTED:…]`` label).
    """

    from vault_sync import session_digest, session_page

    def plain(text: str) -> str:
        return _CONTROLS.sub("", _ANSI.sub("", text))  # terminal colours of tool output

    def clean(text: str) -> str:
        text = plain(text)
        return edits.scrubbed(config, text, report) if text else text

    chosen = (
        None
        if project is None
        else agent_input.no_secret(config, agent_input.one_line(project, "project"), "a project")
    )
    at: dict[str, int] = {}  # session id -> its edit: a session given twice is one page
    table = sidecar.name_table()
    out: list[Edit] = []
    for file in files:
        text, day = session_page.read_source(file)
        raw = session_digest.read_transcript(text, file, fmt)
        if raw.truncated:  # one line on stderr (the CLI's log handler), the page says so too
            _log.warning(
                "%s: the last line is cut off (a transcript still being written): imported"
                " the complete lines before it",
                scrub_typed(file, config),
            )
        if raw.id_from_file:  # no id of its own: one per file, never shared by name
            raw = replace(raw, session_id=session_page.file_session_id(file, raw.session_id))
        # every text of the transcript scrubbed together: a password found in a tool's
        # output is hidden in the command that printed it too (and so in `commands:`)
        transcript = edits.scrubbed_together(config, report, _mapped_through(raw, plain))
        if chosen is None and "[REDACTED:" in (session_page.cwd_project(transcript) or ""):
            raise TranscriptError(
                f"{file}: the project from the session's working directory holds a secret"
                f" ({session_page.cwd_project(transcript)!r}); give --project"
            )
        if transcript.session_id != raw.session_id:  # an id holding a secret: two such ids
            digest = hashlib.sha256(raw.session_id.encode("utf-8")).hexdigest()[:16]
            transcript = replace(transcript, session_id=f"redacted-{digest}")  # never collide
        paths = session_page.mentioned(transcript, table)

        def related(own: str, paths: list[str] = paths) -> list[str]:
            links = (_link_or_none(sidecar, p) for p in paths if p != own)
            return [text for text in links if text]

        page = session_page.build(
            config, transcript, project=chosen, fallback_date=day, related=related
        )
        page = replace(page, body=clean(page.body))
        others = {out[i].path for sid, i in at.items() if sid != transcript.session_id}
        edit = _session_edit(config, sidecar, page, others)
        if transcript.session_id in at:  # the later file wins (a grown copy)
            out[at[transcript.session_id]] = edit
            continue
        at[transcript.session_id] = len(out)
        out.append(edit)
    return out


#: Terminal escape sequences (CSI, OSC) and the C0 controls a page never holds (tab, line
#: feed and carriage return are kept): tool outputs in transcripts are full of colours.
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?)")
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _mapped_through(
    raw: Transcript, plain: Callable[[str], str]
) -> Callable[[edits.Cleaner], Transcript]:
    """What :func:`~vault_sync.edits.scrubbed_together` builds of a transcript: every text
    of it made plain (no terminal colours), then cleaned."""
    return lambda clean: raw.mapped(lambda text: clean(plain(text)) if text else text)


def _link_or_none(sidecar: Sidecar, path: str) -> str | None:
    """:func:`vault_sync.page_refs.link_text` of ``path``, or ``None`` for a page no wikilink can
    name (an import links such a page never, rather than writing a link that breaks)."""
    try:
        return page_refs.link_text(sidecar, path)
    except EditRefusedError:
        return None


def _session_edit(
    config: Config, sidecar: Sidecar, page: SessionPage, taken: Collection[str] = ()
) -> Edit:
    """Create ``page``, or update the session page that already holds its session (a rule or
    decision citing the session as evidence — an agent's ``reinforce`` during it — is not
    that page). A new session whose path is ``taken`` (by another session of this import)
    or holds another session's page goes to the first free ``STEM-2.md``, ``STEM-3.md``...:
    one session never replaces another's page.

    Raises:
        PageExistsError: the page found, or the file at the session page's path, is not a
            ``kind: session`` page on disk (left unchanged).
    """
    from vault_sync import session_page

    found = [
        path
        for path in sidecar.pages_with_evidence("session", page.evidence.split(":", 1)[1])
        if sidecar.page_row(path)["kind"] == "session"
    ]
    if found:
        path, disk = page_refs.page_of(config, sidecar, found[0])
    else:
        path = disk = _session_path(config, sidecar, page, taken)
        confined(config.vault, path, (config.store_dir,))
        if not (config.vault / path).exists():
            text = page.text()
            return Edit(path, path, lambda _old: text, create=True)
    kind = frontmatter_map((config.vault / disk).read_text(encoding="utf-8-sig")).mapping.get(
        "kind"
    )
    if kind != "session":  # a person's page that cites this session, or sits at its path
        raise PageExistsError(
            f"{path} is not a session page (kind {kind!r}) but holds this session's id or"
            " path; it is left unchanged"
        )
    entry = agent_input.evidence(page.evidence)
    steps = [
        *(
            edits.set_key(path, key, page.values.get(key))
            if not isinstance(page.values.get(key), list)
            else _set_list(path, key, page.values[key])
            for key in session_page.OWNED_KEYS
        ),
        edits.add_values(path, "tags", ["session"]),
        edits.add_evidence(path, entry),
        lambda text: session_page.with_body(text, page.body),
    ]
    return Edit(path, disk, edits.then(*steps))


def _session_path(
    config: Config, sidecar: Sidecar, page: SessionPage, taken: Collection[str]
) -> str:
    """The path of a session no page holds yet: ``page.path`` unless it is ``taken`` or a
    page there cites other sessions (``session:ID`` evidence), else the first such free
    ``STEM-N.md`` (N from 2)."""
    stem = page.path.removesuffix(".md")
    for n in itertools.count(1):
        path = page.path if n == 1 else f"{stem}-{n}.md"
        if path in taken:
            continue
        if not (config.vault / path).exists():
            return path
        sessions = {r["source"] for r in sidecar.evidence_of(path) if r["kind"] == "session"}
        if not sessions or page.evidence.split(":", 1)[1] in sessions:
            return path
    raise AssertionError("unreachable")  # pragma: no cover


def _set_list(path: str, key: str, values: list[str]) -> Callable[[str], str]:
    return lambda text: splice_key(text, key, values, path=path)
