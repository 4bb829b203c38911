#!/usr/bin/env bash
# Fills .gl/ (git-ignored) with what scripts/gpu-run.sh carries to the GPU machine:
# the Vulkan/GL loaders (unpacked to / there) and, in .gl/extra, the Debian 12
# packages that build and test framegraph (unpacked to /opt/fg by gpu-env.sh),
# plus the shared data the benches read. Run once here (needs apt-get update);
# then pass carry = [".gl"] to the device's run.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .gl/extra
(cd .gl && apt-get download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
(cd .gl/extra && apt-get download lua5.4 liblua5.4-0 liblua5.4-dev lua-busted lua-cliargs lua-dkjson \
  lua-luassert lua-mediator lua-penlight lua-say lua-system lua-term lua-filesystem libvulkan-dev \
  libvulkan-volk-dev vulkan-validationlayers glslc libshaderc1 spirv-tools libpng-dev libpng16-16 \
  zlib1g-dev cmake cmake-data libjsoncpp25 librhash0 libuv1 libarchive13 libcurl4 libnghttp2-14 \
  libssh2-1 librtmp1 libpsl5 libldap-2.5-0 libsasl2-2 libbrotli1 libxml2 libicu72 libncurses6 \
  libtinfo6 libreadline8 libunistring2 libxcb1 libxcb1-dev libxau6 libxau-dev libxdmcp6 libxdmcp-dev \
  libbsd0 libmd0 x11proto-dev xorg-sgml-doctools libtinygltf-dev nlohmann-json3-dev)
# The benches read data/ from the repository itself. OffsetAllocator (MIT,
# github.com/sebbbi/OffsetAllocator) for bench/alloc_vs_offset.sh: a checkout
# given as $OFFSET_ALLOCATOR_DIR is copied in (the GPU machine has no network).
if [ -n "${OFFSET_ALLOCATOR_DIR:-}" ]; then
  mkdir -p .gl/OffsetAllocator && cp "$OFFSET_ALLOCATOR_DIR"/offsetAllocator.* "$OFFSET_ALLOCATOR_DIR"/LICENSE .gl/OffsetAllocator/
fi
du -sh .gl
