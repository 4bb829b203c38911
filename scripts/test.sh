#!/usr/bin/env bash
# Sets up (packages + build) and runs every test: C unit tests under ctest and
# busted specs under Lua 5.4, then the same suite under ASan+UBSan
# (scripts/sanitize.sh), valgrind memcheck of the pure-C tests
# (scripts/memcheck.sh) and each libFuzzer target for FG_FUZZ_SECONDS (default
# 30; scripts/fuzz.sh). FG_TEST_QUICK=1 skips the last three. Ends with one line
# "N passed, N failed" totalling everything.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || { echo "0 passed, 1 failed"; exit 1; }
. scripts/env.sh

ctest_log=$(mktemp); busted_log=$(mktemp)
(cd build && ctest --output-on-failure -j"$(nproc)") 2>&1 | tee "$ctest_log"
ctest_rc=${PIPESTATUS[0]}
lua5.4 /usr/bin/busted -o utfTerminal spec 2>&1 | tee "$busted_log"
busted_rc=${PIPESTATUS[0]}

. scripts/counts.sh
read -r c_total c_failed < <(ctest_counts "$ctest_log")
read -r b_ok b_bad < <(busted_counts "$busted_log")
passed=$(( (c_total - c_failed) + b_ok ))
failed=$(( c_failed + b_bad ))
[ "$ctest_rc" = 0 ] || [ "$c_failed" -gt 0 ] || failed=$((failed + 1))
[ "$busted_rc" = 0 ] || [ "$b_bad" -gt 0 ] || failed=$((failed + 1))
rm -f "$ctest_log" "$busted_log"

if [ -z "${FG_TEST_QUICK:-}" ]; then
  # The sanitizer run's log stays in a file (its own ctest summaries would read
  # as this command's); its counts join the total. Each fuzz target is one test.
  mkdir -p build; san_log=build/sanitize.log
  bash scripts/sanitize.sh > "$san_log" 2>&1
  san=$(grep -aE '^[0-9]+ passed, [0-9]+ failed$' "$san_log" | tail -n 1)
  if [ -n "$san" ]; then
    sp=$(echo "$san" | grep -Eo '^[0-9]+'); sf=$(echo "$san" | grep -Eo '[0-9]+ failed' | grep -Eo '[0-9]+')
    echo "ASan+UBSan run of the same suite: $sp tests passed and $sf failed (log: $san_log)"
    [ "$sf" = 0 ] || grep -aE "FAIL|Failure|Error →|runtime error|ERROR: AddressSanitizer|LeakSanitizer" "$san_log" | head -n 40
    passed=$((passed + sp)); failed=$((failed + sf))
  else
    echo "ASan+UBSan run did not finish (log: $san_log):"; tail -n 40 "$san_log"
    failed=$((failed + 1))
  fi
  # valgrind memcheck of the pure-C tests: one test per program
  mc=$(bash scripts/memcheck.sh 2>&1 | tee build/memcheck.log | grep -aE '^memcheck ')
  echo "$mc"
  passed=$((passed + $(echo "$mc" | grep -c ': clean$')))
  failed=$((failed + $(echo "$mc" | grep -c ': FAILED')))
  [ -n "$mc" ] || failed=$((failed + 1))
  for t in pack graph; do
    if bash scripts/fuzz.sh "${FG_FUZZ_SECONDS:-30}" "$t" >&2; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
  done
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
