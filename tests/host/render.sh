#!/bin/bash
# build/framegraph-host renders examples/host/scene.lua headless (the host's
# own device, validation with synchronization validation through the host's
# messenger): a mesh, shaded (not blank, not flat), orange as the file's tint
# says, and no validation message. Both submission paths: the host's command
# buffer (default) and framegraph's own queue submit (--fg-submit); and a
# glTF mesh (tests/host/icosphere.gltf) when the host was built with tinygltf.
# Usage: render.sh BUILD_DIR
set -u
build=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$src"
export FG_SHADER_DIR="$build/shaders" FG_LUA_DIR="$src/lua"
fail() { echo "FAIL: $*"; cat "$tmp/log" 2>/dev/null; exit 1; }
# the default mesh (the shipped knot, or the torus without tinygltf), both
# submission paths, and the torus made in C
for mode in "" "--fg-submit" "--mesh torus"; do
  "$build/framegraph-host" examples/host/scene.lua --frames 3 --screenshot "$tmp/shot.png" $mode >"$tmp/log" 2>&1 ||
    fail "framegraph-host $mode exited $?"
  grep -q "^validation messages: 0$" "$tmp/log" || fail "$mode: expected 'validation messages: 0'"
  grep -q "host draws: 3" "$tmp/log" || fail "$mode: the host's draw callback did not run once per frame"
  # scene and grade; hdr and depth placed in device memory (per frame parity)
  grep -Eq "^plan: 2 instances, [0-9]+ resources, [1-9][0-9]* bytes of device memory in [1-9]" "$tmp/log" ||
    fail "$mode: fg_runtime_get_info does not describe the plan"
  "$build/fg_png_stats" "$tmp/shot.png" >"$tmp/stats" || fail "$mode: no readable screenshot"
  read -r _ lit < <(grep '^lit' "$tmp/stats")
  read -r _ r g b < <(grep '^mean' "$tmp/stats")
  read -r _ levels < <(grep '^levels' "$tmp/stats")
  # the mesh covers a good part of the 512x512 frame, lit and shaded
  [ "$lit" -gt 15000 ] || fail "$mode: only $lit lit pixels: no mesh"
  [ "$lit" -lt 250000 ] || fail "$mode: $lit lit pixels: the whole frame, not a mesh on a background"
  [ "$levels" -gt 40 ] || fail "$mode: $levels brightness levels: flat, not shaded"
  [ "${r%.*}" -gt "${g%.*}" ] && [ "${g%.*}" -gt "${b%.*}" ] || fail "$mode: mean colour $r $g $b is not the orange tint"
  echo "ok $mode: lit $lit, levels $levels, mean $r $g $b"
done
# a glTF 2.0 mesh (tinygltf), when this build has it: the fixture's 80
# triangles, drawn by the same host callback
"$build/framegraph-host" examples/host/scene.lua --frames 2 --mesh tests/host/icosphere.gltf \
  --screenshot "$tmp/ico.png" >"$tmp/log" 2>&1
if grep -q "built without libtinygltf-dev" "$tmp/log"; then
  echo "skipped --mesh: framegraph-host was built without libtinygltf-dev"
  exit 0
fi
grep -q "^mesh: tests/host/icosphere.gltf, 42 vertices, 80 triangles$" "$tmp/log" || fail "--mesh: the glTF fixture did not load"
grep -q "^validation messages: 0$" "$tmp/log" || fail "--mesh: expected 'validation messages: 0'"
"$build/fg_png_stats" "$tmp/ico.png" >"$tmp/stats" || fail "--mesh: no readable screenshot"
read -r _ lit < <(grep '^lit' "$tmp/stats")
[ "$lit" -gt 20000 ] && [ "$lit" -lt 250000 ] || fail "--mesh: $lit lit pixels: no mesh on a background"
echo "ok --mesh: lit $lit"
