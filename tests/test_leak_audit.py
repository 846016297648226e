"""The leak audit in the suite (issue 17): no 12-character piece of any planted secret in the
store folder or any output. Quick form here (one sample per label, every place); the full form
(every sample) is slow. Both use the real CLI as a subprocess (tests/leak_audit.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.leak_audit import kinds_for, plant, run


def _audit(tmp_path: Path, *, full: bool) -> None:
    kinds = kinds_for(full)
    planted = plant(tmp_path / "vault", kinds)
    audit = run(sys.executable, tmp_path / "vault", planted, full=full)
    leaks = sorted(
        f"{kinds[i].label} in {place}: {sorted(w)}" for (i, place), w in audit.leaks.items()
    )
    assert audit.planted > (2000 if full else 1500)
    assert not leaks, f"{len(leaks)} of {audit.planted} leaked:\n" + "\n".join(leaks[:20])


def test_no_secret_leaks_from_any_place_quick(tmp_path: Path) -> None:
    _audit(tmp_path, full=False)


@pytest.mark.slow
def test_no_secret_leaks_from_any_place_full(tmp_path: Path) -> None:
    _audit(tmp_path, full=True)
