#!/usr/bin/env bash
# Runs one example: sets up (packages + build), then examples/run.lua, which
# renders examples/NAME.lua with every solver, prints the memory table, checks
# the outputs are bit-identical and saves the PNGs into out_dir (default out/).
#   bash scripts/example.sh NAME [out_dir]      e.g. bash scripts/example.sh deferred
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 1 ]; then
  echo "usage: bash scripts/example.sh NAME [out_dir]; NAME is one of:" >&2
  for f in examples/*.lua; do
    n=$(basename "$f" .lua)
    case "$n" in common|run|main) ;; *) echo "  $n" >&2 ;; esac
  done
  exit 2
fi
bash scripts/setup.sh
. scripts/env.sh
exec lua5.4 examples/run.lua "$@"
