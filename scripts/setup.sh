#!/usr/bin/env bash
# Installs the Debian 12 packages framegraph needs (only the missing ones) and
# builds everything into ./build. Safe to run repeatedly. chromium, graphviz and
# imagemagick serve the HTML report and its screenshot test (spec/report_page_spec.lua);
# clang and its runtime build the libFuzzer targets (scripts/fuzz.sh); g++, libtinygltf-dev
# and nlohmann-json3-dev the glTF loader (csrc/vk/mesh_gltf.cpp, fg.mesh).
set -euo pipefail
cd "$(dirname "$0")/.."
PKGS="lua5.4 liblua5.4-dev lua-busted libvulkan-dev libvulkan-volk-dev mesa-vulkan-drivers \
vulkan-validationlayers vulkan-tools glslc spirv-tools cmake gcc make libpng-dev luarocks \
chromium graphviz imagemagick clang libclang-rt-14-dev \
libxcb1-dev xvfb x11-apps xauth valgrind g++ libtinygltf-dev nlohmann-json3-dev"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "setup: installing$missing" >&2
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >&2
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" 2>&1 | grep -Ev '^\[|^-- |Built target|Scanning dependencies' >&2 || true
# A failed build must stop here with the compiler's message, not later with a missing module.
cmake --build build -j"$(nproc)" >/dev/null
