"""`vault-sync brief` (issue 12): the sections on example-vault (golden bytes), determinism,
the budget on generated and real vaults (and as a property), `--out` without mtime churn."""

from __future__ import annotations

import re
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import REPO, Result, copy_corpus
from vault_sync.app import Engine
from vault_sync.confidence import Support, confidence

sys.path.insert(0, str(REPO / "benchmarks"))

from generate_vault import generate

Cli = Callable[..., Result]
GOLDEN = REPO / "tests" / "golden" / "brief-example-vault.md"


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("brief") / "example-vault"
    shutil.copytree(REPO / "example-vault", root, ignore=shutil.ignore_patterns(".vault-sync"))
    Engine.open(root).sync()
    return root


def _sections(text: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for block in re.split(r"^## ", text, flags=re.M)[1:]:
        heading, *lines = block.strip("\n").split("\n")
        out[heading] = [line for line in lines if line.startswith("- ")]
    return out


def test_example_vault_briefing_is_the_golden_bytes(example: Path, cli: Cli) -> None:
    out = cli("--vault", str(example), "brief")
    assert out.code == 0, out.err
    assert out.out == GOLDEN.read_text(encoding="utf-8")


def test_example_vault_briefing_says_what_the_issue_asks(example: Path) -> None:
    text, counts, _ = Engine.open(example).brief()
    parts = _sections(text)
    standing = "\n".join(parts["Standing answers"])
    assert "[[Retry policy v3]] (decision, 3 evidence)" in standing
    assert "[[Idempotency key on every charge]] (rule, 3 evidence)" in standing
    assert "Retry policy v1" not in standing and "Retry policy v2" not in standing
    assert parts["Open contradictions"] == [
        "- [[Retry policy v3]] contradicts [[Always retry five times]];"
        " newer: [[Retry policy v3]] (2026-03-04)"
    ]
    assert parts["Known fixes for open bugs"][0] == (
        "- [[Bug PAY-231 retry storm in the payment worker]]: fixed by [[Retry policy v3]]"
    )
    assert counts["Standing answers"] == {"shown": 9, "total": 9}
    assert text.endswith(" (or the `query` tool of the vault-sync MCP server)\n")


def test_same_vault_same_bytes_wherever_it_lives(example: Path, tmp_path: Path) -> None:
    other = tmp_path / "clone"
    shutil.copytree(example, other, ignore=shutil.ignore_patterns(".vault-sync"))
    for page in other.rglob("*.md"):
        page.touch()  # another clone: other mtimes
    Engine.open(other).sync()
    assert Engine.open(other).brief()[0] == Engine.open(example).brief()[0]


def _check_budget(text: str, full: str, budget: int) -> None:
    assert len(text) <= budget
    assert text.endswith("\n")
    whole = set(full.split("\n"))
    for line in text.split("\n"):
        assert (
            line in whole
            or re.fullmatch(r"- … \d+ more: `[^`]+`", line)
            or re.fullmatch(r"… \d+ more in \d+ sections? not shown(: .*)?", line)
        ), line
        assert line.count("[[") == line.count("]]"), line


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    vault = tmp_path_factory.mktemp("brief-10k") / "v"
    generate(vault, 10_000, 1)
    Engine.open(vault).sync()
    return vault


def test_the_budget_holds_on_a_10k_page_vault(big: Path) -> None:
    """At 300, 2,000 and 10,000 characters. One test, not one per budget: under
    ``pytest -n 2`` each worker running one of them built the 10k-page vault again."""
    full, _, _ = Engine.open(big).brief(budget=10**9)
    for budget in (300, 2_000, 10_000):
        text, counts, _ = Engine.open(big).brief(budget=budget)
        _check_budget(text, full, budget)
        standing = counts["Standing answers"]
        assert standing["total"] > standing["shown"], budget
        assert standing["shown"] > 0 or budget < 1_000, budget


@pytest.mark.parametrize("name", ["obsidian-tasks-docs", "silverbullet-docs", "dnd-srd-zh"])
def test_the_budget_holds_on_the_real_corpora(tmp_path: Path, name: str) -> None:
    vault = copy_corpus(name, tmp_path)
    engine = Engine.open(vault)
    engine.sync()
    full, _, _ = engine.brief(budget=10**9)
    for budget in (2_000, 10_000):
        text, _, _ = engine.brief(budget=budget)
        _check_budget(text, full, budget)


def test_no_budget_cuts_a_line_or_a_link(example: Path) -> None:
    """Property: whatever the budget, whole lines only and balanced links."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    engine = Engine.open(example)
    full, _, _ = engine.brief(budget=10**9)

    @settings(max_examples=150, deadline=None)
    @given(st.integers(min_value=300, max_value=len(full) + 50))
    def check(budget: int) -> None:
        text, _, _ = engine.brief(budget=budget)
        _check_budget(text, full, budget)

    check()


def test_every_entry_is_shown_or_counted_and_more_budget_never_shows_less(example: Path) -> None:
    """Property (fresh-user report: at 1,500 characters the example vault's briefing printed
    four headings with only "… N more" under them; a section shown at 500 was gone at 700
    with no marker; at 300 standing answers were dropped with no marker): a heading is printed
    only with at least one entry under it; every entry not shown is counted, by its section's
    "… N more" line or, for a section not shown at all, by the "… N more in K sections not
    shown" line; a larger budget never shows fewer entries of any section."""
    from hypothesis import example as case
    from hypothesis import given, settings
    from hypothesis import strategies as st

    engine = Engine.open(example)
    full, _, _ = engine.brief(budget=10**9)
    marker = re.compile(r"- … (\d+) more: `[^`]+`")
    dropped_line = re.compile(r"^… (\d+) more in (\d+) sections? not shown\b", re.M)

    def shown(budget: int) -> dict[str, list[str]]:
        text, counts, _ = engine.brief(budget=budget)
        assert len(text) <= budget
        sections = _sections(text)
        entries = {
            h: [x for x in lines if not marker.fullmatch(x)] for h, lines in sections.items()
        }
        cut = {
            h: sum(int(m[1]) for x in lines if (m := marker.fullmatch(x)))
            for h, lines in sections.items()
        }
        for heading, lines in entries.items():
            assert lines, f"{heading!r} printed with no entry under it at {budget}"
            assert len(lines) == counts[heading]["shown"], (heading, budget)
            assert len(lines) + cut[heading] == counts[heading]["total"], (heading, budget)
        missing = [h for h, c in counts.items() if c["total"] and h not in entries]
        found = dropped_line.search(text)
        if missing:
            assert found is not None, (budget, missing)
            assert int(found[1]) == sum(counts[h]["total"] for h in missing), budget
            assert int(found[2]) == len(missing), budget
        else:
            assert found is None, budget
        return entries

    assert set(shown(len(full))) == set(_sections(full))

    @settings(max_examples=150, deadline=None)
    @given(st.integers(min_value=300, max_value=len(full)), st.integers(1, 400))
    @case(300, 1)
    @case(500, 200)
    @case(1_500, 1)
    @case(376, 7)  # found by CI: a late section named at 376 and not at 383
    def check(budget: int, step: int) -> None:
        small, large = shown(budget), shown(budget + step)
        assert set(small) <= set(large), (budget, step)
        assert all(small[h] == large[h][: len(small[h])] for h in small), (budget, step)

    check()


def test_out_writes_once_and_leaves_an_unchanged_file_alone(example: Path, cli: Cli) -> None:
    target = example.parent / "AGENTS.md"
    first = cli("--vault", str(example), "brief", "--out", str(target), "--json")
    assert first.code == 0, first.err
    assert first.json()["written"] is True
    stamp = target.stat().st_mtime_ns
    second = cli("--vault", str(example), "brief", "--out", str(target), "--json").json()
    assert (second["written"], target.stat().st_mtime_ns) == (False, stamp)
    assert target.read_text(encoding="utf-8") == GOLDEN.read_text(encoding="utf-8")


def test_a_budget_below_the_minimum_is_a_usage_error(example: Path, cli: Cli) -> None:
    out = cli("--vault", str(example), "brief", "--budget-chars", "100")
    assert (out.code, out.err) == (2, "Error: a briefing budget is at least 300 characters\n")


def test_confidence_rises_with_sessions_and_falls_with_age_and_contradictions() -> None:
    fresh = [confidence(Support(n, 0, 0)) for n in range(5)]
    assert fresh == [0.0, 0.5, 0.75, 0.875, 0.9375]
    assert confidence(Support(2, 0, 180)) == 0.375  # one half-life
    assert confidence(Support(2, 0, 10_000)) == confidence(Support(2, 0, None)) == 0.375  # floor
    assert confidence(Support(2, 0, 0, contradictions=1)) == 0.525
    assert confidence(Support(100, 0, 0)) == 0.99  # bounded below 1
    assert confidence(Support(0, 2, 0)) == confidence(Support(1, 0, 0))  # two others = a session


# -- targets --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "before",
    [
        "# Agents\r\n\r\nBuild with make.\r\n<!-- vault-sync:begin -->\r\nold\r\n"
        "<!-- vault-sync:end -->\r\nTail\r\n",
        "# Agents\n\nno block, no trailing newline",
        "",
    ],
    ids=["crlf-block", "no-block-no-newline", "empty"],
)
def test_a_marked_block_is_replaced_and_every_other_byte_kept(before: str) -> None:
    from vault_sync.brief_targets import BEGIN, END, with_block

    after = with_block(before, "# Memory briefing\nline\n")
    start, end = after.index(BEGIN), after.index(END) + len(END)
    newline = "\r\n" if "\r\n" in before else "\n"
    assert after[start:end] == f"{BEGIN}{newline}# Memory briefing{newline}line{newline}{END}"
    if BEGIN in before:
        b_start, b_end = before.index(BEGIN), before.index(END) + len(END)
        assert (after[:start], after[end:]) == (before[:b_start], before[b_end:])
    else:
        assert after[:start] == (before + "\n\n" if before else "")
        assert after[end:] == "\n"
    assert with_block(after, "# Memory briefing\nline\n") == after


