#!/usr/bin/env bash
# Mutation testing of the oracles: applies each one-line mutation listed in
# scripts/mutations.txt (csrc/core and lua/framegraph/assertions.lua) to a
# scratch copy of the tree, runs the quick tests the line names, and reports
# which mutants the tests kill. A mutant that survives is a missing test (or
# an equivalent program: the list's comment says why).
#   bash scripts/mutate.sh [mutations file]      (about 10-20 minutes on 2 cores)
# Not part of scripts/test.sh: it rebuilds once per mutant. The score goes in
# docs/RELIABILITY.md ("Mutation testing").
# List format, one mutant a line, tab-separated (\n and \t in the text fields):
#   FILE  ORIGINAL TEXT (must occur exactly once)  MUTATED TEXT  TESTS
# TESTS: space-separated; c:REGEX runs the ctest tests matching REGEX,
# spec:PATH runs one busted spec.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
list=${1:-scripts/mutations.txt}
case $list in /*) ;; *) list=$root/$list ;; esac
scratch=$root/build-mutate
# a fresh scratch copy of the tracked and new files (the working tree is never
# touched); an old copy is removed first, or files deleted since would build too
rm -rf "$scratch/src"
mkdir -p "$scratch/src"
git ls-files -co --exclude-standard -z | tar --null -T - -cf - | tar -xf - -C "$scratch/src"
cd "$scratch/src"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null || exit 1
nice cmake --build build -j2 >/dev/null || { echo "mutate: the unmutated tree does not build"; exit 1; }
export LUA_PATH="$PWD/lua/?.lua;$PWD/lua/?/init.lua;;" LUA_CPATH="$PWD/build/?.so;;"

# replace ORIGINAL by MUTATED in FILE; fails unless ORIGINAL occurs exactly once
apply() {
  lua5.4 - "$@" <<'LUA'
local file, from, to = arg[1], arg[2], arg[3]
local function unescape(s) return (s:gsub("\\([nt\\])", { n = "\n", t = "\t", ["\\"] = "\\" })) end
from, to = unescape(from), unescape(to)
local f = assert(io.open(file, "rb")); local text = f:read("a"); f:close()
local at = text:find(from, 1, true)
if not at or text:find(from, at + 1, true) then os.exit(1) end
f = assert(io.open(file, "wb")); f:write(text:sub(1, at - 1), to, text:sub(at + #from)); f:close()
LUA
}

# runs the TESTS field; 0 when every test passes (the mutant survived). A
# mutant that makes a test loop is killed by ctest's timeout (3 minutes, far
# above any test here: the TLSF's list mutants loop)
run_tests() {
  local t rc=0 targets=() specs=() regexes=()
  for t in $1; do
    case $t in
      c:*) regexes+=("${t#c:}"); for n in $(cd build && ctest -N -R "${t#c:}" | sed -n 's/^ *Test *#[0-9]*: //p'); do targets+=("$n"); done ;;
      spec:*) specs+=("${t#spec:}"); targets+=(fglua) ;;
    esac
  done
  # a mutant that does not compile is killed by the compiler
  nice cmake --build build -j2 --target "${targets[@]}" >/dev/null 2>&1 || return 3
  for t in "${regexes[@]}"; do (cd build && timeout 600 ctest --timeout 180 -R "$t" >/dev/null 2>&1) || rc=1; done
  for t in "${specs[@]}"; do timeout 600 lua5.4 /usr/bin/busted "$t" >/dev/null 2>&1 || rc=1; done
  return $rc
}

total=0 killed=0 stale=0 survivors=()
while IFS=$'\t' read -r file from to tests; do
  [[ -z "$file" || "$file" == \#* ]] && continue
  cp -p "$file" "$scratch/orig"
  if ! apply "$file" "$from" "$to"; then
    echo "STALE    $file: '$from' does not occur exactly once"; stale=$((stale + 1)); continue
  fi
  total=$((total + 1))
  run_tests "$tests"; rc=$?
  if [ $rc = 0 ]; then
    echo "SURVIVED $file: '$from' -> '$to'"; survivors+=("$file: $from -> $to")
  else
    killed=$((killed + 1)); echo "killed   $file: '$from' -> '$to'$([ $rc = 3 ] && echo ' (does not compile)')"
  fi
  cp "$scratch/orig" "$file"; touch "$file"
done < "$list"
nice cmake --build build -j2 >/dev/null 2>&1
echo "mutation score: $killed of $total killed ($(( total ? 100 * killed / total : 0 )) %), ${#survivors[@]} survived, $stale stale"
[ "$stale" = 0 ]
