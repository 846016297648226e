"""``vault-sync eval``: retrieval measured on LoCoMo, LongMemEval and the user's own queries.

Each command loads its benchmark, runs it through the engine's own sync and search (passed to
:func:`vault_sync.eval_run.run_benchmark`), and prints a table, or every number with
``--json``. Kept apart from ``cli.py``, which adds this group to the command line.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from vault_sync.discover import find_vault

F = TypeVar("F", bound=Callable[..., Any])


def _common(func: F) -> F:
    """The options every benchmark takes: --split, --ablate, --json, --html."""
    func = click.option(
        "--html",
        "html_file",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help="Also write a self-contained HTML page: tables, charts, misses.",
    )(func)
    func = click.option("--json", "as_json", is_flag=True, help="Print every number as JSON.")(func)
    func = click.option(
        "--ablate",
        default="",
        metavar="NAME,...",
        help="Also run these configurations (plain-bm25, or a ranking switch) in one table.",
    )(func)
    return click.option(
        "--split",
        type=click.Choice(["dev", "test", "all"]),
        default="all",
        show_default=True,
        help="Questions to ask: dev (tune on it), test (report it) or all.",
    )(func)


def _run(bench: Any, split: str, ablate: str, as_json: bool, html_file: Path | None) -> None:
    """Run ``bench`` through the engine and print the table (or JSON); write ``html_file``."""
    from vault_sync.app import Engine
    from vault_sync.eval_report import (
        progress_bar,
        scrubbed,
        summary_lines,
        table_lines,
        to_json,
    )
    from vault_sync.eval_run import configurations, run_benchmark
    from vault_sync.rank_plan import SWITCHES

    if html_file is not None and not html_file.resolve().parent.is_dir():
        # checked before the run (a LoCoMo run takes a minute), not after it
        raise click.BadParameter(
            f"{html_file}: cannot write: No such directory", param_hint="--html"
        )
    names = [n.strip() for n in ablate.split(",") if n.strip()]
    configs = configurations(names, SWITCHES)
    result = run_benchmark(
        bench,
        split=split,
        configs=configs,
        sync=lambda config: Engine(config).sync(),
        search=lambda config, text, **options: Engine(config).search(text, **options),
        progress=progress_bar(not as_json),
    )
    result = scrubbed(result)  # every output below is made from the scrubbed run
    if html_file is not None:
        _write_html(result, html_file)
    if as_json:
        click.echo(json.dumps(to_json(result), ensure_ascii=False, indent=2, sort_keys=True))
        return
    for line in summary_lines(result) + table_lines(result):
        click.echo(line)


def _write_html(result: Any, path: Path) -> None:
    """Write the run's HTML page atomically; an unwritable path is a usage error (exit 2)."""
    from vault_sync.atomic import write_atomic
    from vault_sync.eval_html import render_html

    try:
        write_atomic(path, render_html(result).encode())
    except OSError as exc:
        raise click.BadParameter(
            f"{path}: cannot write: {exc.strerror or exc}", param_hint="--html"
        ) from exc


@click.group("eval")
def eval_group() -> None:
    """Measure retrieval: LoCoMo, LongMemEval, typed memory, or your own known-answer queries."""


@eval_group.command()
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@click.option(
    "--unit",
    type=click.Choice(["session", "turn"]),
    default="session",
    show_default=True,
    help="One page per session, or one per turn.",
)
@click.option("--audited", is_flag=True, help="Use the corrected evidence of the audit file.")
@_common
def locomo(
    path: Path,
    unit: str,
    audited: bool,
    split: str,
    ablate: str,
    as_json: bool,
    html_file: Path | None,
) -> None:
    """LoCoMo (PATH: locomo10.json or its folder): session pages, a project per conversation."""
    from vault_sync.eval_locomo import load_locomo

    _run(load_locomo(path, unit=unit, audited=audited), split, ablate, as_json, html_file)


@eval_group.command()
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@click.option(
    "--roles",
    type=click.Choice(["user", "all"]),
    default="user",
    show_default=True,
    help="Index the user's turns only, or the assistant's too.",
)
@_common
def longmemeval(
    path: Path, roles: str, split: str, ablate: str, as_json: bool, html_file: Path | None
) -> None:
    """LongMemEval (PATH: the oracle, pooled in one vault, or an _s file: a vault per question)."""
    from vault_sync.eval_longmemeval import load_longmemeval

    _run(load_longmemeval(path, roles=roles), split, ablate, as_json, html_file)


@eval_group.command()
@click.option(
    "--seed-dev",
    type=int,
    default=None,
    help="Seed of the dev vaults (default 101).",
)
@click.option(
    "--seed-test",
    type=int,
    default=None,
    help="Seed of the test vaults (default 202); must differ from the dev seed.",
)
@click.option(
    "--vaults",
    type=click.IntRange(min=1),
    default=4,
    show_default=True,
    help="Vaults per split (each about 140 pages and 25 questions).",
)
@_common
def typed(
    seed_dev: int | None,
    seed_test: int | None,
    vaults: int,
    split: str,
    ablate: str,
    as_json: bool,
    html_file: Path | None,
) -> None:
    """Generated vaults of typed agent memory: fixes, causes, supersession, contradictions."""
    from vault_sync.eval_typed import load_typed
    from vault_sync.eval_typed_pages import DEV_SEED, TEST_SEED

    dev = DEV_SEED if seed_dev is None else seed_dev
    test = TEST_SEED if seed_test is None else seed_test
    if dev == test:
        raise click.BadParameter("the dev and test seeds must differ", param_hint="--seed-test")
    bench = load_typed(seed_dev=dev, seed_test=test, vaults=vaults)
    _run(bench, split, ablate, as_json, html_file)


@eval_group.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--vault",
    type=click.Path(path_type=Path),
    default=None,
    help="The vault to query (default: as for every command).",
)
@_common
def queries(
    file: Path,
    vault: Path | None,
    split: str,
    ablate: str,
    as_json: bool,
    html_file: Path | None,
) -> None:
    """Your own known-answer queries (FILE: JSONL of {query, expected, project, group, split})."""
    from vault_sync.eval_data import load_queries

    chosen = vault or (click.get_current_context().find_root().obj or {}).get("vault")
    _run(load_queries(file, find_vault(chosen)), split, ablate, as_json, html_file)
