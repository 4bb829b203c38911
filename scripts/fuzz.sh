#!/usr/bin/env bash
# Runs the libFuzzer targets (tests/fuzz) for longer than CI does:
#   bash scripts/fuzz.sh [seconds per target, default 300] [target ...]
# Builds them with clang, ASan and UBSan into build-fuzz/. New inputs go to
# build-fuzz/corpus-TARGET (seeded from tests/fuzz/corpus/TARGET); a crash
# leaves build-fuzz/crash-* to replay with `build/fuzz_TARGET FILE`.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-300}; shift || true
targets=${*:-pack graph}
command -v clang >/dev/null || apt-get install -y -q clang libclang-rt-14-dev >/dev/null
san="-fsanitize=address,undefined -fno-sanitize-recover=all"
CC=clang cmake -S . -B build-fuzz -DFG_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link $san" -DCMAKE_EXE_LINKER_FLAGS="$san" >/dev/null
for t in $targets; do cmake --build build-fuzz -j2 --target fuzz_$t >/dev/null; done
for t in $targets; do
  mkdir -p build-fuzz/corpus-$t
  (cd build-fuzz && ./fuzz_$t -max_total_time="$secs" -max_len=1024 -print_final_stats=1 \
      corpus-$t ../tests/fuzz/corpus/$t 2>&1 | grep -E "^stat::number_of_executed_units|^#[0-9]+ *DONE|ERROR|SUMMARY" )
done
