-- The memory timeline names every physical resource: inside its rectangle
-- when the name fits, else in the list under its panel; names are drawn over
-- the LOAD curve; the legend explains the frame copies f0/f1.
local fg = require("framegraph")

local function texts(svg)
  local out = {}
  for cls, t in svg:gmatch('<text class="([%w%-]+)"[^>]*>([^<]*)</text>') do out[#out + 1] = { cls = cls, text = t } end
  return out
end

local function unescape(s) return (s:gsub("&gt;", ">"):gsub("&lt;", "<"):gsub("&amp;", "&")) end

describe("report: every resource is named on the timeline", function()
  for _, ex in ipairs({ "deferred", "taa", "vr", "screenshot", "split_screen" }) do
    it(ex .. ": each packed frame copy has a visible name (inside or listed)", function()
      local g = fg.compile(dofile("examples/" .. ex .. ".lua"))
      local svg = g:svg()
      local inside, listed = {}, {}
      for _, t in ipairs(texts(svg)) do
        local s = unescape(t.text)
        if t.cls == "res-label" then inside[#inside + 1] = s
        elseif t.cls == "small-name" then listed[#listed + 1] = s end
      end
      for _, r in ipairs(g:resources()) do
        if r.heap then
          local named = false
          for _, s in ipairs(listed) do
            if s:find(r.name, 1, true) == 1 and s:find(" f" .. r.frame .. " ", 1, true) then named = true end
          end
          for _, s in ipairs(inside) do
            if s:find(r.name, 1, true) == 1 then named = true end
          end
          assert.is_true(named, ("%s f%d is not named"):format(r.name, r.frame))
        end
      end
    end)
  end

  it("lists a 42 KiB target next to 4 MiB ones under the panel with its size", function()
    local T = function(w, h) return { format = "rgba8_unorm", size = { w, h } } end
    local g = fg.compile({ outputs = { "final" }, nodes = {
      { name = "a", create = { big = T(1024, 1024) } },
      { name = "b", read = { "big" }, create = { small = T(104, 104) } },
      { name = "c", read = { "small", "big" }, create = { final = T(1024, 1024) } } } })
    local svg = g:svg()
    assert.matches('<text class="small%-name"[^>]*>small f0  42%.2 KiB  slots ', svg)
    assert.matches("Too small to name in the picture above", svg, 1, true)
  end)

  it("draws the names after the LOAD curve and explains f0/f1", function()
    local svg = fg.compile(dofile("examples/deferred.lua")):svg()
    local curve = svg:find('<path class="load"', 1, true)
    local first_label = svg:find('<text class="res-label"', 1, true)
    assert.is_truthy(curve and first_label)
    assert.is_true(first_label > curve)
    assert.matches("f0, f1: the two frame copies of a resource", svg, 1, true)
  end)
end)
