"""No secret leaves through vault-sync (DESIGN Invariant 6), end to end: a page holding one
secret of every label is synced, and no output, stored field or store file carries any of them;
`lint` names file:line:label; `redact --write` removes them from the file and keeps the rest."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import NOBODY, give_to_nobody, run_cli, write_pages
from tests.test_sanitize import POSITIVE
from vault_sync import layout
from vault_sync.config import load_config
from vault_sync.errors import PageChangedError
from vault_sync.pagefile import content_hash, write_page
from vault_sync.sanitize import labels
from vault_sync.typed_text import scrub_typed

CLI = Callable[..., Any]
BUILTIN = [label for label in labels() if label in POSITIVE]


def secret_page() -> tuple[str, dict[str, str]]:
    """A page with every built-in label: in frontmatter, title, heading, tags, links, body."""
    secrets = {label: POSITIVE[label][1] for label in BUILTIN}
    lines = [f"{POSITIVE[label][0]}" for label in BUILTIN]
    text = (
        "---\n"
        "title: Deploy notes\n"
        f"aliases: [deploy {secrets['github_token']}]\n"
        f"api_token: {secrets['slack_token']}\n"
        f'evidence:\n  - {{kind: session, source: s1, note: "{secrets["stripe_key"]}"}}\n'
        "---\n"
        f"# Deploy {secrets['google_api_key']}\n\n"
        f"See [[Other {secrets['aws_key']}|{secrets['jwt']}]].\n\n"
        + "\n\n".join(lines)
        + "\ncommon deployword\n"
    )
    return text, secrets


@pytest.fixture
def vault(make_vault: Callable[..., Path]) -> tuple[Path, dict[str, str]]:
    text, secrets = secret_page()
    root = make_vault({"notes/deploy.md": text, "clean.md": "# Clean\n\ndeployword here\n"})
    return root, secrets


def assert_clean(blob: str | bytes, secrets: dict[str, str], where: str) -> None:
    for label, secret in secrets.items():
        needle: str | bytes = secret if isinstance(blob, str) else secret.encode()
        assert needle not in blob, f"{label} leaked through {where}"


def test_no_secret_in_any_output_or_store(cli: CLI, vault: tuple[Path, dict[str, str]]) -> None:
    root, secrets = vault
    assert cli("--vault", str(root), "sync").code == 0
    outputs = {
        "query --json": cli("--vault", str(root), "query", "deployword deploy", "--json"),
        "query --explain": cli("--vault", str(root), "query", "deploy", "--explain"),
        "query --json --explain": cli(
            "--vault", str(root), "query", "deploy", "--json", "--explain"
        ),
        "show": cli("--vault", str(root), "show", "notes/deploy"),
        "show --json": cli("--vault", str(root), "show", "notes/deploy", "--json"),
        "lint": cli("--vault", str(root), "lint"),
        "lint --json": cli("--vault", str(root), "lint", "--json"),
        "status --json": cli("--vault", str(root), "status", "--json"),
        "redact": cli("--vault", str(root), "redact", "--all"),
    }
    for where, result in outputs.items():
        assert "[REDACTED" in result.out or where.startswith(("lint", "status", "redact")), where
        assert_clean(result.out + result.err, secrets, where)
    assert "deploy.md" in outputs["query --json"].out
    folder = layout.active_set(load_config(root).store_path)
    assert folder is not None
    docs = stored_documents(layout.index_dir(folder))
    assert len(docs) >= 2
    assert_clean("\n".join(docs), secrets, "stored index fields")
    db = sqlite3.connect(layout.sidecar_file(folder))
    tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    for table in tables:
        for row in db.execute(f"SELECT * FROM {table}"):
            assert_clean(repr(row), secrets, f"sidecar table {table}")
    db.close()
    for suffix in ("", "-wal"):
        raw = Path(f"{layout.sidecar_file(folder)}{suffix}")
        if raw.exists():
            assert_clean(raw.read_bytes(), secrets, f"sidecar file{suffix or ''} bytes")


def stored_documents(index_dir: Path) -> list[str]:
    """Every stored field of every document, read back through tantivy (not raw bytes:
    tantivy compresses its store, so grepping files would prove nothing)."""
    import tantivy

    from vault_sync.index import register_analyzers

    index = tantivy.Index.open(str(index_dir))
    register_analyzers(index)
    searcher = index.searcher()
    hits = searcher.search(tantivy.Query.all_query(), limit=10_000).hits
    return [str(searcher.doc(address).to_dict()) for _score, address in hits]


def test_lint_names_file_line_and_label(cli: CLI, vault: tuple[Path, dict[str, str]]) -> None:
    root, secrets = vault
    result = cli("--vault", str(root), "lint", "--json")
    assert result.code == 1
    found = [p for p in result.json()["problems"] if p["code"] == "secret"]
    labels = {p["message"].split("(")[1].split(")")[0] for p in found}
    assert set(BUILTIN) <= labels
    text = (root / "notes" / "deploy.md").read_text(encoding="utf-8")
    first_body_line = text.splitlines().index("# Deploy " + secrets["google_api_key"]) + 1
    assert {"path": "notes/deploy.md", "line": first_body_line} in [
        {"path": p["path"], "line": p["line"]} for p in found
    ]


def test_redact_write_removes_secrets_and_keeps_every_other_byte(
    cli: CLI, make_vault: Callable[..., Path]
) -> None:
    token = POSITIVE["github_token"][1]
    original = (
        "\ufeff---\r\n"
        "title: Keep me   # a comment\r\n"
        f"token: {token}\r\n"
        "aliases:\r\n"
        f"  - {token} and more  # why\r\n"
        f"  - 'quoted {token}'\r\n"
        "---\r\n"
        f"Body with {token} inside.\r\n"
        "Untouched line.\r\n"
    )
    root = make_vault({"p.md": ""})
    (root / "p.md").write_bytes(original.encode("utf-8"))
    shown = cli("--vault", str(root), "redact", "p.md")
    assert shown.code == 1 and "p.md:3: github_token" in shown.out  # a check: secrets found
    assert shown.out.endswith("4 secrets in 1 page; run with --write to redact them in the files\n")
    assert token not in shown.out
    assert (root / "p.md").read_bytes() == original.encode("utf-8")  # not written without --write
    done = cli("--vault", str(root), "redact", "p", "--write")
    assert done.code == 0, done.err
    after = (root / "p.md").read_bytes()
    assert after.startswith("\ufeff".encode())
    text = after.decode("utf-8-sig")
    assert token not in text
    assert text == (
        "---\r\n"
        "title: Keep me   # a comment\r\n"
        'token: "[REDACTED:github_token]"\r\n'
        "aliases:\r\n"
        '  - "[REDACTED:github_token] and more"  # why\r\n'
        "  - 'quoted [REDACTED:github_token]'\r\n"
        "---\r\n"
        "Body with [REDACTED:github_token] inside.\r\n"
        "Untouched line.\r\n"
    )
    show = cli("--vault", str(root), "show", "p", "--json").json()
    assert show["frontmatter"]["token"] == "[REDACTED:github_token]"
    assert show["aliases"] == ["[REDACTED:github_token] and more", "quoted [REDACTED:github_token]"]
    assert cli("--vault", str(root), "lint", "--json").json()["errors"] == 0


def test_redact_needs_pages_or_all(cli: CLI, make_vault: Callable[..., Path]) -> None:
    root = make_vault({"a.md": "x\n"})
    assert cli("--vault", str(root), "redact").code == 2
    assert cli("--vault", str(root), "redact", "a", "--all").code == 2
    assert cli("--vault", str(root), "redact", "nothing").code == 1


def test_write_page_refuses_a_page_that_changed(tmp_path: Path) -> None:
    tmp_path = tmp_path / "v"
    tmp_path.mkdir()
    page = tmp_path / "p.md"
    page.write_bytes(b"old\n")
    stale = content_hash(b"something else\n")
    with pytest.raises(PageChangedError):
        write_page(tmp_path, "p.md", b"new\n", stale)
    assert page.read_bytes() == b"old\n"
    write_page(tmp_path, "p.md", b"new\n", content_hash(b"old\n"))
    assert page.read_bytes() == b"new\n"
    assert [p.name for p in tmp_path.iterdir()] == ["p.md"]  # no temp file left


def test_a_secret_in_a_file_name_never_leaves(cli: CLI, make_vault: Callable[..., Path]) -> None:
    token = POSITIVE["github_token"][1]
    root = make_vault({f"keys/{token}.md": "deployword here\n", "ok.md": "deployword too\n"})
    (root / f"diagram-{token}.png").write_bytes(b"png")
    outputs = [
        cli("--vault", str(root), "sync"),
        cli("--vault", str(root), "query", "deployword", "--json"),
        cli("--vault", str(root), "status", "--json"),
        cli("--vault", str(root), "lint", "--json"),
    ]
    for result in outputs:
        assert token not in result.out + result.err
    assert [h["path"] for h in outputs[1].json()["hits"]] == ["ok.md"]
    codes = [(p["code"], p["severity"]) for p in outputs[3].json()["problems"]]
    assert codes.count(("secret", "error")) == 2
    folder = layout.active_set(load_config(root).store_path)
    assert folder is not None
    for suffix in ("", "-wal"):
        raw = Path(f"{layout.sidecar_file(folder)}{suffix}")
        if raw.exists():
            assert token.encode() not in raw.read_bytes()


def test_redacted_names_never_match_each_other(cli: CLI, make_vault: Callable[..., Path]) -> None:
    """An alias and a link target holding different secrets both redact to the same token:
    the link must not resolve to the alias's page."""
    one, two = POSITIVE["github_token"][1], "ghp_" + POSITIVE["github_token"][1][4:][::-1]
    root = make_vault(
        {
            "body.md": f"---\naliases: [{one}]\n---\nbody\n",
            "linker.md": f"see [[{two}]]\n",
        }
    )
    cli("--vault", str(root), "sync")
    show = cli("--vault", str(root), "show", "linker", "--json").json()
    assert [(x["status"], x["target_path"]) for x in show["links_out"]] == [("unresolved", None)]
    assert cli("--vault", str(root), "show", "body", "--json").json()["aliases"] == []


