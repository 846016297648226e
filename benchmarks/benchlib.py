"""Helpers shared by the benchmark scripts: statistics, tables, processes, the sync floor.

The floor of a cold sync (TECH-NOTES §6, issue 5): read every page, parse its frontmatter with
PyYAML's C loader, add one tantivy document (path, title, tags, body), commit once — no links,
no sidecar, no sanitizer. Run it as a whole process to compare it with ``vault-sync sync``:

    python benchmarks/benchlib.py floor VAULT INDEX_DIR
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: Same writer settings as the product (vault_sync.index): one thread, 64 MB heap.
FLOOR_HEAP_BYTES = 64_000_000


def vault_sync_cmd() -> list[str]:
    """The ``vault-sync`` console script next to this interpreter, else ``python -m``."""
    script = Path(sys.executable).with_name("vault-sync")
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-m", "vault_sync"]


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) with linear interpolation (numpy's default)."""
    data = sorted(values)
    if not data:
        return float("nan")
    pos = (len(data) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(data) - 1)
    return data[lo] + (data[hi] - data[lo]) * (pos - lo)


def summary(values_ms: Sequence[float]) -> dict[str, Any]:
    """n, median, p95, max, min (milliseconds, rounded to 0.1)."""
    if not values_ms:
        return {"n": 0, "median": None, "p95": None, "max": None, "min": None}
    return {
        "n": len(values_ms),
        "median": round(statistics.median(values_ms), 1),
        "p95": round(percentile(values_ms, 0.95), 1),
        "max": round(max(values_ms), 1),
        "min": round(min(values_ms), 1),
    }


def fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:,.1f}"


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def stat_cells(s: dict[str, Any]) -> list[str]:
    """``[n, median, p95, max]`` of one :func:`summary`, formatted for a table row."""
    return [str(s["n"]), fmt(s["median"]), fmt(s["p95"]), fmt(s["max"])]


def timed_run(cmd: Sequence[str], **kwargs: Any) -> tuple[float, subprocess.CompletedProcess[str]]:
    """Run a command to completion; return (wall ms, result). Raises on a non-zero exit."""
    started = time.perf_counter()
    result = subprocess.run(cmd, capture_output=True, text=True, check=False, **kwargs)
    ms = (time.perf_counter() - started) * 1000
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {result.returncode}: {result.stderr[-2000:]}")
    return ms, result


def cpu_timed_run(
    cmd: Sequence[str], **kwargs: Any
) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """:func:`timed_run`, plus the CPU time (ms, user + system, all its threads) the process
    used: the growth of this process's ``RUSAGE_CHILDREN`` across the run, so valid only
    while no other child of this process is reaped meanwhile (no watcher running). On a busy
    machine wall times stretch with the load; CPU times much less."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    ms, result = timed_run(cmd, **kwargs)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return ms, cpu * 1000, result


def machine() -> dict[str, Any]:
    """What the numbers were measured on."""
    versions: dict[str, str] = {}
    for name in ("tantivy", "watchdog", "PyYAML"):
        try:
            from importlib.metadata import version

            versions[name] = version(name)
        except Exception:  # a missing package is just not reported
            versions[name] = "?"
    return {
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "versions": versions,
    }


def write_page_append(path: Path, word: str) -> None:
    """Append a line holding ``word`` to a page (a plain save: open, write, close)."""
    with open(path, "a", encoding="utf-8") as f:
        f.write(f"\n{word}\n")


def tool_version(cmd: str) -> str | None:
    """The version an external tool reports (``rg --version`` -> ``"13.0.0"``); ``None`` when
    it is not on PATH or does not answer."""
    path = shutil.which(cmd)
    if path is None:
        return None
    try:
        out = subprocess.run(
            [path, "--version"], capture_output=True, text=True, timeout=10, check=False
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    first = out.splitlines()[0] if out else ""
    words = [w for w in first.split() if w[:1].isdigit()]
    return words[0] if words else (first or None)


# --------------------------------------------------------------------------- the watcher


class LogReader(threading.Thread):
    """Collect a watcher's ``--json-log`` lines (its stderr) with their arrival time.

    ``lines`` holds ``(time.perf_counter() seconds, parsed line)``; ``other`` any line that is
    not JSON. ``first`` is set at the first line of either kind.
    """

    def __init__(self, stream: Any) -> None:
        super().__init__(daemon=True)
        self.stream = stream
        self.lines: list[tuple[float, dict[str, Any]]] = []
        self.other: list[str] = []
        self.first = threading.Event()

    def run(self) -> None:
        for raw in self.stream:
            now = time.perf_counter()
            try:
                data = json.loads(raw)
            except ValueError:
                data = None
            if isinstance(data, dict) and "level" not in data:  # a batch line
                self.lines.append((now, data))
            else:  # a log record (JSON too, with --json-log) or plain text
                self.other.append(raw.rstrip())
            self.first.set()

    def batch_ms(self, start: float, end: float) -> list[float]:
        """Apply times (ms, the ``ms`` field) of the non-reconcile batches logged between
        ``start`` and ``end`` + 2 s (``time.perf_counter()`` seconds)."""
        return [
            float(line["ms"])
            for at, line in self.lines
            if start <= at <= end + 2.0 and not line.get("reconcile")
        ]


def start_watcher(cmd: Sequence[str]) -> tuple[subprocess.Popen[str], LogReader]:
    """Start ``cmd`` (a ``vault-sync --vault V watch --json-log`` command line) with its stderr
    read by a :class:`LogReader`; stop it with :func:`stop_process`."""
    proc = subprocess.Popen(
        list(cmd),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    log = LogReader(proc.stderr)
    log.start()
    return proc, log


def wait_for_watcher(
    vault: Path, proc: subprocess.Popen[str], log: LogReader, timeout: float = 600.0
) -> float:
    """Wait until the watcher's start-up reconcile is done: its first ``--json-log`` line, or
    its state file naming its pid. Returns the wait in ms; raises if it exits or times out
    (``timeout`` in seconds)."""
    from vault_sync.layout import WATCH_STATE_NAME

    state = vault / ".vault-sync" / WATCH_STATE_NAME
    started = time.perf_counter()
    deadline = time.monotonic() + timeout
    while not log.first.is_set():
        if proc.poll() is not None:
            raise RuntimeError(f"watcher exited early with {proc.returncode}: {log.other[-5:]}")
        if state.is_file():
            try:
                if json.loads(state.read_text()).get("pid") == proc.pid:
                    break
            except ValueError:
                pass
        if time.monotonic() > deadline:
            raise RuntimeError("watcher did not finish its start-up reconcile in time")
        log.first.wait(0.05)
    return (time.perf_counter() - started) * 1000


def stop_process(proc: subprocess.Popen[str], timeout: float = 10.0) -> None:
    """SIGTERM, then SIGKILL after ``timeout`` seconds; waits for the exit."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


