#!/usr/bin/env bash
# Everything we prove and measure on the GPU machine, in one call:
#   bash scripts/gpu-run.sh [tests] [bench] [cdsa] [host] [async] [alloc] [compile] [scale]   (logs go to $OUT, default ./out)
# FG_COMMIT names the commit in machine.txt: the device's copy of the tree
# may carry stale git metadata, so pass it from here (git rev-parse HEAD).
# tests: the same ctest + busted suites as on lavapipe, with FG_DEVICE=gpu and
#        validation (syncval) on, plus the examples;
# bench: real memory per example, allocators vs raw vkAllocateMemory, frame
#        recording cost, compile times;
# host:  the C host example (examples/host), with and without validation;
# compile: bench/compile.c before (.gl/before) and after, alternating (issue 29);
# alloc: bench/alloc_vs_offset.sh against OffsetAllocator (.gl/OffsetAllocator), 6 runs;
# scale: bench/scale.lua and bench/random_items.lua (fg.pack at 30,000 / 100,000 items), 3 runs;
# async: bench/async.lua (serial vs async compute queue) and the async specs;
# cdsa:  the full bootstrap (CDSA_INSTANCES per n, default 2000; the clique
#        lower bound on the first CDSA_CLIQUE of them, default 200), one
#        process per n in parallel (n <= 200 first, then the rest), so it
#        fits one call on 16 cores.
cd "$(dirname "$0")/.."
OUT=${OUT:-out}; mkdir -p "$OUT"
. scripts/gpu-env.sh
fg_gpu_build || { echo "build failed"; exit 1; }
export FG_DEVICE=gpu
{ nvidia-smi -L; uname -m; echo "nproc $(nproc)"; grep -m1 "model name" /proc/cpuinfo; echo "commit ${FG_COMMIT:-$(git log -1 --format=%H)}"; } > "$OUT/machine.txt" 2>&1
for phase in "${@:-tests bench}"; do
  case "$phase" in
    tests)
      {
        echo "== ctest"; (cd build-gpu && ctest --output-on-failure)
        echo "== busted"; lua5.4 /opt/fg/usr/bin/busted --cpath='build-gpu/?.so' -o utfTerminal spec
        echo "== examples/compute4.lua"; lua5.4 examples/compute4.lua /tmp/compute4.png gpu
        echo "== examples/main.lua (profile nvidia)"; lua5.4 examples/main.lua examples/deferred.lua nvidia
        for ex in deferred taa vr screenshot split_screen; do
          echo "== examples/run.lua $ex"; lua5.4 examples/run.lua "$ex" /tmp/fg-examples   # PNGs stay there: few files come back
        done
      } > "$OUT/tests.log" 2>&1
      grep -E "tests passed|successes|identical|validation messages|VkDeviceMemory" "$OUT/tests.log" ;;
    bench)
      {
        echo "== bench/memory.lua"; lua5.4 bench/memory.lua
        echo "== bench_alloc"; ./build-gpu/bench_alloc
        echo "== bench/frame.lua"; lua5.4 bench/frame.lua
        echo "== bench_compile"; ./build-gpu/bench_compile none scanline best
        echo "== bench_compile, declared order"; FG_SCHEDULE=declared ./build-gpu/bench_compile best
        echo "== bench/schedule.lua"; lua5.4 bench/schedule.lua
      } > "$OUT/bench.log" 2>&1
      grep -E "^\| [a-z_]+ +\||faster|^ *1000 nodes|re-plan|node order" "$OUT/bench.log" ;;
    host)
      # the C host example (its own instance and device) on the GPU: 600
      # frames with validation (syncval) on, then 600 without, timed whole
      TIMEFORMAT="wall %R s"
      {
        echo "== framegraph-host, validation on"
        time ./build-gpu/framegraph-host examples/host/scene.lua --frames 600 --screenshot "$OUT/host.png"
        echo "== framegraph-host, validation off"
        time ./build-gpu/framegraph-host examples/host/scene.lua --frames 600 --no-validation
      } > "$OUT/host.log" 2>&1
      grep -vE "^frame [0-9]+:" "$OUT/host.log" ;;
    async)
      # issue 31: examples/async.lua (SSAO and bloom on the compute-only
      # family) against its serial twin at 1920x1080, validation off; then
      # the async specs again with synchronization validation on
      {
        echo "== bench/async.lua 300 1920x1080 3"; lua5.4 bench/async.lua 300 1920x1080 3
        echo "== bench/async.lua 300 3840x2160 2"; lua5.4 bench/async.lua 300 3840x2160 2
        echo "== async specs (syncval)"; lua5.4 /opt/fg/usr/bin/busted --cpath='build-gpu/?.so' -o utfTerminal spec/runtime_async_spec.lua spec/example_async_spec.lua
      } > "$OUT/async.log" 2>&1
      cat "$OUT/async.log" | tail -80 ;;
    compile)
      # issue 29: bench/compile.c before and after side by side, the same
      # flags, alternating; .gl/before holds the tree to compare against
      # (git archive BASE csrc bench ... | tar -x -C .gl/before)
      for t in before after; do
        src=.; [ $t = before ] && src=.gl/before
        cc -O2 -DNDEBUG -std=gnu11 -I$src/csrc/core $src/bench/compile.c $src/csrc/core/*.c -lm -lpthread -o /tmp/compile_$t || exit 1
      done
      { for i in 1 2 3 4 5 6; do for t in before after; do echo "== $t, run $i"; /tmp/compile_$t best; done; done; } > "$OUT/compile.log" 2>&1
      grep -E "^==|1000 nodes|re-plan" "$OUT/compile.log" | head -80 ;;
    alloc)
      # issue 33 on a quiet CPU: our TLSF handles vs OffsetAllocator, whose
      # public source gpu-fetch.sh put in .gl/OffsetAllocator (never in git)
      { for i in 1 2 3 4 5 6; do echo "== run $i"; bash bench/alloc_vs_offset.sh .gl/OffsetAllocator; done; } > "$OUT/alloc.log" 2>&1
      grep -E "^occupancy|^==" "$OUT/alloc.log" ;;
    scale)
      # issue 27's budgets at scale on a quiet CPU: time and makespan / LOAD
      { for i in 1 2 3; do echo "== run $i"; lua5.4 bench/scale.lua; lua5.4 bench/random_items.lua; done;
        echo "== bench/cycle_seeds.lua, 30,000 and 100,000 items"; lua5.4 bench/cycle_seeds.lua 30000 both 1,2,3,4,5,6,7,8,9;
        lua5.4 bench/cycle_seeds.lua 100000 both 1,2,3; } > "$OUT/scale.log" 2>&1
      cat "$OUT/scale.log" ;;
    cdsa)
      # two waves: the targets' sizes (n <= 200) first, 8 processes, then
      # the large ones and the other sets, so the timed calls of the first
      # do not share the cores with n = 500 / 1000
      n=${CDSA_INSTANCES:-2000}; cl=${CDSA_CLIQUE:-200}; pids=""
      for ns in 25 50 75 100 125 150 175 200; do
        ./build-gpu/bench_cdsa --instances "$n" --clique "$cl" --ns "$ns" --no-minimalloc --no-gen > "$OUT/cdsa_$ns.part" 2>&1 & pids="$pids $!"
      done
      wait $pids; pids=""
      for ns in 500 1000; do
        ./build-gpu/bench_cdsa --instances "$n" --clique "$cl" --ns "$ns" --no-minimalloc --no-gen > "$OUT/cdsa_$ns.part" 2>&1 & pids="$pids $!"
      done
      ./build-gpu/bench_cdsa --no-enlisted --no-gen > "$OUT/cdsa_mm.part" 2>&1 & pids="$pids $!"
      ./build-gpu/bench_cdsa --no-enlisted --no-minimalloc > "$OUT/cdsa_gen.part" 2>&1 & pids="$pids $!"
      wait $pids
      cat "$OUT"/cdsa_{25,50,75,100,125,150,175,200,500,1000}.part "$OUT/cdsa_mm.part" "$OUT/cdsa_gen.part" > "$OUT/cdsa.log"
      rm -f "$OUT"/*.part
      grep -E "^Enlisted|^  best |^  bysize" "$OUT/cdsa.log" | head -60 ;;
  esac
done