def test_configured_targets_are_written_checked_and_never_churned(
    example: Path, tmp_path: Path, cli: Cli
) -> None:
    repo = tmp_path / "code"
    repo.mkdir()
    agents = repo / "AGENTS.md"
    agents.write_bytes(b"# Team rules\r\n\r\nRun the tests.\r\n")
    (example / "vault-sync.local.toml").write_text(
        f'[[brief.targets]]\npath = "{agents}"\n\n'
        '[[brief.targets]]\npath = "BRIEF.md"\nmode = "file"\nbudget = 2000\n',
        encoding="utf-8",
    )
    try:
        base = ("--vault", str(example), "brief")
        assert cli(*base, "--check").code == 1
        first = cli(*base, "--json")
        assert first.code == 0, first.err
        assert [t["changed"] for t in first.json()["targets"]] == [True, True]
        text = agents.read_bytes().decode()
        assert text.startswith(
            "# Team rules\r\n\r\nRun the tests.\r\n\r\n<!-- vault-sync:begin -->"
        )
        assert len((example / "BRIEF.md").read_text(encoding="utf-8")) <= 2000
        stamps = [agents.stat().st_mtime_ns, (example / "BRIEF.md").stat().st_mtime_ns]
        again = cli(*base)
        assert again.out.count("up to date") == 2, again.out
        assert stamps == [agents.stat().st_mtime_ns, (example / "BRIEF.md").stat().st_mtime_ns]
        assert cli(*base, "--check").code == 0
        # a target's budget and project are its own: the options are refused, not ignored
        refused = cli(*base, "--budget-chars", "-5")
        assert (refused.code, refused.err.splitlines()[-1] + "\n") == (2, (
            "Error: --budget-chars apply to --out or stdout; each [[brief.targets]] entry has"
            " its own project and budget (print one with --out -)\n"
        ))  # fmt: skip
        assert stamps == [agents.stat().st_mtime_ns, (example / "BRIEF.md").stat().st_mtime_ns]
    finally:
        (example / "vault-sync.local.toml").unlink()
        (example / "BRIEF.md").unlink(missing_ok=True)


