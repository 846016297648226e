"""The pages of ``vault-sync eval typed``: generated vaults of typed agent memory (issue 10).

LoCoMo and LongMemEval pages carry no links, kinds, status or evidence, so ranking stages
that read them cannot move those benchmarks. This module writes, from a seeded
:class:`random.Random`, vaults of the shape agents write (DESIGN §2): per component an
``entity`` page and a runbook; ``bug`` pages with the pages that fix them (``fixes: [[Bug
...]]``) and the gotchas or observations that cause them (``causes:``); ``decision`` chains
where each newer page ``supersedes`` the one before (the old page says ``status:
superseded`` in about half of the chains only, so the edge itself must carry it), with
``valid_from`` / ``valid_to`` windows; ``rule`` pages that a newer ``observation``
``contradicts``; ``session`` pages named as evidence (``{kind: session, source: ID, at:
DATE}`` or ``session:ID``); meeting notes that share the vocabulary. Old decisions and rules
carry more evidence than what replaced them, as popular old beliefs do.

The questions (:mod:`vault_sync.eval_typed`) ask what a careful colleague would
answer from those relations. The words come from :mod:`vault_sync.eval_typed_words`; dev and
test draw from the same tables with different seeds, so no page or question is shared.
"""

from __future__ import annotations

import datetime
import random
from dataclasses import dataclass, field
from typing import Any

from vault_sync.eval_data import EvalPage, JsonValue
from vault_sync.eval_typed_words import (
    AGENTS,
    BUGS,
    COMPONENTS,
    NOTE_LINES,
    POLICIES,
    RULES,
    RUNBOOKS,
)

#: Default seeds: dev and test are generated apart (issue 10: "dev and test seeds apart").
DEV_SEED = 101
TEST_SEED = 202
#: Components per vault (each brings about 17 pages; sessions and notes come on top).
COMPONENTS_PER_VAULT = 8
#: Days before the vault's "today" that its history spans.
HISTORY_DAYS = 320
_FOLDERS = {"bug": "bugs", "decision": "decisions", "rule": "rules", "observation": "observations",
            "gotcha": "gotchas", "procedure": "runbooks", "entity": "components",
            "note": "notes", "session": "sessions"}  # fmt: skip


@dataclass
class Draft:
    """A page being built: what :class:`EvalPage` gets, plus what sessions and questions read.

    Attributes:
        title: the page title (also its file stem).
        kind: a DESIGN §2 kind.
        day: days before the vault's today that it was written.
        front: frontmatter keys and values, in order (``evidence`` is added last).
        body: the Markdown body.
        sessions: how many session pages to name as its evidence.
        stem: the file stem when it is not the title (a session's id).
        role: what it is in the vault (``fix``, ``old``, ``new``, ...), for the questions.
        facts: what questions about it need (component, symptom, the page it fixes, ...).
    """

    title: str
    kind: str
    day: int
    front: list[tuple[str, JsonValue]]
    body: str
    sessions: int = 0
    role: str = ""
    facts: dict[str, Any] = field(default_factory=dict)
    stem: str | None = None

    @property
    def path(self) -> str:
        """``<kind folder>/<stem or title>.md``."""
        return f"{_FOLDERS[self.kind]}/{self.stem or self.title}.md"


def _link(title: str) -> str:
    return f"[[{title}]]"


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


