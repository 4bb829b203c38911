#!/usr/bin/env bash
# Sets up (packages + build) and runs every test: C unit tests under ctest and
# busted specs under Lua 5.4. Ends with one line "N passed, N failed" totalling both.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || { echo "0 passed, 1 failed"; exit 1; }
. scripts/env.sh

ctest_log=$(mktemp); busted_log=$(mktemp)
(cd build && ctest --output-on-failure -j"$(nproc)") 2>&1 | tee "$ctest_log"
ctest_rc=${PIPESTATUS[0]}
lua5.4 /usr/bin/busted -o utfTerminal spec 2>&1 | tee "$busted_log"
busted_rc=${PIPESTATUS[0]}

# ctest: "100% tests passed, 0 tests failed out of 12"
c_total=$(grep -Eo 'tests failed out of [0-9]+' "$ctest_log" | grep -Eo '[0-9]+$' || echo 0)
c_failed=$(grep -Eo '[0-9]+ tests failed out of' "$ctest_log" | grep -Eo '^[0-9]+' || echo 0)
# busted: "12 successes / 0 failures / 0 errors / 0 pending : 0.1 seconds"
summary=$(grep -E '[0-9]+ success' "$busted_log" | tail -n 1 | sed 's/\x1b\[[0-9;]*m//g')
b_ok=$(echo "$summary" | grep -Eo '[0-9]+ success' | grep -Eo '[0-9]+' || echo 0)
b_fail=$(echo "$summary" | grep -Eo '[0-9]+ failure' | grep -Eo '[0-9]+' || echo 0)
b_err=$(echo "$summary" | grep -Eo '[0-9]+ error' | grep -Eo '[0-9]+' || echo 0)
[ -n "$summary" ] || b_err=1   # busted crashed before summarising: count it as a failure
passed=$(( (c_total - c_failed) + b_ok ))
failed=$(( c_failed + b_fail + b_err ))
[ "$ctest_rc" = 0 ] || [ "$c_failed" -gt 0 ] || failed=$((failed + 1))
echo "$passed passed, $failed failed"
rm -f "$ctest_log" "$busted_log"
[ "$failed" = 0 ] && [ "$busted_rc" = 0 ]
