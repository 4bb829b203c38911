#!/usr/bin/env bash
# valgrind memcheck of the pure-C tests (csrc/core: compiler, packers,
# allocators) and of a short replay of each fuzz target: any error or any
# leaked block fails. Run after the build (scripts/setup.sh). Prints one line
# per program and ends with "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
pass=0; fail=0
run() {
  local name=$1; shift
  if valgrind -q --leak-check=full --errors-for-leak-kinds=all --error-exitcode=9 "$@" > /dev/null 2> "build/memcheck-$name.log"; then
    echo "memcheck $name: clean"; pass=$((pass + 1))
  else
    echo "memcheck $name: FAILED (build/memcheck-$name.log)"; tail -n 20 "build/memcheck-$name.log"; fail=$((fail + 1))
  fi
}
for t in test_graph test_graph_async test_pack test_alloc test_smoke; do run "$t" "build/$t"; done
for t in pack graph; do run "fuzz_$t" "build/fuzz_$t" -runs=300 "tests/fuzz/corpus/$t"; done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
