"""The leak audit (issue 17): plant secrets in every place a page holds text, sync with the real
CLI, and look for any 12-character piece of any secret in the store folder and in every output.

Each (sample, place) pair gets its own freshly generated secret, so a leak names its place.
Looked at: every file under the store folder as bytes; each tantivy index's terms (every text
field) and stored documents, read through tantivy; and the output (stdout and stderr) of
``query --json`` (for the pages, and with secrets as the query text), ``show`` and
``show --json``, ``status`` (and ``--json``), ``lint --json``, ``redact`` (and ``--json``).
Pieces are compared as typed and lowercased (index terms are lowercased).

By hand, against any vault-sync install (the number for a change's note)::

    python -m tests.leak_audit [--full] [--python PATH/TO/.venv/bin/python]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from tests.secret_samples import Sample, samples

PIECE = 12
MARK = "zqaudit"

_UNSAFE_NAME = re.compile(r"[\x00-\x1f/\\:*?\"<>|#^\[\]]")


#: A Dataview inline-field key (vault_sync.parser.body's rule).
_FIELD_KEY = re.compile(r"[^\W\d][\w\-]*")


def _fm(key: str, value: str) -> str:
    return f"---\n{key}: {json.dumps(value)}\n---\n{MARK}\n"


#: Places of a format secret: name -> page text holding ``s`` (None: not plantable there).
FORMAT_PLACES: dict[str, Callable[[str], str | None]] = {
    "prose": lambda s: f"Notes {MARK}.\n\nWe used {s} for the deploy yesterday.\n",
    "code_block": lambda s: f'{MARK}\n\n```python\nclient = connect("{s}")\n```\n',
    "export_line": lambda s: f"{MARK}\n\n```sh\nexport SERVICE_TOKEN={s}\n```\n",
    "frontmatter_token": lambda s: _fm("token", s),
    "list_item": lambda s: f"{MARK}\n\n- first\n- {s}\n",
    "title": lambda s: _fm("title", s + " notes"),
    "tags": lambda s: f"---\ntags: [{json.dumps(s)}]\n---\n{MARK}\n",
    "aliases": lambda s: f"---\naliases: [{json.dumps(s)}]\n---\n{MARK}\n",
    "wikilink_target": lambda s: f"{MARK} see [[{s}]]\n",
    "wikilink_display": lambda s: f"{MARK} see [[Other|{s}]]\n",
    "heading": lambda s: f"{MARK}\n\n## Deploy {s}\n\ntext\n",
    "inline_field": lambda s: f"{MARK}\n\napi:: {s}\nrelated:: [[{s}]]\n",
    "evidence": lambda s: (
        "---\nevidence:\n  - kind: session\n    source: s-1\n"
        f"    note: {json.dumps(s)}\n  - kind: document\n    source: {json.dumps(s)}\n---\n{MARK}\n"
    ),
    # a key is a relation's type once snake-cased, an evidence entry's text starts with its
    # kind: names, which no output may print (fresh-user report 5, finding 1)
    "relation_key": lambda s: (
        f'---\n{json.dumps(s)}: "[[Other]]"\n---\n{MARK}\n' if "\n" not in s else None
    ),
    "inline_relation_key": lambda s: (
        f"{MARK}\n\n{s}:: [[Other]]\n" if _FIELD_KEY.fullmatch(s) else None
    ),
    "evidence_kind": lambda s: (
        f"---\nevidence:\n  - {json.dumps(s + ':s-1')}\n---\n{MARK}\n"
        if not re.search(r"[\s:]", s)
        else f"---\nevidence:\n  - kind: {json.dumps(s)}\n    source: s-1\n---\n{MARK}\n"
    ),
    "link_anchor": lambda s: f"{MARK} see [[Other#{s}]] and [x](other.md#{s})\n",
    "markdown_link": lambda s: f"{MARK} see [the docs](https://example.com/?k={s})\n",
    # glued to non-ASCII letters on both sides: a token is ASCII, です ends it (fresh user)
    "glued_non_ascii": lambda s: f"{MARK}\n\nトークンは{s}です\n",
}
#: The places where a secret is a name (a relation type, an evidence kind).
NAME_PLACES = frozenset({"relation_key", "inline_relation_key", "evidence_kind"})
#: Places of a secret known only by the name before it: the places that carry a name.
NAMED_PLACES: dict[str, Callable[[str], str | None]] = {
    "body_line": lambda line: f"{MARK}\n\n{line}\n",
    "code_block": lambda line: f"{MARK}\n\n```\n{line}\n```\n",
    "list_item": lambda line: f"{MARK}\n\n- {line}\n" if "\n" not in line else None,
    "glued_non_ascii": lambda line: f"{MARK}\n\nメモ：{line}です\n" if "\n" not in line else None,
}
FILE_NAME = "file_name"
#: Shapes of a secret split by what the plain-text views drop (fresh-user report, kind 1):
#: name -> the markup put around the secret's second half (``%s``), in the prose place.
SPLIT_SHAPES: dict[str, str] = {
    "split_bold": "**%s**",
    "split_comment": "<!-- x -->%s",
    "split_obsidian_comment": "%%%% x %%%%%s",
    "split_code": "`%s`",
    "split_html": "<span></span>%s",
    "split_expression": "${x}%s",
    "split_zero_width": "\u200b%s",
    "split_soft_hyphen": "\u00ad%s",
}
#: The markup of :data:`SPLIT_SHAPES`, dropped from an output to read it as a person would.
_PLANTED_MARKUP = re.compile(r"\*\*|<!-- x -->|%% x %%|`|<span></span>|\$\{x\}|\u200b|\u00ad")
#: A value repeated where no rule sees it (kind 2): the page holds the planted text and, in
#: prose, the bare secret again.
REPEATED = "repeated"


def _split(text: str, secret: str, markup: str) -> str | None:
    """``text`` with ``markup`` put inside its one-line ``secret`` (its second half in it)."""
    if "\n" in secret or len(secret) < 8 or text.count(secret) != 1:
        return None
    half = len(secret) // 2
    return text.replace(secret, secret[:half] + markup % secret[half:])


@dataclass
class Planted:
    """What was planted: ``secrets[(sample index, place)] = secret``; pages by path."""

    secrets: dict[tuple[int, str], str] = field(default_factory=dict)
    texts: dict[tuple[int, str], str] = field(default_factory=dict)
    pages: dict[str, tuple[int, str]] = field(default_factory=dict)
    kinds: list[Sample] = field(default_factory=list)


def plant(vault: Path, kinds: list[Sample], seed: int = 17) -> Planted:
    """Write one page per (sample, place) under ``vault``; return what was planted."""
    rng = random.Random(seed)
    # the name places draw from their own stream: adding them left every other draw as it was
    names_rng = random.Random(seed + 1)
    out = Planted(kinds=kinds)
    (vault / ".obsidian").mkdir(parents=True, exist_ok=True)
    (vault / "Other.md").write_text(f"# Other\n\n{MARK} target page.\n", encoding="utf-8")
    for i, sample in enumerate(kinds):
        places = NAMED_PLACES if sample.label == "named" else FORMAT_PLACES
        for place, make in places.items():
            text, secret = sample.plant(names_rng if place in NAME_PLACES else rng)
            page = make(text)
            if page is None:
                continue
            rel = f"p{i:03d}-{place}.md"
            (vault / rel).write_text(page, encoding="utf-8")
            out.secrets[(i, place)] = secret
            out.texts[(i, place)] = text
            out.pages[rel] = (i, place)
        text, secret = sample.plant(rng)
        shaped: dict[str, tuple[str, str, str]] = {}  # shape -> (page, text, secret)
        if "\n" not in secret:
            repeated = f"{MARK}\n\n{text}\n\nthen run: echo {secret} now\n"
            shaped[REPEATED] = (repeated, text, secret)
        for shape, markup in SPLIT_SHAPES.items() if sample.label != "named" else ():
            text, secret = sample.plant(rng)
            split = _split(text, secret, markup)
            if split is not None:
                shaped[shape] = (FORMAT_PLACES["prose"](split) or "", split, secret)
        for shape, (page, text, secret) in shaped.items():
            rel = f"p{i:03d}-{shape}.md"
            (vault / rel).write_text(page, encoding="utf-8")
            out.secrets[(i, shape)] = secret
            out.texts[(i, shape)] = text
            out.pages[rel] = (i, shape)
        if sample.label != "named":
            text, secret = sample.plant(rng)
            if not _UNSAFE_NAME.search(text) and len(text) < 180:
                rel = f"f{i:03d}-{text}.md"
                (vault / rel).write_text(f"{MARK} named file\n", encoding="utf-8")
                out.secrets[(i, FILE_NAME)] = secret
                out.texts[(i, FILE_NAME)] = text
                out.pages[rel] = (i, FILE_NAME)
    return out


def _pieces(planted: Planted) -> dict[str, tuple[int, str]]:
    pieces: dict[str, tuple[int, str]] = {}
    for key, secret in planted.secrets.items():
        for part in re.split(r"[\r\n]+", secret):
            for j in range(len(part) - PIECE + 1):
                piece = part[j : j + PIECE]
                pieces[piece] = key
                pieces.setdefault(piece.lower(), key)
    return pieces


def find_leaks(text: str, pieces: dict[str, tuple[int, str]]) -> set[tuple[int, str]]:
    """The (sample, place) keys of which some piece occurs in ``text``."""
    found: set[tuple[int, str]] = set()
    # the text as read, too: a secret split by planted markup shows whole once it is dropped
    # (a page kept ``5cff6df2**:bb7426e6**`` and no 12-character piece of it matched)
    read = _PLANTED_MARKUP.sub("", text)
    views = {text, text.lower(), read, read.lower()}
    for view in views:
        get = pieces.get
        for j in range(len(view) - PIECE + 1):
            key = get(view[j : j + PIECE])
            if key is not None:
                found.add(key)
    return found


def _index_texts(store: Path) -> Iterator[tuple[str, str]]:
    import tantivy

    for meta in store.rglob("meta.json"):
        index = tantivy.Index.open(str(meta.parent))
        searcher = index.searcher()
        fields = [
            f["name"]
            for f in json.loads(meta.read_text())["schema"]
            if f.get("type") == "text" and f.get("options", {}).get("indexing")
        ]
        for name in fields:
            terms = searcher.terms_with_prefix(name, "")
            yield f"terms:{name}", "\n".join(str(t) for t, _ in terms)
        hits = searcher.search(tantivy.Query.all_query(), limit=max(1, searcher.num_docs)).hits
        docs = [searcher.doc(addr).to_dict() for _, addr in hits]
        # bytes fields (``sections``: the body's tokens) are read as the UTF-8 text they hold
        text = json.dumps(docs, ensure_ascii=False, default=lambda b: b.decode("utf-8", "replace"))
        yield "stored", text


def _store_texts(store: Path) -> Iterator[tuple[str, str]]:
    for path in sorted(store.rglob("*")):
        if path.is_file():
            yield f"bytes:{path.name}", path.read_bytes().decode("latin-1")
    yield from _index_texts(store)


@dataclass
class Audit:
    """Counts: planted (sample, place) pairs, and where each leaked."""

    planted: int
    leaks: dict[tuple[int, str], set[str]]

    def by_place(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for _, place in self.leaks:
            out[place] = out.get(place, 0) + 1
        return dict(sorted(out.items()))


def run(python: str, vault: Path, planted: Planted, *, full: bool) -> Audit:
    """Sync ``vault`` with ``python -m vault_sync`` and audit the stores and outputs."""

    def cli(*args: str) -> str:
        proc = subprocess.run(
            [python, "-m", "vault_sync", "--vault", str(vault), *args],
            capture_output=True,
            text=True,
            timeout=600,
            env={**os.environ, "PYTHONPATH": ""},
            cwd=vault.parent,  # not the repository: `-m` would import its vault_sync first
        )
        return proc.stdout + "\n" + proc.stderr

    pieces = _pieces(planted)
    leaks: dict[tuple[int, str], set[str]] = {}

    def check(where: str, text: str) -> None:
        for key in find_leaks(text, pieces):
            leaks.setdefault(key, set()).add(where)

    check("sync", cli("sync"))
    for where, text in _store_texts(vault / ".vault-sync"):
        check(where, text)
    check("query --json", cli("query", MARK, "--json", "--limit", "100000"))
    for args in (["status"], ["status", "--json"], ["lint", "--json"], ["lint"]):
        check(" ".join(args), cli(*args))
    for args in (["redact", "--all"], ["redact", "--all", "--json"]):
        check(" ".join(args), cli(*args))
    for args in (["related", "Other"], ["related", "Other", "--json"]):  # typed links in
        check(" ".join(args), cli(*args))
    pages = list(planted.pages)
    shown = pages[:: 10 if full else max(1, len(pages) // 40)]
    check("brief --json", cli("brief", "--budget-chars", "10000000", "--json"))
    for rel in shown:
        check("show", cli("show", rel))
        check("show --json", cli("show", rel, "--json"))
        # a write's diff shows the page's own lines around the change: scrubbed too
        check("reinforce --dry-run", cli("reinforce", rel, "--evidence", "session:a", "--dry-run"))
        check("link --json", cli("link", rel, "related", rel, "--dry-run", "--json"))
    queried = list(planted.texts.values())  # the planted text: a bare value has no name
    queried = queried[:: 5 if full else max(1, len(queried) // 20)]
    for text in queried:
        check("query echo", cli("query", text.replace("\n", " "), "--json"))
    return Audit(len(planted.secrets), leaks)


def kinds_for(full: bool) -> list[Sample]:
    """All sample kinds (full), or the first of each label plus every named one (quick)."""
    every = samples()
    if full:
        return every
    seen: set[str] = set()
    quick = []
    for s in every:
        if s.label == "named" or s.label not in seen:
            quick.append(s)
            seen.add(s.label)
    return quick


def main() -> None:
    """Print the audit's counts for one install (``--python``), quick or ``--full``."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--full", action="store_true")
    ap.add_argument("--verbose", action="store_true", help="list each leak")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        vault = Path(tmp) / "vault"
        kinds = kinds_for(args.full)
        planted = plant(vault, kinds)
        audit = run(args.python, vault, planted, full=args.full)
    leaked_kinds = {kinds[i].label for i, _ in audit.leaks}
    print(f"{len(kinds)} sample kinds, {audit.planted} secrets x places planted")
    print(f"leaked: {len(audit.leaks)} ({100 * len(audit.leaks) / audit.planted:.1f} %)")
    print("by place:", audit.by_place())
    outs: dict[str, int] = {}
    for wheres in audit.leaks.values():
        for w in wheres:
            outs[w] = outs.get(w, 0) + 1
    print("by output:", dict(sorted(outs.items())))
    print("labels leaking:", sorted(leaked_kinds))
    if args.verbose:
        for (i, place), wheres in sorted(audit.leaks.items()):
            print(f"  {kinds[i].label} {kinds[i].template[:30]!r} in {place}: {sorted(wheres)}")


if __name__ == "__main__":
    main()
