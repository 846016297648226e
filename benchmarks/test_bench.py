"""Fast checks of the benchmark tooling (no timings): the runner's fits and targets, the shared
watcher helpers, and the set-up script's paths when ``rg`` is missing.

    .venv/bin/python -m pytest -q -p no:cacheprovider benchmarks/
"""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import benchlib
import run

SETUP = Path(__file__).with_name("setup.sh")


def test_fit_exponent_recovers_the_power() -> None:
    pts = [(1000.0, 10.0), (10_000.0, 10.0 * 10**0.5), (100_000.0, 100.0)]
    k = run.fit_exponent(pts)
    assert k is not None and abs(k - 0.5) < 1e-9
    assert run.fit_exponent(pts[:1]) is None


def _vault(pages: int, rss_mb: float) -> dict[str, object]:
    return {
        "pages": pages,
        "size": pages,
        "figures": {"memory.watch_idle": {"value": rss_mb}, "memory.cold_sync": {"value": 50.0}},
    }


def test_growth_fits_report_one_size_without_k_and_two_sizes_with_it() -> None:
    one = run.growth_fits({"a": _vault(1000, 30.0)})
    assert one["memory.watch_idle"]["k"] is None
    assert "sync.cold" not in one  # no figure, no row
    assert "needs ≥ 2 sizes" in run.table({"vaults": {}, "fits": one})
    two = run.growth_fits({"a": _vault(1000, 30.0), "b": _vault(10_000, 60.0)})
    assert two["memory.watch_idle"]["k"] == pytest.approx(0.301, abs=1e-3)
    assert two["memory.cold_sync"]["k"] == 0
    assert "k = 0.30" in run.table({"vaults": {}, "fits": two})


def _ctx(size: int | None) -> run.Ctx:
    return run.Ctx("t", Path("."), Path("."), size, run.Reps.quick(), random.Random(1))


def test_save_to_visible_target_is_issue_3s_goal() -> None:
    ctx = _ctx(1000)
    ctx.fig("watch.raw_tantivy", "raw", [10.0, 12.0])
    met = ctx.fig("watch.visible_reader", "a", [200.0] * 19 + [400.0], "ms", None, None, misses=0)
    assert met["target"] == "median ≤ 250 ms, p95 ≤ 500 ms" and met["verdict"] == "met"
    slow = ctx.fig("watch.visible_cli", "b", [200.0] * 18 + [900.0] * 2, misses=0)
    assert slow["verdict"] == "MISSED"  # p95 over 500 ms
    lost = ctx.fig("watch.visible_cli", "b", [100.0], baseline_key="watch.raw_tantivy", misses=1)
    assert lost["verdict"] == "MISSED" and lost["ratio"] == pytest.approx(100 / 11, abs=0.01)
    assert ctx.fig("watch.batch_apply", "c", None)["value"] is None
    assert run.target_for("watch.visible_reader", None) is None  # real corpora: no target


def test_log_reader_keeps_batches_only() -> None:
    lines = [
        json.dumps({"ms": 900.0, "reconcile": True}),
        "not json",
        json.dumps({"ms": 42.5, "reconcile": False}),
    ]
    log = benchlib.LogReader(io.StringIO("\n".join(lines) + "\n"))
    log.run()
    assert log.first.is_set() and log.other == ["not json"]
    assert log.batch_ms(0.0, float("inf")) == [42.5]


def test_watcher_helpers_wait_for_the_first_log_line_and_stop(tmp_path: Path) -> None:
    script = "import sys, time; print('{\"ms\": 1}', file=sys.stderr, flush=True); time.sleep(60)"
    proc, log = benchlib.start_watcher([sys.executable, "-c", script])
    try:
        waited = benchlib.wait_for_watcher(tmp_path, proc, log, timeout=30)
        assert log.first.is_set(), "it returned on the first log line, not the state file"
        assert 0 < waited < 30_000, waited  # ms, within the timeout
    finally:
        benchlib.stop_process(proc, timeout=5)
    assert proc.returncode is not None
    dead, dead_log = benchlib.start_watcher([sys.executable, "-c", "raise SystemExit(3)"])
    with pytest.raises(RuntimeError, match="exited early"):
        benchlib.wait_for_watcher(tmp_path, dead, dead_log, timeout=30)


# --------------------------------------------------------------------------- setup.sh


