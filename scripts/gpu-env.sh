# Source on the GPU machine (bare CUDA image, no Lua/Vulkan loader): unpacks the
# Debian 12 packages carried in .gl/ and sets the environment to build and test
# framegraph there. Loader/GL packages go to / (the device recipe); the rest to
# /opt/fg so nothing of the image is replaced.
set -e
for f in .gl/*.deb; do dpkg -x "$f" /; done
mkdir -p /opt/fg
for f in .gl/extra/*.deb; do dpkg -x "$f" /opt/fg; done
ldconfig
P=/opt/fg/usr
# libvulkan-dev's libvulkan.so points at the loader, which went to /: only the
# C host example links it (framegraph itself loads Vulkan through volk)
ln -sf /usr/lib/x86_64-linux-gnu/libvulkan.so.1 "$P/lib/x86_64-linux-gnu/libvulkan.so"
export PATH="$P/bin:$PATH"
export LD_LIBRARY_PATH="$P/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export VK_LAYER_PATH="$P/share/vulkan/explicit_layer.d"
[ -e /usr/share/vulkan/icd.d/nvidia_icd.json ] || [ -e /etc/vulkan/icd.d/nvidia_icd.json ] || [ ! -e /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ] || \
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json \
         __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
_root=$(pwd)
export LUA_PATH="$_root/lua/?.lua;$_root/lua/?/init.lua;$_root/spec/?.lua;$P/share/lua/5.4/?.lua;$P/share/lua/5.4/?/init.lua;;"
export LUA_CPATH="$_root/build-gpu/?.so;$P/lib/x86_64-linux-gnu/lua/5.4/?.so;;"
export FG_SHADER_DIR="$_root/build-gpu/shaders"
export CFLAGS="-I$P/include -I$P/include/x86_64-linux-gnu"
fg_gpu_build() {
  cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS="$CFLAGS" -DLUA_INCDIR=$P/include/lua5.4 \
    -DVOLK_C=$P/include/volk.c -DCMAKE_PREFIX_PATH=$P -DLUA_LIBRARY=$P/lib/x86_64-linux-gnu/liblua5.4.so >/dev/null &&
  cmake --build build-gpu -j16 2>&1 | grep -E 'error|warning' ; test -f build-gpu/framegraph/core.so &&
  { [ -e build ] || ln -s build-gpu build; }  # bin/framegraph looks for the module under ./build
}
set +e
