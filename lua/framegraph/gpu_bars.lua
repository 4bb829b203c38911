-- framegraph.gpu_bars: the viewer's HUD bars of the most expensive passes,
-- from rt:timings() (GPU time of the last finished frame). view.lua calls
-- update(rt) with its once-a-second figures and draw(...) while it renders
-- the HUD band; both do nothing where the device has no timestamps.
local M = {}

M.WIDTH = 120      -- pixels at the right end of the band (the text lines rarely reach it)
M.last = nil       -- the last non-empty rt:timings() list

function M.update(rt)
  local t = rt:timings()
  if t and #t > 0 then M.last = t end
end

-- The n most expensive entries of a timings list, most expensive first,
-- each { name, gpu_ms, share (of frame_ms) }.
function M.top(t, n)
  local list = {}
  for _, e in ipairs(t) do list[#list + 1] = e end
  table.sort(list, function(a, b) return a.gpu_ms > b.gpu_ms end)
  local out = {}
  for i = 1, math.min(n, #list) do
    local e = list[i]
    out[i] = { name = e.name, gpu_ms = e.gpu_ms, share = t.frame_ms > 0 and e.gpu_ms / t.frame_ms or 0 }
  end
  return out
end

-- Draws into the HUD's rows (rows[y][x] = pixel string, y from 0, x from 1;
-- px({r, g, b}) makes a pixel; glyphs: 3x5 bit strings by character): one row
-- per pass, its name (10 characters at scale 1) and a bar as long as its
-- share of the frame. t: a timings list (default: the last update's).
function M.draw(rows, px, glyphs, w, h, t)
  t = t or M.last
  if not t or #t == 0 or not t.frame_ms or t.frame_ms <= 0 or w < M.WIDTH then return 0 end
  local x0, bg = w - M.WIDTH + 1, px({ 16, 16, 24 })
  for y = 0, h - 1 do
    for x = x0, w do rows[y][x] = bg end
  end
  local text_px, bar_px = px({ 200, 200, 200 }), px({ 240, 160, 60 })
  local top = M.top(t, (h - 1) // 8)
  local bar_x, bar_w = x0 + 44, M.WIDTH - 48
  for i, e in ipairs(top) do
    local y0 = 1 + (i - 1) * 8
    local name = e.name:upper()
    for c = 1, math.min(#name, 10) do
      local g = glyphs[name:sub(c, c)] or glyphs["?"]
      for gy = 0, 4 do
        for gx = 0, 2 do
          if g:byte(gy * 3 + gx + 1) == 49 then rows[y0 + gy][x0 + (c - 1) * 4 + gx] = text_px end
        end
      end
    end
    local len = math.max(1, math.floor(e.share * bar_w + 0.5))
    for y = y0, y0 + 4 do
      for x = bar_x, bar_x + len - 1 do rows[y][x] = bar_px end
    end
  end
  return #top
end

return M
