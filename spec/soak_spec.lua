-- The short soak (bench/soak.lua runs the full 10 000 + 10 000): recompiles
-- and frames with a reload every 100 frames leave resident memory and the
-- runtime's VkDeviceMemory flat once warm, without validation messages.
local fg = require("framegraph")
local soak = assert(loadfile("bench/soak.lua"))("--lib")

local MiB = 1048576
-- Under scripts/sanitize.sh, ASan keeps freed blocks in quarantine, so resident
-- memory grows without any leak: there the RSS bounds say nothing and are left
-- out (leaks are LeakSanitizer's and valgrind's to find); everything else holds.
local rss_meaningful = not os.getenv("FG_SANITIZER")

describe("soak (short)", function()
  it("500 recompiles/updates keep RSS flat", function()
    local s = soak.recompiles(500)
    local mid, last = s[(#s + 1) // 2], s[#s]
    assert.are.equal(500, last.at)
    if rss_meaningful then assert.is_true(last.rss <= mid.rss + 2 * MiB, ("RSS %d -> %d"):format(mid.rss, last.rss)) end
  end)

  it("500 frames with 5 reloads keep RSS and VkDeviceMemory flat", function()
    local dev = fg.vulkan{ validation = true, prefer = "software" }
    local before = soak.uploads
    local s, reloads, structural = soak.frames(500, dev)
    assert.are.equal(500, soak.uploads - before)  -- every frame recorded its nodes
    assert.are.equal(5, reloads)
    assert.are.equal(3, structural)
    local first, mid, last = s[1], s[(#s + 1) // 2], s[#s]
    assert.is_true(first.device > 0)
    -- the larger plan's memory is kept for the smaller one: no allocation after warm-up
    assert.are.equal(mid.device, last.device)
    assert.are.equal(mid.allocations, last.allocations)
    if rss_meaningful then assert.is_true(last.rss <= mid.rss + 4 * MiB, ("RSS %d -> %d"):format(mid.rss, last.rss)) end
    assert.are.same({}, dev:messages())
    dev:close()
  end)
end)
