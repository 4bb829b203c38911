#!/usr/bin/env bash
# Runs one example: sets up (packages + build), then examples/run.lua, which
# renders examples/NAME.lua with every solver, prints the memory table, checks
# the outputs are bit-identical and saves the PNGs into out_dir (default out/).
#   bash scripts/example.sh NAME [out_dir]      e.g. bash scripts/example.sh deferred
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 1 ]; then
  echo "usage: bash scripts/example.sh NAME [out_dir]; NAME is one of:" >&2
  # runnable examples are the chunks that take the device: `local dev = ...`
  for f in examples/*.lua; do
    grep -q '^local dev = \.\.\.' "$f" && echo "  $(basename "$f" .lua)" >&2
  done
  exit 2
fi
bash scripts/setup.sh
. scripts/env.sh
exec lua5.4 examples/run.lua "$@"
