-- examples/run_multiplex.lua NAME [out_dir]: runs examples/NAME.lua (vr,
-- screenshot, split_screen) on a Vulkan device with validation: a few frames
-- with each solver (none = no aliasing, pool, best = our plan, best with
-- poisoned memory), prints the memory table, checks that every run's outputs
-- are byte-identical, runs the example's own step (PNGs) on the `best` run and
-- exits non-zero on any validation message or mismatch.
--   . scripts/env.sh && lua5.4 examples/run_multiplex.lua vr out
-- (Temporary twin of examples/run.lua, to be folded into it.)
local dir = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "examples"
package.path = dir .. "/?.lua;" .. package.path
local ex = require("common")

local name = arg[1] or error("usage: lua5.4 examples/run_multiplex.lua NAME [out_dir]")
local out_dir = arg[2] or "out"
os.execute("mkdir -p '" .. out_dir .. "'")

local dev = ex.device()
print(("device: %s"):format(dev:info().name))
local pipeline, extras = ex.load(dir .. "/" .. name .. ".lua", dev)
extras = extras or {}
local files, lines = {}, {}
-- the example's own report (ex.log when it uses it) is printed after the memory table
local exl = setmetatable({ log = function(line) lines[#lines + 1] = line end }, { __index = ex })
local runs = ex.memory(dev, pipeline, {
  frames = extras.frames, poison = true,
  each = function(rt, label)
    if label == "best" and extras.after then files = extras.after(rt, out_dir, exl) or {} end
  end,
})
ex.print_memory(pipeline.name or name, runs)
for _, l in ipairs(lines) do print(l) end
for _, f in ipairs(files) do print("wrote " .. f) end
local same = ex.identical(runs)
local msgs = ex.report_messages(dev)
dev:close()
os.exit((same and msgs == 0) and 0 or 1)
