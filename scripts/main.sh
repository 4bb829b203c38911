#!/usr/bin/env bash
# Sets up (packages + build) and runs the main job: the default example pipeline.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
. scripts/env.sh
exec lua5.4 examples/main.lua "$@"