@pytest.mark.parametrize(
    ("line", "written"),
    [
        ("aliases: [{t}, deploy]", 'aliases: ["[REDACTED:github_token]", deploy]'),
        ("k: prefix-{t}", "k: prefix-[REDACTED:github_token]"),
        ("m: {{a: {t}}}", 'm: {{a: "[REDACTED:github_token]"}}'),
        ("tags: [secret-{t}, ok]", 'tags: ["secret-[REDACTED:github_token]", ok]'),
        ("? {t}\n: v", '? "[REDACTED:github_token]"\n: v'),
        ("n: |\n  line {t}\n  two", "n: |\n  line [REDACTED:github_token]\n  two\n"),
        ("k: {t}", 'k: "[REDACTED:github_token]"'),
    ],
)
def test_redact_write_keeps_what_the_frontmatter_means(
    cli: CLI, make_vault: Callable[..., Path], line: str, written: str
) -> None:
    token = POSITIVE["github_token"][1]
    root = make_vault({"p.md": f"---\n{line.format(t=token)}\n---\nbody {token}\n"})
    before = cli("--vault", str(root), "show", "p", "--json").json()["frontmatter"]
    result = cli("--vault", str(root), "redact", "p", "--write")
    assert result.code == 0, result.out + result.err
    text = (root / "p.md").read_text(encoding="utf-8")
    assert token not in text
    assert text.startswith(f"---\n{written.format(t=token)}")
    assert text.endswith("---\nbody [REDACTED:github_token]\n")
    after = cli("--vault", str(root), "show", "p", "--json").json()["frontmatter"]
    assert after == before  # the stores already showed the redacted values: nothing moved


