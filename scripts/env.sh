# Source this to use the in-tree build: `. scripts/env.sh` then `lua5.4 examples/main.lua`.
_fg_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export LUA_PATH="$_fg_root/lua/?.lua;$_fg_root/lua/?/init.lua;;"
export LUA_CPATH="$_fg_root/build/?.so;;"
export FG_SHADER_DIR="$_fg_root/build/shaders"
# `busted FILE` from any folder runs a spec on Lua 5.4 (scripts/bin/busted)
case ":$PATH:" in *":$_fg_root/scripts/bin:"*) ;; *) export PATH="$_fg_root/scripts/bin:$PATH" ;; esac
