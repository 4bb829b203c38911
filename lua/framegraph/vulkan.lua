-- framegraph.vulkan: the device and shader entry points, merged into `fg`.
--   dev = fg.vulkan{ validation = true, prefer = "gpu"|"software", present = true }
--     present: enable the X11 surface and swapchain extensions (fg.window).
--     async_queue = "auto"|"off"|"same": the queue of nodes declared queue = "async"
--       (auto: a compute-only family, else a second graphics queue, else none;
--       same: their own submissions on the graphics queue, for testing);
--       $FG_ASYNC_QUEUE overrides it.
--   sh  = fg.shader(dev, spirv_bytes_or_path [, opts])
--     opts: fragment_only = true (refuse anything but a fragment shader; it runs on
--           the built-in fullscreen triangle), vertex = spirv_or_path (own vertex
--           shader), name = "for messages", depth_test/depth_write/blend = bool.
--   sh:info() -> { stage = "compute"|"graphics", name, local_size = {x,y,z},
--                  color_outputs, push_bytes, bindings = {{binding, type, count,
--                  name (when not stripped), readonly, writeonly, stages}} }
--   dev:compute(sh, { [binding] = bytes_or_size }, gx, gy, gz, push_bytes_string)
--     -> { [binding] = bytes }: one dispatch on dedicated buffers (tests, tools).
local core = require("framegraph.core")

local M = {}

local check_opts = require("framegraph.opts").check

-- A flag option: {validation = "no"} would be true by Lua's truth, so only
-- true, false or nil are taken.
local function check_bools(opts, where, names)
  for _, k in ipairs(names) do
    local v = opts[k]
    if v ~= nil and type(v) ~= "boolean" then
      error(("%s: opts.%s must be true or false, got %s"):format(where, k, type(v)), 3)
    end
  end
end

-- Opens a headless Vulkan 1.3 device. Raises when none can be opened: a
-- pipeline cannot run without one, and the message says what was missing.
function M.vulkan(opts)
  opts = check_opts(opts, "fg.vulkan", { validation = true, prefer = true, present = true, async_queue = true })
  check_bools(opts, "fg.vulkan", { "validation", "present" })
  local aq = opts.async_queue or "auto"
  if aq ~= "auto" and aq ~= "off" and aq ~= "same" then
    error(("fg.vulkan: async_queue must be \"auto\", \"off\" or \"same\", got %q"):format(tostring(aq)), 2)
  end
  local prefer = opts.prefer or "gpu"
  if prefer ~= "gpu" and prefer ~= "software" then
    error(("fg.vulkan: prefer must be \"gpu\" or \"software\", got %q"):format(tostring(prefer)), 2)
  end
  local dev, err = core.vulkan_open(opts.validation and true or false, prefer == "software",
                                   opts.present and true or false, aq)
  if not dev then error("fg.vulkan: " .. err, 2) end
  return dev
end

-- Where the SPIR-V built with this module lives: $FG_SHADER_DIR, else the
-- shaders/ folder beside the loaded framegraph/core.so (build*/shaders), else
-- "build/shaders".
function M.shader_dir()
  local env = os.getenv("FG_SHADER_DIR")
  if env then return env end
  for tmpl in package.cpath:gmatch("[^;]+") do
    local so = tmpl:gsub("%?", "framegraph/core")
    local f = io.open(so, "rb")
    if f then
      f:close()
      return (so:gsub("framegraph/core%.so$", "shaders"))
    end
  end
  return "build/shaders"
end

-- Looks a shader up: a SPIR-V string (magic 0x07230203) is used as is, else
-- the argument is a path, tried as given and under fg.shader_dir().
local function load_spirv(src)
  if #src >= 4 and (src:sub(1, 4) == "\3\2\35\7" or src:sub(1, 4) == "\7\35\2\3") then
    return src, "<spirv>"
  end
  if src:find("\0", 1, true) then
    -- io.open would stop at the NUL and open another file
    error(("fg.shader: the path '%s' holds a NUL byte; paths cannot contain NUL"):format(src:gsub("%z", "\\0")), 3)
  end
  local candidates = { src }
  local dir = M.shader_dir()
  candidates[#candidates + 1] = dir .. "/" .. src
  if not src:match("%.spv$") then candidates[#candidates + 1] = dir .. "/" .. src .. ".spv" end
  if src == "" then return nil, "fg.shader: argument #2 is empty; give SPIR-V bytes or a path" end
  for _, p in ipairs(candidates) do
    local f = io.open(p, "rb")
    if f then
      local bytes, rerr = f:read("a")
      f:close()
      -- a directory opens but does not read: the message said only its path
      if not bytes then return nil, ("fg.shader: cannot read '%s': %s"):format(p, tostring(rerr)) end
      return bytes, p
    end
  end
  return nil, ("fg.shader: '%s' is neither SPIR-V bytes nor a readable file (tried %s)")
    :format(src, table.concat(candidates, ", "))
end

-- While a pipeline file loads (framegraph.runtime's loader), the loader puts a
-- cache here: { dev = dev, get = function(key) -> shader | nil, put = function(key, shader) }.
-- The key is the SPIR-V and the options, so a reload that asks for the same
-- shader gets the same object (and its VkPipelines) back.
M._shader_cache = nil

local function cache_key(bytes, vbytes, name, opts)
  return table.concat({ bytes, vbytes or "", name, tostring(opts.fragment_only), tostring(opts.depth_test),
                        tostring(opts.depth_write), tostring(opts.blend) }, "\0")
end

function M.shader(dev, src, opts)
  if dev == nil then  -- named at the caller's line, not here
    error("fg.shader: no device (argument #1 is nil): this pipeline file ran without one (fg.compile, framegraph "
            .. "check and report plan without a GPU); create shaders only when there is one: `if dev then ... end`", 2)
  end
  if type(src) ~= "string" then
    error(("fg.shader: argument #2 must be SPIR-V bytes or a path, got %s"):format(type(src)), 2)
  end
  opts = check_opts(opts, "fg.shader", { fragment_only = true, name = true, vertex = true,
                                         depth_test = true, depth_write = true, blend = true })
  check_bools(opts, "fg.shader", { "fragment_only", "depth_test", "depth_write", "blend" })
  if opts.vertex ~= nil and type(opts.vertex) ~= "string" then
    error(("fg.shader: opts.vertex must be SPIR-V bytes or a path, got %s"):format(type(opts.vertex)), 2)
  end
  if opts.name ~= nil and (type(opts.name) ~= "string" or opts.name:find("\0", 1, true)) then
    error("fg.shader: opts.name must be a string without NUL bytes", 2)
  end
  local bytes, where = load_spirv(src)
  if not bytes then error(where, 2) end
  local vbytes
  if opts.vertex then
    local vwhere
    vbytes, vwhere = load_spirv(opts.vertex)
    if not vbytes then error(vwhere, 2) end
  end
  if not core.shader_create then
    error("fg.shader: this build has no shader support", 2)
  end
  local cache, key = M._shader_cache, nil
  if cache and cache.dev == dev then
    key = cache_key(bytes, vbytes, opts.name or where, opts)
    local hit = cache.get(key)
    if hit then return hit end
  end
  local sh, err = core.shader_create(dev, bytes, {
    name = opts.name or where, vertex = vbytes, fragment_only = opts.fragment_only,
    depth_test = opts.depth_test, depth_write = opts.depth_write, blend = opts.blend,
  })
  if not sh then error("fg.shader: " .. err, 2) end
  if key then cache.put(key, sh) end
  return sh
end

return M
