-- framegraph.report: the SVG memory timeline, the DOT picture and the HTML
-- page, checked against the graph they draw.
local fg = require("framegraph")
local report = require("framegraph.report")

local function count(s, pat)
  local n = 0
  for _ in s:gmatch(pat) do n = n + 1 end
  return n
end

local function packed(graph)
  local list = {}
  for _, r in ipairs(graph:resources()) do if r.heap then list[#list + 1] = r end end
  return list
end

local function has_dot()
  return os.execute("command -v dot >/dev/null 2>&1") == true
end

local examples = { "deferred", "vr_ssaa" }

describe("report.svg", function()
  for _, ex in ipairs(examples) do
    for _, profile in ipairs({ "lavapipe", "nvidia" }) do
      it("draws one rectangle per physical resource of " .. ex .. " (" .. profile .. ")", function()
        local g = fg.compile(dofile("examples/" .. ex .. ".lua"), { profile = profile })
        local svg = g:svg()
        assert.are.equal(svg, report.svg(g))
        local res = packed(g)
        assert.is_true(#res > 0)
        assert.are.equal(#res, count(svg, '<rect class="res '))
        -- each resource's tooltip names it with its frame, size and lifetime
        local T = g:stats().period
        for _, r in ipairs(res) do
          local last = (r.stop - 1) % T
          local tip = string.format("frame %d: .-%d bytes%%) at offset %d; live slots %d%%.%%.%d", r.frame, r.bytes,
                                    r.offset, r.first, last)
          assert.truthy(svg:find("<title>" .. r.name:gsub("%p", "%%%0") .. "[^<]-" .. tip),
                        "no tooltip for " .. r.name .. " frame " .. r.frame)
        end
        -- the wrapped second pieces are drawn apart and not counted as resources
        local wraps = 0
        for _, r in ipairs(res) do if r.first > r.stop then wraps = wraps + 1 end end
        assert.are.equal(wraps, count(svg, '<rect class="wrap '))
      end)
    end
  end

  it("places each rectangle at its resource's lifetime and offset", function()
    local g = fg.compile(dofile("examples/deferred.lua"), { profile = "nvidia" })
    local svg = g:svg()
    local s = g:stats()
    local px, py, pw, ph = svg:match('<rect class="plot" x="([%d%.]+)" y="([%d%.]+)" width="([%d%.]+)" height="([%d%.]+)"')
    px, py, pw, ph = tonumber(px), tonumber(py), tonumber(pw), tonumber(ph)
    local sx, sy = pw / s.period, ph / s.heaps[1].bytes
    local by_tip = {}
    for x, y, w, h, tip in svg:gmatch('<rect class="res [^"]*" x="([%d%.]+)" y="([%d%.]+)" width="([%d%.]+)" height="([%d%.]+)"[^>]*><title>([^<]*)') do
      by_tip[#by_tip + 1] = { x = tonumber(x), y = tonumber(y), w = tonumber(w), h = tonumber(h), tip = tip }
    end
    local checked = 0
    for _, r in ipairs(g:resources()) do
      if r.heap then
        for _, b in ipairs(by_tip) do
          if b.tip:find("frame " .. r.frame .. ":", 1, true) and b.tip:find("^" .. r.name .. "[^%w_]")
             and b.tip:find("at offset " .. r.offset .. ";", 1, true) then
            local stop = r.first < r.stop and r.stop or s.period
            assert.is_true(math.abs(b.x - (px + r.first * sx + 0.5)) < 0.11, r.name)
            assert.is_true(math.abs(b.w - ((stop - r.first) * sx - 1)) < 0.11, r.name)
            assert.is_true(math.abs(b.y + b.h - (py + ph - r.offset * sy)) < 0.11, r.name)
            assert.is_true(math.abs(b.h - math.max(r.bytes * sy, 2)) < 0.11, r.name)
            checked = checked + 1
          end
        end
      end
    end
    assert.are.equal(#packed(g), checked)
  end)

  it("draws one panel per heap with that heap's resources", function()
    -- compiling without a device packs one memory-type group; two heaps are
    -- made here by moving the buffers of a real graph to a second one
    local g = fg.compile(dofile("examples/deferred.lua"), { profile = "nvidia" })
    local stats, res = g:stats(), g:resources()
    local buffers = 0
    for _, r in ipairs(res) do
      if r.kind == "buffer" then r.heap, r.offset, buffers = 2, 0, buffers + 1 end
    end
    stats.heaps[2] = { memory_type = 4, bytes = 65536, load = 65536, resources = buffers, optimal = true }
    local stub = setmetatable({ stats = function() return stats end, resources = function() return res end },
                              { __index = function(_, k) return function(_, ...) return g[k](g, ...) end end })
    local svg = report.svg(stub)
    assert.are.equal(2, count(svg, '<g class="heap"'))
    local h1 = svg:match('<g class="heap" id="heap%-1">(.-)</g>')
    local h2 = svg:match('<g class="heap" id="heap%-2">(.-)</g>')
    assert.are.equal(#packed(g) - buffers, count(h1, '<rect class="res '))
    assert.are.equal(buffers, count(h2, '<rect class="res res%-buffer'))
    assert.are.equal(buffers, count(h2, '<rect class="res '))
    assert.truthy(h2:find("heap 2: 64.0 KiB (LOAD 64.0 KiB, makespan/LOAD 1.000), memory type 4, 2 resources", 1, true))
    assert.are.equal(1, count(h2, '<path class="load"'))
  end)

  it("has a panel per heap, a titled saving, a legend and a byte axis", function()
    local g = fg.compile(dofile("examples/deferred.lua"), { profile = "nvidia" })
    local s = g:stats()
    local svg = g:svg()
    assert.truthy(svg:find("^<svg"))
    assert.are.equal(#s.heaps, count(svg, '<g class="heap"'))
    assert.truthy(svg:find("heap 1:", 1, true))
    local saving = (1 - s.heap_bytes / s.naive_bytes) * 100
    assert.truthy(svg:find(string.format("saves %.1f%%", saving), 1, true))
    assert.truthy(svg:find("deferred: " .. report.bytes(s.heap_bytes) .. " with aliasing", 1, true))
    assert.are.equal(7, count(svg, '<rect class="legend"'))
    assert.truthy(svg:find(">0 MiB</text>", 1, true))
    assert.truthy(svg:find(">8 MiB</text>", 1, true))
  end)

  it("labels the time axis with every node instance of both frames", function()
    local g = fg.compile(dofile("examples/deferred.lua"))
    local svg = g:svg()
    local labels = {}
    for name in svg:gmatch('<text class="slot"[^>]*>([^<]*)</text>') do labels[#labels + 1] = name end
    local order = g:order()
    assert.are.equal(2 * #order, #labels)
    for i, name in ipairs(order) do
      assert.are.equal(name, labels[i])
      assert.are.equal(name, labels[#order + i])
    end
    assert.truthy(svg:find(">frame 0</text>", 1, true))
    assert.truthy(svg:find(">frame 1</text>", 1, true))
  end)

  it("thins the time axis labels when the slots get narrow, so they never overlap", function()
    local nodes, prev = {}, nil
    for i = 1, 120 do
      local n = { name = "n" .. i, create = { ["t" .. i] = { buffer = 256 * i } } }
      if prev then n.read = { prev } end
      nodes[i], prev = n, "t" .. i
    end
    local g = fg.compile({ outputs = { prev }, nodes = nodes })
    local svg = g:svg()
    local xs = {}
    for x in svg:gmatch('<text class="slot" transform="translate%(([%d%.]+)') do xs[#xs + 1] = tonumber(x) end
    assert.is_true(#xs < 240 and #xs >= 60)
    for i = 2, #xs do
      if xs[i] > xs[i - 1] then assert.is_true(xs[i] - xs[i - 1] >= 15.9, "labels " .. (i - 1) .. " and " .. i) end
    end
  end)

  it("draws the LOAD profile whose peak is the heap's LOAD", function()
    -- lavapipe: no granularity, so LOAD is the peak of the live bytes
    local g = fg.compile(dofile("examples/vr_ssaa.lua"))
    local s = g:stats()
    local svg = g:svg()
    assert.are.equal(#s.heaps, count(svg, '<path class="load"'))
    assert.truthy(svg:find("peak live " .. report.bytes(s.heaps[1].load) .. " at ", 1, true))
    -- the curve has one step per slot
    local d = svg:match('<path class="load" d="([^"]*)"')
    assert.are.equal(s.period, count(d, "V[%d%.]+ H"))
  end)

  it("colours resources by kind and outlines history copies", function()
    local g = fg.compile(dofile("examples/deferred.lua"))
    local svg = g:svg()
    local hsvg = fg.compile(dofile("examples/taa.lua")):svg()  -- taa keeps a history
    assert.truthy(svg:find('<rect class="res res%-depth f0" [^>]*fill="' .. report.fills.depth[1] .. '"'))
    assert.truthy(svg:find('<rect class="res res%-texture f1" [^>]*fill="' .. report.fills.texture[2] .. '"'))
    assert.truthy(svg:find('<rect class="res res%-buffer f0" [^>]*fill="' .. report.fills.buffer[1] .. '"'))
    local hist = 0
    for attrs, title in hsvg:gmatch('<rect class="res ([^>]*)><title>([^<]*)') do
      if title:find("^accum") then
        assert.truthy(attrs:find("stroke-dasharray", 1, true))
        hist = hist + 1
      end
    end
    assert.are.equal(2, hist)
  end)

  it("says so when nothing is packed", function()
    local g = fg.compile({ outputs = { "b" }, nodes = { { name = "cpu", create = { b = { blob = true } } } } })
    local svg = g:svg()
    assert.are.equal(0, count(svg, '<rect class="res '))
    assert.truthy(svg:find("no packed resources", 1, true))
  end)
end)

describe("report.dot", function()
  it("marks culled and broken nodes with the reason and the inputs they would use", function()
    local g = fg.compile(dofile("examples/deferred.lua"))
    local dot = g:dot()
    assert.truthy(dot:find('"gbuffer" -> "lighting";', 1, true))
    local culled = dot:match('"debug_normals" %[([^\n]*)%];')
    assert.truthy(culled and culled:find("dashed", 1, true))
    assert.truthy(culled:find("culled: its products reach no output", 1, true))
    local broken = dot:match('"lens_dirt" %[([^\n]*)%];')
    assert.truthy(broken and broken:find("#c0392b", 1, true))
    assert.truthy(broken:find("read 'dirt_texture': no node creates it", 1, true))
    assert.truthy(dot:find('"gbuffer" -> "debug_normals" [style=dashed', 1, true))
    assert.truthy(dot:find('"bloom_up1" -> "lens_dirt" [style=dashed', 1, true))
  end)

  it("is accepted by graphviz", function()
    if not has_dot() then pending("graphviz (dot) is not installed: apt-get install graphviz") return end
    for _, ex in ipairs(examples) do
      local g = fg.compile(dofile("examples/" .. ex .. ".lua"))
      local svg = report.render_dot(g:dot())
      assert.truthy(svg and svg:find("^<svg"), ex)
      assert.truthy(svg:find("debug_normals", 1, true) or ex ~= "deferred")
    end
  end)
end)

describe("report.html", function()
  local g = fg.compile(dofile("examples/deferred.lua"), { profile = "nvidia", solver = "bysize" })

  it("is one self-contained page with the timeline, stats and node states", function()
    local page = report.html(g, { title = "Deferred <test>", source = "examples/deferred.lua" })
    assert.truthy(page:find("^<!DOCTYPE html>"))
    assert.truthy(page:find("<title>Deferred &lt;test&gt;</title>", 1, true))
    assert.truthy(page:find("examples/deferred.lua", 1, true))
    assert.truthy(page:find(g:svg(), 1, true))
    -- nothing fetched from elsewhere
    assert.falsy(page:find("<script", 1, true))
    assert.falsy(page:find(' src="', 1, true))
    assert.falsy(page:find("<link", 1, true))
    local s = g:stats()
    assert.are.equal(#s.heaps, count(page:match('<table class="stats">(.-)</table>'), "<tr><td"))
    assert.truthy(page:find(string.format("%.3f", s.heaps[1].bytes / s.heaps[1].load), 1, true))
    assert.truthy(page:find('<td class="l">bysize</td>', 1, true))
    assert.truthy(page:find('<tr class="culled"><td class="l">debug_normals</td>', 1, true))
    assert.truthy(page:find([[<tr class="broken"><td class="l">lens_dirt</td><td class="l">broken</td><td class="l">read 'dirt_texture': no node creates it]], 1, true))
    assert.are.equal(#g:resources(), count(page:match('<table class="resources">(.-)</table>'), "<tr><td"))
  end)

  it("draws the graph with graphviz, or shows the DOT source without it", function()
    local plain = report.html(g, { graphviz = false })
    assert.truthy(plain:find('<pre class="dot">digraph framegraph', 1, true))
    assert.falsy(plain:find('<div class="figure graph">', 1, true))
    local limit = report.max_graphviz_instances
    report.max_graphviz_instances = 3
    local big = report.html(g)
    report.max_graphviz_instances = limit
    assert.truthy(big:find(g:stats().instances .. " node instances are too many to draw (at most 3)", 1, true))
    assert.falsy(big:find('<div class="figure graph">', 1, true))
    if not has_dot() then pending("graphviz (dot) is not installed") return end
    local drawn = report.html(g)
    assert.truthy(drawn:find('<div class="figure graph"><svg', 1, true))
    assert.falsy(drawn:find("<?xml", 1, true))
  end)

  it("write_html writes the page, or says why not", function()
    local path = os.tmpname()
    assert.is_true(report.write_html(g, path, { title = "t" }))
    local f = assert(io.open(path, "rb"))
    local text = f:read("a")
    f:close()
    os.remove(path)
    assert.are.equal(report.html(g, { title = "t" }), text)
    local ok, err = report.write_html(g, "/nonexistent-dir/x/report.html")
    assert.is_nil(ok)
    assert.truthy(err:find("/nonexistent-dir/x/report.html", 1, true))
  end)
end)
