-- framegraph.view: a live window onto a pipeline file.
--
--   framegraph view pipeline.lua [--output NAME] [--size WxH] [--device gpu|software]
--                               [--frames N] [--screenshot out.png] [--validation]
--                               [--captures DIR] [--exit-after-reloads N] [--fps N] [--no-hud]
--
-- The pipeline file is a chunk that receives the device (`local dev = ...`) and
-- returns the pipeline table (as examples/*.lua). The viewer adds one node,
-- `view_present`, that blits the chosen output into `view_backbuffer`: an
-- external resource of the graph whose image is the window's acquired
-- swapchain image (supplied per frame), so the graph's own barriers cover it
-- and the runtime hands it to presentation (PRESENT_SRC_KHR, semaphores).
-- Resolutions marked `window = true` (`resolutions = { main = {1280, 720,
-- window = true} }`) follow the window size through rt:set_resolution.
--
-- Keys: Tab / o / space cycle through outputs and multiplex indices (each eye),
-- r reloads, q / Escape quits. The file is watched with fg.watch (its reload hook adds the viewer's node);
-- a bad edit keeps the last good graph running and its picture on screen, with
-- the error (file:line: message) printed, in the window title and in the HUD
-- (a text band over the top of the picture; --no-hud). Once per second the
-- viewer prints, and the HUD shows, the frame time and the pipeline's memory
-- plan (heap vs no aliasing vs LOAD, without the viewer's own nodes).
--
-- Headless (no DISPLAY, or --frames/--screenshot without a display): renders
-- into an offscreen image of the same graph and writes it with --screenshot.
-- With a display, --screenshot captures the presented swapchain image.
local fg = require("framegraph")
local core = fg.core

local M = {}

local BB, NODE, RES = "view_backbuffer", "view_present", "view_window"

local USAGE = [[
usage: framegraph view PIPELINE.lua [options]
  --output NAME         output to show first (default: the pipeline's first output)
  --size WxH            window size (default 640x360)
  --device gpu|software Vulkan device to prefer (FG_DEVICE overrides)
  --frames N            stop after N frames
  --screenshot PATH     write the last frame's picture (PNG); without a display, renders headless
  --fps N               cap the frame rate (default 60; 0: as fast as possible)
  --no-hud              no text overlay in the window (the figures are printed either way)
  --validation          enable Vulkan validation; messages are printed and counted
  --captures DIR        write DIR/<k>.png of the first frame and of the frame after each reload
  --exit-after-reloads N  stop once the frame after the N-th reload (good or bad) is captured
keys: Tab/o/space next output or index, r reload, q/Escape quit]]

local function parse(args)
  local o = { width = 640, height = 360, fps = 60 }
  local i = 1
  local function value(name)
    i = i + 1
    local v = args[i]
    if v == nil then error(("framegraph view: %s needs a value\n%s"):format(name, USAGE), 0) end
    return v
  end
  while i <= #args do
    local a = args[i]
    if a == "--output" then o.output = value(a)
    elseif a == "--size" then
      local s = value(a)
      local w, h = s:match("^(%d+)[xX](%d+)$")
      if not w or tonumber(w) < 1 or tonumber(h) < 1 then
        error(("framegraph view: --size must be WxH (e.g. 1280x720), got %q"):format(s), 0)
      end
      o.width, o.height = tonumber(w), tonumber(h)
    elseif a == "--device" then
      o.device = value(a)
      if o.device ~= "gpu" and o.device ~= "software" then
        error(("framegraph view: --device must be gpu or software, got %q"):format(o.device), 0)
      end
    elseif a == "--frames" then
      o.frames = math.tointeger(tonumber(value(a)))
      if not o.frames or o.frames < 1 then error("framegraph view: --frames must be a positive integer", 0) end
    elseif a == "--screenshot" then o.screenshot = value(a)
    elseif a == "--captures" then o.captures = value(a)
    elseif a == "--exit-after-reloads" then o.exit_after_reloads = math.tointeger(tonumber(value(a)))
    elseif a == "--fps" then
      o.fps = tonumber(value(a))
      if not o.fps or o.fps < 0 then error("framegraph view: --fps must be a number >= 0 (0: no cap)", 0) end
    elseif a == "--no-hud" then o.no_hud = true
    elseif a == "--validation" then o.validation = true
    elseif a == "--help" or a == "-h" then o.help = true
    elseif a:sub(1, 2) == "--" then error(("framegraph view: unknown option %s\n%s"):format(a, USAGE), 0)
    elseif o.path then error(("framegraph view: one pipeline file, got %s and %s"):format(o.path, a), 0)
    else o.path = a end
    i = i + 1
  end
  if not o.path and not o.help then error("framegraph view: no pipeline file\n" .. USAGE, 0) end
  return o
end

local function copy(t)
  local c = {}
  for k, v in pairs(t or {}) do c[k] = v end
  return c
end

-- Loads the pipeline file with the device: table, or nil and "file:line: message".
local load_pipeline = require("framegraph.source").load

-- File change detection by content. The lead may swap in fg.watch here.
local function human(b)
  if b >= 1 << 20 then return ("%.2f MiB"):format(b / (1 << 20)) end
  if b >= 1 << 10 then return ("%.1f KiB"):format(b / (1 << 10)) end
  return ("%d B"):format(b)
end

-- The HUD: two lines of text in a 3x5 pixel font (scale 2), rendered on the
-- CPU, uploaded each frame into `view_hud` and copied over the top left of
-- the backbuffer by view_present. Glyph rows, top to bottom, 3 bits each.
local GLYPHS = {
  ["0"] = "111101101101111", ["1"] = "010110010010111", ["2"] = "111001111100111", ["3"] = "111001111001111",
  ["4"] = "101101111001001", ["5"] = "111100111001111", ["6"] = "111100111101111", ["7"] = "111001001001001",
  ["8"] = "111101111101111", ["9"] = "111101111001111", A = "010101111101101", B = "110101110101110",
  C = "011100100100011", D = "110101101101110", E = "111100110100111", F = "111100110100100",
  G = "011100101101011", H = "101101111101101", I = "111010010010111", J = "001001001101010",
  K = "101101110101101", L = "100100100100111", M = "101111111101101", N = "110101101101101",
  O = "010101101101010", P = "110101110100100", Q = "010101101110011", R = "110101110101101",
  S = "011100010001110", T = "111010010010010", U = "101101101101111", V = "101101101101010",
  W = "101101111111101", X = "101101010101101", Y = "101101010010010", Z = "111001010100111",
  [" "] = "000000000000000", ["."] = "000000000000010", [":"] = "000010000010000", ["/"] = "001001010100100",
  ["|"] = "010010010010010", ["%"] = "101001010100101", ["-"] = "000000111000000", ["="] = "000111000111000",
  ["("] = "001010010010001", [")"] = "100010010010100", ["["] = "011010010010011", ["]"] = "110010010010110",
  [","] = "000000000010100", ["_"] = "000000000000111", ["'"] = "010010000000000", ["+"] = "000010111010000",
  ["<"] = "001010100010001", [">"] = "100010001010100", ["?"] = "111001010000010", ["!"] = "010010010000010",
  ['"'] = "101101000000000", ["#"] = "101111101111101",
}
local HUD_W, HUD_SCALE = 640, 2
local function hud_height(lines) return 2 + 12 * lines end  -- 2 lines: 26 rows

-- The status text as HUD lines of at most `cols` characters: its own line
-- breaks kept (indented lines of a compiler message), long lines wrapped at
-- spaces, at most `max` lines (the last one says how many were left out).
local function hud_wrap(text, cols, max)
  local out = {}
  for para in (text .. "\n"):gmatch("([^\n]*)\n") do
    local indent = para:match("^(%s*)")
    local line = ""
    for word in para:gmatch("%S+") do
      while #word > cols - #indent do  -- a path longer than the line: cut it
        if #line > 0 then out[#out + 1] = line line = "" end
        local room = cols - #indent
        out[#out + 1] = indent .. word:sub(1, room)
        word = word:sub(room + 1)
      end
      local cand = #line == 0 and indent .. word or line .. " " .. word
      if #cand > cols then out[#out + 1] = line line = indent .. word else line = cand end
    end
    if #line > 0 then out[#out + 1] = line end
  end
  if #out > max then
    local left = #out - max + 1
    for k = #out, max, -1 do out[k] = nil end
    out[max] = ("... %d more line%s (printed in full)"):format(left, left == 1 and "" or "s")
  end
  return out
end

-- width*height RGBA (or BGRA) bytes: each line {text, {r, g, b}} on a dark band.
local function hud_render(lines, bgra, HUD_H)
  HUD_H = HUD_H or hud_height(2)
  local function px(c)
    return bgra and string.char(c[3], c[2], c[1], 255) or string.char(c[1], c[2], c[3], 255)
  end
  local bg = px({ 16, 16, 24 })
  local rows = {}
  for y = 0, HUD_H - 1 do
    local row = {}
    for x = 1, HUD_W do row[x] = bg end
    rows[y] = row
  end
  for li, line in ipairs(lines) do
    local fg_px = px(line[2])
    local text = line[1]:upper()
    local y0 = 2 + (li - 1) * 12
    if y0 + 5 * HUD_SCALE > HUD_H then break end  -- the band is not tall enough yet
    for i = 1, math.min(#text, HUD_W // (4 * HUD_SCALE) - 1) do
      local g = GLYPHS[text:sub(i, i)] or GLYPHS["?"]
      local x0 = 4 + (i - 1) * 4 * HUD_SCALE
      for gy = 0, 4 do
        for gx = 0, 2 do
          if g:byte(gy * 3 + gx + 1) == 49 then  -- "1"
            for sy = 0, HUD_SCALE - 1 do
              local row = rows[y0 + gy * HUD_SCALE + sy]
              for sx = 0, HUD_SCALE - 1 do row[x0 + gx * HUD_SCALE + sx + 1] = fg_px end
            end
          end
        end
      end
    end
  end
  require("framegraph.gpu_bars").draw(rows, px, GLYPHS, HUD_W, HUD_H)  -- most expensive passes (GPU time)
  local out = {}
  for y = 0, HUD_H - 1 do out[#out + 1] = table.concat(rows[y]) end
  return table.concat(out)
end

local function index_text(index)
  local keys = {}
  for k in pairs(index or {}) do keys[#keys + 1] = k end
  table.sort(keys)
  local parts = {}
  for _, k in ipairs(keys) do parts[#parts + 1] = ("%s=%d"):format(k, index[k]) end
  return #parts > 0 and "[" .. table.concat(parts, ",") .. "]" or ""
end

-- Where a w x h picture goes in a W x H window keeping its aspect ratio:
-- {x, y, width, height} centred, or nil when it fills the window anyway.
function M.letterbox(w, h, W, H)
  if not (w and h and w > 0 and h > 0) or w * H == h * W then return nil end
  local s = math.min(W / w, H / h)
  local rw, rh = math.max(1, math.floor(w * s + 0.5)), math.max(1, math.floor(h * s + 0.5))
  rw, rh = math.min(rw, W), math.min(rh, H)
  if rw == W and rh == H then return nil end
  return { (W - rw) // 2, (H - rh) // 2, rw, rh }
end

-- What a reload did, for the status line and the HUD, from rt:reload's
-- changes (the viewer's own nodes left out): "recompiled 2 nodes (blur, out),
-- kept 2 history", "swapped the run of 1 node (grade), no compile".
function M.reload_summary(changes)
  if type(changes) ~= "table" then return "done" end
  local function mine(list)
    local out = {}
    for _, n in ipairs(list or {}) do
      if not tostring(n):find("^view_") then out[#out + 1] = n end
    end
    return out
  end
  local function nodes(list) return ("%d node%s (%s)"):format(#list, #list == 1 and "" or "s", table.concat(list, ", ")) end
  local changed, added, removed, run = mine(changes.changed), mine(changes.added), mine(changes.removed),
                                       mine(changes.run_changed)
  local parts = {}
  if changes.recompiled then
    local re = {}
    for _, n in ipairs(changed) do re[#re + 1] = n end
    for _, n in ipairs(added) do re[#re + 1] = n end
    if #re > 0 then parts[#parts + 1] = "recompiled " .. nodes(re)
    else parts[#parts + 1] = "recompiled" end
    if #removed > 0 then parts[#parts + 1] = "removed " .. nodes(removed) end
    if #run > 0 then parts[#parts + 1] = "new run in " .. nodes(run) end
    parts[#parts + 1] = ("kept %d history"):format(changes.kept_history or 0)
  elseif #run > 0 then
    parts[#parts + 1] = "swapped the run of " .. nodes(run) .. ", no compile"
  else
    parts[#parts + 1] = "nothing to recompile"
  end
  return table.concat(parts, ", ")
end

-- What can be shown: every (output, multiplex index) of the compiled plan
-- that is a colour texture, in the pipeline's output order. Also returns why
-- the other outputs cannot be shown. Compile errors carry the file:line
-- where their subject is written (path: the pipeline's file).
local function targets_of(pipeline, opts, path)
  local ok, graph = pcall(fg.compile, pipeline, opts)
  if not ok then return nil, require("framegraph.graph").locate(tostring(graph), pipeline, path) end
  local list, seen, skipped = {}, {}, {}
  local res = graph:resources()
  for _, out in ipairs(pipeline.outputs or {}) do
    for _, r in ipairs(res) do
      if (r.name == out or r.final_name == out) and r.frame == 0 then
        local key = out .. index_text(r.index)
        if r.kind ~= "texture" and r.kind ~= "external" then
          skipped[out] = ("'%s' is a %s"):format(out, r.kind)
        elseif r.format and r.format:match("^[ds]%d") then
          skipped[out] = ("'%s' is a depth/stencil texture (%s)"):format(out, r.format)
        elseif not seen[key] then
          seen[key] = true
          list[#list + 1] = { name = out, index = r.index or {}, label = key, w = r.width, h = r.height }
        end
      end
    end
  end
  local stats = graph:stats()
  graph:close()
  local why = {}
  for _, out in ipairs(pipeline.outputs or {}) do why[#why + 1] = skipped[out] end
  return list, #why > 0 and table.concat(why, "; ") or nil, stats
end

-- The user's pipeline plus the present node and the backbuffer external.
local function wrap(p, st)
  local t = st.target
  local w = copy(p)
  w.resolutions = {}
  for k, v in pairs(p.resolutions or {}) do
    w.resolutions[k] = (type(v) == "table" and v.window) and { st.width, st.height } or v
  end
  w.resolutions[RES] = { st.width, st.height }
  w.external = copy(p.external)
  w.external[BB] = { format = st.format, size = RES, provide = function() return st.surface end }
  w.outputs = copy(p.outputs)
  w.outputs[#w.outputs + 1] = BB
  w.nodes = copy(p.nodes)
  local read = { [t.name] = "transfer_src" }
  if st.hud then
    w.nodes[#w.nodes + 1] = {
      name = "view_hud", create = { view_hud = { format = "rgba8_unorm", size = { HUD_W, hud_height(st.hud_lines or 2) },
                                                  usage = "transfer_dst" } },
      run = function(cmd, ctx) cmd:copy(assert(ctx.upload(st.hud)), "view_hud") end,
    }
    read.view_hud = "transfer_src"
  end
  local mode = {}
  for d in pairs(t.index) do mode[#mode + 1] = d end
  table.sort(mode)
  w.nodes[#w.nodes + 1] = {
    name = NODE, multiplex = #mode > 0 and mode or nil,
    read = read, modify = { [BB] = "transfer_dst" },
    run = function(cmd, ctx)
      local cur = st.target  -- may move to another index of the same output without a recompile
      for d, v in pairs(cur.index) do
        if ctx.index[d] ~= v then return end
      end
      local rect = M.letterbox(cur.w, cur.h, st.width, st.height)
      if rect then  -- keep the output's aspect ratio: black bars, the picture centred
        cmd:clear(BB, { 0, 0, 0, 1 })
        cmd:blit(cur.name, BB, rect)
      else
        cmd:blit(cur.name, BB)
      end
      if st.hud then cmd:copy("view_hud", BB) end  -- raw bytes into the top left corner
    end,
  }
  return w
end

local function pick(targets, name, index)
  for _, t in ipairs(targets) do
    if index == nil and t.label == name then return t end  -- "color[eye=2]"
  end
  for _, t in ipairs(targets) do
    if t.name == name and (index == nil or index_text(t.index) == index_text(index)) then return t end
  end
  if name and index then return pick(targets, name) end
  return nil
end

local function same_mode(a, b)
  local ka, kb = {}, {}
  for k in pairs(a.index) do ka[#ka + 1] = k end
  for k in pairs(b.index) do kb[#kb + 1] = k end
  table.sort(ka); table.sort(kb)
  return a.name == b.name and table.concat(ka, ",") == table.concat(kb, ",")
end

-- hooks (for tests and tools): hooks.frame(n, view) after each presented
-- frame, with view = { window = win | nil, runtime = rt, state = st,
-- key = function(name) as if the key was pressed ("tab", "q", ...),
-- finish = function() the next frame is the last (--screenshot is taken) }.
function M.main(args, hooks)
  local ok, o = pcall(parse, args or {})
  if not ok then io.stderr:write(tostring(o), "\n") return 2 end
  if o.help then print(USAGE) return 0 end
  io.stdout:setvbuf("line")
  local display = os.getenv("DISPLAY")
  local headless = (display == nil or display == "")
  if headless and not (o.frames or o.screenshot or o.captures) then
    io.stderr:write("framegraph view: no X display: DISPLAY is unset, so there is no X11 server to open a window on.\n",
      "  Start one (e.g. xvfb-run -a framegraph view ...), or render headless:\n",
      "  framegraph view ", o.path, " --frames 10 --screenshot out.png\n")
    return 2
  end

  local okd, dev = pcall(fg.vulkan, { validation = o.validation, prefer = o.device or "gpu", present = not headless })
  if not okd then
    io.stderr:write("framegraph view: ", tostring(dev):gsub("^fg%.vulkan: ", ""), "\n")
    return 1
  end
  local function drain_messages(where)
    local n = 0
    for _, m in ipairs(dev:messages()) do
      n = n + 1
      print("validation: " .. (where and (where .. ": ") or "") .. m)
    end
    return n
  end

  local st = { width = o.width, height = o.height, format = "rgba8_unorm" }
  local win
  if not headless then
    local err
    win, err = core.window_open(dev, o.width, o.height, "framegraph view: " .. o.path)
    if not win then
      io.stderr:write("framegraph view: ", err, "\n")
      dev:close()
      return 1
    end
    st.width, st.height = win:size()
    st.format = win:format()
    st.surface = win
  end

  -- The pipeline's own plan (without the viewer's nodes), at the window's size.
  local function plan_opts(pl)
    local res = {}
    for name, v in pairs(pl.resolutions or {}) do
      if type(v) == "table" and v.window then res[name] = { st.width, st.height } end
    end
    return { device = dev, resolutions = next(res) and res or nil }
  end
  local p, err = load_pipeline(o.path, dev)
  local targets, plan_stats
  if p then targets, err, plan_stats = targets_of(p, plan_opts(p), o.path) end
  if targets and #targets == 0 then
    targets, err = nil, ("%s: the pipeline has no colour texture output to show%s"):format(o.path,
      err and " (" .. err .. ")" or "; list one in outputs = { ... }")
  end
  if not targets then
    io.stderr:write("framegraph view: ", err, "\n")
    if win then win:close() end
    dev:close()
    return 1
  end
  st.target = pick(targets, o.output or targets[1].name)
  if not st.target then
    local names = {}
    for _, t in ipairs(targets) do names[#names + 1] = t.label end
    io.stderr:write(("framegraph view: --output %s is not an output of %s (outputs: %s)\n")
      :format(o.output, o.path, table.concat(names, ", ")))
    if win then win:close() end
    dev:close()
    return 1
  end
  if headless then st.surface = assert(dev:external_image(st.format, st.width, st.height)) end
  local bgra = st.format:sub(1, 4) == "bgra"
  local hud_line1 = "framegraph view " .. o.path
  local status = "loaded " .. o.path
  -- The HUD: the figures, then the status wrapped at the window's width in
  -- up to 40 % of its height. A taller or shorter band than the running
  -- graph's view_hud waits for the main loop to re-wrap the graph (hud_resize).
  st.hud_lines = 2
  local function hud()
    if win and not o.no_hud then
      local color = status:sub(1, 5) == "ERROR" and { 255, 96, 96 } or { 150, 230, 150 }
      local cols = math.min(HUD_W, st.width) // (4 * HUD_SCALE) - 1
      local max = math.max(2, (st.height * 4 // 10 - 2) // 12)
      local lines = { { hud_line1, { 230, 230, 230 } } }
      for _, l in ipairs(hud_wrap(st.target.label .. "  " .. status, cols, max - 1)) do lines[#lines + 1] = { l, color } end
      st.hud_want = math.max(2, #lines)
      st.hud_resize = st.hud_want ~= st.hud_lines
      st.hud = hud_render(lines, bgra, hud_height(st.hud_lines))
    end
  end
  hud()

  local okr, rt = pcall(fg.runtime, dev, wrap(p, st))
  if not okr then
    io.stderr:write("framegraph view: ", tostring(rt), "\n")
    if win then win:close() end
    dev:close()
    return 1
  end
  local validation_count = drain_messages()

  local function title()
    if win then
      win:set_title(("framegraph view: %s  %s  |  %s"):format(o.path, st.target.label, status))
    end
    hud()
  end
  title()
  print(("view: %s on %s, showing %s (%dx%d %s)%s"):format(o.path, dev:info().name, st.target.label,
    st.width, st.height, headless and "offscreen" or "window", headless and ", headless" or ""))

  local reloads, capture_k, want_capture = 0, 0, o.captures ~= nil
  local frames, quit, code = 0, false, 0
  local t_report, frames_report, work, next_frame = core.clock(), 0, 0, core.clock()
  local last_frame_err
  local next_poll = 0

  local function follow_window(w, h)
    st.width, st.height = w, h
    local names = { RES }
    for name, v in pairs(p.resolutions or {}) do
      if type(v) == "table" and v.window then names[#names + 1] = name end
    end
    for _, name in ipairs(names) do
      -- raises on misuse, returns nil, message when the runtime cannot be rebuilt
      local okk, r, e = pcall(rt.set_resolution, rt, name, w, h)
      if not okk or r == nil then
        print(("view: following the window (%dx%d) with '%s' failed: %s"):format(w, h, name, tostring(okk and e or r)))
        return
      end
    end
    local nt, _, ns = targets_of(p, plan_opts(p))  -- the figures (and outputs' extents) at the new size
    plan_stats = ns or plan_stats
    for _, t in ipairs(nt or {}) do
      for _, old in ipairs(targets) do
        if old.label == t.label then old.w, old.h = t.w, t.h end
      end
    end
    print(("view: window %dx%d (%s follow)"):format(w, h, table.concat(names, ", ")))
  end

  -- Loads the file, adds the viewer's own node and reloads the runtime:
  -- true | nil, message. fg.watch calls it on a save, the r key directly.
  local function apply_reload()
    local np, e = load_pipeline(o.path, dev)
    local nt, why, nstats
    if np then nt, e, nstats = targets_of(np, plan_opts(np), o.path) end
    local target
    if nt then
      why = e
      target = pick(nt, st.target.name, st.target.index) or nt[1]
      e = not target and ("the pipeline has no colour texture output to show%s"):format(why and " (" .. why .. ")" or "")
    end
    if target then
      local old = st.target
      st.target = target
      local rok, rerr = rt:reload(wrap(np, st))
      if rok then
        p, targets, plan_stats = np, nt, nstats
        return true, rerr
      end
      st.target = old
      e = rerr
    end
    e = tostring(e)
    if not e:find(o.path, 1, true) then e = o.path .. ": " .. e end
    return nil, e
  end

  local function report_reload(ok, e)
    reloads = reloads + 1
    if ok then
      local what = M.reload_summary(e)
      status = "reload ok: " .. what
      print(("reload: ok (%s): %s"):format(o.path, what))
    else
      status = "ERROR " .. e
      print("reload: error: " .. e)
    end
    title()
    if o.captures then want_capture = true end
    drain_messages("reload")
  end

  local function do_reload() report_reload(apply_reload()) end
  local watcher = fg.watch(rt, o.path, { reload = function() return apply_reload() end })
  local last_rollback

  local function cycle()
    if #targets < 2 then return end
    local i = 1
    for k, t in ipairs(targets) do if t.label == st.target.label then i = k end end
    local nxt = targets[i % #targets + 1]
    if same_mode(nxt, st.target) then
      st.target = nxt  -- same node instances: only the run callback's choice changes
    else
      local old = st.target
      st.target = nxt
      local rok, rerr = rt:reload(wrap(p, st))
      if not rok then st.target = old print("view: cannot show " .. nxt.label .. ": " .. tostring(rerr)) end
    end
    print("view: showing " .. st.target.label)
    title()
  end

  local finish_next, failed = false, 0
  local function finish() finish_next = true end

  local function on_key(key)
    if key == "q" or key == "escape" then quit = true
    elseif key == "tab" or key == "o" or key == "space" then cycle()
    elseif key == "r" then do_reload() end
  end

  while not quit do
    -- events
    if win then
      for _, ev in ipairs(win:poll()) do
        if ev.type == "close" then quit = true
        elseif ev.type == "key" then on_key(ev.key)
        elseif ev.type == "resize" then
          local rok, rerr = win:recreate()
          if not rok then print("view: " .. rerr) quit, code = true, 1 end
          local w, h = win:size()
          if w > 0 and h > 0 then follow_window(w, h) end
        end
      end
    end
    if quit then break end
    -- the file: at most 10 times a second
    local now = core.clock()
    if now >= next_poll then
      next_poll = now + 0.1
      local what, info = watcher:poll()
      if what == "reloaded" then report_reload(true, info)
      elseif what == "error" and info ~= last_rollback then report_reload(nil, info) end
    end
    -- a HUD band of another height: the same pipeline, re-wrapped (keeps history)
    if st.hud_resize and win and not o.no_hud then
      local had = st.hud_lines
      st.hud_lines, st.hud_resize = st.hud_want, false
      local rok = rt:reload(wrap(p, st))
      if not rok then st.hud_lines = had end
      hud()
      st.hud_resize = false
    end
    -- one frame
    local t_work = core.clock()
    local ready = true
    if win then
      local aok, aerr = win:acquire()
      if aok == nil then print("view: " .. aerr) code = 1 break end
      if not aok then
        local rok, rerr = win:recreate()
        if not rok then print("view: " .. rerr) code = 1 break end
        local w, h = win:size()
        if w > 0 and h > 0 then follow_window(w, h) end
        ready = false
        core.sleep(0.01)
      end
    end
    if ready then
      local fok, ferr, fmsg = pcall(rt.frame, rt)
      if fok and ferr == nil then fok, ferr = false, fmsg end  -- a Vulkan failure: nil, message
      if not fok then
        -- A run error: nothing was submitted; the last picture stays on screen.
        local msg = tostring(ferr)
        if msg ~= last_frame_err then
          print("frame: error: " .. msg)
          status = "ERROR " .. msg
          title()
          last_frame_err = msg
        end
        failed = failed + 1
        if headless or (o.frames and frames + failed >= o.frames) then
          -- nothing on screen to keep, or a bounded run: stop with the error
          code, quit = 1, true
        end
        core.sleep(0.05)
      else
        if ferr.rolled_back then
          -- a run that raised right after a reload: the runtime went back to the
          -- last good pipeline and rendered this frame with it
          last_rollback = ferr.rolled_back
          print("frame: error: " .. ferr.rolled_back)
          status = "ERROR " .. ferr.rolled_back
          title()
        end
        last_frame_err = nil
        frames = frames + 1
        local last = (o.frames and frames >= o.frames) or finish_next
        local shot
        if want_capture then
          shot = ("%s/%d.png"):format(o.captures, capture_k)
        elseif last and o.screenshot then
          shot = o.screenshot
        end
        if win then
          local pok, perr = win:present(shot)
          if pok == nil then print("view: " .. perr) code = 1 break end
        elseif shot then
          local sok, serr = rt:save_png(BB, shot)
          if not sok then print("view: " .. serr) code = 1 break end
        end
        if shot and want_capture then
          print(("capture: %s (%s)"):format(shot, status))
          want_capture = false
          capture_k = capture_k + 1
          if o.exit_after_reloads and reloads >= o.exit_after_reloads then quit = true end
        elseif shot then
          print("screenshot: " .. shot)
        end
        if hooks and hooks.frame then
          hooks.frame(frames, { window = win, runtime = rt, state = st, key = on_key, finish = finish })
        end
        if last then
          if o.screenshot and shot ~= o.screenshot then
            if win then print("view: screenshot skipped (frame " .. frames .. " was a capture)")
            else rt:save_png(BB, o.screenshot) print("screenshot: " .. o.screenshot) end
          end
          quit = true
        end
        local t = core.clock()
        work = work + (t - t_work)
        frames_report = frames_report + 1
        if t - t_report >= 1 then
          local s = plan_stats
          local ms, fps = work * 1000 / frames_report, frames_report / (t - t_report)
          print(("stats: frame %.2f ms (record, submit, present), %.1f fps, heap %s, no aliasing %s, LOAD %s, "
            .. "device memory %s; %s"):format(ms, fps, human(s.heap_bytes), human(s.naive_bytes), human(s.load_bytes),
            human(rt:memory().total), status))
          require("framegraph.gpu_bars").update(rt)
          hud_line1 = ("%.2f ms  %.0f fps  heap %s  no aliasing %s  LOAD %s"):format(ms, fps, human(s.heap_bytes),
            human(s.naive_bytes), human(s.load_bytes))
          hud()
          t_report, frames_report, work = t, 0, 0
        end
        -- Pace to --fps: Xvfb and some drivers do not throttle FIFO presentation.
        if o.fps > 0 then
          next_frame = math.max(next_frame + 1 / o.fps, t)
          if next_frame > t then core.sleep(next_frame - t) end
        end
      end
    end
    validation_count = validation_count + drain_messages()
  end
  rt:close()
  if win then win:close() end
  validation_count = validation_count + drain_messages()
  if o.validation then print(("validation messages: %d"):format(validation_count)) end
  dev:close()
  print(("view: %d frames, %d reloads"):format(frames, reloads))
  if o.validation and validation_count > 0 and code == 0 then code = 3 end
  return code
end

M.parse = parse
M.wrap = wrap
M.hud_wrap = hud_wrap
return M