@dataclass
class _Builder:
    """Builds one vault's drafts from ``rng``, every draw in a fixed order (same seed, same
    bytes)."""

    rng: random.Random
    today: datetime.date
    drafts: list[Draft] = field(default_factory=list)
    tickets: set[int] = field(default_factory=set)

    def iso(self, day: int) -> str:
        return (self.today - datetime.timedelta(days=max(day, 0))).isoformat()

    def add(self, title: str, kind: str, day: int, front: list[tuple[str, JsonValue]],
            text: str, **extra: Any) -> Draft:  # fmt: skip
        heading = f"# {title}\n\n" if self.rng.random() < 0.85 else ""
        draft = Draft(title, kind, day, [("title", title), ("kind", kind), *front],
                      heading + text + "\n", **extra)  # fmt: skip
        self.drafts.append(draft)
        return draft

    def ticket(self, prefix: str) -> str:
        number = self.rng.randrange(100, 1000)
        while number in self.tickets:
            number = self.rng.randrange(100, 1000)
        self.tickets.add(number)
        return f"{prefix}-{number}"

    def relation(self, title: str) -> JsonValue:
        """A relation value as agents write it: a list of one link, or the bare link."""
        return [_link(title)] if self.rng.random() < 0.6 else _link(title)

    def component(self, comp: tuple[str, str, str]) -> None:
        name, _prefix, does = comp
        day = self.rng.randrange(HISTORY_DAYS - 40, HISTORY_DAYS)
        text = f"The {name} {does}. Owned by the platform team; alerts go to its channel."
        self.add(_cap(name), "entity", day, [("tags", ["service"])], text, role="entity",
                 facts={"c": name})  # fmt: skip
        runbook = self.rng.choice(RUNBOOKS).format(c=name)
        steps = "1. Check the dashboards first.\n2. Announce it in the channel.\n3. Run the job."
        self.add(runbook, "procedure", day - 5, [("tags", ["runbook"])],
                 f"Use this when the {name} needs it.\n\n{steps}", role="runbook",
                 facts={"c": name})  # fmt: skip

    def bug(self, comp: tuple[str, str, str], family: dict[str, Any], use: int) -> None:
        name, prefix, _ = comp
        day = self.rng.randrange(20, HISTORY_DAYS - 30)
        title = f"Bug {self.ticket(prefix)} {name} {family['title']}"
        told = self.rng.sample(family["told"], self.rng.randint(2, 3))
        fix_title, fix_text = family["fixes"][use % len(family["fixes"])]
        lines = [s.format(c=name) for s in told] + [f"First seen on {self.iso(day)}."]
        if self.rng.random() < 0.3:
            lines.append(f"Fixed by {_link(fix_title)}.")
        front: list[tuple[str, JsonValue]] = [("date", self.iso(day)), ("tags", ["bug"]),
                                              ("related", [_link(_cap(name))])]  # fmt: skip
        self.add(title, "bug", day, front, " ".join(lines), sessions=self.rng.randint(1, 2),
                 role="bug", facts={"c": name, "family": family})  # fmt: skip
        fix_day = max(day - self.rng.randint(1, 12), 0)
        text = fix_text
        if self.rng.random() < 0.5:
            text += f" Rolled out to the {name}."
        if self.rng.random() < 0.4:
            text += f" Closes {_link(title)}."
        kind = self.rng.choice(["procedure", "decision", "note"])
        fix_front = [("date", self.iso(fix_day)), ("fixes", self.relation(title))]
        self.add(fix_title, kind, fix_day, fix_front, text, sessions=self.rng.randint(1, 2),
                 role="fix", facts={"c": name, "family": family, "bug": title})  # fmt: skip
        if use < len(family["causes"]):
            cause_title, cause_text = family["causes"][use]
            kind = self.rng.choice(["gotcha", "observation"])
            front = [("date", self.iso(day)), ("causes", self.relation(title))]
            self.add(cause_title, kind, day, front, cause_text, sessions=1, role="cause",
                     facts={"c": name, "family": family, "bug": title})  # fmt: skip

    def policy(self, comp: tuple[str, str, str], topic: dict[str, Any]) -> None:
        name = comp[0]
        length = 3 if self.rng.random() < 0.4 else 2
        titles = [self.rng.choice(topic["old"]).format(c=name, C=_cap(name))]
        titles += self.rng.sample(topic["new"], length - 1)
        day = self.rng.randrange(HISTORY_DAYS - 120, HISTORY_DAYS)
        days = [day]
        for _ in titles[1:]:
            days.append(max(days[-1] - self.rng.randint(25, 110), 3))
        for i, (title, when) in enumerate(zip(titles, days, strict=True)):
            newest = i == len(titles) - 1
            front: list[tuple[str, JsonValue]] = [("date", self.iso(when)),
                                                  ("valid_from", self.iso(when))]  # fmt: skip
            if not newest:
                if self.rng.random() < 0.5:
                    front.insert(0, ("status", "superseded"))
                if self.rng.random() < 0.5:
                    front.append(("valid_to", self.iso(days[i + 1])))
                if self.rng.random() < 0.3:
                    front.append(("superseded_by", self.relation(titles[i + 1])))
            if i:
                front.append(("supersedes", self.relation(titles[i - 1])))
            text = topic["old_text"].format(c=name) if i == 0 else topic["new_text"]
            if i and not newest:  # the middle of three: a trial of what the newest confirms
                text = "Trial for one quarter: " + text.split(";")[0].split(". ")[0] + "."
            elif i > 1:
                text = "Confirmed after the trial. " + text
            if i and self.rng.random() < 0.5:
                text += f" Replaces {_link(titles[i - 1])}."
            if i and self.rng.random() < 0.3:
                text += f" Applies to the {name}."
            kind = "rule" if i == 0 and self.rng.random() < 0.3 else "decision"
            sessions = self.rng.randint(1, 2) if newest else self.rng.randint(2, 4)
            self.add(title, kind, when, front, text, sessions=sessions,
                     role="new" if newest else "old",
                     facts={"c": name, "topic": topic, "chain": titles})  # fmt: skip

    def rule(self, comp: tuple[str, str, str], rule: dict[str, Any]) -> None:
        name = comp[0]
        title = rule["title"].format(c=name)
        day = self.rng.randrange(150, HISTORY_DAYS)
        tags: list[JsonValue] = ["canonical"] if self.rng.random() < 0.3 else []
        front: list[tuple[str, JsonValue]] = [("valid_from", self.iso(day)), ("tags", tags)]
        self.add(title, "rule", day, front, rule["text"].format(c=name),
                 sessions=self.rng.randint(2, 4), role="rule", facts={"c": name})  # fmt: skip
        number = self.rng.randrange(100, 1000)
        obs_day = self.rng.randrange(5, 60)
        obs_front: list[tuple[str, JsonValue]] = [
            ("date", self.iso(obs_day)),
            ("contradicts", self.relation(title)),
        ]
        text = rule["obs_text"]
        if self.rng.random() < 0.5:
            text += f" Measured on the {name}."
        self.add(rule["obs"].format(n=number), "observation", obs_day, obs_front, text,
                 sessions=self.rng.randint(1, 2), role="challenger",
                 facts={"c": name, "rule": rule, "target": title})  # fmt: skip

    def note(self, comps: list[tuple[str, str, str]]) -> None:
        taken = {d.day for d in self.drafts if d.role == "note"}
        day = self.rng.choice([n for n in range(1, HISTORY_DAYS) if n not in taken])
        lines = []
        for template in self.rng.sample(NOTE_LINES, self.rng.randint(3, 5)):
            topic, family = self.rng.choice(POLICIES), self.rng.choice(BUGS)
            lines.append("- " + template.format(
                c=self.rng.choice(comps)[0], x=self.rng.choice(topic["ask"]),
                y=self.rng.choice(family["ask"])))  # fmt: skip
        kind_of = self.rng.choice(["Weekly sync", "Planning notes", "Standup notes"])
        self.add(f"{kind_of} {self.iso(day)}", "note", day, [("date", self.iso(day))],
                 "\n".join(lines), role="note")  # fmt: skip


