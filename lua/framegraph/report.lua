-- framegraph.report: pictures of a compiled graph.
--   dot(graph)  -> Graphviz text: instances in execution order and their
--                  dependency edges; culled/broken nodes drawn apart with the reason.
--   svg(graph)  -> SVG memory timeline: per heap, time (cyclic slots 0..T) on x,
--                  offset on y; one box per packed physical resource copy.
local M = {}

local function q(s) return '"' .. tostring(s):gsub('\\', '\\\\'):gsub('"', '\\"') .. '"' end

function M.dot(graph)
  local out = { "digraph framegraph {", "  rankdir=LR;", "  node [shape=box, fontname=\"monospace\"];" }
  for i, name in ipairs(graph:order()) do
    out[#out + 1] = string.format("  %s [label=%s];", q(name), q(i .. ": " .. name))
  end
  for _, n in ipairs(graph:nodes()) do
    if n.state ~= "active" then
      local color = n.state == "broken" and "red" or "gray"
      out[#out + 1] = string.format("  %s [style=dashed, color=%s, label=%s];", q(n.name), color,
                                    q(n.name .. "\\n" .. n.state .. ": " .. n.reason))
    end
  end
  for _, e in ipairs(graph:edges()) do
    out[#out + 1] = string.format("  %s -> %s;", q(e[1]), q(e[2]))
  end
  out[#out + 1] = "}"
  return table.concat(out, "\n") .. "\n"
end

local palette = { "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
                  "#9c755f", "#bab0ac" }

local function esc(s) return (tostring(s):gsub("&", "&amp;"):gsub("<", "&lt;"):gsub(">", "&gt;")) end

function M.svg(graph)
  local stats = graph:stats()
  local T = math.max(stats.period, 1)
  local width, lane_h, margin = 900, 260, 40
  local heaps = stats.heaps
  local h_total = margin + #heaps * (lane_h + margin) + 20
  local out = { string.format('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="monospace" font-size="10">',
                              width + 2 * margin, h_total) }
  local byheap = {}
  for _, r in ipairs(graph:resources()) do
    if r.heap then
      byheap[r.heap] = byheap[r.heap] or {}
      table.insert(byheap[r.heap], r)
    end
  end
  local sx = width / T
  for hi, hp in ipairs(heaps) do
    local y0 = margin + (hi - 1) * (lane_h + margin)
    local scale = lane_h / math.max(hp.bytes, 1)
    out[#out + 1] = string.format('<text x="%d" y="%d">heap %d: %d bytes (LOAD %d), memory type %d</text>',
                                  margin, y0 - 6, hi, hp.bytes, hp.load, hp.memory_type)
    out[#out + 1] = string.format('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="black"/>',
                                  margin, y0, width, lane_h)
    for ri, r in ipairs(byheap[hi] or {}) do
      local color = palette[(ri - 1) % #palette + 1]
      local segs
      if r.first < r.stop then segs = { { r.first, r.stop } }
      elseif r.first == r.stop then segs = { { 0, T } }
      else segs = { { r.first, T }, { 0, r.stop } } end
      for _, sgm in ipairs(segs) do
        local x, w = margin + sgm[1] * sx, (sgm[2] - sgm[1]) * sx
        local y, h = y0 + lane_h - (r.offset + r.bytes) * scale, math.max(r.bytes * scale, 1)
        out[#out + 1] = string.format(
          '<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" fill-opacity="0.7" stroke="black" stroke-width="0.5"><title>%s frame %d [%d,%d) offset %d size %d</title></rect>',
          x, y, w, h, color, esc(r.name), r.frame, r.first, r.stop, r.offset, r.bytes)
        if w > 40 and h > 10 then
          out[#out + 1] = string.format('<text x="%.1f" y="%.1f">%s/%d</text>', x + 2, y + 10, esc(r.name), r.frame)
        end
      end
    end
  end
  out[#out + 1] = "</svg>"
  return table.concat(out, "\n") .. "\n"
end

return M
