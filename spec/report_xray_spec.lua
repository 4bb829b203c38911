-- framegraph report --render: an X-ray of a frame beside the timeline, every
-- transient texture as its last writer left it (lavapipe).
local xray = require("framegraph.xray")

local function sh_quote(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end

-- The pixels of a PNG that xray.png wrote (8-bit RGB, stored deflate blocks).
local function decode(png)
  assert.are.equal("\137PNG\r\n\26\n", png:sub(1, 8))
  local pos, w, h, idat = 9, nil, nil, {}
  while pos <= #png do
    local len, kind = string.unpack(">I4c4", png, pos)
    local data = png:sub(pos + 8, pos + 7 + len)
    if kind == "IHDR" then w, h = string.unpack(">I4I4", data) end
    if kind == "IDAT" then idat[#idat + 1] = data end
    pos = pos + 12 + len
  end
  local z, raw, p = table.concat(idat), {}, 3
  repeat
    local last, len = string.unpack("<BI2", z, p)
    raw[#raw + 1] = z:sub(p + 5, p + 4 + len)
    p = p + 5 + len
  until last == 1
  raw = table.concat(raw)
  assert.are.equal(h * (1 + 3 * w), #raw)
  return w, h, function(x, y) return raw:byte(y * (1 + 3 * w) + 2 + 3 * x, y * (1 + 3 * w) + 4 + 3 * x) end
end

describe("report --render (X-ray)", function()
  it("encodes thumbnails as PNG that other tools read", function()
    local rgb = {}
    for y = 0, 2 do for x = 0, 3 do rgb[#rgb + 1] = string.char(x * 80, y * 100, 7) end end
    local png = xray.png(4, 3, table.concat(rgb))
    local w, h, px = decode(png)
    assert.are.same({ 4, 3 }, { w, h })
    assert.are.same({ 240, 200, 7 }, { px(3, 2) })
    if os.execute("command -v identify >/dev/null 2>&1") then
      local path = os.tmpname()
      local f = assert(io.open(path, "wb")) f:write(png) f:close()
      local p = io.popen("identify -format '%w %h' " .. sh_quote(path) .. " 2>&1")
      assert.are.equal("4 3", p:read("a"))
      p:close()
      os.remove(path)
    end
    -- a float texture: converted and clamped; a depth texture stretched over its range
    local floats = string.pack("<ffff", 2.0, 0.5, -1, 1):rep(4)
    local _, _, fpx = decode((xray.thumbnail(floats, "rgba32_sfloat", 2, 2)))
    assert.are.same({ 255, 128, 0 }, { fpx(0, 0) })
    local depth = string.pack("<ffff", 0.25, 0.5, 0.75, 0.5)
    local _, _, dpx = decode((xray.thumbnail(depth, "d32_sfloat", 2, 2)))
    assert.are.same({ 0, 0, 0 }, { dpx(0, 0) })
    assert.are.same({ 255, 255, 255 }, { dpx(0, 1) })
    assert.is_nil((xray.thumbnail("", "bc7_unorm", 1, 1)))
  end)

  it("captures every texture of the taa example at its last write, in write order", function()
    local shots = assert(xray.capture("examples/taa.lua", { device = "software" }))
    local labels = {}
    for _, s in ipairs(shots) do labels[#labels + 1] = s.label .. "@" .. s.node end
    assert.are.same({ "current@render", "accum@resolve", "final@output" }, labels)
    for _, s in ipairs(shots) do
      assert.is_truthy(s.png, s.why)
      local w, h, px = decode(s.png)
      assert.are.same({ 240, 135 }, { w, h })                -- 640x360 scaled to the thumbnail
      local lit = 0
      for y = 0, h - 1, 8 do for x = 0, w - 1, 8 do local r, g, b = px(x, y) lit = lit + ((r + g + b > 30) and 1 or 0) end end
      assert.is_true(lit > 50, s.label .. " is dark")        -- the scene, not a cleared image
    end
  end)

  it("framegraph report --render puts the thumbnails on the page; without a file it says why", function()
    local out = os.tmpname() .. ".html"
    local p = io.popen(("bin/framegraph report examples/taa.lua -o %s --render --device software --no-graphviz 2>&1")
      :format(sh_quote(out)))
    local text = p:read("a")
    local _, _, code = p:close()
    assert.are.equal(0, code, text)
    local f = assert(io.open(out, "rb"))
    local page = f:read("a")
    f:close()
    os.remove(out)
    assert.matches("<h2>X-ray of a frame</h2>", page, 1, true)
    local n = 0
    for _ in page:gmatch('<img alt="[^"]*" src="data:image/png;base64,') do n = n + 1 end
    assert.are.equal(3, n)
    assert.matches("after resolve (slot 2)", page, 1, true)
    -- the GPU timeline under the memory timeline: a bar for every instance, a frame total
    local gpu = page:match('<svg[^>]*class="fg%-gpu%-timeline".-</svg>')
    assert.is_truthy(gpu, "no GPU timeline on the page")
    assert.is_true(page:find("fg-timeline", 1, true) < page:find("fg-gpu-timeline", 1, true))
    local fg0 = require("framegraph")
    local order = fg0.compile(dofile("examples/taa.lua")):order()
    assert.is_true(#order >= 3)
    for _, name in ipairs(order) do
      local ms = gpu:match('data%-instance="' .. name:gsub("%p", "%%%0") .. '".-<title>[^<]*: ([%d.]+) ms</title>')
      assert.is_truthy(ms, name .. " has no bar")
      assert.is_true(tonumber(ms) >= 0)
    end
    local total = gpu:match('class="gpu%-total"[^>]*>GPU time: frame ([%d.]+) ms')
    assert.is_true(tonumber(total) >= 0)
    assert.matches('<table class="gpu-top">', page, 1, true)
    local fg = require("framegraph")
    local html = require("framegraph.report").html(fg.compile(dofile("examples/taa.lua")), { render = true })
    assert.matches("X-ray: not rendered: the pipeline's file is not known", html, 1, true)
  end)

  it("draws the GPU timeline only when rendering, and says in one line when there are no timestamps", function()
    local fg = require("framegraph")
    local report = require("framegraph.report")
    local g = fg.compile(dofile("examples/taa.lua"))
    local order = g:order()
    assert.is_falsy(report.html(g):find("fg-gpu-timeline", 1, true))
    local why = report.html(g, { render = true, shots = { timings_why = "timestamps unsupported on TestGPU" } })
    assert.matches('<p class="sub">GPU timeline: not measured: timestamps unsupported on TestGPU</p>', why, 1, true)
    assert.is_falsy(why:find("fg-gpu-timeline", 1, true))
    -- made-up timings: the costliest instance leads the table, every slot of both frames has a bar
    local t = { frame_ms = 6, frame = 2 }
    for i, name in ipairs(order) do t[i] = { name = name, node = name, gpu_ms = i } end
    local page = report.html(g, { render = true, shots = { timings = t } })
    assert.matches("GPU time: frame 6.00 ms (" .. #order .. " instances", page, 1, true)
    local bars = 0
    for _ in page:gmatch('class="gpu%-bar"') do bars = bars + 1 end
    assert.are.equal(g:stats().period, bars)
    local first = page:match('<table class="gpu%-top"><tr>.-</tr>\n<tr><td class="l">([^<]*)</td>')
    assert.are.equal(order[#order], first)
  end)
end)
