"""A progress bar on stderr (rich, imported only when one is drawn): for sync and eval."""

from __future__ import annotations

from collections.abc import Callable


def stderr_bar(description: str, total: int) -> Callable[[int], None]:
    """Draw a transient rich progress bar on stderr for ``total`` steps.

    Returns:
        ``advance(n)``: adds ``n`` steps done; the bar is removed once all ``total`` are done.
    """
    from rich.console import Console
    from rich.progress import Progress

    progress = Progress(transient=True, console=Console(stderr=True))
    progress.start()
    task = progress.add_task(description, total=total)
    done = 0

    def advance(n: int) -> None:
        nonlocal done
        done += n
        progress.update(task, advance=n)
        if done >= total:
            progress.stop()

    return advance