def _bug_slots(rng: random.Random, count: int) -> list[tuple[int, int]]:
    """``(family, use)`` pairs: each bug family used at most twice (its fixes are unique)."""
    slots = [(f, use) for f in range(len(BUGS)) for use in (0, 1)]
    rng.shuffle(slots)
    return slots[:count]


_TOUCHED = {
    "bug": "Looked into {link}. {summary}",
    "fix": "Wrote {link}. {summary}",
    "cause": "Found the cause and wrote it down: {link}.",
    "old": "Recorded the decision {link}.",
    "new": "Recorded the decision {link}. {summary}",
    "rule": "Checked {link} with the team.",
    "challenger": "Measured and wrote {link}. {summary}",
}


#: A page's evidence session is on its day or up to this many days later.
_SESSION_REACH_DAYS = 5
#: Most pages one session touches.
_SESSION_PAGES = 5


@dataclass
class _Session:
    day: int
    id: str
    agent: str
    touched: list[Draft] = field(default_factory=list)


def _session_for(builder: _Builder, sessions: list[_Session], day: int,
                 taken: list[_Session]) -> _Session:  # fmt: skip
    """A session on ``day`` or up to :data:`_SESSION_REACH_DAYS` later, not in ``taken`` and
    with fewer than :data:`_SESSION_PAGES` pages, or a new one on ``day``."""
    for session in sessions:
        later = day - _SESSION_REACH_DAYS <= session.day <= day
        if later and session not in taken and len(session.touched) < _SESSION_PAGES:
            return session
    agent = builder.rng.choice(AGENTS)
    sid = f"{builder.iso(day)}-{agent}-{builder.rng.getrandbits(16):04x}"
    sessions.append(_Session(day, sid, agent))
    return sessions[-1]