def test_a_whole_file_target_never_replaces_a_page_a_person_wrote(
    example: Path, tmp_path: Path, cli: Cli
) -> None:
    """Fresh-user report: a ``mode = "file"`` target naming ``Start here.md`` replaced the
    page with the briefing (and the next sync dropped it). Only an earlier briefing (or an
    empty file) is replaced; ``--out`` follows the same rule."""
    vault = tmp_path / "v"
    shutil.copytree(example, vault, ignore=shutil.ignore_patterns(".vault-sync"))
    page = vault / "Start here.md"
    before = page.read_bytes()
    (vault / "vault-sync.local.toml").write_text(
        '[[brief.targets]]\npath = "Start here.md"\nmode = "file"\n', encoding="utf-8"
    )
    refused = cli("--vault", str(vault), "brief")
    assert refused.code == 1 and "Traceback" not in refused.err
    assert refused.err.endswith(
        f"refusing to replace {page}: a whole-file briefing target replaces only an earlier"
        ' briefing (a file starting "# Memory briefing"), and this file is not one; use mode'
        ' = "block" to keep its text, or another path\n'
    )
    assert page.read_bytes() == before
    out = cli("--vault", str(vault), "brief", "--out", str(page))
    assert out.code == 1 and page.read_bytes() == before
    empty = tmp_path / "empty.md"
    empty.write_bytes(b"")
    assert cli("--vault", str(vault), "brief", "--out", str(empty)).code == 0
    assert empty.read_text(encoding="utf-8").startswith("# Memory briefing\n")
    assert cli("--vault", str(vault), "brief", "--out", str(empty)).code == 0  # its own: kept


