#!/usr/bin/env bash
# Everything we prove and measure on the GPU machine, in one call:
#   bash scripts/gpu-run.sh [tests|bench|cdsa]...   (logs go to $OUT, default ./out)
# Tests run the same specs as on lavapipe, with FG_DEVICE=gpu and validation on.
cd "$(dirname "$0")/.."
OUT=${OUT:-out}; mkdir -p "$OUT"
. scripts/gpu-env.sh
fg_gpu_build || { echo "build failed"; exit 1; }
export FG_DEVICE=gpu
{ nvidia-smi -L; uname -m; nproc; grep -m1 "model name" /proc/cpuinfo; } > "$OUT/machine.txt" 2>&1
for phase in "${@:-tests bench}"; do
  case "$phase" in
    tests)
      (cd build-gpu && ctest --output-on-failure) > "$OUT/ctest.log" 2>&1
      lua5.4 /opt/fg/usr/bin/busted --cpath='build-gpu/?.so' -o utfTerminal spec > "$OUT/busted.log" 2>&1
      lua5.4 examples/compute4.lua "$OUT/compute4.png" gpu > "$OUT/compute4.log" 2>&1
      lua5.4 examples/main.lua examples/deferred.lua nvidia > "$OUT/main.log" 2>&1
      tail -n 3 "$OUT/ctest.log" "$OUT/busted.log" "$OUT/compute4.log" ;;
    bench)
      lua5.4 bench/memory.lua > "$OUT/memory.log" 2>&1
      ./build-gpu/bench_alloc > "$OUT/alloc.log" 2>&1
      lua5.4 bench/frame.lua > "$OUT/frame.log" 2>&1
      ./build-gpu/bench_compile none scanline best > "$OUT/compile.log" 2>&1
      cat "$OUT/memory.log"; tail -n 25 "$OUT/alloc.log" ;;
    cdsa)
      ./build-gpu/bench_cdsa --instances "${CDSA_INSTANCES:-500}" > "$OUT/cdsa.log" 2>&1
      tail -n 40 "$OUT/cdsa.log" ;;
  esac
done
