-- `busted FILE` after `. scripts/env.sh`: Lua 5.4 and the in-tree build from
-- any folder, for a user's spec and for this project's; a failing memory
-- assertion says MiB and what is live at the peak.
local function sh_quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local root = io.popen("pwd"):read("l")

local function run(dir, args)
  local cmd = ("bash -c %s 2>&1"):format(sh_quote((". %s/scripts/env.sh && cd %s && busted %s"):format(
    sh_quote(root), sh_quote(dir), args)))
  local p = io.popen(cmd)
  -- the nested run's summary reworded, so that scripts/test.sh counts only the outer one
  local out = p:read("a"):gsub("(%d+) success(e?s?) /", "%1 success%2:")
  local ok, _, code = p:close()
  return out, ok and 0 or code
end

describe("busted after . scripts/env.sh", function()
  local dir
  setup(function()
    dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir -p " .. sh_quote(dir)))
    local f = assert(io.open(dir .. "/mine_spec.lua", "w"))
    f:write(([[
local fg = require("framegraph")
require("framegraph.assertions")
describe("an artist's spec", function()
  it("runs on Lua 5.4 with the in-tree module", function()
    assert.are.equal("Lua 5.4", _VERSION)
    local g = fg.compile(dofile(%q))
    assert.saves_memory(g, 0.3)
  end)
  it("fails a memory assertion in MiB, naming the peak", function()
    assert.heap_at_most(fg.compile(dofile(%q)), 1024)
  end)
end)
]]):format(root .. "/examples/deferred.lua", root .. "/examples/deferred.lua"))
    f:close()
  end)
  teardown(function() os.execute("rm -rf " .. sh_quote(dir)) end)

  it("runs a user's spec in another folder", function()
    local out, code = run(dir, "mine_spec.lua")
    assert.are_not.equal(0, code)
    assert.matches("1 success: 1 failure", out, 1, true)
    assert.not_matches("undefined symbol", out, 1, true)
    -- MiB, the peak slot and what lives there; no "(string)" noise
    assert.matches("Expected heap %d+%.%d%d MiB %(%d+ bytes%); peak %d+%.%d%d MiB live at slot %d+ %(%S+, frame %d%): ", out)
    assert.matches("shadow_map f%d", out)
    assert.not_matches("(string)", out, 1, true)
  end)

  it("runs one of the project's specs from another folder", function()
    local out, code = run(dir, sh_quote(root .. "/spec/graph_errors_spec.lua"))
    assert.are.equal(0, code, out)
    assert.matches(" successes: 0 failures / 0 errors", out, 1, true)
  end)
end)