def test_the_claude_hook_prints_session_start_json(example: Path, cli: Cli) -> None:
    import json

    out = cli("--vault", str(example), "brief", "--hook", "claude")
    assert out.code == 0, out.err
    event = json.loads(out.out)["hookSpecificOutput"]
    assert event["hookEventName"] == "SessionStart"
    assert event["additionalContext"] == GOLDEN.read_text(encoding="utf-8")


def _example_with_brief_file(tmp_path: Path) -> tuple[Path, Engine]:
    """A synced copy of example-vault whose config has a whole-file target ``BRIEF.md``."""
    vault = tmp_path / "v"
    shutil.copytree(REPO / "example-vault", vault, ignore=shutil.ignore_patterns(".vault-sync"))
    with open(vault / "vault-sync.toml", "a", encoding="utf-8") as f:
        f.write('\n[[brief.targets]]\npath = "BRIEF.md"\nmode = "file"\n')
    engine = Engine.open(vault)
    engine.sync()
    return vault, engine


def test_the_watcher_refreshes_the_targets_and_never_syncs_its_own_briefing(
    tmp_path: Path,
) -> None:
    """A batch that changes the stores rewrites the briefing; the briefing inside the vault
    is left out of the scan, so writing it starts no batch of its own (no loop)."""
    from vault_sync.watch_events import Batch

    vault, engine = _example_with_brief_file(tmp_path)
    engine.write_briefs()
    before = (vault / "BRIEF.md").read_text(encoding="utf-8")
    page = vault / "payments" / "Replay a failed charge.md"
    page.write_text(page.read_text(encoding="utf-8").replace("kind: procedure", "kind: note"))
    watcher = engine.watcher(lambda line: None)
    line = watcher.apply(Batch({"payments/Replay a failed charge.md"}))
    assert line is not None and line["changed"] == 1 and "brief_error" not in line
    assert line["brief_ms"] >= 0 and line["brief_cpu_ms"] >= 0  # the refresh, timed
    after = (vault / "BRIEF.md").read_text(encoding="utf-8")
    assert "[[Replay a failed charge]]" in before and "[[Replay a failed charge]]" not in after
    assert watcher.apply(Batch({"BRIEF.md"})) is None  # its own file: nothing to sync
    hits, _ = engine.search("Memory briefing Standing answers")
    assert "BRIEF.md" not in [h.path for h in hits]


