-- examples/compute4.lua: a 4-node compute pipeline (fill -> blur -> combine ->
-- output) run on lavapipe (or a GPU) with validation. Prints the VkDeviceMemory
-- allocated aliased ("best") vs unaliased ("none"), checks the two pictures
-- are byte-identical, and saves the output as a PNG.
-- Run (from the repository root, after the build):
--   LUA_CPATH='build/?.so;;' lua5.4 examples/compute4.lua [out.png] [gpu|software]
package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
local fg = require("framegraph")

local out_png = arg and arg[1] or "compute4.png"
local prefer = arg and arg[2] or "software"

local dev = fg.vulkan{ validation = true, prefer = prefer }
local sh = {}
for _, n in ipairs{ "fill", "blur", "combine", "invert" } do
  sh[n] = fg.shader(dev, "ex_" .. n .. ".comp.spv")  -- found under fg.shader_dir()
end

local function groups(ctx) return (ctx.width + 7) // 8, (ctx.height + 7) // 8 end
local pipeline = {
  name = "compute4",
  resolutions = { main = { 256, 256 } },
  outputs = { "final" },
  nodes = {
    { name = "fill", create = { noise = { format = "rgba8_unorm", size = "main" } },
      run = function(cmd, ctx)
        local gx, gy = groups(ctx)
        cmd:dispatch(sh.fill, { [0] = "noise" }, gx, gy, 1, { 42 })
      end },
    { name = "blur", read = { noise = "storage" },
      create = { blurred = { format = "rgba8_unorm", size = "main" } },
      run = function(cmd, ctx)
        local gx, gy = groups(ctx)
        cmd:dispatch(sh.blur, { [0] = "noise", [1] = "blurred" }, gx, gy, 1)
      end },
    { name = "combine", read = { noise = "storage", blurred = "storage" },
      create = { mixed = { format = "rgba8_unorm", size = "main" } },
      run = function(cmd, ctx)
        local gx, gy = groups(ctx)
        cmd:dispatch(sh.combine, { [0] = "noise", [1] = "blurred", [2] = "mixed" }, gx, gy, 1, { 0.2 })
      end },
    { name = "output", read = { mixed = "storage" },
      create = { final = { format = "rgba8_unorm", size = "main" } },
      run = function(cmd, ctx)
        local gx, gy = groups(ctx)
        cmd:dispatch(sh.invert, { [0] = "mixed", [1] = "final" }, gx, gy, 1)
      end },
  },
}

local results = {}
for _, solver in ipairs{ "best", "none" } do
  local rt = fg.runtime(dev, pipeline, { solver = solver })
  local st
  for _ = 1, 4 do st = rt:frame() end
  local mem = rt:memory()
  local heaps = {}
  for i, h in ipairs(mem) do heaps[#heaps + 1] = ("heap %d: %d bytes (memory type %d)"):format(i, h.bytes, h.memory_type) end
  print(("%-5s VkDeviceMemory %8d bytes in %d allocation(s); %s; %d barriers/frame"):format(
    solver, mem.total, mem.allocations, table.concat(heaps, ", "), st.barriers))
  results[solver] = { bytes = assert(rt:read("final")), total = mem.total }
  if solver == "best" then assert(rt:save_png("final", out_png)) end
  rt:close()
end
print(("aliased/unaliased memory: %.2f; pictures identical: %s; saved %s"):format(
  results.best.total / results.none.total, tostring(results.best.bytes == results.none.bytes), out_png))
local msgs = dev:messages()
print(("validation messages: %d"):format(#msgs))
for _, m in ipairs(msgs) do print(m) end
dev:close()
os.exit((results.best.bytes == results.none.bytes and #msgs == 0) and 0 or 1)
