"""Throughput of ``vault_sync.sanitize.scrub`` on ~10 MB of mixed text (issue 4, TECH-NOTES §9).

Builds the text deterministically (seeded): pages of prose, code, and Markdown, with a few
planted fake secrets (generated here, never real). Prints MB/s for ``scrub`` page by page and
on the whole text as one string, beside a plain ``re.sub`` of a single literal-prefixed
pattern over the same text in the same run, and the ratio.

Run: ``.venv/bin/python benchmarks/bench_scrub.py [--mb 10] [--repeat 3]``
"""

from __future__ import annotations

import argparse
import collections
import random
import re
import string
import time
from collections.abc import Callable

from vault_sync.sanitize import scrub

_VOCABULARY = (
    "the a of to and in is it that for on with as was this by be are from at or an have not "
    "task note page link vault sync query index sidecar token key secret password access "
    "authorization bearer api config export environment value project meeting recurring due "
    "scheduled done priority filter heading embed alias tag status archive review daily weekly "
    "monkey turkey asia basic digest github slack google stripe openai telegram jwt private"
)
WORDS = tuple(_VOCABULARY.split())
ALNUM = string.ascii_letters + string.digits


def _gen(rng: random.Random, n: int, charset: str = ALNUM) -> str:
    return "".join(rng.choice(charset) for _ in range(n))


def _prose(rng: random.Random) -> str:
    sentences = []
    for _ in range(rng.randint(3, 8)):
        words = [rng.choice(WORDS) for _ in range(rng.randint(6, 18))]
        sentences.append(" ".join(words).capitalize() + ".")
    return " ".join(sentences)


def _code(rng: random.Random) -> str:
    name = rng.choice(["token", "api_key", "sort_key", "password", "cache_key", "session"])
    return (
        "```python\n"
        f"def load_{name}(config):\n"
        f'    {name} = os.environ.get("{name.upper()}")\n'
        f"    if not {name}:\n"
        f'        raise ValueError("missing {name}")\n'
        f"    return {{'{name}': {name}, 'retries': {rng.randint(1, 9)}}}\n"
        "```"
    )


def _markdown(rng: random.Random) -> str:
    heading = " ".join(rng.choice(WORDS) for _ in range(3)).title()
    items = "\n".join(
        f"- [ ] {rng.choice(WORDS)} [[{rng.choice(WORDS).title()}]] 📅 2024-0{rng.randint(1, 9)}-1"
        f"{rng.randint(0, 9)} #{rng.choice(WORDS)}"
        for _ in range(rng.randint(2, 6))
    )
    table = "| key | value |\n|---|---|\n" + "\n".join(
        f"| {rng.choice(WORDS)} | {rng.randint(0, 999)} |" for _ in range(3)
    )
    return (
        f"## {heading}\n\n{items}\n\n{table}\n\n> [!note]\n> see https://example.com/{_gen(rng, 8)}"
    )


def _secret(rng: random.Random) -> str:
    """One planted fake secret of a random kind (shapes only, generated)."""
    kinds: list[Callable[[], str]] = [
        lambda: "ghp_" + _gen(rng, 36),
        lambda: "OPENAI_API_KEY=sk-proj-" + _gen(rng, 120, ALNUM + "_-"),
        lambda: "AKIA" + _gen(rng, 16, string.ascii_uppercase + string.digits),
        lambda: "Authorization: Bearer " + _gen(rng, 40),
        lambda: f"postgres://app:{_gen(rng, 16)}@db:5432/x",
        lambda: "export DB_PASSWORD=" + _gen(rng, 14),
        lambda: "eyJ" + _gen(rng, 30, ALNUM + "_-") + ".eyJ" + _gen(rng, 50, ALNUM + "_-") + ".x",
    ]
    return rng.choice(kinds)()


def build_pages(total_mb: float, seed: int = 20240601) -> list[str]:
    """Pages of ~2-6 KB until ``total_mb`` MB; about 1 page in 20 holds a planted secret."""
    rng = random.Random(seed)
    pages: list[str] = []
    size = 0
    while size < total_mb * 1_000_000:
        parts = [f"---\ntags: [{rng.choice(WORDS)}]\n---\n# {rng.choice(WORDS).title()}\n"]
        for _ in range(rng.randint(4, 12)):
            parts.append(rng.choice((_prose, _prose, _code, _markdown))(rng))
        if rng.random() < 0.05:
            parts.append(_secret(rng))
        page = "\n\n".join(parts) + "\n"
        pages.append(page)
        size += len(page)
    return pages


def _best(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=10.0, help="text size in MB (default 10)")
    parser.add_argument("--repeat", type=int, default=3, help="runs; the best is kept")
    args = parser.parse_args()

    pages = build_pages(args.mb)
    whole = "\n".join(pages)
    mb = len(whole.encode("utf-8")) / 1e6
    single = re.compile(r"ghp_[A-Za-z0-9]{36}")

    def scrub_pages() -> None:
        for page in pages:
            scrub(page)

    def resub_pages() -> None:
        for page in pages:
            single.sub("[REDACTED:github_token]", page)

    scrub(pages[0])  # compile the rules outside the timing
    rows = [
        ("scrub, page by page", _best(scrub_pages, args.repeat)),
        ("re.sub 1 pattern, page by page", _best(resub_pages, args.repeat)),
        ("scrub, one string", _best(lambda: scrub(whole), args.repeat)),
        (
            "re.sub 1 pattern, one string",
            _best(lambda: single.sub("[REDACTED:github_token]", whole), args.repeat),
        ),
    ]
    labels = collections.Counter(f.label for page in pages for f in scrub(page)[1])
    print(f"{len(pages)} pages, {mb:.2f} MB (UTF-8), best of {args.repeat}")
    for name, seconds in rows:
        print(f"  {name:32} {seconds * 1000:9.1f} ms  {mb / seconds:9.1f} MB/s")
    print(f"  ratio scrub / re.sub, page by page: {rows[0][1] / rows[1][1]:.1f}x")
    print(f"  ratio scrub / re.sub, one string:   {rows[2][1] / rows[3][1]:.1f}x")
    print(f"  findings: {dict(sorted(labels.items()))}")


if __name__ == "__main__":
    main()