def test_the_watcher_refreshes_the_targets_after_another_writers_change(
    tmp_path: Path, cli: Cli
) -> None:
    """Fresh-user report: a ``remember`` or ``reinforce`` while ``watch`` ran left the targets
    stale: the write syncs its page itself, so the watcher's batch for it found nothing to
    do. A batch refreshes the targets whenever the stores moved since the last refresh."""
    from vault_sync.watch_events import Batch

    vault, engine = _example_with_brief_file(tmp_path)
    watcher = engine.watcher(lambda line: None)
    assert watcher.apply(Batch(set())) is None  # the first pass writes the targets: no sync
    assert (vault / "BRIEF.md").is_file()
    wrote = cli(
        "--vault", str(vault), "remember", "Always pin the processor SDK", "--kind", "rule",
        "--body", "Pin the processor SDK to an exact version.",
    )  # fmt: skip
    assert wrote.code == 0, wrote.err
    page = next(vault.rglob("Always pin the processor SDK.md")).relative_to(vault).as_posix()
    assert watcher.apply(Batch({page})) is None  # its page was synced by the write itself
    assert "[[Always pin the processor SDK]]" in (vault / "BRIEF.md").read_text(encoding="utf-8")
    assert cli("--vault", str(vault), "brief", "--check").code == 0


def test_the_agents_doc_config_and_hook_work_on_example_vault(
    example: Path, tmp_path: Path, cli: Cli
) -> None:
    """docs/agents.md: its target config (home paths pointed at a temp home) and its
    Claude Code hook command run as written."""
    import json
    import os

    doc = (REPO / "docs" / "agents.md").read_text(encoding="utf-8")
    toml = re.findall(r"```toml\n(.*?)```", doc, re.S)[0]
    (example / "vault-sync.local.toml").write_text(toml, encoding="utf-8")
    home = tmp_path / "home"
    (home / "code" / "payments").mkdir(parents=True)
    env = {**os.environ, "HOME": str(home)}
    try:
        out = cli("--vault", str(example), "brief", "--json", env=env)
        assert out.code == 0, out.err
        written = sorted(Path(t["path"]).name for t in out.json()["targets"])
        assert written == ["AGENTS.md", "CLAUDE.md", "GEMINI.md"]
        assert cli("--vault", str(example), "brief", "--check", env=env).code == 0
    finally:
        (example / "vault-sync.local.toml").unlink()
    settings = json.loads(re.findall(r"```json\n(.*?)```", doc, re.S)[0])
    command = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    args = command.split()[1:]
    assert args[:2] == ["--vault", "~/notes"]
    hook = cli("--vault", str(example), *args[2:])
    assert hook.code == 0, hook.err
    assert json.loads(hook.out)["hookSpecificOutput"]["hookEventName"] == "SessionStart"


def test_out_to_a_folder_is_one_line_not_a_traceback(example: Path, cli: Cli) -> None:
    out = cli("--vault", str(example), "brief", "--out", str(example))
    assert out.code == 2 and "Traceback" not in out.err
    assert out.err.endswith(
        "Error: Invalid value for --out: cannot write " + str(example) + ": Is a directory\n"
    )


def test_out_into_a_missing_folder_is_refused_and_makes_no_folder(
    example: Path, cli: Cli, tmp_path: Path
) -> None:
    """Fresh-user report: ``brief --out /missing/dir/x.md`` made the folders."""
    target = tmp_path / "missing" / "dir" / "brief.md"
    out = cli("--vault", str(example), "brief", "--out", str(target))
    assert out.code == 2 and "Traceback" not in out.err
    assert out.err.endswith(
        f"Error: Invalid value for --out: cannot write {target}: folder {target.parent}"
        " does not exist\n"
    )
    assert not (tmp_path / "missing").exists()


