"""Deterministic generator of Markdown vaults for the benchmarks (pure stdlib).

    python benchmarks/generate_vault.py OUT --pages 10000 --seed 1

The same ``--pages`` and ``--seed`` give byte-identical files (``--digest`` prints a hash of
the whole tree to check it). Every page format feature appears (docs/page-format.md):

- nested folders, about 100 per 10,000 pages, 2-3 levels deep (a few pages at the root);
- frontmatter with every key: ``id``, ``title``, ``kind``, ``project``, ``tags`` (list and
  ``"a, b"`` string forms), ``aliases``, ``status``, ``valid_from`` / ``valid_to``, the typed
  relations (``causes``, ``fixes``, ``contradicts``, ``supersedes``, ``superseded_by``,
  ``related``), a ``references:`` key, custom keys (``owner``, ``ticket``, a custom edge
  ``depends_on``), ``evidence`` in string and mapping forms;
- bodies with H2 headings, Zipf-distributed pseudo-words, wikilinks of every form
  (``[[x]]``, ``[[x|d]]``, ``[[x#H]]``, ``[[x#^b]]``, ``[[#H]]``, ``![[x]]``), Markdown links to
  pages (relative, percent-encoded), inline ``#tags``, Dataview inline fields, block ids, code
  identifiers (snake_case, CamelCase), a fenced code block holding a fake ``[[link]]``, and a
  few unresolved links;
- about 3% of pages written in Chinese (CJK runs without spaces).

Importable: :func:`generate` (``generate(out, pages, seed)``).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import posixpath
import random
import sys
from pathlib import Path
from urllib.parse import quote

#: Vocabulary size and Zipf exponent of the pseudo-words.
VOCAB_SIZE = 6000
ZIPF_S = 1.07
#: The vocabulary does not depend on the seed, so query words stay stable across vaults.
VOCAB_SEED = 20260301
#: Share of pages written in Chinese.
CJK_SHARE = 0.03
#: Pages per folder (about 100 folders per 10,000 pages).
PAGES_PER_FOLDER = 100

KINDS = (
    "note",
    "session",
    "observation",
    "entity",
    "concept",
    "procedure",
    "gotcha",
    "rule",
    "decision",
    "preference",
    "bug",
)
STATUSES = ("active", "superseded", "archived", "historical")
EVIDENCE_KINDS = ("session", "observation", "feedback", "reconsolidation", "commit", "document")
PROJECTS = ("payments", "search", "platform", "mobile", "billing", "infra", "growth", "data")
OWNERS = ("payments-oncall", "search-team", "sre", "alice", "bob", "carol")
LANGS = ("python", "rust", "go", "typescript", "sql")

_ONSETS = [
    "b",
    "c",
    "d",
    "f",
    "g",
    "h",
    "j",
    "k",
    "l",
    "m",
    "n",
    "p",
    "r",
    "s",
    "t",
    "v",
    "w",
    "z",
    "br",
    "cr",
    "dr",
    "fr",
    "gr",
    "pr",
    "tr",
    "st",
    "sp",
    "sk",
    "sl",
    "pl",
    "bl",
    "kl",
    "ch",
    "sh",
    "th",
]
_NUCLEI = ["a", "e", "i", "o", "u", "a", "e", "i", "o", "ai", "ea", "ou", "io"]
_CODAS = ("", "", "", "n", "r", "s", "t", "l", "m", "nd", "st", "rk", "x")
#: Common Han characters for the Chinese pages.
_HAN = (
    "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说"
    "产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点"
    "从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原"
    "又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革"
    "位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强"
    "放决西被干做必战先回则任取据处府研队南给色光门即保治北造百规热领七海口东导器压志世金增争济阶油思术"
    "极交受联什认六共权收证改清己美再采转更单风切打白教速花带安场身车例真务具万每目至达走积示议声报斗完"
    "类八离华名确才科张信马节话米整空元况今集温传土许步群广石记需段研界拉林律叫且究观越织装影算低持音众"
    "书布复容儿须际商非验连断深难近矿千周委素技备半办青省列习响约支般史感劳便团往酸历市克何除消构府称太"
    "准精值号率族维划选标写存候毛亲快效斯院查江型眼王按格养易置派层片始却专状育厂京识适属圆包火住调满县"
    "局照参红细引听该铁价严索引擎同步检索向量缓存"
)
_HAN_PUNCT = "，。；、"
_FORMS = (
    "plain",
    "display",
    "heading",
    "block",
    "self",
    "embed",
    "markdown",
    "plain",
    "plain",
    "display",
)


class _Vocab:
    """Pseudo-words with Zipf weights, plus Chinese words."""

    def __init__(self) -> None:
        rng = random.Random(VOCAB_SEED)
        words: list[str] = []
        seen: set[str] = set()
        while len(words) < VOCAB_SIZE:
            n = rng.choice((1, 2, 2, 2, 3, 3, 4))
            word = "".join(
                rng.choice(_ONSETS) + rng.choice(_NUCLEI) + rng.choice(_CODAS) for _ in range(n)
            )
            if 3 <= len(word) <= 14 and word not in seen:
                seen.add(word)
                words.append(word)
        self.words = words
        total = 0.0
        self.cum: list[float] = []
        for rank in range(len(words)):
            total += 1.0 / (rank + 1) ** ZIPF_S
            self.cum.append(total)
        han: list[str] = []
        seen_han: set[str] = set()
        while len(han) < 1500:
            word = "".join(rng.choice(_HAN) for _ in range(rng.choice((2, 2, 2, 3, 4))))
            if word not in seen_han:
                seen_han.add(word)
                han.append(word)
        self.han = han
        self.han_cum: list[float] = []
        total = 0.0
        for rank in range(len(han)):
            total += 1.0 / (rank + 1) ** ZIPF_S
            self.han_cum.append(total)

    def sample(self, rng: random.Random, k: int) -> list[str]:
        return rng.choices(self.words, cum_weights=self.cum, k=k)

    def mid(self, rng: random.Random) -> str:
        """A mid-frequency word (ranks 50-2000): titles, tags, identifiers."""
        return self.words[rng.randrange(50, 2000)]

    def han_words(self, rng: random.Random, k: int) -> list[str]:
        return rng.choices(self.han, cum_weights=self.han_cum, k=k)


class _Page:
    __slots__ = ("cjk", "folder", "headings", "path", "title")

    def __init__(self, folder: str, title: str, cjk: bool, headings: list[str]) -> None:
        self.folder = folder
        self.title = title
        self.cjk = cjk
        self.headings = headings
        self.path = posixpath.join(folder, title + ".md") if folder else title + ".md"


def _folders(rng: random.Random, vocab: _Vocab, count: int) -> list[str]:
    """``count`` folders, 2-3 levels deep, under about sqrt(count) top folders."""
    tops = max(1, round(count**0.5))
    top_names = [f"{vocab.mid(rng)}-{i:02d}" for i in range(tops)]
    out: list[str] = []
    for i in range(count):
        top = top_names[i % tops]
        sub = f"{top}/{vocab.mid(rng)}-{i:03d}"
        if rng.random() < 0.4:
            sub = f"{sub}/{vocab.mid(rng)}"
        out.append(sub)
    return out


def _plan(rng: random.Random, vocab: _Vocab, pages: int) -> list[_Page]:
    folders = _folders(rng, vocab, max(1, pages // PAGES_PER_FOLDER))
    out: list[_Page] = []
    for i in range(pages):
        folder = "" if rng.random() < 0.01 else rng.choice(folders)
        cjk = rng.random() < CJK_SHARE
        n_heads = rng.randint(2, 4)
        if cjk:
            title = "".join(vocab.han_words(rng, 2)) + f" {i}"
            headings = ["".join(vocab.han_words(rng, 2)) for _ in range(n_heads)]
        else:
            words = [vocab.mid(rng) for _ in range(rng.randint(2, 4))]
            title = " ".join([words[0].capitalize(), *words[1:]]) + f" {i}"
            headings = [" ".join(vocab.sample(rng, 2)).capitalize() for _ in range(n_heads)]
        out.append(_Page(folder, title, cjk, headings))
    return out


def _ident(rng: random.Random, vocab: _Vocab) -> str:
    parts = [vocab.mid(rng) for _ in range(rng.randint(2, 3))]
    if rng.random() < 0.5:
        return "_".join(parts)
    return "".join(p.capitalize() for p in parts)


def _link(rng: random.Random, page: _Page, pages: list[_Page]) -> str:
    """One body link in a random form."""
    if rng.random() < 0.03:
        return f"[[Missing page {rng.randrange(1000)}]]"
    target = rng.choice(pages)
    form = rng.choice(_FORMS)
    stem = target.title
    if form == "display":
        return f"[[{stem}|{stem.split()[0].lower()} page]]"
    if form == "heading":
        return f"[[{stem}#{rng.choice(target.headings)}]]"
    if form == "block":
        return f"[[{stem}#^b{rng.randrange(3)}]]"
    if form == "self":
        return f"[[#{rng.choice(page.headings)}]]"
    if form == "embed":
        return f"![[{stem}]]"
    if form == "markdown":
        rel = posixpath.relpath(target.path, page.folder or ".")
        return f"[{stem.split()[0].lower()} notes]({quote(rel)})"
    if target.folder and rng.random() < 0.2:
        return f"[[{target.path[:-3]}]]"  # a path link
    return f"[[{stem}]]"


def _paragraph(rng: random.Random, vocab: _Vocab, page: _Page, pages: list[_Page]) -> str:
    if page.cjk:
        parts: list[str] = []
        for _ in range(rng.randint(2, 5)):
            parts.append("".join(vocab.han_words(rng, rng.randint(4, 12))))
            parts.append(rng.choice(_HAN_PUNCT))
            if rng.random() < 0.3:
                parts.append(_link(rng, page, pages))
            if rng.random() < 0.2:
                parts.append(f" {vocab.mid(rng)} ")
        return "".join(parts).rstrip("，；、。") + "。"
    words = vocab.sample(rng, rng.randint(12, 34))
    words[0] = words[0].capitalize()
    for _ in range(rng.choice((0, 1, 1, 2, 3))):
        words.insert(rng.randrange(1, len(words) + 1), _link(rng, page, pages))
    if rng.random() < 0.35:
        ident = _ident(rng, vocab)
        words.insert(
            rng.randrange(1, len(words) + 1), f"`{ident}`" if rng.random() < 0.5 else ident
        )
    if rng.random() < 0.15:
        words.insert(rng.randrange(1, len(words) + 1), f"#{vocab.mid(rng)}")
    text = " ".join(words) + "."
    if rng.random() < 0.1:
        text += f" ^b{rng.randrange(3)}"
    return text


def _yaml_list(items: list[str]) -> str:
    return "[" + ", ".join(items) + "]"


def _wikilink_value(rng: random.Random, pages: list[_Page], many: bool) -> str:
    if not many:
        return f'"[[{rng.choice(pages).title}]]"'
    return _yaml_list([f'"[[{rng.choice(pages).title}]]"' for _ in range(rng.randint(1, 3))])


def _date(rng: random.Random) -> str:
    return f"{rng.randint(2023, 2026)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"


def _frontmatter(
    rng: random.Random, vocab: _Vocab, index: int, page: _Page, pages: list[_Page]
) -> list[str]:
    lines = ["---"]
    if rng.random() < 0.05:
        lines.append(f"id: pg-{index:06d}")
    if rng.random() < 0.95:
        lines.append(f"title: {page.title}")
    if rng.random() < 0.8:
        lines.append(f"kind: {rng.choice(KINDS)}")
    if rng.random() < 0.6:
        lines.append(f"project: {rng.choice(PROJECTS)}")
    if rng.random() < 0.85:
        tags = [vocab.mid(rng) for _ in range(rng.randint(1, 4))]
        if rng.random() < 0.65:
            lines.append(f"tags: {_yaml_list(tags)}")
        else:
            lines.append(f'tags: "{", ".join("#" + t if rng.random() < 0.2 else t for t in tags)}"')
    if rng.random() < 0.2:
        aliases = [" ".join(vocab.sample(rng, 2)) for _ in range(rng.randint(1, 2))]
        lines.append(f"aliases: {_yaml_list(aliases)}")
    if rng.random() < 0.3:
        lines.append(f"status: {rng.choice(STATUSES)}")
    if rng.random() < 0.2:
        lines.append(f"valid_from: {_date(rng)}")
        lines.append(f"valid_to: {_date(rng) if rng.random() < 0.5 else ''}".rstrip())
    for key, share in (
        ("causes", 0.12),
        ("fixes", 0.1),
        ("contradicts", 0.05),
        ("supersedes", 0.08),
        ("superseded_by", 0.04),
        ("related", 0.25),
        ("references", 0.04),
        ("depends_on", 0.06),
    ):
        if rng.random() < share:
            lines.append(f"{key}: {_wikilink_value(rng, pages, rng.random() < 0.6)}")
    if rng.random() < 0.3:
        lines.append(f"owner: {rng.choice(OWNERS)}")
    if rng.random() < 0.1:
        lines.append(f"ticket: PAY-{rng.randrange(1000):03d}")
    if rng.random() < 0.4:
        lines.append("evidence:")
        for _ in range(rng.randint(1, 3)):
            kind = rng.choice(EVIDENCE_KINDS)
            source = f"{_date(rng)}-{vocab.mid(rng)}-{rng.randrange(16**4):04x}"
            roll = rng.random()
            if roll < 0.5:
                lines.append(f"  - {kind}:{source}")
            elif roll < 0.7:
                lines.append(f"  - {kind}:{source} @{_date(rng)}")
            else:
                note = " ".join(vocab.sample(rng, 3))
                at = f"{_date(rng)}T09:10:00Z"
                lines.append(f'  - {{kind: {kind}, source: {source}, at: {at}, note: "{note}"}}')
    lines.append("---")
    return lines


def _body(
    rng: random.Random, vocab: _Vocab, page: _Page, pages: list[_Page], has_title: bool
) -> list[str]:
    lines: list[str] = []
    if not has_title or rng.random() < 0.1:
        lines += [f"# {page.title}", ""]
    lines += [_paragraph(rng, vocab, page, pages), ""]
    for heading in page.headings:
        lines += [f"## {heading}", ""]
        for _ in range(rng.choice((1, 1, 2))):
            lines += [_paragraph(rng, vocab, page, pages), ""]
    if rng.random() < 0.1:
        relation = rng.choice(("causes", "fixes", "related", "depends_on"))
        lines += [f"{relation}:: [[{rng.choice(pages).title}]]", ""]
    if rng.random() < 0.3:
        lang = rng.choice(LANGS)
        ident = _ident(rng, vocab)
        lines += [
            f"```{lang}",
            f"# not a link: [[{rng.choice(pages).title}]] #notatag",
            f"{ident} = {_ident(rng, vocab)}({vocab.mid(rng)!r})",
            "```",
            "",
        ]
    return lines


def generate(out: Path, pages: int, seed: int) -> None:
    """Write a vault of ``pages`` pages into ``out`` (created; existing files are overwritten).

    The same ``pages`` and ``seed`` always give byte-identical files.
    """
    rng = random.Random(seed)
    vocab = _Vocab()
    planned = _plan(rng, vocab, pages)
    out.mkdir(parents=True, exist_ok=True)
    made: set[str] = set()
    for index, page in enumerate(planned):
        front = _frontmatter(rng, vocab, index, page, planned)
        has_title = any(line.startswith("title: ") for line in front)
        text = "\n".join([*front, *_body(rng, vocab, page, planned, has_title)])
        target = out / page.path
        if page.folder and page.folder not in made:
            target.parent.mkdir(parents=True, exist_ok=True)
            made.add(page.folder)
        target.write_bytes(text.encode("utf-8"))


def tree_digest(root: Path) -> str:
    """SHA-256 over every file's relative path and bytes, in sorted order."""
    h = hashlib.sha256()
    files = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        files += [Path(folder, n) for n in names]
    for path in sorted(files, key=lambda p: p.relative_to(root).as_posix()):
        h.update(path.relative_to(root).as_posix().encode() + b"\0")
        h.update(path.read_bytes() + b"\0")
    return h.hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="the vault folder to write")
    parser.add_argument("--pages", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--digest", action="store_true", help="print the tree's SHA-256")
    args = parser.parse_args(argv)
    if args.pages < 1:
        parser.error("--pages must be at least 1")
    generate(args.out, args.pages, args.seed)
    if args.digest:
        print(tree_digest(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
