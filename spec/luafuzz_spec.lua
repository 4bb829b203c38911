-- The Lua-API sequence fuzzer (tests/luafuzz/fuzz.lua) for a bounded run:
-- a fixed list of seeds (reproducible), at most 60 s. Under
-- scripts/sanitize.sh this runs with the ASan-instrumented module. Longer:
-- `lua5.4 tests/luafuzz/fuzz.lua --seconds 3600` (docs/RELIABILITY.md).
package.path = "tests/?.lua;" .. package.path
local fuzz = require("luafuzz.fuzz")

describe("Lua-API sequence fuzzer", function()
  it("random sequences of public calls with hostile arguments: no finding", function()
    local n = tonumber(os.getenv("FG_LUAFUZZ_SEQUENCES")) or (os.getenv("FG_TEST_QUICK") and 20 or 60)
    local f = fuzz.run{ seed = 1, sequences = n, seconds = 60, calls = 30 }
    assert.is_true(f.sequences > 0)
    assert.are.same({}, f.findings)
  end)
end)
