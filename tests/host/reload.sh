#!/bin/bash
# Live reload in build/framegraph-host: while it renders a copy of
# examples/host/scene.lua, (1) a bad edit (a syntax error) is reported with
# the file and line and the last good pipeline keeps rendering; (2) an edit
# that fails inside a frame (a misspelt C callback) rolls that frame back to
# the last good pipeline and says why; (3) a good edit (the tint, orange ->
# green) is picked up: the final picture is green.
# Waits on the host's log lines, never on the clock (generous timeouts only).
# Usage: reload.sh BUILD_DIR
set -u
build=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$src"
export FG_SHADER_DIR="$build/shaders" FG_LUA_DIR="$src/lua"
fail() { echo "FAIL: $*"; cat "$tmp/log"; exit 1; }
# waits until the log matches $1 (extended regex) after line $2; 240 s at most
wait_for() {
  for _ in $(seq 2400); do
    tail -n +"$2" "$tmp/log" | grep -Eq "$1" && return 0
    kill -0 "$pid" 2>/dev/null || { tail -n +"$2" "$tmp/log" | grep -Eq "$1" && return 0; fail "host exited before '$1'"; }
    sleep 0.1
  done
  fail "no '$1' in the log"
}
cp examples/host/scene.lua "$tmp/scene.lua"
grep -q '^local tint = { 1.0, 0.6, 0.3 }' "$tmp/scene.lua" || fail "scene.lua no longer has the tint line this test edits"
"$build/framegraph-host" "$tmp/scene.lua" --until-reloads 4 --screenshot "$tmp/after.png" >"$tmp/log" 2>&1 &
pid=$!
wait_for '^frame 2:' 1
# (1) a bad edit
sed 's/^local tint = .*/local tint = { 1.0, 0.6, 0.3  -- an unclosed table/' examples/host/scene.lua >"$tmp/scene.tmp"
mv "$tmp/scene.tmp" "$tmp/scene.lua"
wait_for '^reload failed:' 1
line=$(grep -n '^reload failed:' "$tmp/log" | head -1 | cut -d: -f1)
grep '^reload failed:' "$tmp/log" | grep -q 'scene.lua:[0-9]' || fail "the failure does not name scene.lua:LINE"
wait_for '^frame [0-9]+:' $((line + 1))   # the last good pipeline still renders
# (2) an edit that loads but fails in a frame (a misspelt host callback):
# that frame rolls back to the last good pipeline, which draws it
sed 's/cmd:host("draw_scene"/cmd:host("draw_scne"/' examples/host/scene.lua >"$tmp/scene.tmp"
mv "$tmp/scene.tmp" "$tmp/scene.lua"
wait_for '^rolled back:' $((line + 1))
grep '^rolled back:' "$tmp/log" | grep -q "no host callback 'draw_scne'.*did you mean 'draw_scene'" ||
  fail "the rollback does not say which callback is missing"
line=$(grep -n '^rolled back:' "$tmp/log" | head -1 | cut -d: -f1)
wait_for '^frame [0-9]+:' $((line + 1))
# (3) a good edit: green
sed 's/^local tint = .*/local tint = { 0.3, 1.0, 0.3 }/' examples/host/scene.lua >"$tmp/scene.tmp"
mv "$tmp/scene.tmp" "$tmp/scene.lua"
wait "$pid"
rc=$?
pid=
[ $rc -eq 0 ] || fail "framegraph-host exited $rc"
grep -q '^reloaded ' "$tmp/log" || fail "the good edit was not reloaded"
grep -q '^validation messages: 0$' "$tmp/log" || fail "expected 'validation messages: 0'"
"$build/fg_png_stats" "$tmp/after.png" >"$tmp/stats" || fail "no screenshot"
read -r _ r g b < <(grep '^mean' "$tmp/stats")
[ "${g%.*}" -gt "${r%.*}" ] && [ "${g%.*}" -gt "${b%.*}" ] || fail "after the edit the mesh is $r $g $b, not green"
grep -E "^reload" "$tmp/log"
echo "ok: bad edit reported and survived, good edit picked up (mean $r $g $b)"
