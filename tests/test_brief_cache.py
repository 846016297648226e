"""The watcher's kept briefing inputs (:mod:`vault_sync.brief_cache`) equal a full read after
every kind of change a batch can make: random edits of a generated vault, each synced as a
watcher batch is (its paths only), each followed by a comparison of the kept facts and
orders with a full read, and of the briefings made from each."""

from __future__ import annotations

import random
import re
import sys
from collections.abc import Callable
from pathlib import Path

from tests.conftest import REPO
from vault_sync.app import Engine

sys.path.insert(0, str(REPO / "benchmarks"))

from generate_vault import generate

KINDS = ("rule", "decision", "gotcha", "procedure", "bug", "session", "note")
STATUSES = ("active", "active", "archived", "superseded", "historical")
EDGES = ("contradicts", "supersedes", "superseded_by", "fixes")


def set_key(text: str, key: str, value: str) -> str:
    """``text`` with its frontmatter ``key`` (and the list lines under it) set to ``value``."""
    if not text.startswith("---\n"):
        text = "---\n---\n" + text
    end = text.index("\n---", 3)
    head = re.sub(rf"(?m)^{key}:.*\n(?:[ \t]+.*\n)*", "", text[4 : end + 1])
    return f"---\n{key}: {value}\n{head}{text[end + 1 :]}"


class Edits:
    """Random edits of a vault's pages, each returning the paths it changed."""

    def __init__(self, vault: Path, rng: random.Random) -> None:
        self.vault, self.rng, self.made = vault, rng, 0
        self.pending: list[str] = []  # names linked to before any page has them

    def pages(self) -> list[Path]:
        found = self.vault.rglob("*.md")
        return sorted(p for p in found if ".vault-sync" not in p.parts)

    def page(self) -> Path:
        return self.rng.choice(self.pages())

    def day(self) -> str:
        year, month = self.rng.randint(20, 40), self.rng.randint(1, 12)
        return f"20{year}-{month:02}-{self.rng.randint(1, 28):02}"

    def rewrite(self, key: str, value: str, page: Path | None = None) -> list[Path]:
        page = page or self.page()
        page.write_text(set_key(page.read_text(encoding="utf-8"), key, value), encoding="utf-8")
        return [page]

    def append(self) -> list[Path]:
        page = self.page()
        with open(page, "a", encoding="utf-8") as f:
            f.write(f"\nappended {self.rng.randrange(10**6)}\n")
        return [page]

    def reword(self) -> list[Path]:
        """A page's first sentence (its summary in the standing answers) changes."""
        page = self.page()
        text = page.read_text(encoding="utf-8")
        at = text.index("\n---", 3) + 5 if text.startswith("---\n") else 0
        said = f"Reworded {self.rng.randrange(10**6)}. "
        page.write_text(text[:at] + said + text[at:], encoding="utf-8")
        return [page]

    def status(self) -> list[Path]:
        return self.rewrite("status", self.rng.choice(STATUSES))

    def pair(self) -> list[Path]:
        """Two new active rules, the first superseding the second."""
        self.made += 1
        new, old = self.vault / f"Successor {self.made}.md", self.vault / f"Old {self.made}.md"
        old.write_text(f"---\nkind: rule\ndate: 2020-01-0{self.made % 9 + 1}\n---\nOld.\n")
        text = f'---\nkind: rule\nsupersedes: "[[{old.stem}]]"\ndate: 2020-01-01\n---\nNew.\n'
        new.write_text(text, encoding="utf-8")
        return [new, old]

    def successor(self) -> list[Path]:
        """A page that supersedes another changes status: the other is current or not."""
        pages = [p for p in self.pages() if "\nsupersedes:" in p.read_text(encoding="utf-8")]
        mine = [p for p in pages if p.name.startswith("Successor ")]
        page = self.rng.choice(mine if mine and self.rng.random() < 0.7 else pages)
        return self.rewrite("status", self.rng.choice(STATUSES), page)

    def date(self) -> list[Path]:
        return self.rewrite("date", self.day())

    def kind(self) -> list[Path]:
        return self.rewrite("kind", self.rng.choice(KINDS))

    def evidence(self) -> list[Path]:
        n = self.rng.randrange(3)
        return self.rewrite("evidence", f"\n  - session:s{n} @{self.day()}\n  - feedback:f{n}")

    def valid(self) -> list[Path]:
        return self.rewrite(self.rng.choice(("valid_from", "valid_to")), self.day())

    def project(self) -> list[Path]:
        return self.rewrite("project", self.rng.choice(("alpha", "beta")))

    def edge(self) -> list[Path]:
        return self.rewrite(self.rng.choice(EDGES), f'"[[{self.page().stem}]]"')

    def new(self) -> list[Path]:
        self.made += 1
        target = self.page().stem
        if self.rng.random() < 0.4:
            target = f"Later {self.made}"
            self.pending.append(target)
        name = self.pending.pop(0) if self.pending and self.rng.random() < 0.5 else None
        page = self.vault / ("alpha" if self.rng.random() < 0.5 else "beta") / "x.md"
        page = page.with_name(f"{name or f'New {self.made}'}.md")
        page.parent.mkdir(exist_ok=True)
        text = f"---\nkind: {self.rng.choice(KINDS)}\nstatus: {self.rng.choice(STATUSES)}\n"
        text += f'date: {self.day()}\n{self.rng.choice(EDGES)}: "[[{target}]]"\n---\n'
        page.write_text(text + f"Page {self.made}. More.\n", encoding="utf-8")
        return [page]

    def delete(self) -> list[Path]:
        page = self.page()
        page.unlink()
        return [page]

    def move(self) -> list[Path]:
        page = self.page()
        moved = self.vault / "moved" / page.name
        moved.parent.mkdir(exist_ok=True)
        page.rename(moved)
        return [page, moved]


def test_kept_briefing_inputs_equal_a_full_read_after_random_batches(tmp_path: Path) -> None:
    from vault_sync import briefing
    from vault_sync.brief_cache import FactsCache

    vault = tmp_path / "v"
    generate(vault, 200, 2)
    (vault / "vault-sync.toml").write_text('[projects]\n"alpha/**" = "alpha"\n', encoding="utf-8")
    engine = Engine.open(vault)
    engine.sync()
    cache = FactsCache()
    rng = random.Random(5)
    edits = Edits(vault, rng)
    kinds: list[Callable[[], list[Path]]] = [
        edits.append,
        edits.reword,
        edits.status,
        edits.successor,
        edits.successor,
        edits.date,
        edits.kind,
        edits.evidence,
        edits.valid,
        edits.project,
        edits.edge,
        edits.new,
        edits.delete,
        edits.move,
    ]
    moved_day, day_before = 0, None
    for step in range(30):
        paths = [] if step == 0 else edits.pair() if step < 3 else rng.choice(kinds)()
        engine.sync(full_check=False, scope=[str(p.relative_to(vault)) for p in paths])
        for project in (None, "alpha"):
            (kept, ordered), _ = engine.read(lambda r, p=project: cache.inputs(r.sidecar, p))
            full, _ = engine.read(lambda r, p=project: briefing.gather(r.sidecar, p))
            assert kept == full, step
            assert list(kept.pages) == list(full.pages), step  # by path, as a full read
            assert ordered == briefing.lists(full), step
            for budget in (2_000, 40_000):
                cached = engine.brief(project=project, budget=budget, facts=cache)
                assert cached == engine.brief(project=project, budget=budget), step
            if project is None:
                moved_day += kept.day != day_before
                day_before = kept.day
    assert 0 < moved_day < 30  # both ways of moving on: built again, and page by page