def test_undated_contradictions_and_pages_without_text_read_plainly(tmp_path: Path) -> None:
    from vault_sync.brief_facts import Facts, PageFacts, contradictions
    from vault_sync.briefing import _answer

    a = PageFacts("A.md", "A", "rule", "active", None, None, None, None)
    b = PageFacts("B.md", "B", "rule", "active", None, None, None, None)
    facts = Facts({"A.md": a, "B.md": b}, contradicts=[("A.md", "B.md", "B")])
    against = contradictions(facts)
    assert against.lines == ["- [[A]] contradicts [[B]] (neither is dated)"]
    assert _answer(a, "", []) == "- [[A]] (rule, 0 evidence)"
    assert _answer(a, "Says so.", []) == "- [[A]] (rule, 0 evidence): Says so."
    # the target of an open contradiction says by whom, in the standing answers too
    assert against.challengers == {"B.md": [a]}
    assert against.counts == {"A.md": 1, "B.md": 1}
    assert _answer(b, "Says.", [a]) == "- [[B]] (rule, 0 evidence; contradicted by [[A]]): Says."


def test_the_watchers_first_pass_refreshes_targets_already_stale(tmp_path: Path, cli: Cli) -> None:
    """A page synced while no watcher ran leaves the targets stale; starting the watcher
    brings them up to date though its first pass finds nothing to sync (fresh-user report:
    ``brief --check`` still exited 1)."""
    from tests.watch_helpers import WatchProcess

    vault = tmp_path / "v"
    shutil.copytree(REPO / "example-vault", vault, ignore=shutil.ignore_patterns(".vault-sync"))
    with open(vault / "vault-sync.toml", "a", encoding="utf-8") as f:
        f.write('\n[[brief.targets]]\npath = "BRIEF.md"\nmode = "file"\n')
    assert cli("--vault", str(vault), "brief").code == 0
    page = vault / "payments" / "Replay a failed charge.md"
    page.write_text(page.read_text(encoding="utf-8").replace("kind: procedure", "kind: note"))
    assert cli("--vault", str(vault), "sync").code == 0
    assert cli("--vault", str(vault), "brief", "--check").code == 1
    watcher = WatchProcess(vault)
    try:
        watcher.wait_ready()  # its state is written after the first pass and its refresh
        assert cli("--vault", str(vault), "brief", "--check").code == 0
        assert watcher.stop() == 0
    finally:
        watcher.kill()
    assert watcher.lines == []  # nothing synced: no batch line


def test_the_watchers_kept_facts_equal_a_full_read_after_every_kind_of_change(
    tmp_path: Path,
) -> None:
    from vault_sync import briefing
    from vault_sync.brief_cache import FactsCache

    vault = tmp_path / "example-vault"
    shutil.copytree(REPO / "example-vault", vault, ignore=shutil.ignore_patterns(".vault-sync"))
    engine = Engine.open(vault)
    engine.sync()
    cache = FactsCache()

    def same() -> None:
        for project in (None, "payments"):
            kept, _ = engine.read(lambda r, p=project: cache.gather(r.sidecar, p))
            full, _ = engine.read(lambda r, p=project: briefing.gather(r.sidecar, p))
            assert kept == full
            assert list(kept.pages) == list(full.pages)  # by path, as a full read
            (_, ordered), _ = engine.read(lambda r, p=project: cache.inputs(r.sidecar, p))
            assert ordered == briefing.lists(full)
            assert engine.brief(project=project, facts=cache) == engine.brief(project=project)

    same()
    engine.write("reinforce", page="Retry policy v3", evidence="session:kept-1", at="2027-01-02")
    same()  # a page written: its evidence and date, and the vault's newest day
    (vault / "payments" / "Brand new rule.md").write_text(
        "---\nkind: rule\nstatus: active\ndate: 2027-02-03\n---\nAlways new.\n", encoding="utf-8"
    )
    engine.sync()
    same()  # a page added
    (vault / "payments" / "Retry policy v1.md").unlink()
    engine.sync()
    same()  # a page gone
    (vault / "payments" / "Charge queue.md").rename(vault / "search" / "Charge queue.md")
    engine.sync()
    same()  # a page moved (into another project)
    engine.rebuild()
    same()  # another store set