@pytest.mark.parametrize("style", ["|", "|-", ">", ">+", "|2"])
def test_redact_write_in_a_block_scalar_changes_only_the_secrets_bytes(
    cli: CLI, make_vault: Callable[..., Path], style: str
) -> None:
    """Fresh-user report: a token alone on a line of a ``notes: |`` block scalar turned the
    whole block into one double-quoted line. Only the token's bytes change now, and the
    frontmatter reads back as before with the token's text replaced."""
    import yaml

    token = POSITIVE["github_token"][1]
    original = (
        "---\n"
        "title: Deploy notes\n"
        f"notes: {style}  # kept\n"
        "  first line of notes\n"
        f"  {token}\n"
        "\n"
        "  last: line, [not] a list\n"
        "tags: [ops]\n"
        "---\n"
        "Body here.\n"
    )
    root = make_vault({"p.md": original})
    done = cli("--vault", str(root), "redact", "p", "--write")
    assert (done.code, done.err) == (0, ""), done.out
    assert done.out == (
        "p.md:5: github_token\nredacted 1 of the 1 secret found, in 1 of 1 page"
        " (only what the rules know is found)\n"
    )
    after = (root / "p.md").read_text(encoding="utf-8")
    assert after == original.replace(token, "[REDACTED:github_token]")
    front = lambda text: yaml.safe_load(text.split("---\n")[1])  # noqa: E731
    expected = front(original)
    expected["notes"] = expected["notes"].replace(token, "[REDACTED:github_token]")
    assert front(after) == expected
    assert "[REDACTED:github_token]" in front(after)["notes"]


def _secret_words(secret: str) -> list[str]:
    """The runs of letters and digits (8 or more) of a secret: what any analyzer would index."""
    import re

    return re.findall(r"[A-Za-z0-9]{8,}", secret)


