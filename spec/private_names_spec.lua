-- No private `_` name is reachable from require("framegraph") or from the
-- methods of a user object (graph, runtime, shader, device, image, memory,
-- pool, allocator, cmd, window, upload), except the documented test hooks.
-- The second list holds what another part still calls as a method
-- (lua/framegraph/runtime.lua); it may only shrink: a new `_` name fails.
local fg = require("framegraph")

local test_hooks = { ["runtime._fail_allocations"] = true }
local still_used = {}

local function private_names()
  local found = {}
  local function scan(prefix, t, depth, seen)
    if seen[t] then return end
    seen[t] = true
    for k, v in pairs(t) do
      if type(k) == "string" and k:sub(1, 1) == "_" and not k:find("^__") then found[#found + 1] = prefix .. k end
      if type(v) == "table" and depth > 0 then scan(prefix .. tostring(k) .. ".", v, depth - 1, seen) end
    end
  end
  local seen = {}
  for k, v in pairs(fg) do
    if type(k) == "string" and k:sub(1, 1) == "_" then found[#found + 1] = "fg." .. k end
    -- fg.core's own names; its method tables are checked as the objects' below
    if type(v) == "table" then scan("fg." .. k .. ".", v, k == "core" and 0 or 2, seen) end
  end
  -- every user object's methods: the __index of each metatable the module registers
  for name, mt in pairs(debug.getregistry()) do
    if type(name) == "string" and name:find("^framegraph%.") and type(mt) == "table" and type(mt.__index) == "table" then
      scan(name:gsub("^framegraph%.", "") .. ".", mt.__index, 0, {})
    end
  end
  return found
end

describe("private names", function()
  it("are not reachable from the module or user objects, except documented test hooks", function()
    local stray = {}
    for _, n in ipairs(private_names()) do
      if not test_hooks[n] and not still_used[n] then stray[#stray + 1] = n end
    end
    table.sort(stray)
    assert.are.same({}, stray)
  end)

  it("graph:update's hooks are no graph methods", function()
    local g = fg.compile({ outputs = { "o" }, nodes = { { name = "a", create = { o = { buffer = 8 } } } } })
    for _, k in ipairs({ "_node_redeclare", "_node_remove", "_recompile", "_replace", "_opts" }) do
      assert.is_nil(g[k], k)
    end
    g:close()
  end)
end)
