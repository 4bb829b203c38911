#!/bin/bash
# `cmake --install` puts framegraph.h (and libframegraph) under the prefix,
# and a small host file compiles and links against what was installed.
# Usage: install.sh BUILD_DIR   (CFLAGS: where the host finds vulkan/vulkan_core.h, if not in /usr/include)
set -u
build=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "cmake --install"; }
[ -f "$tmp/prefix/include/framegraph.h" ] || fail "no include/framegraph.h under the prefix"
[ -f "$tmp/prefix/lib/libframegraph.so" ] || fail "no lib/libframegraph.so under the prefix"
cat >"$tmp/tiny.c" <<'C'
#include <framegraph.h>
#include <stdio.h>
/* what a host writes first: a desc, zero by default, and one call */
int main(void) {
  fg_device_desc d = {0};
  fg_device *dev = NULL;
  fg_result r = fg_device_create(&d, &dev);
  printf("%s: %s\n", fg_result_name(r), fg_device_last_error(dev));
  fg_device_destroy(dev);
  return r == FG_ERROR_INVALID_ARGUMENT && FG_MAX_EXTENT == 65536u ? 0 : 1;
}
C
cc -std=c99 -Wall -Werror ${CFLAGS:-} -I"$tmp/prefix/include" "$tmp/tiny.c" -o "$tmp/tiny" -L"$tmp/prefix/lib" -lframegraph \
  -Wl,-rpath,"$tmp/prefix/lib" || fail "a C file does not compile and link against the installed header"
# and from C++ (extern "C", no C-only constructs in the header)
if command -v c++ >/dev/null; then
  printf '#include <framegraph.h>\nint main() { fg_frame_desc d = {}; return d.cmd != VK_NULL_HANDLE; }\n' >"$tmp/tiny.cpp"
  c++ -Wall -Werror -fsyntax-only ${CFLAGS:-} -I"$tmp/prefix/include" "$tmp/tiny.cpp" || fail "the header does not compile as C++"
fi
"$tmp/tiny" || fail "the installed library did not refuse an empty desc"
echo "ok: installed and usable"
