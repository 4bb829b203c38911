-- The report page looked at as a person would: headless Chromium renders the
-- HTML page of an example to a screenshot, ImageMagick counts its colours,
-- and the resource rectangles must be there in their kinds' colours. The
-- check is tried on a blank page and on the page without its timeline, and
-- must refuse both.
local fg = require("framegraph")
local report = require("framegraph.report")

-- Chromium and ImageMagick never get the sanitizer runtime that
-- scripts/sanitize.sh preloads into lua5.4 (chromium's wrapper breaks on it).
local function sh(cmd)
  local p = io.popen("env -u LD_PRELOAD " .. cmd .. " 2>&1")
  local out = p:read("a")
  local ok = p:close()
  return ok, out
end

local function chromium()
  for _, name in ipairs({ "chromium", "chromium-browser" }) do
    if os.execute("command -v " .. name .. " >/dev/null 2>&1") then return name end
  end
end
local function imagemagick()
  local _, out = sh("convert -version")
  return out:find("Version: ImageMagick", 1, true) ~= nil
end

local W, H = 1400, 1000

local function tmpdir()
  local ok, out = sh("mktemp -d")
  assert(ok, out)
  return (out:gsub("%s+$", ""))
end

local function screenshot(browser, html_path, png_path)
  local profile = tmpdir()
  local ok, out = sh(string.format(
    "timeout 120 %s --headless --no-sandbox --disable-gpu --disable-quic --no-first-run " ..
    "--disable-background-networking --disable-component-update --disable-sync --hide-scrollbars " ..
    "--user-data-dir=%s --screenshot=%s --window-size=%d,%d file://%s", browser, profile, png_path, W, H, html_path))
  os.execute("rm -rf '" .. profile .. "'")
  assert(ok, "chromium failed: " .. out)
  local f = io.open(png_path, "rb")
  assert(f, "chromium wrote no screenshot: " .. out)
  f:close()
end

-- pixel count by "#rrggbb" and the total, from ImageMagick's histogram
local function histogram(png)
  local ok, out = sh("convert '" .. png .. "' -alpha off -format %c histogram:info:-")
  assert(ok, out)
  local by, total = {}, 0
  for n, hex in out:gmatch("(%d+):%s*%b()%s*(#%x%x%x%x%x%x)") do
    by[hex:lower()] = (by[hex:lower()] or 0) + tonumber(n)
    total = total + tonumber(n)
  end
  return by, total
end

-- Is the timeline drawn? Every fill the graph's resources use must cover a
-- good area, and the page must not be mostly blank.
local function looks_drawn(png, fills_used)
  local by, total = histogram(png)
  if total ~= W * H then return false, "screenshot is " .. total .. " pixels, expected " .. W * H end
  local white = (by["#ffffff"] or 0) / total
  if white > 0.95 then return false, string.format("%.1f%% of the screenshot is white", white * 100) end
  for hex, what in pairs(fills_used) do
    if (by[hex] or 0) < 1500 then return false, string.format("%s (%s) covers %d pixels", what, hex, by[hex] or 0) end
  end
  if (by["#c0392b"] or 0) < 200 then return false, "no LOAD curve" end
  return true
end

local write = require("support.sh").write

describe("the report page in a browser", function()
  local browser = chromium()

  it("shows every kind of resource of the deferred example, and the check refuses blank pages", function()
    if not browser then pending("chromium is not installed (scripts/setup.sh installs it): no screenshot taken") return end
    if not imagemagick() then pending("imagemagick is not installed (scripts/setup.sh installs it)") return end
    local g = fg.compile(dofile("examples/deferred.lua"), { profile = "nvidia" })
    local fills_used = {}
    for _, r in ipairs(g:resources()) do
      if r.heap then
        local kind = r.kind == "buffer" and "buffer" or ((r.format or ""):match("^d%d") and "depth" or "texture")
        -- the 64 KiB buffer is a hairline at this scale: its pixels are not counted
        if kind ~= "buffer" then fills_used[report.fills[kind][r.frame + 1]] = kind .. " frame " .. r.frame end
      end
    end
    local n = 0
    for _ in pairs(fills_used) do n = n + 1 end
    assert.are.equal(4, n)

    local dir = tmpdir()
    local page = report.html(g, { source = "examples/deferred.lua" })
    write(dir .. "/report.html", page)
    screenshot(browser, dir .. "/report.html", dir .. "/report.png")
    local ok, why = looks_drawn(dir .. "/report.png", fills_used)
    assert.is_true(ok, why)

    -- the same check on a blank page and on the page without its timeline
    write(dir .. "/blank.html", "<!DOCTYPE html><html><body></body></html>")
    screenshot(browser, dir .. "/blank.html", dir .. "/blank.png")
    local bok, bwhy = looks_drawn(dir .. "/blank.png", fills_used)
    assert.is_false(bok)
    assert.truthy(bwhy:find("white", 1, true), bwhy)
    local s = page:find('<svg xmlns="http://www.w3.org/2000/svg" class="fg-timeline"', 1, true)
    assert.truthy(s)
    local _, e = page:find("</svg>", s, true)
    write(dir .. "/bare.html", page:sub(1, s - 1) .. page:sub(e + 1))
    screenshot(browser, dir .. "/bare.html", dir .. "/bare.png")
    local tok, twhy = looks_drawn(dir .. "/bare.png", fills_used)
    assert.is_false(tok)
    assert.truthy(twhy:find("covers", 1, true), twhy)
    os.execute("rm -rf '" .. dir .. "'")
  end)
end)
