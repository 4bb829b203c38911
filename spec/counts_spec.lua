-- scripts/counts.sh reads the runners' totals even when a failure message
-- holds raw bytes (NUL, invalid UTF-8): plain grep would print "binary file
-- matches" and the totals would read as a crash.
local function counts(fn, text)
  local path = os.tmpname()
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
  local p = io.popen("bash -c '. scripts/counts.sh; " .. fn .. " " .. path .. "' 2>&1")
  local out = p:read("a")
  p:close()
  os.remove(path)
  return out
end

describe("scripts/counts.sh", function()
  it("reads busted's summary past raw bytes", function()
    local log = "Failure -> spec/x_spec.lua @ 3\nexpected '\255\254\0\1' got 'a\0b'\n"
      .. "\27[32m7 successes\27[0m / 2 failures / 1 error / 0 pending : 0.5 seconds\n"
    assert.are.equal("7 3\n", counts("busted_counts", log))
  end)
  it("sums ctest's summaries past raw bytes", function()
    local log = "100% tests passed, 0 tests failed out of 12\n\255\0 raw\n"
      .. "50% tests passed, 2 tests failed out of 4\n"
    assert.are.equal("16 2\n", counts("ctest_counts", log))
  end)
  it("reads no summary as one failure", function()
    assert.are.equal("0 1\n", counts("busted_counts", "Segmentation fault \0\255\n"))
  end)
end)
