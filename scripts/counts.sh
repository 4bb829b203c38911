# Sourced by scripts/test.sh and scripts/sanitize.sh: the passed/failed counts
# (grep -a throughout: a failure message may hold raw bytes, and grep would
# then print "binary file matches" instead of the summary line)
# of a ctest or busted log, so both read the runners' summaries one way.
# ctest_counts LOG  -> "TOTAL FAILED", summed over every ctest summary in LOG
#   ("100% tests passed, 0 tests failed out of 12")
ctest_counts() {
  local total failed
  total=$(grep -aEo 'tests failed out of [0-9]+' "$1" | grep -aEo '[0-9]+$' | awk '{s+=$1} END {print s+0}')
  failed=$(grep -aEo '[0-9]+ tests failed out of' "$1" | grep -aEo '^[0-9]+' | awk '{s+=$1} END {print s+0}')
  echo "$total $failed"
}
# busted_counts LOG -> "OK BAD" from the last summary
#   ("12 successes / 0 failures / 0 errors / 0 pending : 0.1 seconds");
#   failures and errors are both BAD, and no summary at all (busted crashed) is one
busted_counts() {
  local summary ok fail err
  summary=$(grep -aE '[0-9]+ success' "$1" | tail -n 1 | sed 's/\x1b\[[0-9;]*m//g')
  [ -n "$summary" ] || { echo "0 1"; return; }
  ok=$(echo "$summary" | grep -aEo '[0-9]+ success' | grep -aEo '[0-9]+' || echo 0)
  fail=$(echo "$summary" | grep -aEo '[0-9]+ failure' | grep -aEo '[0-9]+' || echo 0)
  err=$(echo "$summary" | grep -aEo '[0-9]+ error' | grep -aEo '[0-9]+' || echo 0)
  echo "$ok $((fail + err))"
}
