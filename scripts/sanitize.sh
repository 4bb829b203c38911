#!/usr/bin/env bash
# The whole suite under AddressSanitizer + UndefinedBehaviorSanitizer:
# ctest on an instrumented build (build-asan/), and the busted specs with the
# instrumented Lua module (lua5.4 itself is not instrumented, so the ASan
# runtime is preloaded). Leak checking covers the C tests; for busted it is
# off (the Lua interpreter and the Vulkan driver keep memory until exit), and
# so it is for the test_vk_* programs: the driver and layers they dlopen leave
# allocations behind that LeakSanitizer can no longer attribute; the
# validation layer reports our own undestroyed Vulkan objects there instead.
# The specs include spec/luafuzz_spec.lua: the Lua-API sequence fuzzer for at
# most 60 s on the instrumented module (docs/RELIABILITY.md).
# Ends with "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS="$san" \
  -DCMAKE_EXE_LINKER_FLAGS="$san" -DCMAKE_SHARED_LINKER_FLAGS="$san" >/dev/null &&
  cmake --build build-asan -j"$(nproc)" 2>&1 | grep -E "warning|error" ; test -f build-asan/framegraph/core.so || {
  echo "0 passed, 1 failed"; exit 1; }
log=$(mktemp)
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Vulkan tests (test_vk_*, and the host programs test_host_*) run without leak
# detection: the loader, driver and validation layer keep allocations to exit.
# test_host_install is left out: it links an uninstrumented program against the
# instrumented library (the plain build runs it).
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j"$(nproc)" -E '^test_(vk|host)';
 ASAN_OPTIONS=detect_leaks=0 ctest --output-on-failure -R '^test_(vk|host)' -E '^test_host_install$') 2>&1 | tee "$log"
. scripts/counts.sh
read -r c_total c_failed < <(ctest_counts "$log")
asan=$(gcc -print-file-name=libasan.so)
# libubsan and libstdc++ preloaded too: core.so is a module, linked without
# the sanitizer runtimes, and a child lua5.4 (examples/run.lua from a spec)
# loads it with RTLD_NOW; the module's C++ (SPIR-V validation, glTF) throws and
# catches, and ASan's __cxa_throw interceptor needs the real one at start-up
asan="$asan $(gcc -print-file-name=libubsan.so) $(gcc -print-file-name=libstdc++.so)"
LUA_CPATH="$PWD/build-asan/?.so;;" LUA_PATH="$PWD/lua/?.lua;$PWD/lua/?/init.lua;;" \
FG_SHADER_DIR="$PWD/build-asan/shaders" FG_SANITIZER=asan ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0 \
  LD_PRELOAD="$asan" lua5.4 /usr/bin/busted -o utfTerminal spec 2>&1 | tee "$log.b"
read -r b_ok b_bad < <(busted_counts "$log.b")
grep -q "ERROR: AddressSanitizer\|runtime error:" "$log.b" && b_bad=$((b_bad + 1))
echo "$(( c_total - c_failed + b_ok )) passed, $(( c_failed + b_bad )) failed"
rm -f "$log" "$log.b"
[ "$c_failed" = 0 ] && [ "$b_bad" = 0 ] && [ "$c_total" -gt 0 ]
