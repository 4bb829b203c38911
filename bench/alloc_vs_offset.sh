#!/usr/bin/env bash
# Side-by-side bench of our TLSF (handle path) and OffsetAllocator.
#   bench/alloc_vs_offset.sh DIR [bench args...]
# DIR holds OffsetAllocator's public source (offsetAllocator.cpp/.hpp, MIT,
# github.com/sebbbi/OffsetAllocator); it is compiled from there, never copied
# into this repository. Both sides are built with the same compiler flags.
# Prints one line per occupancy:
#   occupancy 0.50: ours X ns, OffsetAllocator Y ns, ratio R; failed ours A %, OffsetAllocator B %
set -euo pipefail
dir=${1:?usage: bench/alloc_vs_offset.sh DIR (a checkout of OffsetAllocator)}
shift
[ -f "$dir/offsetAllocator.cpp" ] || { echo "no offsetAllocator.cpp in $dir" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
flags="-O2 -DNDEBUG"
cat > "$out/shim.cpp" <<'CPP'
#include "offsetAllocator.hpp"
using OffsetAllocator::Allocator;
extern "C" {
void *oa_create(unsigned size, unsigned max_allocs) { return new Allocator(size, max_allocs); }
void oa_destroy(void *a) { delete static_cast<Allocator *>(a); }
unsigned oa_alloc(void *a, unsigned size, unsigned *meta) {
  OffsetAllocator::Allocation r = static_cast<Allocator *>(a)->allocate(size);
  *meta = r.metadata;
  return r.offset;
}
void oa_free(void *a, unsigned offset, unsigned meta) {
  OffsetAllocator::Allocation r;
  r.offset = offset;
  r.metadata = meta;
  static_cast<Allocator *>(a)->free(r);
}
}
CPP
${CXX:-c++} $flags -std=c++17 -I"$dir" -c "$dir/offsetAllocator.cpp" -o "$out/oa.o"
${CXX:-c++} $flags -std=c++17 -I"$dir" -c "$out/shim.cpp" -o "$out/shim.o"
objs=""
for f in "$root"/csrc/core/alloc*.c "$root"/csrc/core/fg_util.c; do
  o="$out/$(basename "$f" .c).o"
  ${CC:-cc} $flags -std=c11 -I"$root/csrc/core" -c "$f" -o "$o"
  objs="$objs $o"
done
${CC:-cc} $flags -std=c11 -DFG_WITH_OFFSET_ALLOCATOR -I"$root/csrc/core" -c "$root/bench/alloc_vs_offset.c" -o "$out/bench.o"
${CXX:-c++} -o "$out/bench_alloc_vs_offset" "$out/bench.o" $objs "$out/oa.o" "$out/shim.o" -lm -lpthread
"$out/bench_alloc_vs_offset" "$@"
