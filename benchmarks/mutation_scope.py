"""For benchmarks/mutants.sh, in its scratch copy only: wrap every top-level function and class
of FILE not named in KEEP in ``# pragma: no mutate start`` / ``end``, so mutmut mutates only the
named ones (a class is kept whole when it or one of its methods is named; mutmut's pragma
regions cannot open inside a class). Usage: ``mutation_scope.py FILE fn1,Class,Class.method``.
"""

import ast
import sys
from pathlib import Path

path = Path(sys.argv[1])
keep = {name for arg in sys.argv[2:] for name in arg.split(",") if name}
lines = path.read_text(encoding="utf-8").split("\n")
tree = ast.parse("\n".join(lines))
regions: list[tuple[int, int]] = []
for node in tree.body:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        named = node.name in keep or any(k.startswith(node.name + ".") for k in keep)
        if not named:
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            regions.append((start, node.end_lineno or start))
for start, end in sorted(regions, reverse=True):
    lines.insert(end, "# pragma: no mutate end")
    lines.insert(start - 1, "# pragma: no mutate start")
path.write_text("\n".join(lines), encoding="utf-8")
