#!/usr/bin/env bash
# Mutation testing by hand (issue 14), never from the committed pyproject: mutmut (3.8.1:
# `.venv/bin/pip install mutmut==3.8.1`) runs in a scratch copy of this checkout.
#
#   benchmarks/mutants.sh NAME "FILES TO MUTATE" "TEST FILES" ["FILE:fn,Class FILE2:fn ..."]
#   e.g. benchmarks/mutants.sh links vault_sync/links.py "tests/test_links.py tests/test_links_resolution.py"
#
# The copy is ${MUTANTS_DIR:-/tmp/vault-sync-mutants}/NAME, with a setup.cfg [mutmut] section:
# the whole package is copied to mutants/ and only FILES are mutated (optionally only the named
# top-level functions and classes of a file: the rest is wrapped in `# pragma: no mutate`);
# ./shared links to ../shared so the corpora resolve from mutants/ as the tests expect; CLI
# subprocesses import the mutated package (PYTHONPATH). The scrubber's compiled-rule caches are
# cleared before each test there, or mutants of rule building would run on the rules the stats
# run compiled (mutmut forks every mutant from that process). Results: `cd DIR && mutmut results`.
# ONLY="name1 name2" re-runs just those mutants (the survivors of a run, after new tests).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
name=$1; srcs=$2; tests=$3; scope=${4:-}
d=${MUTANTS_DIR:-/tmp/vault-sync-mutants}/$name
rm -rf "$d"; mkdir -p "$d"
(cd "$repo" && tar --exclude=./.venv --exclude=./.git --exclude=./mutants --exclude=__pycache__ \
  --exclude=.vault-sync --exclude=./.mypy_cache --exclude=./.pytest_cache --exclude=./.hypothesis \
  -cf - .) | (cd "$d" && tar -xf -)
ln -sfn "$(cd "$repo/.." && pwd)/shared" "$d/shared"
for spec in $scope; do
  "$repo/.venv/bin/python" "$repo/benchmarks/mutation_scope.py" "$d/${spec%%:*}" ${spec#*:}
done
cat >> "$d/tests/conftest.py" <<'PY'


@pytest.fixture(autouse=True)
def _fresh_scrubber_caches() -> None:  # added by benchmarks/mutants.sh (scratch copy only)
    from vault_sync.sanitize import rule, search, shared_scrubber, structural

    for cached in (shared_scrubber, search._builtin_rules, search._plan, search._run_table,
                   rule.labels, rule.label_rank, structural._manifest_map):
        cached.cache_clear()
PY
{
  echo "[mutmut]"
  echo "source_paths=vault_sync"
  echo "only_mutate="; for s in $srcs; do echo "    $s"; done
  echo "also_copy="; echo "    tests/"; echo "    example-vault/"; echo "    benchmarks/"
  echo "pytest_add_cli_args_test_selection="; for t in $tests; do echo "    $t"; done
} > "$d/setup.cfg"
cd "$d"
mkdir -p mutants  # it must exist at start: Python caches "no finder" for a missing PYTHONPATH
export PYTHONPATH=$d/mutants
time "$repo/.venv/bin/mutmut" run --max-children 2 ${ONLY:-} </dev/null
