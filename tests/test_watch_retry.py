"""The watcher's retries of a failing batch (papercut): a lasting failure is retried after
``[watch] retry_ms``, doubled per failure in a row up to ``retry_max_ms``, one warning per
step; an applied batch starts the backoff over. The real :class:`Watcher` in a thread, real
watchdog events, the engine's real sync behind a switch that makes it fail. Waiting is on a
condition with a generous timeout; the waits are checked as lower bounds (a loaded machine
only makes them longer)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.watch_helpers import TIMEOUT_S, paths_for, wait_until
from vault_sync.config import load_config
from vault_sync.engine import run_sync
from vault_sync.errors import ConfigError
from vault_sync.layout import WATCH_STATE_NAME
from vault_sync.watch import Watcher

MakeVault = Callable[..., Path]

SETTINGS = "[watch]\ndebounce_ms = 20\nretry_ms = 50\nretry_max_ms = 400\n"


class Flaky:
    """The engine's ``run_sync``, failing with ``OSError("disk on fire")`` while
    :attr:`failing` is set; the start time of each call is kept."""

    def __init__(self) -> None:
        self.failing = threading.Event()
        self.calls: list[float] = []

    def __call__(self, config: Any, **kwargs: Any) -> Any:
        self.calls.append(time.monotonic())
        if self.failing.is_set():
            raise OSError("disk on fire")
        return run_sync(config, **kwargs)


class Warnings(logging.Handler):
    """The watcher's warnings, with a condition to wait on."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []
        self.cond = threading.Condition()

    def emit(self, record: logging.LogRecord) -> None:
        with self.cond:
            self.messages.append(record.getMessage())
            self.cond.notify_all()

    def wait_for(self, count: int) -> list[str]:
        deadline = time.monotonic() + TIMEOUT_S
        with self.cond:
            while len(self.messages) < count:
                left = deadline - time.monotonic()
                assert left > 0, f"{count} warnings awaited, got {self.messages}"
                self.cond.wait(left)
            return list(self.messages)


@pytest.fixture
def warnings() -> Iterator[Warnings]:
    handler = Warnings()
    logger = logging.getLogger("vault_sync.watch")
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)


def _said(n: int, wait_ms: int) -> str:
    return f"disk on fire (failure {n} in a row; next try in {wait_ms} ms)"


def test_a_lasting_failure_is_retried_with_a_doubling_bounded_wait_reset_by_success(
    make_vault: MakeVault, warnings: Warnings
) -> None:
    vault = make_vault({"a.md": "alpha\n", "vault-sync.toml": SETTINGS})
    flaky = Flaky()
    watcher = Watcher(load_config(vault), flaky)
    thread = threading.Thread(target=watcher.run, daemon=True)
    thread.start()
    try:
        state = load_config(vault).store_path / WATCH_STATE_NAME
        wait_until(state.is_file, what="the watcher's start-up reconcile")
        first = len(flaky.calls)
        flaky.failing.set()
        (vault / "b.md").write_text("bravoword\n", encoding="utf-8")  # a real event
        waits = [50, 100, 200, 400, 400, 400]
        assert warnings.wait_for(len(waits))[: len(waits)] == [
            _said(n, w) for n, w in enumerate(waits, 1)
        ]
        failed = flaky.calls[first : first + len(waits)]
        for before, after, wait_ms in zip(failed, failed[1:], waits, strict=False):
            assert after - before >= wait_ms / 1000, (failed, waits)
        flaky.failing.clear()  # the next try applies, and the backoff starts over
        wait_until(lambda: paths_for(vault, "bravoword") == ["b.md"], what=str(warnings.messages))
        seen = len(warnings.messages)
        flaky.failing.set()
        (vault / "c.md").write_text("charlieword\n", encoding="utf-8")
        assert warnings.wait_for(seen + 1)[seen] == _said(1, 50)
        assert watcher.state.last_error == "disk on fire"
    finally:
        watcher.stop()
        thread.join(TIMEOUT_S)
    assert not thread.is_alive()


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ("retry_ms = 0", ":2: key 'watch.retry_ms' must be a whole number from 1 to 600000"),
        (
            "retry_ms = 500\nretry_max_ms = 100",
            ":3: key 'watch.retry_max_ms' must be a whole number from 500 to 600000",
        ),
        ("retry_max_ms = 700000", "key 'watch.retry_max_ms' must be a whole number from 200"),
    ],
)
def test_retry_settings_are_checked_at_load(
    make_vault: MakeVault, settings: str, message: str
) -> None:
    vault = make_vault({"vault-sync.toml": f"[watch]\n{settings}\n"})
    with pytest.raises(ConfigError) as caught:
        load_config(vault)
    assert str(caught.value) == (
        f"{vault / 'vault-sync.toml'}{message}"
        if message.startswith(":")
        else f"{vault / 'vault-sync.toml'}:2: {message} to 600000"
    )
