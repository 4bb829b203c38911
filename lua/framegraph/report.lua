-- framegraph.report: pictures and a page of a compiled graph. Pure Lua over
-- the graph's introspection (order, nodes, edges, resources, stats), so it
-- needs no GPU and no Vulkan.
--   dot(graph)   -> Graphviz text: instances in execution order and their
--                   dependency edges; culled/broken nodes drawn apart with why.
--   svg(graph)   -> SVG memory timeline: one panel per heap, time (the two
--                   frames' node instances) on x, bytes on y, one rectangle
--                   per physical resource, the LOAD profile as a curve.
--   html(graph, opts) -> one self-contained HTML page (timeline, graph
--                   picture, stats, culled/broken nodes, resources).
--   write_html(graph, path, opts) -> true | nil, err
local M = {}

-- ---------------------------------------------------------------- helpers

local function esc(s)
  return (tostring(s):gsub("&", "&amp;"):gsub("<", "&lt;"):gsub(">", "&gt;"):gsub('"', "&quot;"))
end

-- Graphviz quoted string; "\n" stays a Graphviz line break.
local function q(s) return '"' .. tostring(s):gsub('\\', '\\\\'):gsub('"', '\\"'):gsub("\n", "\\n") .. '"' end

local units = { { "GiB", 1024 ^ 3 }, { "MiB", 1024 ^ 2 }, { "KiB", 1024 } }
function M.bytes(n)
  for _, u in ipairs(units) do
    if n >= u[2] then return string.format("%.1f %s", n / u[2], u[1]) end
  end
  return string.format("%d B", n)
end
local fmt_bytes = M.bytes

local function index_text(index)
  local keys = {}
  for k in pairs(index or {}) do keys[#keys + 1] = k end
  if #keys == 0 then return "" end
  table.sort(keys)
  for i, k in ipairs(keys) do keys[i] = k .. "=" .. tostring(index[k]) end
  return "[" .. table.concat(keys, ",") .. "]"
end

local function resource_label(r)
  local name = r.name
  if r.final_name and r.final_name ~= r.name then name = name .. "\u{2192}" .. r.final_name end
  return name .. index_text(r.index)
end

-- "kind" in the colour sense: depth/stencil and colour textures differ.
local function colour_kind(r)
  if r.kind == "buffer" then return "buffer" end
  if r.format and (r.format:match("^d%d") or r.format == "s8_uint") then return "depth" end
  return "texture"
end

-- Opaque fills (the screenshot spec looks for them): frame 0, frame 1.
local fills = {
  texture = { "#5b8fd0", "#a8c6ec", "colour texture" },
  depth   = { "#e0893a", "#f3c594", "depth/stencil texture" },
  buffer  = { "#58a45a", "#a9d6a6", "buffer" },
}
M.fills = fills

-- the graph's compile options (a stand-in table, as tests use, has none)
local function opts_of(graph)
  local ok, o = pcall(require("framegraph.core").graph_hooks.opts, graph)
  return ok and o or {}
end

local function solver_of(graph)
  local o = opts_of(graph)
  return o.solver or "best"
end

local function profile_of(graph)
  local o = opts_of(graph)
  local p = o.profile
  if p == nil then return "lavapipe" end
  if type(p) == "table" then
    return string.format("custom (alignment %s, granularity %s)", tostring(p.alignment or "-"),
                         tostring(p.granularity or "-"))
  end
  return tostring(p)
end

local function pipeline_name(graph)
  local p = graph:pipeline()
  return type(p) == "table" and type(p.name) == "string" and p.name or "pipeline"
end

-- Slot s of the cyclic timeline (0-based) -> instance name and frame.
local function slot_namer(graph)
  local order = graph:order()
  local V = #order
  return function(s)
    if V == 0 then return "?", 0 end
    return order[s % V + 1], s // V
  end, V
end

local function lifetime_text(r, T, slot)
  if T == 0 then return "never live" end
  local last = (r.stop - 1) % T
  local a, fa = slot(r.first)
  local b, fb = slot(last)
  local whole = r.first == r.stop and " (the whole cycle)" or ""
  return string.format("slots %d..%d%s: %s (frame %d) to %s (frame %d)", r.first, last, whole, a, fa, b, fb)
end

local function ratio(a, b) return b > 0 and a / b or 1 end

-- ---------------------------------------------------------------- dot

local function wrap(s, width)
  local lines, line = {}, ""
  for word in tostring(s):gmatch("%S+") do
    if #line > 0 and #line + 1 + #word > width then
      lines[#lines + 1] = line; line = word
    else
      line = #line > 0 and (line .. " " .. word) or word
    end
  end
  if #line > 0 then lines[#lines + 1] = line end
  return table.concat(lines, "\n")
end

-- Names a node's table reads (read/modify/rename/history) and the names it
-- makes (create, rename targets): only to draw dashed "would have used" edges
-- to culled and broken nodes, which have no instances.
local function names_of(t, out)
  if type(t) ~= "table" then return end
  for k, v in pairs(t) do
    if type(k) == "string" then out[#out + 1] = k elseif type(v) == "string" then out[#out + 1] = v end
  end
end
local function node_reads(n)
  local out = {}
  names_of(n.read, out); names_of(n.modify, out); names_of(n.rename, out); names_of(n.history, out)
  return out
end
local function node_makes(n)
  local out = {}
  names_of(n.create, out)
  if type(n.rename) == "table" then
    for _, v in pairs(n.rename) do
      local to = type(v) == "table" and v.to or v
      if type(to) == "string" then out[#out + 1] = to end
    end
  end
  names_of(n.modify, out)
  return out
end

function M.dot(graph)
  local out = { "digraph framegraph {", "  rankdir=LR;",
                '  graph [fontname="Helvetica", fontsize=11, nodesep=0.25, ranksep=0.35, label=' ..
                  q(pipeline_name(graph) .. ": grey dashed = culled, red = broken") .. ', labelloc=t];',
                '  node [shape=box, style="rounded,filled", fillcolor="#eef3fb", color="#5b8fd0", fontname="Helvetica", fontsize=10];',
                '  edge [color="#555555", arrowsize=0.6];' }
  local first_instance = {}
  for i, name in ipairs(graph:order()) do
    out[#out + 1] = string.format("  %s [label=%s];", q(name), q(i .. ": " .. name))
  end
  for _, inst in ipairs(graph:instances()) do
    first_instance[inst.node] = first_instance[inst.node] or inst.name
  end
  local pipeline = graph:pipeline() or {}
  local maker = {}
  for _, n in ipairs(pipeline.nodes or {}) do
    if type(n) == "table" and type(n.name) == "string" then
      for _, name in ipairs(node_makes(n)) do maker[name] = maker[name] or n.name end
    end
  end
  local node_table = {}
  for _, n in ipairs(pipeline.nodes or {}) do
    if type(n) == "table" and type(n.name) == "string" then node_table[n.name] = n end
  end
  local extra = {}
  for _, n in ipairs(graph:nodes()) do
    if n.state ~= "active" then
      local broken = n.state == "broken"
      out[#out + 1] = string.format('  %s [style="dashed,filled", fillcolor=%s, color=%s, fontcolor=%s, label=%s, tooltip=%s];',
                                    q(n.name), q(broken and "#fde8e8" or "#f2f2f2"), q(broken and "#c0392b" or "#888888"),
                                    q(broken and "#8b1a1a" or "#555555"),
                                    q(n.name .. "\n" .. n.state .. ": " .. wrap(n.reason or "", 38)),
                                    q(n.state .. ": " .. (n.reason or "")))
      -- dashed edges from what it would have read, so it sits near its inputs
      local seen = {}
      for _, name in ipairs(node_reads(node_table[n.name] or {})) do
        local from = maker[name]
        local src = from and (first_instance[from] or from)
        if src and src ~= n.name and not seen[src] then
          seen[src] = true
          extra[#extra + 1] = string.format('  %s -> %s [style=dashed, color="#aaaaaa", label=%s, fontsize=9, fontcolor="#888888"];',
                                            q(src), q(n.name), q(name))
        end
      end
    end
  end
  for _, e in ipairs(graph:edges()) do
    out[#out + 1] = string.format("  %s -> %s;", q(e[1]), q(e[2]))
  end
  for _, l in ipairs(extra) do out[#out + 1] = l end
  out[#out + 1] = "}"
  return table.concat(out, "\n") .. "\n"
end

-- ---------------------------------------------------------------- svg

-- Nice byte-axis step: 1, 2 or 5 times a power of ten of the display unit.
local function axis_unit(max)
  for _, u in ipairs(units) do
    if max >= u[2] then return u[1], u[2] end
  end
  return "B", 1
end
local function nice_step(range, ticks)
  local raw = range / ticks
  local p = 10 ^ math.floor(math.log(raw, 10))
  for _, m in ipairs({ 1, 2, 5, 10 }) do
    if m * p >= raw then return m * p end
  end
  return 10 * p
end

-- Live bytes at each slot 0..T-1 of the resources packed in one heap.
-- (a difference array: O(resources + T) for graphs of thousands of nodes)
local function live_profile(list, T)
  local delta = {}
  for t = 0, T do delta[t] = 0 end
  local function span(a, b, n) delta[a] = delta[a] + n; delta[b] = delta[b] - n end
  for _, r in ipairs(list) do
    if r.first == r.stop then span(0, T, r.bytes)
    elseif r.first < r.stop then span(r.first, r.stop, r.bytes)
    else span(r.first, T, r.bytes); span(0, r.stop, r.bytes) end
  end
  local live, acc = {}, 0
  for t = 0, T - 1 do acc = acc + delta[t]; live[t] = acc end
  return live
end

M.live_profile = live_profile

-- The slot where most bytes are live, over every packed resource:
-- {bytes, slot, node, frame, live = {{label, bytes, frame}, ...} largest first}.
function M.peak(graph)
  local T = graph:stats().period
  local list = {}
  for _, r in ipairs(graph:resources()) do if r.heap then list[#list + 1] = r end end
  local out = { bytes = 0, slot = 0, node = "?", frame = 0, live = {} }
  if T == 0 or #list == 0 then return out end
  local live = live_profile(list, T)
  for t = 0, T - 1 do if live[t] > live[out.slot] then out.slot = t end end
  out.bytes = live[out.slot]
  local slot = slot_namer(graph)
  out.node, out.frame = slot(out.slot)
  local t = out.slot
  for _, r in ipairs(list) do
    local on = r.first == r.stop or (r.first < r.stop and t >= r.first and t < r.stop)
               or (r.first > r.stop and (t >= r.first or t < r.stop))
    if on then out.live[#out.live + 1] = { label = resource_label(r), bytes = r.bytes, frame = r.frame } end
  end
  table.sort(out.live, function(a, b) return a.bytes > b.bytes end)
  return out
end

local CHAR_W = 6.6   -- 11 px monospace: 0.6 em per character
local MIN_H = 2      -- px: the least a resource's rectangle is drawn (named under the panel)

-- The x axis shared by the memory timeline and the GPU timeline under it:
-- left margin, plot width, right margin for T slots.
local function slot_axis(T)
  return 96, math.max(640, math.min(1200, T * 52)), 24
end

function M.svg(graph)
  local stats = graph:stats()
  local T = stats.period
  local slot, V = slot_namer(graph)
  local heaps = stats.heaps
  local byheap = {}
  for _, r in ipairs(graph:resources()) do
    if r.heap then
      byheap[r.heap] = byheap[r.heap] or {}
      table.insert(byheap[r.heap], r)
    end
  end

  local left, plot_w, right = slot_axis(T)
  local width = left + plot_w + right
  local sx = T > 0 and plot_w / T or plot_w
  local panel_h = 300
  -- room under each panel for the rotated instance names
  local longest = 0
  for s = 0, T - 1 do longest = math.max(longest, #slot(s)) end
  longest = math.min(longest, 28)
  local label_room = math.floor(longest * CHAR_W * 0.72) + 24
  local header_h, legend_h = 58, 50
  local panel_base = 54 + panel_h + label_room

  -- Per heap: its scale and which resources get their name inside their
  -- rectangle; the others are listed under the panel (so every resource is
  -- named on the page, not only in a tooltip).
  local LEGEND_ROW, LEGEND_COLS = 16, math.max(1, (plot_w + 40) // 330)
  local geo = {}
  for hi, hp in ipairs(heaps) do
    local list = byheap[hi] or {}
    local live = live_profile(list, T)
    local peak = 0
    for t = 0, T - 1 do peak = math.max(peak, live[t]) end
    local top = math.max(hp.bytes, peak, 1)
    local g = { list = list, live = live, peak = peak, top = top, sy = panel_h / top, inside = {}, small = {} }
    for _, r in ipairs(list) do
      local h = math.max(r.bytes * g.sy, MIN_H)
      local w
      if r.first == r.stop then w = T * sx
      elseif r.first < r.stop then w = (r.stop - r.first) * sx
      else w = math.max(T - r.first, r.stop) * sx end
      local label
      if h >= 14 then
        for _, l in ipairs({ resource_label(r) .. " f" .. r.frame, resource_label(r), r.name }) do
          if utf8.len(l) * CHAR_W + 6 <= w then label = l break end
        end
      end
      if label then g.inside[r] = label else g.small[#g.small + 1] = r end
    end
    g.legend_h = #g.small > 0 and (22 + math.ceil(#g.small / LEGEND_COLS) * LEGEND_ROW) or 0
    geo[hi] = g
  end
  local height = header_h + legend_h + 10
  for hi = 1, #heaps do height = height + panel_base + geo[hi].legend_h end
  if #heaps == 0 then height = height + panel_base end

  local o = {}
  local function add(fmt, ...) o[#o + 1] = string.format(fmt, ...) end
  add('<svg xmlns="http://www.w3.org/2000/svg" class="fg-timeline" width="%d" height="%d" viewBox="0 0 %d %d" font-family="Helvetica, Arial, sans-serif" font-size="12">',
      width, height, width, height)
  add('<rect class="bg" x="0" y="0" width="%d" height="%d" fill="#ffffff"/>', width, height)

  -- title with the saving
  local saving = stats.naive_bytes > 0 and (1 - stats.heap_bytes / stats.naive_bytes) * 100 or 0
  add('<text x="%d" y="24" font-size="17" font-weight="bold" fill="#222">%s: %s with aliasing, %s without: saves %.1f%%</text>',
      left, esc(pipeline_name(graph)), fmt_bytes(stats.heap_bytes), fmt_bytes(stats.naive_bytes), saving)
  add('<text x="%d" y="44" fill="#555">LOAD (lower bound) %s, makespan/LOAD %.3f; %d node instances per frame, %d slots over two frames; profile %s, solver %s</text>',
      left, fmt_bytes(stats.load_bytes), ratio(stats.heap_bytes, stats.load_bytes), V, T, esc(profile_of(graph)),
      esc(solver_of(graph)))

  -- legend
  local lx, ly = left, header_h + 6
  for _, k in ipairs({ "texture", "depth", "buffer" }) do
    local f = fills[k]
    add('<rect class="legend" x="%d" y="%d" width="14" height="14" fill="%s"/>', lx, ly, f[1])
    add('<rect class="legend" x="%d" y="%d" width="14" height="14" fill="%s"/>', lx + 15, ly, f[2])
    add('<text x="%d" y="%d">%s (frame 0, 1)</text>', lx + 35, ly + 11, f[3])
    lx = lx + 35 + math.floor((#f[3] + 12) * 6.4) + 18
  end
  add('<rect class="legend" x="%d" y="%d" width="28" height="14" fill="#ffffff" stroke="#222" stroke-width="1.5" stroke-dasharray="4,2"/>', lx, ly)
  add('<text x="%d" y="%d">history copy</text>', lx + 34, ly + 11)
  lx = lx + 34 + 90
  add('<path d="M%d %d h10 v-8 h10 v4 h8" fill="none" stroke="#c0392b" stroke-width="2"/>', lx, ly + 12)
  add('<text x="%d" y="%d">live bytes (LOAD profile)</text>', lx + 34, ly + 11)
  -- what f0/f1 and the two shades mean (docs/glossary.md, "Frame copies")
  add('<text class="frames" x="%d" y="%d" fill="#444">f0, f1: the two frame copies of a resource (even and odd frames; dark, light); they share memory unless history keeps the previous frame\u{2019}s copy alive.</text>',
      left, ly + 31)

  local panel_top = header_h + legend_h
  for hi, hp in ipairs(heaps) do
    local g = geo[hi]
    local list, live, peak, top, sy = g.list, g.live, g.peak, g.top, g.sy
    local y0 = panel_top + 54   -- top of the plot
    panel_top = panel_top + panel_base + g.legend_h
    local function Y(b) return y0 + panel_h - b * sy end

    add('<g class="heap" id="heap-%d">', hi)
    add('<text x="%d" y="%d" font-weight="bold" fill="#222">heap %d: %s (LOAD %s, makespan/LOAD %.3f), memory type %d, %d resources%s</text>',
        left, y0 - 36, hi, fmt_bytes(hp.bytes), fmt_bytes(hp.load), ratio(hp.bytes, hp.load), hp.memory_type,
        #list, hp.optimal and ", proved optimal" or "")
    add('<rect class="plot" x="%d" y="%d" width="%d" height="%d" fill="#fafafa" stroke="#999"/>', left, y0, plot_w,
        panel_h)

    -- byte axis
    local unit, div = axis_unit(top)
    local step = nice_step(top / div, 6) * div
    local b = 0
    while b <= top + 1e-9 do
      local y = Y(b)
      add('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#e4e4e4"/>', left, y, left + plot_w, y)
      add('<text x="%d" y="%.1f" text-anchor="end" fill="#444">%s %s</text>', left - 6, y + 4,
          (string.format("%.2f", b / div):gsub("%.?0+$", "")), unit)
      b = b + step
    end
    add('<text transform="translate(16 %.1f) rotate(-90)" text-anchor="middle" fill="#444">offset in heap</text>',
        y0 + panel_h / 2)

    -- slot grid, frame boundary and the instance names of both frames
    local every = math.max(1, math.ceil(16 / sx))  -- 45° labels need 16 px apart
    for s = 0, T - 1 do
      local x = left + s * sx
      if s % every == 0 then
        add('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ececec"/>', x, y0, x, y0 + panel_h)
        local name, f = slot(s)
        if #name > 28 then name = name:sub(1, 27) .. "~" end
        local cx, ty = x + sx / 2 + 4, y0 + panel_h + 10
        add('<text class="slot" transform="translate(%.1f %d) rotate(-45)" text-anchor="end" font-family="monospace" font-size="11" fill="%s">%s</text>',
            cx, ty, f == 0 and "#222" or "#666", esc(name))
      end
    end
    if V > 0 then
      local xb = left + V * sx
      add('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#333" stroke-width="1.5" stroke-dasharray="6,3"/>', xb, y0 - 6,
          xb, y0 + panel_h)
      add('<text x="%.1f" y="%d" text-anchor="middle" fill="#333">frame 0</text>', left + V * sx / 2, y0 - 6)
      add('<text x="%.1f" y="%d" text-anchor="middle" fill="#333">frame 1</text>', left + V * sx * 1.5, y0 - 6)
    end

    -- one rectangle per physical resource; a copy that wraps around the
    -- cycle continues at the left as a second piece (class "wrap")
    local labels = {}
    for _, r in ipairs(list) do
      local ck = colour_kind(r)
      local fill = fills[ck][r.frame + 1] or fills[ck][1]
      local pieces
      if r.first == r.stop then pieces = { { 0, T } }
      elseif r.first < r.stop then pieces = { { r.first, r.stop } }
      else pieces = { { r.first, T }, { 0, r.stop } } end
      local tip = string.format("%s, frame %d: %s %s%s, %s (%d bytes) at offset %d; live %s", resource_label(r), r.frame,
                                r.format or r.kind, r.kind, r.width and string.format(" %dx%d", r.width, r.height) or "",
                                fmt_bytes(r.bytes), r.bytes, r.offset, lifetime_text(r, T, slot))
      -- at least MIN_H px so a small buffer stays visible (and hoverable); named below when too small
      local h = math.max(r.bytes * sy, MIN_H)
      local y = Y(r.offset) - h
      local dash = r.history and ' stroke="#222" stroke-width="1.5" stroke-dasharray="4,2"'
                   or h >= 4 and ' stroke="#ffffff" stroke-width="1"' or ""   -- a white edge would hide a thin one
      for pi, pc in ipairs(pieces) do
        local x, w = left + pc[1] * sx, (pc[2] - pc[1]) * sx
        add('<rect class="%s res-%s f%d" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"%s><title>%s</title></rect>',
            pi == 1 and "res" or "wrap", ck, r.frame, x + 0.5, y, math.max(w - 1, 1), h, fill, dash, esc(tip))
        -- the name inside when it fits, drawn after the LOAD curve (packed
        -- resources never overlap, so neither do names)
        do
          local label = g.inside[r]
          if label and not labels[r] and utf8.len(label) * CHAR_W + 6 <= w then
            labels[r] = true
            labels[#labels + 1] = string.format('<text class="res-label" x="%.1f" y="%.1f" font-family="monospace" font-size="11" fill="#1a1a1a" stroke="%s" stroke-width="3" paint-order="stroke" pointer-events="none">%s</text>',
              x + 4, y + math.min(h / 2 + 4, 13), fill, esc(label))
          end
        end
      end
    end

    -- LOAD profile: live bytes per slot as a step curve, its peak marked
    if T > 0 then
      local d = { string.format("M%.1f %.1f", left, Y(live[0])) }
      for t = 0, T - 1 do
        d[#d + 1] = string.format("V%.1f H%.1f", Y(live[t]), left + (t + 1) * sx)
      end
      add('<path class="load" d="%s" fill="none" stroke="#c0392b" stroke-width="2.2"/>', table.concat(d, " "))
      -- the peak is marked on the curve and named under the panel title,
      -- where it cannot cover a resource's name
      local pt = 0
      for t = 0, T - 1 do if live[t] > live[pt] then pt = t end end
      add('<circle cx="%.1f" cy="%.1f" r="4" fill="#c0392b"/>', left + (pt + 0.5) * sx, Y(peak))
      local pname, pf = slot(pt)
      add('<text x="%d" y="%d" fill="#c0392b">peak live %s at %s (frame %d)</text>',
          left, y0 - 20, fmt_bytes(peak), esc(pname), pf)
      if hp.bytes > peak then
        add('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#222" stroke-dasharray="2,3"/>', left, Y(hp.bytes),
            left + plot_w, Y(hp.bytes))
      end
    end
    -- names over the curve: the curve never hides one
    for _, l in ipairs(labels) do o[#o + 1] = l end
    -- the resources too small for their name, listed under the panel
    if #g.small > 0 then
      local ty = y0 + panel_h + label_room + 12
      add('<text class="small-title" x="%d" y="%d" fill="#444">Too small to name in the picture above (%d): colour, name and frame copy, size, lifetime</text>',
          left, ty, #g.small)
      local cw = (plot_w + 40) // LEGEND_COLS
      for k, r in ipairs(g.small) do
        local col, row = (k - 1) % LEGEND_COLS, (k - 1) // LEGEND_COLS
        local x, y = left + col * cw, ty + 8 + row * LEGEND_ROW
        local ck = colour_kind(r)
        add('<rect class="small" x="%d" y="%d" width="12" height="12" fill="%s"%s/>', x, y, fills[ck][r.frame + 1] or fills[ck][1],
            r.history and ' stroke="#222" stroke-dasharray="2,1"' or "")
        local first = r.first
        local last = T > 0 and (r.stop - 1) % T or 0
        add('<text class="small-name" x="%d" y="%d" font-family="monospace" font-size="11" fill="#1a1a1a">%s f%d  %s  slots %d..%d</text>',
            x + 17, y + 10, esc(resource_label(r)), r.frame, fmt_bytes(r.bytes), first, last)
      end
    end
    add('</g>')
  end
  if #heaps == 0 then
    add('<text x="%d" y="%d" fill="#555">no packed resources: nothing lives in GPU memory</text>', left,
        header_h + legend_h + 30)
  end
  add("</svg>")
  return table.concat(o, "\n") .. "\n"
end

-- ---------------------------------------------------------- GPU time

local function fmt_ms(v) return string.format(v >= 10 and "%.1f" or "%.2f", v) end

-- The GPU timeline drawn under the memory timeline (`report --render`): one
-- bar per node instance at its slots, on the same x axis, as tall as its GPU
-- time in the measured frame (rt:timings()). Both halves show that frame:
-- the two frames of the cycle run the same instances.
function M.gpu_svg(graph, t)
  local T = graph:stats().period
  local slot, V = slot_namer(graph)
  local left, plot_w, right = slot_axis(T)
  local width = left + plot_w + right
  local sx = T > 0 and plot_w / T or plot_w
  local ms, max = {}, 0
  for _, e in ipairs(t) do ms[e.name] = e.gpu_ms; max = math.max(max, e.gpu_ms) end
  local async = {}  -- instances on the async compute queue: drawn blue
  for _, i in ipairs(graph:instances()) do if i.queue == "async" then async[i.name] = true end end
  local y0, bar_h = 58, 120
  local height = y0 + bar_h + 16
  local o = {}
  local function add(fmt, ...) o[#o + 1] = string.format(fmt, ...) end
  add('<svg xmlns="http://www.w3.org/2000/svg" class="fg-gpu-timeline" width="%d" height="%d" viewBox="0 0 %d %d" font-family="Helvetica, Arial, sans-serif" font-size="12">',
      width, height, width, height)
  add('<rect class="bg" x="0" y="0" width="%d" height="%d" fill="#ffffff"/>', width, height)
  add('<text class="gpu-total" x="%d" y="24" font-size="15" font-weight="bold" fill="#222">GPU time: frame %s ms (%d instances, one rendered frame, unaliased plan)</text>',
      left, fmt_ms(t.frame_ms or 0), #t)
  add('<text x="%d" y="42" fill="#555">one bar per node instance at its slot, as tall as its GPU time (the tallest %s ms); hover for the name</text>',
      left, fmt_ms(max))
  add('<rect class="plot" x="%d" y="%d" width="%d" height="%d" fill="#fafafa" stroke="#999"/>', left, y0, plot_w, bar_h)
  add('<text x="%d" y="%d" text-anchor="end" fill="#444">%s ms</text>', left - 6, y0 + 4, fmt_ms(max))
  add('<text x="%d" y="%d" text-anchor="end" fill="#444">0</text>', left - 6, y0 + bar_h + 4)
  for s = 0, T - 1 do
    local name, f = slot(s)
    local v = ms[name]
    if v then
      local x = left + s * sx
      local h = max > 0 and math.max(v / max * bar_h, v > 0 and 1 or 0) or 0  -- a short pass stays visible
      add('<rect class="gpu-bar" data-instance="%s" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s (frame %d): %s ms</title></rect>',
          esc(name), x + 1, y0 + bar_h - h, math.max(sx - 2, 0.5), h,
          async[name] and (f == 0 and "#2b6cd9" or "#7aa8f0") or (f == 0 and "#d9822b" or "#f0b87a"),
          esc(name) .. (async[name] and " [async]" or ""), f, fmt_ms(v))
      local label = fmt_ms(v)
      if #label * CHAR_W + 4 <= sx then
        local ly = h >= 16 and y0 + bar_h - h + 13 or y0 + bar_h - h - 3
        add('<text class="gpu-ms" x="%.1f" y="%.1f" text-anchor="middle" font-size="11" fill="#222">%s</text>',
            x + sx / 2, ly, label)
      end
    end
  end
  if V > 0 then
    local xb = left + V * sx
    add('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#333" stroke-width="1.5" stroke-dasharray="6,3"/>', xb, y0,
        xb, y0 + bar_h)
  end
  add("</svg>")
  return table.concat(o, "\n") .. "\n"
end

-- The page's GPU section: the timeline and the n costliest instances.
function M.gpu_html(graph, t, n)
  local o = { '<div class="figure">' .. M.gpu_svg(graph, t) .. "</div>" }
  o[#o + 1] = '<table class="gpu-top"><tr><th class="l">costliest instances</th><th>GPU ms</th><th>share of frame</th></tr>'
  for _, e in ipairs(require("framegraph.gpu_bars").top(t, n or 8)) do
    o[#o + 1] = string.format('<tr><td class="l">%s</td><td>%.3f</td><td>%.1f%%</td></tr>', esc(e.name), e.gpu_ms,
                              e.share * 100)
  end
  o[#o + 1] = "</table>"
  return table.concat(o, "\n")
end

-- ---------------------------------------------------------------- html

M.max_graphviz_instances = 400

-- Graphviz's SVG of the dot text, or nil when `dot` is not installed.
function M.render_dot(dot)
  local ok = os.execute("command -v dot >/dev/null 2>&1")
  if not ok then return nil end
  local src = os.tmpname()
  local f = io.open(src, "w")
  if not f then return nil end
  f:write(dot); f:close()
  local p = io.popen("dot -Tsvg '" .. src:gsub("'", "'\\''") .. "' 2>/dev/null")
  local svg = p and p:read("a")
  if p then p:close() end
  os.remove(src)
  if not svg or not svg:find("<svg") then return nil end
  -- inline it: drop the XML prolog, doctype and comments
  return (svg:gsub("^.-(<svg)", "%1"):gsub("<!%-%-.-%-%->", ""))
end

local css = [[
body { font-family: Helvetica, Arial, sans-serif; margin: 24px 32px; color: #222; background: #fff; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid #ddd; }
.sub { color: #555; margin: 0 0 12px; }
table { border-collapse: collapse; font-size: 13px; }
th, td { border: 1px solid #ddd; padding: 4px 9px; text-align: right; }
th { background: #f3f5f8; } td.l, th.l { text-align: left; }
.broken { color: #a61b1b; } .culled { color: #666; }
.saving { font-size: 15px; } .saving b { color: #2a7a2e; }
pre { background: #f6f6f6; padding: 10px; font-size: 12px; overflow: auto; }
.figure { overflow-x: auto; } .graph svg { max-width: 100%; height: auto; }
]]

-- Async compute: what each async instance may run beside, and what async
-- costs in memory against the serial plan and against lifetimes extended over
-- whole fork/join regions (the usual baseline). "" when the plan has none.
function M.async_html(graph, stats)
  stats = stats or graph:stats()
  local a = stats.async
  if not a or a.instances == 0 then return "" end
  local o = {}
  local function add(fmt, ...) o[#o + 1] = select("#", ...) > 0 and string.format(fmt, ...) or fmt end
  local byslot = {}
  for _, i in ipairs(graph:instances()) do byslot[i.slot] = i end
  add("<h2>Async compute</h2>")
  add('<p class="sub">%d instance%s on the async queue in %d fork/join region%s. Memory: <b>%s</b> with async '
      .. '(%s%s than the same lifetimes on one queue, %s); lifetimes extended over whole fork/join regions would '
      .. 'need %s.</p>', a.instances, a.instances == 1 and "" or "s", a.regions, a.regions == 1 and "" or "s",
      fmt_bytes(a.heap_bytes), fmt_bytes(math.abs(a.heap_bytes - a.serial_bytes)),
      a.heap_bytes >= a.serial_bytes and " more" or " less", fmt_bytes(a.serial_bytes), fmt_bytes(a.region_bytes))
  add('<table class="nodes"><tr><th class="l">async instance</th><th class="l">starts after</th>'
      .. '<th class="l">joins before</th><th class="l">may run beside</th></tr>')
  for s = 1, #byslot do
    local i = byslot[s]
    if i.queue == "async" then
      local beside = {}
      for g = i.fork + 1, i.join - 1 do
        if byslot[g] and byslot[g].queue ~= "async" then beside[#beside + 1] = esc(byslot[g].name) end
      end
      add('<tr><td class="l">%s</td><td class="l">%s</td><td class="l">%s</td><td class="l">%s</td></tr>', esc(i.name),
          i.fork > 0 and esc(byslot[i.fork].name) or "the frame's start",
          byslot[i.join] and esc(byslot[i.join].name) or "the frame's end",
          #beside > 0 and table.concat(beside, ", ") or "nothing")
    end
  end
  add("</table>")
  return table.concat(o, "\n")
end

-- the options of html/write_html: a misspelt key would be silently ignored
local HTML_OPTS = { title = true, source = true, render = true, shots = true, device = true, graphviz = true }
local check_opts = require("framegraph.opts").check

function M.html(graph, opts)
  opts = check_opts(opts, "report.html", HTML_OPTS)
  local stats = graph:stats()
  local T = stats.period
  local slot = slot_namer(graph)
  local name = pipeline_name(graph)
  local title = opts.title or ("framegraph report: " .. name)
  local saving = stats.naive_bytes > 0 and (1 - stats.heap_bytes / stats.naive_bytes) * 100 or 0
  local o = {}
  local function add(fmt, ...) o[#o + 1] = select("#", ...) > 0 and string.format(fmt, ...) or fmt end

  add('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">')
  add("<title>%s</title>", esc(title))
  add("<style>%s</style></head><body>", css)
  add("<h1>%s</h1>", esc(title))
  add('<p class="sub">%s%s; profile %s, solver %s; %d active, %d culled, %d broken nodes; %d node instances per frame.</p>',
      opts.source and ("pipeline <code>" .. esc(opts.source) .. "</code>; ") or "", "compiled without a GPU",
      esc(profile_of(graph)), esc(solver_of(graph)), stats.nodes_active, stats.nodes_culled, stats.nodes_broken,
      stats.instances)
  add('<p class="saving">Transient memory: <b>%s</b> with aliasing instead of %s without: <b>saves %.1f%%</b>; the lower bound (LOAD) is %s.</p>',
      fmt_bytes(stats.heap_bytes), fmt_bytes(stats.naive_bytes), saving, fmt_bytes(stats.load_bytes))

  add("<h2>Memory timeline</h2>")
  add('<p class="sub">Each rectangle is one physical resource: x is its lifetime over two frames, y its place in the heap; its name is inside, or listed under the panel when the rectangle is too small. Hover for size and lifetime. <b>f0</b> and <b>f1</b> are a resource\u{2019}s two frame copies, one for even and one for odd frames (dark and light): without history they live in different halves of the timeline and usually share memory; a history read keeps the previous frame\u{2019}s copy alive into the next frame, so both copies of it are live at once. The red curve is the live bytes at each slot; its peak, LOAD, is the least memory any placement of these lifetimes needs.</p>')
  add('<div class="figure">%s</div>', M.svg(graph))
  -- opts.render: the X-ray (framegraph.xray): needs the pipeline's file and a device
  if opts.render then
    local xray = require("framegraph.xray")
    local shots, why
    if opts.shots then shots = opts.shots
    elseif opts.source then shots, why = xray.capture(opts.source, { device = opts.device })
    else why = "the pipeline's file is not known (opts.source)" end
    -- the GPU timeline under the memory timeline, from the same run
    if shots and shots.timings then
      add("%s", M.gpu_html(graph, shots.timings))
    elseif shots and shots.timings_why then
      add('<p class="sub">GPU timeline: not measured: %s</p>', esc(shots.timings_why))
    end
    if shots then
      add("<style>%s</style>", xray.css)
      add("%s", xray.html(shots))
    else
      add('<p class="sub">X-ray: not rendered: %s</p>', esc(why))
    end
  end

  add("<h2>Stats</h2>")
  add('<table class="stats"><tr><th class="l">heap</th><th>memory type</th><th>resources</th><th>bytes</th><th>LOAD</th><th>makespan/LOAD</th><th class="l">solver</th><th>time (ms)</th></tr>')
  for i, hp in ipairs(stats.heaps) do
    add('<tr><td class="l">%d</td><td>%d</td><td>%d</td><td>%s<br><small>%d</small></td><td>%s<br><small>%d</small></td><td>%.3f%s</td><td class="l">%s</td><td>%s</td></tr>',
        i, hp.memory_type, hp.resources, fmt_bytes(hp.bytes), hp.bytes, fmt_bytes(hp.load), hp.load,
        ratio(hp.bytes, hp.load), hp.optimal and " (optimal)" or "", esc(solver_of(graph)),
        i == 1 and string.format("%.3f%s", stats.pack_ms or 0, #stats.heaps > 1 and " (all heaps)" or "") or "")
  end
  add('<tr><th class="l">all</th><td></td><td>%d</td><td>%s</td><td>%s</td><td>%.3f</td><td class="l">no aliasing: %s</td><td>compile %.3f</td></tr></table>',
      stats.resources, fmt_bytes(stats.heap_bytes), fmt_bytes(stats.load_bytes),
      ratio(stats.heap_bytes, stats.load_bytes), fmt_bytes(stats.naive_bytes), stats.compile_ms or 0)

  add("%s", M.async_html(graph, stats))

  add("<h2>Culled and broken nodes</h2>")
  local bad = {}
  for _, n in ipairs(graph:nodes()) do if n.state ~= "active" then bad[#bad + 1] = n end end
  if #bad == 0 then
    add("<p>None: every node runs.</p>")
  else
    add('<table class="nodes"><tr><th class="l">node</th><th class="l">state</th><th class="l">why</th></tr>')
    for _, n in ipairs(bad) do
      add('<tr class="%s"><td class="l">%s</td><td class="l">%s</td><td class="l">%s</td></tr>', n.state, esc(n.name),
          n.state, esc(n.reason or ""))
    end
    add("</table>")
  end

  add("<h2>Graph</h2>")
  local dot = M.dot(graph)
  -- past a few hundred instances dot takes long and draws an unreadable
  -- picture; the timeline and tables still say everything
  local too_big = stats.instances > M.max_graphviz_instances
  local picture = opts.graphviz ~= false and not too_big and M.render_dot(dot)
  if picture then
    add('<div class="figure graph">%s</div>', picture)
    add("<details><summary>DOT source</summary><pre>%s</pre></details>", esc(dot))
  else
    if too_big then
      add('<p class="sub">%d node instances are too many to draw (at most %d): the DOT source follows.</p>',
          stats.instances, M.max_graphviz_instances)
    elseif opts.graphviz ~= false then
      add('<p class="sub">Graphviz (<code>dot</code>) is not installed: the DOT source follows (<code>apt-get install graphviz</code> draws it).</p>')
    end
    add('<details%s><summary>DOT source</summary><pre class="dot">%s</pre></details>', too_big and "" or " open", esc(dot))
  end

  add("<h2>Resources</h2>")
  add('<table class="resources"><tr><th class="l">resource</th><th>frame</th><th class="l">kind</th><th class="l">format</th><th>size</th><th>bytes</th><th>heap</th><th>offset</th><th class="l">lifetime</th></tr>')
  for _, r in ipairs(graph:resources()) do
    add('<tr><td class="l">%s</td><td>%d</td><td class="l">%s%s</td><td class="l">%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td class="l">%s</td></tr>',
        esc(resource_label(r)), r.frame, r.kind, r.history and " (history)" or "", esc(r.format or ""),
        r.width and string.format("%dx%d", r.width, r.height) or "",
        r.kind == "blob" and string.format("%d (CPU)", r.declared_bytes or 0) or tostring(r.bytes), r.heap or "-", r.offset or "-",
        esc(lifetime_text(r, T, slot)))
  end
  add("</table>")
  add('<p class="sub">framegraph %s</p></body></html>', esc(require("framegraph.core").version or ""))
  return table.concat(o, "\n") .. "\n"
end

function M.write_html(graph, path, opts)
  check_opts(opts, "report.write_html", HTML_OPTS)
  if type(path) ~= "string" then error(("report.write_html: path must be a string, got %s"):format(type(path)), 2) end
  if path:find("\0", 1, true) then  -- io.open would stop at the NUL and write another file
    error(("report.write_html: the path '%s' holds a NUL byte; paths cannot contain NUL"):format(path:gsub("%z", "\\0")), 2)
  end
  local ok, page = pcall(M.html, graph, opts)
  if not ok then return nil, "report: " .. tostring(page) end
  local f, err = io.open(path, "wb")
  if not f then return nil, "report: cannot write " .. tostring(err) end
  local wok, werr = f:write(page)
  f:close()
  if not wok then return nil, "report: writing " .. path .. ": " .. tostring(werr) end
  return true
end

return M
