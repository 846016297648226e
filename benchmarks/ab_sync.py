"""Old against new, alternating, in the same minutes: whole ``sync`` processes of two (or more)
source trees of vault-sync on one vault, by CPU time.

    git archive main | tar -x -C /tmp/old
    python benchmarks/ab_sync.py --vault V --mode onepage --rounds 12 old=/tmp/old new=.

Each ``NAME=TREE`` is a folder holding ``vault_sync/`` (a worktree, or ``git archive REV``
unpacked; byte-compile it first, ``python -m compileall -q TREE/vault_sync``, or every run
compiles it again). Each sync runs as ``python -m vault_sync --vault V sync --json`` with this
interpreter, ``PYTHONPATH=TREE`` and the working folder outside any checkout (from a
repository root the editable install would win). Modes:

- ``onepage``: a line appended to a random page before each run (the run must report one
  changed page): the one-page-change ``sync`` of ``benchmarks/run.py``;
- ``nochange``: nothing changed since the last run;
- ``cold``: the store folder removed before each run (the child's CPU time includes its
  worker processes').

On a shared machine wall times stretch with the load; alternating the trees run by run gives
each the same load, and the CPU time (user + system of the child and its reaped children,
from ``wait4``) is the figure to compare. Prints one Markdown row per tree and the load.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlib import markdown_table


def run_sync(tree: Path, vault: Path) -> tuple[float, float, dict[str, object]]:
    """One ``sync --json`` of ``tree``'s code: (wall ms, CPU ms, its report). Raises on failure."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(tree)
    cmd = [sys.executable, "-m", "vault_sync", "--vault", str(vault), "sync", "--json"]
    with tempfile.TemporaryFile() as errors:
        started = time.perf_counter()
        proc = subprocess.Popen(
            cmd, env=env, cwd=tempfile.gettempdir(), stdout=subprocess.PIPE, stderr=errors
        )
        assert proc.stdout is not None
        out = proc.stdout.read()  # not communicate(): it reaps the child before wait4 can
        proc.stdout.close()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = (time.perf_counter() - started) * 1000
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode:
            errors.seek(0)
            raise RuntimeError(f"{tree}: sync exited {proc.returncode}: {errors.read()[-500:]!r}")
    return wall, (usage.ru_utime + usage.ru_stime) * 1000, json.loads(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", help="NAME=TREE, two or more")
    parser.add_argument("--vault", type=Path, required=True, help="a vault (synced, but cold)")
    parser.add_argument("--mode", choices=("onepage", "nochange", "cold"), default="onepage")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    trees = {name: Path(path).resolve() for name, path in (t.split("=", 1) for t in args.trees)}
    vault = args.vault.resolve()
    pages = sorted(p for p in vault.rglob("*.md") if ".vault-sync" not in p.parts)
    rng = random.Random(args.seed)
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
    for number in range(args.rounds):
        for name, tree in trees.items():
            if args.mode == "onepage":
                with open(rng.choice(pages), "a", encoding="utf-8") as f:
                    f.write(f"\nzqabsync{number}{name}\n")
            elif args.mode == "cold":
                shutil.rmtree(vault / ".vault-sync", ignore_errors=True)
            took, used, report = run_sync(tree, vault)
            if args.mode == "onepage" and report["changed"] != 1:
                raise RuntimeError(f"{name}: a one-page sync reported {report}")
            runs[name].append((took, used))
    rows = []
    for name, done in runs.items():
        cpu = [c for _, c in done]
        wall = [w for w, _ in done]
        rows.append(
            [
                name,
                f"{statistics.median(cpu):.0f}",
                f"{min(cpu):.0f}",
                f"{statistics.median(wall):.0f}",
                str(len(done)),
            ]
        )
    print(
        markdown_table([f"{args.mode} sync", "CPU median ms", "CPU min", "wall median", "n"], rows)
    )
    print("load average: " + " ".join(f"{x:.1f}" for x in os.getloadavg()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