def test_no_planted_secret_is_found_by_a_query_in_any_index_field(
    cli: CLI, make_vault: Callable[..., Path]
) -> None:
    """Search-only fields (headings, tags_text, name, the CJK and code fields) are never read
    back: a secret that reached one is found only by searching. Every planted secret, in every
    place a page can hold text, is searched for in every indexed field and through `query`."""
    import json

    import tantivy

    from vault_sync.index import register_analyzers
    from vault_sync.index.word_pairs import PAIRS_FIELD

    text, secrets = secret_page()
    s = {label: POSITIVE[label][1] for label in BUILTIN}
    ctx = {label: POSITIVE[label][0] for label in BUILTIN}  # with the words that make it one
    more = (
        "---\n"
        f"title: Runbook {ctx['bearer_token']}\n"
        f"tags: [ops, {s['stripe_key']}]\n"
        f"summary: rotate {ctx['google_oauth']}\n"
        "---\n"
        f"# Runbook\n\n## Step {ctx['auth_header']}\n\n### Then {ctx['aws_secret_key']}\n\n"
        f"fixes:: [[Bug {s['anthropic_key']}]]\n\ncommon words\n"
    )
    pages = {"notes/deploy.md": text, "ops/runbook.md": more, "clean.md": "clean\n"}
    pages[f"ops/{s['slack_token']}.md"] = "a page whose file name is a secret\n"
    root = make_vault(pages)
    assert cli("--vault", str(root), "sync").code == 0
    folder = layout.active_set(load_config(root).store_path)
    assert folder is not None
    index_dir = layout.index_dir(folder)
    meta = json.loads((index_dir / "meta.json").read_text(encoding="utf-8"))
    fields = [f["name"] for f in meta["schema"] if f["type"] == "text"]
    assert {"headings", "tags_text", "name", "body_code", "body_ident"} <= set(fields)
    # word_pairs holds one of 256 code characters per word (index.word_pairs), no text
    fields.remove(PAIRS_FIELD)
    index = tantivy.Index.open(str(index_dir))
    register_analyzers(index)
    searcher = index.searcher()
    found = []
    for label, secret in secrets.items():
        for word in _secret_words(secret):
            for field in fields:
                query = index.parse_query(f'{field}:"{word}"')
                if searcher.search(query, limit=1).count:
                    found.append((label, word, field))
            # `query` searches typed text as scrubbed: a word the sanitizer knows is searched
            # as its label (which the page holds); any other piece is searched as typed, and
            # must find nothing (no field holds it)
            if scrub_typed(word) != word:
                continue
            result = cli("--vault", str(root), "query", word, "--json")
            assert result.code == 0, result.err
            if result.json()["hits"]:
                found.append((label, word, "query"))
    assert not found, found


def test_redact_names_a_page_it_cannot_read(open_folder: Path) -> None:
    """As nobody (fresh-user report): a page made unreadable gave a PermissionError traceback."""
    token = "ghp_" + "dZ3kQ9xLmP2vR8sT4wY6bN1cF5hJ7gA0eK3u"
    vault = write_pages(open_folder / "vault", {"open.md": "lantern\n", "closed.md": token})
    give_to_nobody(vault)
    (vault / "closed.md").chmod(0o000)
    for write in ([], ["--write"]):
        done = run_cli("--vault", str(vault), "redact", "--all", *write, user=NOBODY,
                       env={"HOME": str(open_folder)})  # fmt: skip
        assert "Traceback" not in done.err, done.err
        assert done.err == "closed.md: cannot read: Permission denied\n"
        assert done.code == 0


@pytest.mark.parametrize("glue", ["-", "_", " ", "."])
def test_a_folder_whose_name_holds_a_secret_keeps_it_out_of_the_stores(
    make_vault: Callable[..., Path], cli: CLI, glue: str
) -> None:
    """Fresh-user report: ``keys-sk_live_…/note.md`` was stored and printed with its key (the
    file name's parts were scrubbed on their own, a folder's were not). Every vendor kind."""
    from vault_sync.sanitize import Scrubber

    scrubber = Scrubber()
    secrets = {  # every sample that a folder of its own name is left out for
        label: value
        for label, (_, value) in POSITIVE.items()
        if "/" not in value and len(value.encode()) < 200 and value.isprintable()
        and scrubber.scrub_names([f"{value}/note.md"])
    }  # fmt: skip
    assert {"stripe_key", "slack_token", "anthropic_key"} <= set(secrets), sorted(secrets)
    pages = {f"keys{glue}{secret}/note.md": "hello lantern\n" for secret in secrets.values()}
    root = make_vault({**pages, "plain.md": "hello lantern\n"})
    synced = cli("--vault", str(root), "sync")
    assert synced.code == 0, synced.err
    out = cli("--vault", str(root), "query", "lantern", "--json")
    assert [hit["path"] for hit in out.json()["hits"]] == ["plain.md"]
    lint = cli("--vault", str(root), "lint", "--json").out
    store = b"".join(p.read_bytes() for p in (root / ".vault-sync").rglob("*") if p.is_file())
    for secret in secrets.values():
        assert secret not in lint
        assert secret.encode() not in store
