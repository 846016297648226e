"""numpy forward pass of all-MiniLM-L6-v2 (BERT, 6 layers, 384 dims), mean pooling, L2 norm."""

import math
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer


class MiniLM:
    name = "all-minilm-l6-v2"

    def __init__(self, folder: Path, max_tokens: int = 256):
        w = load_file(str(folder / "model.safetensors"))
        self.w = {
            k.removeprefix("bert.").removeprefix("0."): v.astype(np.float32) for k, v in w.items()
        }
        self.tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tok.no_padding()
        self.tok.enable_truncation(max_tokens)
        self.tok_full = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tok_full.no_padding()
        self.tok_full.no_truncation()
        self.layers = 1 + max(
            int(k.split(".")[2]) for k in self.w if k.startswith("encoder.layer.")
        )

    def _ln(self, x, p):
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) / np.sqrt(v + 1e-12) * self.w[p + ".weight"] + self.w[p + ".bias"]

    def _lin(self, x, p):
        return x @ self.w[p + ".weight"].T + self.w[p + ".bias"]

    def encode_ids(self, ids):
        w = self.w
        n = len(ids)
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:n]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = self._ln(x, "embeddings.LayerNorm")
        H = 12
        d = x.shape[1] // H
        for i in range(self.layers):
            p = f"encoder.layer.{i}."
            q = self._lin(x, p + "attention.self.query").reshape(n, H, d).transpose(1, 0, 2).copy()
            k = self._lin(x, p + "attention.self.key").reshape(n, H, d).transpose(1, 2, 0).copy()
            v = self._lin(x, p + "attention.self.value").reshape(n, H, d).transpose(1, 0, 2).copy()
            a = q @ k / math.sqrt(d)
            a = np.exp(np.maximum(a - a.max(-1, keepdims=True), -30.0))
            a /= a.sum(-1, keepdims=True)
            c = (a @ v).transpose(1, 0, 2).reshape(n, H * d)
            x = self._ln(
                x + self._lin(c, p + "attention.output.dense"), p + "attention.output.LayerNorm"
            )
            h = self._lin(x, p + "intermediate.dense")
            h = (
                0.5 * h * (1 + np.tanh(0.7978845608 * (h + 0.044715 * (h * h * h))))
            )  # gelu (tanh form)
            x = self._ln(x + self._lin(h, p + "output.dense"), p + "output.LayerNorm")
        e = x.mean(0)
        return e / max(float(np.linalg.norm(e)), 1e-9)

    def chunks(self, text, size=256, stride=224):
        """Unit vectors of each window of ``size`` tokens (with CLS/SEP), ``stride`` apart."""
        ids = self.tok_full.encode(text).ids[1:-1]
        cls, sep = 101, 102
        out = []
        start = 0
        while True:
            part = ids[start : start + size - 2]
            out.append(self.encode_ids(np.array([cls, *part, sep])))
            if start + size - 2 >= len(ids):
                break
            start += stride
        return np.stack(out)

    def pages(self, texts):
        return np.stack(
            [self.encode_ids(np.array(e.ids)) for e in self.tok.encode_batch(list(texts))]
        )

    def query(self, text):
        return self.pages([text])[0]
