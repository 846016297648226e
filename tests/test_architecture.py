"""Pin the architecture: layer direction, a fast query path, docstrings on public names."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from tests.conftest import REPO

PACKAGE = REPO / "vault_sync"

#: STYLE.md: a module imports only from lower layers (same layer only where noted).
LAYERS = {
    "errors": 0,
    "config": 0,
    "config_values": 0,
    "discover": 0,
    "atomic": 0,
    "linear_regex": 0,
    "vault_init": 1,
    "page": 1,
    "parser": 2,  # a package: frontmatter, blocks, body, keys (PACKAGE_ORDER)
    "sanitize": 2,  # a package: rule, vendor, names, structural, overlaps, search (PACKAGE_ORDER)
    "placeholders": 2,
    "secret_values": 3,
    "frontmatter_secrets": 3,
    "secret_rules": 2,
    "links": 2,
    "layout": 2,
    "ignore": 2,
    "pagefile": 2,
    "legacy_cjk": 1,
    "vault": 3,
    "vault_walk": 3,
    "scan_result": 2,
    "watch_arm": 3,
    "store": 3,  # a package: columns, schema, records, reads, writes (PACKAGE_ORDER)
    "index": 3,  # a package: analyzers, schema, files, writer, page_index (PACKAGE_ORDER)
    "lock": 3,
    "clean": 4,
    "prepare": 4,
    "sync": 4,
    "sync_plan": 4,
    "batch_write": 4,
    "redaction": 4,
    "query_fields": 4,
    "passages": 4,
    "fragments": 4,
    "query_text": 4,
    "retrieve": 4,
    "ranking_settings": 0,
    "page_facts": 4,
    "graph_stream": 4,
    "authority": 4,
    "not_yet": 4,
    "rank_explain": 4,
    "paired_read": 4,
    "ranking": 5,
    "rank_plan": 5,
    "report": 4,
    "lint": 4,
    "explain": 4,
    "watch": 5,
    "watch_events": 3,
    "import_watch": 5,
    "briefing": 5,
    "brief_facts": 5,
    "brief_cache": 5,
    "brief_render": 2,
    "engine": 6,
    "readers": 6,
    "progress": 0,
    "stopwords": 0,
    "terminal": 0,
    "plaintext": 1,
    "snippets": 2,
    "eval_metrics": 1,
    "eval_data": 1,
    "eval_locomo": 2,
    "eval_longmemeval": 2,
    "eval_baseline": 2,
    "eval_typed_words": 1,
    "eval_typed_pages": 2,
    "eval_typed": 3,
    "eval_run": 5,
    "eval_report": 6,
    "eval_html": 6,
    "app": 7,
    "edits": 5,
    "page_refs": 5,
    "neighbours": 5,
    "remember": 4,
    "write_commands": 6,
    "session_import": 6,
    "splice": 3,
    "confine": 2,
    "supersession": 1,
    "agent_input": 3,  # reads the known keys (parser.keys): a relation type is none of them
    "transcript": 1,
    "import_claude": 2,
    "import_codex": 2,
    "import_gemini": 2,
    "import_plain": 2,
    "session_digest": 3,
    "session_page": 5,
    "cli_common": 8,
    "cli_eval": 8,
    "cli_write": 8,
    "cli_import": 8,
    "cli_brief": 8,
    "cli_serve": 8,
    "cli_redact": 8,
    "cli_reports": 8,
    "cli_query": 8,
    "page_dates": 1,
    "time_phrases": 1,
    "typed_text": 3,
    "brief_targets": 3,
    "confidence": 1,
    "cli": 8,
    "mcp": 8,
    "mcp_server": 8,
    "mcp_calls": 8,
    "mcp_writes": 8,
    "mcp_stdio": 7,
    "__main__": 9,
    "__init__": 0,
}
#: Same-layer imports that are allowed: config raises the errors of layer 0 and checks the
#: sanitize patterns with RE2 (linear_regex); sanitize runs the
#: vendor formats of its data table and its placeholder checks; cli adds the `eval` group,
#: which lives in its own module (cli_eval) to keep cli.py small; eval's HTML page formats its
#: cells and summary as the text table does; retrieve builds its plans from query_text's
#: clauses of user text and query_fields' per-field queries, and rescores with passages' best
#: sections (the retrieval layer, in four modules); sync applies pages that prepare
#: read, parsed and cleaned (the sanitizer seam, clean) — the sync layer, in three modules.
ALLOWED_SAME_LAYER: set[tuple[str, str]] = {
    ("config", "config_values"),  # the config file's values, each read and checked
    ("config", "errors"),
    ("config_values", "errors"),
    ("config_values", "linear_regex"),
    ("discover", "config_values"),  # the store folder's default name
    ("config", "ranking_settings"),
    ("discover", "config"),  # vault discovery looks for the config file's name
    ("discover", "errors"),
    ("rank_explain", "query_fields"),
    ("ranking", "rank_plan"),
    ("rank_explain", "page_facts"),
    ("page_facts", "confidence"),
    ("ranking_settings", "errors"),
    ("authority", "ranking_settings"),
    ("sanitize", "secret_rules"),
    ("sanitize", "placeholders"),
    ("cli", "cli_eval"),
    ("cli", "cli_query"),  # the query command, imported with the group (the fast path)
    ("cli_query", "cli_common"),
    ("cli", "cli_common"),
    ("cli", "cli_write"),
    ("cli", "cli_import"),
    ("cli_import", "cli_common"),
    ("cli_import", "cli_write"),
    ("cli_eval", "cli_common"),
    ("cli_write", "cli_common"),
    ("cli", "cli_brief"),
    ("brief_cache", "briefing"),  # the watcher's kept page facts, assembled as briefing does
    ("brief_cache", "brief_facts"),
    ("briefing", "brief_facts"),  # the briefing: facts and orders, then sections
    ("cli", "mcp_server"),
    ("mcp_server", "cli_common"),
    ("mcp_server", "mcp_calls"),  # the MCP front end, in three modules
    ("mcp_server", "mcp_writes"),
    ("mcp_writes", "mcp_calls"),
    ("cli_brief", "cli_common"),
    ("readers", "engine"),  # a read that finds no usable store syncs (DESIGN §3)
    ("cli", "cli_serve"),  # watch and mcp, lazily loaded: cli.py stays small
    ("cli", "cli_redact"),
    ("cli", "cli_reports"),
    ("cli_serve", "cli_common"),
    ("cli_serve", "mcp_server"),
    ("cli_redact", "cli_common"),
    ("cli_reports", "cli_common"),
    ("eval_html", "eval_report"),
    ("retrieve", "query_fields"),
    ("retrieve", "query_text"),
    ("retrieve", "passages"),
    ("retrieve", "fragments"),  # tantivy's snippet passage, replayed from stored tokens
    ("passages", "query_fields"),
    ("query_text", "query_fields"),
    ("prepare", "clean"),
    ("vault", "vault_walk"),  # scan starts the walk: the folder layer, in two modules
    ("sync", "clean"),
    ("sync", "prepare"),
    ("sync", "batch_write"),
    ("sync", "sync_plan"),
    ("batch_write", "prepare"),
}


#: Inside a package, a module imports only the package's modules listed before it.
PACKAGE_ORDER = {
    "index": [
        "section_terms",
        "word_pairs",
        "analyzers",
        "schema",
        "files",
        "writer",
        "page_index",
        "__init__",
    ],
    "parser": ["yaml_plain", "frontmatter", "blocks", "body", "readings", "keys", "__init__"],
    "sanitize": [
        "rule",
        "vendor",
        "phrases",
        "names",
        "locators",
        "pairs",
        "syntax",
        "apart",
        "spaced",
        "commands",
        "callargs",
        "shellcreds",
        "arglists",
        "tokencli",
        "protocols",
        "hashes",
        "structural",
        "overlaps",
        "wallets",
        "seeds",
        "monero",
        "search",
        "rendered",
        "encoded",
        "operators",
        "htmltables",
        "layout",
        "labelled",
        "nextline",
        "spoken",
        "markup",
        "repeats",
        "__init__",
    ],
    "store": ["columns", "schema", "records", "graph_reads", "reads", "writes", "__init__"],
    "retrieve": ["query", "hits", "run", "__init__"],
    "ranking": ["candidates", "order", "pipeline", "__init__"],
}


def _modules() -> list[tuple[str, Path]]:
    """``(layer name, file)`` of every module; a package's modules take the package's name."""
    found = [(path.stem, path) for path in sorted(PACKAGE.glob("*.py"))]
    for package in sorted(p for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()):
        found += [(package.name, path) for path in sorted(package.glob("*.py"))]
    return found


def _imports(path: Path, depth: int = 1) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.module.startswith("vault_sync")
        ):
            parts = node.module.split(".")
            if len(parts) > depth:
                found.add(parts[depth])
            elif len(parts) == depth:
                found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "vault_sync" and len(parts) > depth:
                    found.add(parts[depth])
    return found


def test_modules_import_only_lower_layers() -> None:
    for name, path in _modules():
        assert name in LAYERS, f"{name}.py has no layer in this test (and in STYLE.md)"
        for imported in _imports(path):
            if imported == "__version__" or imported == name:
                continue
            assert imported in LAYERS, f"{name} imports unknown vault_sync.{imported}"
            lower = LAYERS[imported] < LAYERS[name]
            assert lower or (name, imported) in ALLOWED_SAME_LAYER, (
                f"{name} (layer {LAYERS[name]}) imports {imported} (layer {LAYERS[imported]})"
            )


def test_package_modules_import_only_earlier_ones() -> None:
    packages = {name for name, path in _modules() if path.parent != PACKAGE}
    assert packages == set(PACKAGE_ORDER), "each package needs its order in PACKAGE_ORDER"
    for package, order in PACKAGE_ORDER.items():
        folder = PACKAGE / package
        assert sorted(p.stem for p in folder.glob("*.py")) == sorted(order), package
        for index, module in enumerate(order):
            imported = _imports(folder / f"{module}.py", depth=2) & set(order)
            assert imported <= set(order[:index]), f"{package}.{module} imports {imported}"


def test_every_exception_is_in_the_tree_errors_draws() -> None:
    """Exceptions live in errors.py and its docstring draws each (private signals aside)."""
    import vault_sync.errors as errors

    drawn = set((errors.__doc__ or "").split())
    for _, path in _modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef) or node.name.startswith("_"):
                continue
            bases = {b.id for b in node.bases if isinstance(b, ast.Name)}
            if any(b.endswith(("Error", "Exception", "Mismatch")) for b in bases):
                assert path.name == "errors.py", f"{path.name}: {node.name} belongs in errors.py"
                assert node.name in drawn, f"{node.name} is not drawn in errors.py's docstring"


def test_public_functions_and_classes_have_docstrings() -> None:
    for _, path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assert ast.get_docstring(tree), f"{path.name} has no module docstring"
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.ClassDef) and not node.name.startswith("_"):
                assert ast.get_docstring(node), f"{path.name}: {node.name} has no docstring"


HEAVY = ("pydantic", "yaml", "markdown_it", "watchdog", "rich", "ruamel", "pathspec", "filelock")


def test_query_path_keeps_heavy_modules_off(make_vault: Callable[..., Path]) -> None:
    vault = make_vault({"a.md": "hello world\n"})
    subprocess.run(
        [sys.executable, "-m", "vault_sync", "--vault", str(vault), "sync"],
        check=True,
        capture_output=True,
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-X",
            "importtime",
            "-m",
            "vault_sync",
            "--vault",
            str(vault),
            "query",
            "hello",
            "--json",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert '"a.md"' in proc.stdout
    loaded = {line.rsplit("|", 1)[-1].strip().split(".")[0] for line in proc.stderr.splitlines()}
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))
    # issue 10, whole-process query time: what a query does not need is imported where used
    # (the other commands' modules, logging, OpenSSL's hashlib, shutil; TOML and the
    # calendar only for a vault-sync.toml and a query naming a time)
    modules = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines()}
    assert not modules & set(LAZY), sorted(modules & set(LAZY))


#: Modules a ``query`` (of a vault without vault-sync.toml, naming no time) never imports.
LAZY = (
    "logging",
    "hashlib",
    "shutil",
    "tomllib",
    "calendar",
    "vault_sync.cli_write",
    "vault_sync.cli_eval",
    "vault_sync.cli_import",
    "vault_sync.cli_brief",
    "vault_sync.cli_serve",
    "vault_sync.cli_redact",
    "vault_sync.cli_reports",
    "vault_sync.engine",  # the writers' wiring: a read that must repair imports it then
    "vault_sync.lock",
    "vault_sync.page",  # the page model and link resolution: the parser's and the writers'
    "vault_sync.links",
    "vault_sync.store.records",  # the rows sync writes
)


def test_public_api_is_pinned_and_importable() -> None:
    import vault_sync

    assert vault_sync.__all__ == sorted(vault_sync.__all__)
    assert vault_sync.__all__ == [
        "Config", "Hit", "Link", "Page", "PageIndex", "Reader", "Sidecar", "SyncResult",
        "VaultSyncError",
        "__version__", "find_vault", "load_config", "open_reader", "parse_page", "run_rebuild",
        "run_sync", "scan",
    ]  # fmt: skip
    for name in vault_sync.__all__:
        assert getattr(vault_sync, name) is not None