def _path_without(tmp_path: Path, *hidden: str) -> Path:
    """A folder of symlinks to every tool of /usr/bin and /usr/sbin except ``hidden``."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for root in ("/usr/bin", "/usr/sbin", "/bin", "/sbin"):
        if not os.path.isdir(root):
            continue
        for name in os.listdir(root):
            link = folder / name
            if name not in hidden and not link.exists() and not link.is_symlink():
                link.symlink_to(os.path.join(root, name))
    return folder


def _setup(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SETUP)],
        env={**os.environ, "PATH": str(path)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_setup_without_rg_or_apt_says_so_and_succeeds(tmp_path: Path) -> None:
    result = _setup(_path_without(tmp_path, "rg", "apt-get", "sudo"))
    assert result.returncode == 0
    assert "cannot install ripgrep" in result.stderr and "apt-get not found" in result.stderr
    assert "falls back to grep -ril" in result.stderr


#: A password-less ``sudo -n CMD``: runs CMD (the set-up's path when not root).
STUB_SUDO = """#!/bin/sh
[ "$1" = "-n" ] && shift
exec "$@"
"""

STUB_APT = """#!/bin/bash
d=$(dirname "$0")
echo "$*" >> "$d/apt.log"
case " $* " in
  *" update "*) touch "$d/lists" ;;
  *" install "*)
    [ -f "$d/lists" ] || { echo "E: Unable to locate package ripgrep"; exit 100; }
    printf '#!/bin/sh\\necho "ripgrep 99.1.0"\\n' > "$d/rg"
    chmod +x "$d/rg" ;;
esac
"""


def test_setup_installs_rg_with_apt_get_updating_once(tmp_path: Path) -> None:
    folder = _path_without(tmp_path, "rg", "apt-get", "sudo")
    for name, text in (("apt-get", STUB_APT), ("sudo", STUB_SUDO)):  # root or not: both work
        (folder / name).write_text(text)
        (folder / name).chmod(0o755)
    result = _setup(folder)
    assert result.returncode == 0, result.stderr
    calls = (folder / "apt.log").read_text().splitlines()
    assert [c.split()[1] for c in calls] == ["install", "update", "install"]
    assert "--no-install-recommends" in calls[0] and "ripgrep" in calls[0]
    assert "rg: ripgrep 99.1.0" in result.stderr
    assert benchlib.tool_version(str(folder / "rg")) == "99.1.0"


def test_only_names_measures_in_their_order_and_refuses_unknown_ones() -> None:
    assert run.chosen_measures(None) == list(run.MEASURES)
    assert run.chosen_measures("query, sync") == [run.measure_sync, run.measure_query]
    with pytest.raises(SystemExit, match="unknown"):
        run.chosen_measures("query,speed")


def test_eval_sweep_grid_types_values_and_refuses_unknown_keys() -> None:
    import eval_sweep

    combos = eval_sweep.grid(["graph_weight=0,0.6", "lexical_depth=20"])
    assert combos == [
        ("graph_weight=0.0 lexical_depth=20", {"graph_weight": 0.0, "lexical_depth": 20}),
        ("graph_weight=0.6 lexical_depth=20", {"graph_weight": 0.6, "lexical_depth": 20}),
    ]
    assert isinstance(combos[0][1]["lexical_depth"], int)
    with pytest.raises(SystemExit, match="unknown \\[ranking\\] key 'graph_wieght'"):
        eval_sweep.grid(["graph_wieght=1"])
    # one entry of a table: the others keep their defaults
    (label, changes), _ = eval_sweep.grid(["edge_weights.prev.in=0.3,0.6"])
    defaults = eval_sweep.RankingSettings().edge_weights
    assert label == "edge_weights.prev.in=0.3"
    assert changes == {"edge_weights": {**defaults, "prev.in": 0.3}}


def test_eval_sweep_gives_each_value_to_the_engine() -> None:
    """The graph stream's weight decides the typed benchmark's relation questions: a run at 0
    must score below the run at the default, so the value reached the engine's search."""
    script = Path(__file__).with_name("eval_sweep.py")
    out = subprocess.run(
        [sys.executable, str(script), "typed", "graph_weight=0,0.6"],
        capture_output=True, text=True, check=True, timeout=300,
    ).stdout.splitlines()  # fmt: skip
    assert [line.split(" default ")[0] for line in out] == [
        "typed dev graph_weight=0.0",
        "typed dev graph_weight=0.6",
    ]
    mrr = [float(line.split(" MRR ")[1].split()[0]) for line in out]
    assert mrr[0] < mrr[1]