# --------------------------------------------------------------------------- the floor


def _pages(vault: Path) -> list[Path]:
    out: list[Path] = []
    for folder, dirs, names in os.walk(vault):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        out += [Path(folder, n) for n in names if n.endswith(".md") and not n.startswith(".")]
    return out


def floor_schema() -> Any:
    import tantivy

    sb = tantivy.SchemaBuilder()
    sb.add_text_field("path", stored=True, tokenizer_name="raw")
    sb.add_text_field("title", stored=True, tokenizer_name="en_stem")
    sb.add_text_field("tags", stored=True, tokenizer_name="raw")
    sb.add_text_field("body", stored=True, tokenizer_name="en_stem")
    return sb.build()


def floor_document(schema: Any, rel: str, text: str) -> Any:
    """One plain tantivy document: frontmatter parsed with CSafeLoader, title, tags, body."""
    import tantivy
    import yaml

    front: Any = {}
    body = text
    if text.startswith("---\n"):
        end = text.find("\n---", 3)
        if end != -1:
            try:
                front = yaml.load(text[4:end], Loader=yaml.CSafeLoader)
            except yaml.YAMLError:
                front = {}
            body = text[end + 4 :]
    if not isinstance(front, dict):
        front = {}
    title = front.get("title") or rel.rsplit("/", 1)[-1][:-3]
    tags = front.get("tags") or []
    if isinstance(tags, str):
        tags = [t.strip() for t in tags.split(",")]
    fields = {"path": rel, "title": str(title), "body": body, "tags": [str(t) for t in tags]}
    return tantivy.Document.from_dict(fields, schema)


def floor(vault: Path, index_dir: Path) -> dict[str, Any]:
    """Index ``vault`` the floor way into a fresh ``index_dir``; return timings (seconds)."""
    import tantivy

    started = time.perf_counter()
    if index_dir.exists():
        shutil.rmtree(index_dir)
    index_dir.mkdir(parents=True)
    schema = floor_schema()
    index = tantivy.Index(schema, path=str(index_dir))
    writer = index.writer(heap_size=FLOOR_HEAP_BYTES, num_threads=1)
    pages = _pages(vault)
    for path in pages:
        rel = path.relative_to(vault).as_posix()
        text = path.read_text(encoding="utf-8-sig")
        writer.add_document(floor_document(schema, rel, text))
    added = time.perf_counter()
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    done = time.perf_counter()
    return {
        "pages": len(pages),
        "read_parse_add_s": round(added - started, 3),
        "commit_s": round(done - added, 3),
        "total_s": round(done - started, 3),
    }


def main(argv: list[str]) -> int:
    if len(argv) != 3 or argv[0] != "floor":
        print("usage: python benchmarks/benchlib.py floor VAULT INDEX_DIR", file=sys.stderr)
        return 2
    print(json.dumps(floor(Path(argv[1]), Path(argv[2]))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