def _evidence(builder: _Builder, draft: Draft, taken: list[_Session]) -> list[JsonValue]:
    """The draft's evidence entries: its sessions, in the mapping or the string form."""
    out: list[JsonValue] = []
    for session in taken:
        if builder.rng.random() < 0.7:
            out.append({"kind": "session", "source": session.id, "at": builder.iso(session.day)})
        else:
            out.append(f"session:{session.id}")
    if draft.role == "rule" and builder.rng.random() < 0.4:
        out.append(f"feedback:user @{builder.iso(draft.day)}")
    if draft.role == "challenger":
        number = draft.title.split()[0].lower()
        out.append({"kind": "observation", "source": number, "at": builder.iso(draft.day)})
    return out


def _add_sessions(builder: _Builder) -> None:
    """Name sessions as each draft's evidence (written on or after it), then add the session
    pages: a bullet per page each touched, linking it."""
    sessions: list[_Session] = []
    for draft in list(builder.drafts):
        taken: list[_Session] = []
        for n in range(draft.sessions):
            day = draft.day - (0 if n == 0 else builder.rng.randint(1, 60))
            taken.append(_session_for(builder, sessions, max(day, 0), taken))
        for session in taken:
            session.touched.append(draft)
        if draft.sessions:
            draft.front.append(("evidence", _evidence(builder, draft, taken)))
    for session in sessions:
        lines = []
        for draft in session.touched:
            summary = draft.body.split("\n\n")[-1].split(". ")[0].rstrip(".\n") + "."
            lines.append(
                "- " + _TOUCHED[draft.role].format(link=_link(draft.title), summary=summary)
            )
        bugs: list[JsonValue] = [_link(d.title) for d in session.touched if d.kind == "bug"]
        front: list[tuple[str, JsonValue]] = [
            ("date", builder.iso(session.day)),
            ("agent", session.agent),
            ("tags", ["session"]),
        ]
        if bugs:
            front.append(("related", bugs[:2]))
        title = f"Session {builder.iso(session.day)} ({session.agent})"
        draft = builder.add(title, "session", session.day, front, "\n".join(lines), role="session")
        draft.stem = session.id


@dataclass
class TypedVault:
    """A generated vault: its drafts (pages with their roles and facts) and its today.

    Attributes:
        name: ``typed-<seed>-<number>``.
        today: the date every page is before; questions are asked on it.
        drafts: the pages, in the order they were drawn.
    """

    name: str
    today: datetime.date
    drafts: list[Draft]

    def pages(self) -> list[EvalPage]:
        """The pages to write, in draft order."""
        return [EvalPage(d.path, tuple(d.front), d.body) for d in self.drafts]


def build_vault(seed: int, number: int, components: int = COMPONENTS_PER_VAULT) -> TypedVault:
    """One vault from ``seed`` and its ``number`` in the run (same arguments, same pages).

    The vault's today is a day of 2026 drawn from the seed; every date is on or before it.

    Raises:
        ValueError: ``components`` is not between 3 and the number of components known.
    """
    if not 3 <= components <= len(COMPONENTS):
        raise ValueError(f"components must be between 3 and {len(COMPONENTS)}")
    rng = random.Random(f"vault-sync eval typed {seed} {number}")
    today = datetime.date(2026, 1, 1) + datetime.timedelta(days=rng.randrange(330))
    builder = _Builder(rng, today)
    comps = rng.sample(COMPONENTS, components)
    slots = iter(_bug_slots(rng, 2 * components))
    for comp in comps:
        builder.component(comp)
        for _ in range(2):
            family, use = next(slots)
            builder.bug(comp, BUGS[family], use)
    for topic in rng.sample(POLICIES, components):
        builder.policy(rng.choice(comps), topic)
    for rule in rng.sample(RULES, min(len(RULES), components - 2)):
        builder.rule(rng.choice(comps), rule)
    for _ in range(12):
        builder.note(comps)
    _add_sessions(builder)
    return TypedVault(f"typed-{seed}-{number}", today, builder.drafts)
