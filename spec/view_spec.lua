-- framegraph view (bin/framegraph-view, lua/framegraph/view.lua): a window
-- under Xvfb on lavapipe with a live edit and a broken edit of the pipeline
-- file, the headless --screenshot path without DISPLAY, multiplexed outputs,
-- and the errors when there is no display. Every run has validation on
-- (synchronization validation included) and must report no message.
local VIEW = "lua5.4 bin/framegraph-view"
-- Under Xvfb the device is lavapipe whatever FG_DEVICE says: a GPU driver
-- need not present to Xvfb's software X server. Headless runs follow FG_DEVICE.
local VIEW_X = "env FG_DEVICE=software " .. VIEW

local function sh_quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local function run(cmd)
  local f = io.popen(cmd .. " 2>&1; echo \"EXIT=$?\"")
  local out = f:read("a")
  f:close()
  local code = tonumber(out:match("EXIT=(%d+)%s*$"))
  return out:gsub("EXIT=%d+%s*$", ""), code
end

local files = require("support.sh")
local write, read, put = files.write, files.read, files.put

local function tmpdir()
  local f = io.popen("mktemp -d")
  local d = f:read("l")
  f:close()
  return d
end

-- A fragment-shader fill: red = u, green = v, blue from a constant in the file (line 3).
-- `run` (line 12) may be replaced, e.g. by one that raises.
local function pipeline(blue, run)
  return ([[
local dev = ...
local fg = require("framegraph")
local blue = %s
local sh = dev and fg.shader(dev, "dev_grad.frag.spv", { fragment_only = true })
return {
  name = "fill",
  resolutions = { main = { 64, 48, window = true } },
  outputs = { "color" },
  nodes = {
    { name = "fill", create = { color = { format = "rgba8_unorm", size = "main" } },
      pass = { color = { "color" } },
      run = function(cmd) %s end },
  },
}
]]):format(blue, run or "cmd:draw(sh, {}, 3, { blue })")
end

-- Pixel (r, g, b) of an XWD dump (xwd -root): 25 big-endian CARD32 header
-- fields, the window name, the colormap, then rows of 32-bit pixels.
local function xwd_pixel(x, px, py)
  local h = { string.unpack(">" .. ("I4"):rep(25), x) }
  local header_size, byte_order, bpp, stride = h[1], h[8], h[12], h[13]
  local masks, ncolors = { h[15], h[16], h[17] }, h[20]
  assert(bpp == 32, "xwd: expected 32 bits per pixel, got " .. bpp)
  local v = string.unpack((byte_order == 0 and "<" or ">") .. "I4", x, header_size + ncolors * 12 + py * stride + px * 4 + 1)
  local c = {}
  for i, m in ipairs(masks) do
    local shift = 0
    while m & 1 == 0 do m, shift = m >> 1, shift + 1 end
    c[i] = (v >> shift) & m
  end
  return c
end

local function is_png(s) return s ~= nil and s:sub(1, 8) == "\137PNG\r\n\26\n" end

local have_xvfb = os.execute("command -v xvfb-run >/dev/null 2>&1")

-- Marks the test pending and returns true when xvfb-run (or, with need_xwd, xwd) is missing.
local function xvfb_missing(need_xwd)
  if not need_xwd then
    if have_xvfb then return false end
    pending("xvfb-run is missing (Debian package xvfb; scripts/setup.sh installs it)")
    return true
  end
  if have_xvfb and os.execute("command -v xwd >/dev/null 2>&1") then return false end
  pending("xvfb-run or xwd is missing (Debian packages xvfb, x11-apps; scripts/setup.sh installs them)")
  return true
end

-- xvfb-run on a display number of its own: xvfb-run does not wait for the
-- previous test's Xvfb to exit, and an Xvfb shutting down on the same number
-- removes the new one's socket. `-a` still moves on from a number in use.
math.randomseed(os.time(), math.floor(os.clock() * 1e6))
-- The command after it runs once the display answers (xwd as the probe): on
-- a loaded machine a client could otherwise start before Xvfb accepts
-- connections ("cannot connect to the X display"). It goes on as soon as the
-- display answers; the cap (60 s) is only for a server that never comes.
local READY = [[sh -c 'i=0; while command -v xwd >/dev/null && ! xwd -root -silent >/dev/null 2>&1 && ]]
  .. [[[ $i -lt 600 ]; do i=$((i+1)); sleep 0.1; done; exec "$@"' xvfb-ready]]
-- No test waits on a clock: a broken frame ends the viewer at once (see
-- stream); the timeout is the last resort for a true hang only, far above any
-- run on a loaded machine.
local function XVFB()
  return ("timeout 900 xvfb-run -a -n %d -s '-screen 0 320x240x24' %s"):format(math.random(200, 30000), READY)
end

-- A viewer line that shows frames are broken (or a validation message): the
-- run has failed, so waiting for its frame count or its captures is no use.
local function broken(line) return line:find("^frame: error:") or line:find("^validation: ") end

-- Runs cmd, handing each output line to on_line (which may edit the
-- pipeline file). When fatal(line) is true the child is ended at once
-- (`timeout` forwards the signal to its whole process group: xvfb-run, Xvfb,
-- the viewer, a script) and a line saying so is added; the test then fails
-- on its assertions in seconds. Returns the output and the exit status.
local function stream(cmd, on_line, fatal)
  local f = io.popen("sh -c " .. sh_quote('echo "PID=$$"; exec ' .. cmd) .. " 2>&1; echo \"EXIT=$?\"")
  local pid, lines, stopped = nil, {}, false
  for line in f:lines() do
    if not pid and line:match("^PID=%d+$") then
      pid = line:match("%d+")
    else
      lines[#lines + 1] = line
      if on_line then on_line(line) end
      if not stopped and pid and fatal and fatal(line) then
        stopped = true
        os.execute("kill -TERM " .. pid .. " 2>/dev/null")
        lines[#lines + 1] = "view_spec: ended the viewer at the first broken frame: " .. line
      end
    end
  end
  f:close()
  local out = table.concat(lines, "\n")
  return out:gsub("\nEXIT=%d+%s*$", ""), tonumber(out:match("EXIT=(%d+)%s*$"))
end

-- stream() under a fresh Xvfb; once in a while (seen on a loaded 2-core
-- machine) the client still finds no server to connect to: that is the test
-- rig, not the viewer, so such a run is tried again with a new server, at most
-- twice. By default a broken frame ends the run.
local function run_x(cmd, on_line, fatal)
  local out, code
  for _ = 1, 3 do
    out, code = stream(XVFB() .. " " .. cmd, on_line, fatal or broken)
    if not out:find("cannot connect to the X display", 1, true) then break end
  end
  return out, code
end

-- A pipeline file whose "color" output has two eyes (eye 1 dark, eye 2 bright);
-- with_mono adds a second, unmultiplexed output "mono" (grey).
local function eyes_pipeline(with_mono)
  return ([[
local dev = ...
local fg = require("framegraph")
local sh = dev and fg.shader(dev, "dev_grad.frag.spv", { fragment_only = true })
return {
  dimensions = { eye = 2 },
  resolutions = { main = { 32, 24 } },
  outputs = { "color"%s },
  nodes = {
    { name = "fill", multiplex = { "eye" }, create = { color = { format = "rgba8_unorm", size = "main" } },
      pass = { color = { "color" } },
      run = function(cmd, ctx) cmd:draw(sh, {}, 3, { ctx.index.eye == 1 and 0.0 or 1.0 }) end },
%s  },
}
]]):format(with_mono and ', "mono"' or "", with_mono and [[
    { name = "mono", create = { mono = { format = "rgba8_unorm", size = "main" } },
      pass = { color = { "mono" } },
      run = function(cmd) cmd:draw(sh, {}, 3, { 0.5 }) end },
]] or "")
end

describe("framegraph view", function()
  local dir
  before_each(function() dir = tmpdir() end)
  after_each(function() if not os.getenv("VIEW_SPEC_KEEP") then os.execute("rm -rf " .. sh_quote(dir)) end end)

  it("under Xvfb: presents frames, an edit changes the picture, a broken edit keeps it and shows file:line", function()
    if xvfb_missing() then return end
    local file = dir .. "/pipe.lua"
    write(file, pipeline("0.0"))
    local cmd = ("%s %s --device software --validation --no-hud --size 96x64 --captures %s "
      .. "--exit-after-reloads 2"):format(VIEW_X, sh_quote(file), sh_quote(dir))
    local out, code = run_x(cmd, function(line)
      -- Edit while the viewer runs: first a good edit, then a broken one. Each
      -- lands whole (put): a half-written file read by the watcher would count
      -- as a reload of its own (seen once under ASan on a loaded machine).
      if line:find("^capture: .*/0%.png") then put(file, pipeline("1.0"))
      elseif line:find("^capture: .*/1%.png") then put(file, pipeline("= 1")) end
    end)
    assert.are.equal(0, code, out)
    assert.matches("window)", out, 1, true)                -- a window, not the headless path
    assert.matches("reload: ok", out, 1, true)
    assert.matches("reload: error: " .. file .. ":3: unexpected symbol near '='", out, 1, true)
    assert.matches("validation messages: 0", out, 1, true)
    assert.is_nil(out:find("validation: ", 1, true))
    local before, after, broken = read(dir .. "/0.png"), read(dir .. "/1.png"), read(dir .. "/2.png")
    assert.is_true(is_png(before) and is_png(after) and is_png(broken))
    assert.are_not.equal(before, after)                    -- blue 0 -> 1 changed the presented picture
    assert.are.equal(after, broken)                        -- the bad edit left the last good picture
  end)

  it("under Xvfb: a misspelt name is shown wrapped in the HUD with its file:line; reloads say what they did", function()
    if xvfb_missing(true) then return end
    local file, script = dir .. "/pipe.lua", dir .. "/x.sh"
    local good = pipeline("0.0")
    write(file, good)
    local run_edit = good:gsub("{ blue }", "{ blue + 0.5 }")
    local typo = run_edit:gsub('pass = { color = { "color" } }', 'pass = { color = { "colr" } }')
    local structural = run_edit:gsub('size = "main" }', 'size = "main", usage = "color" }')
    for k, text in ipairs({ run_edit, typo, structural }) do write(dir .. "/" .. k .. ".lua", text) end
    write(script, ([[
%s %s --device software --validation --size 320x200 --captures %s --exit-after-reloads 3 &
pid=$!
# an edit lands whole (rename), as an editor's save does: a half-copied file read by the
# watcher would count as a reload of its own
put() { cp "$1" "$2.new" && mv -f "$2.new" "$2"; }
# waits for a capture while the viewer lives (a dead or broken viewer ends the
# wait at once, and the run fails on its exit status)
wait_for() { while [ ! -s "$1" ] && kill -0 $pid 2>/dev/null; do sleep 0.1; done; sleep 0.3; }
wait_for %s/0.png
put %s/1.lua %s
wait_for %s/1.png
put %s/2.lua %s
wait_for %s/2.png
xwd -root -silent > %s/bad.xwd
put %s/3.lua %s
wait $pid
]]):format(VIEW_X, sh_quote(file), sh_quote(dir), sh_quote(dir), sh_quote(dir), sh_quote(file), sh_quote(dir),
      sh_quote(dir), sh_quote(file), sh_quote(dir), sh_quote(dir), sh_quote(dir), sh_quote(file)))
    local out, code = run_x("sh " .. sh_quote(script))
    assert.are.equal(0, code, out)
    assert.matches("validation messages: 0", out, 1, true)
    assert.matches("reload: ok (" .. file .. "): swapped the run of 1 node (fill), no compile", out, 1, true)
    assert.matches("reload: error: " .. file .. ":11: node 'fill': pass color 'colr': the node must create, modify or "
                   .. "rename it; did you mean 'color'?", out, 1, true)
    assert.matches("reload: ok (" .. file .. "): recompiled 1 node (fill), kept 0 history", out, 1, true)
    -- the error wraps over more than the two lines of a good state's band (red text below row 26)
    local bad = assert(read(dir .. "/bad.xwd"))
    local red = 0
    for py = 26, 70 do
      for px = 0, 319 do
        local c = xwd_pixel(bad, px, py)
        if c[1] == 255 and c[2] == 96 and c[3] == 96 then red = red + 1 end
      end
    end
    assert.is_true(red > 100, "red HUD pixels below the first two lines: " .. red)
  end)

  it("wraps HUD text at the window's width and says what a reload did", function()
    local view = require("framegraph.view")
    local lines = view.hud_wrap("f.lua:12: node 'resolve': read 'ao_': no node creates 'ao_'; did you mean 'ao'?\n"
                                .. "  pruned because of it: node 'resolve' is broken", 30, 10)
    for _, l in ipairs(lines) do assert.is_true(#l <= 30, l) end
    assert.are.equal("f.lua:12: node 'resolve': read", lines[1])
    assert.matches("did you mean 'ao'?", table.concat(lines, " "), 1, true)
    assert.are.equal("  pruned because of it: node", lines[#lines - 1])  -- indented lines stay indented
    local cut = view.hud_wrap(("word "):rep(100), 20, 3)
    assert.are.equal(3, #cut)
    assert.matches("more lines (printed in full)", cut[3], 1, true)
    assert.are.equal("recompiled 2 nodes (blur, out), removed 1 node (old), kept 2 history",
      view.reload_summary{ recompiled = true, changed = { "blur", "view_present" }, added = { "out" },
                           removed = { "old" }, run_changed = {}, kept_history = 2 })
    assert.are.equal("swapped the run of 1 node (grade), no compile",
      view.reload_summary{ recompiled = false, changed = {}, added = {}, removed = {}, run_changed = { "grade" } })
  end)

  it("under Xvfb: --frames N --screenshot captures the presented image", function()
    if xvfb_missing() then return end
    local file = dir .. "/pipe.lua"
    write(file, pipeline("0.5"))
    local out, code = run_x(("%s %s --device software --validation --size 80x60 --frames 5 "
      .. "--screenshot %s"):format(VIEW_X, sh_quote(file), sh_quote(dir .. "/shot.png")))
    assert.are.equal(0, code, out)
    assert.matches("screenshot: ", out, 1, true)
    assert.matches("view: 5 frames", out, 1, true)
    assert.matches("validation messages: 0", out, 1, true)
    assert.is_true(is_png(read(dir .. "/shot.png")))
  end)

  it("under Xvfb: the X display shows the picture and the HUD, and the HUD shows a bad edit's error", function()
    if xvfb_missing(true) then return end
    local file, broken, script = dir .. "/pipe.lua", dir .. "/broken.lua", dir .. "/x.sh"
    write(file, pipeline("1.0"))
    write(broken, pipeline("= 1"))
    write(script, ([[
%s %s --device software --validation --size 120x80 --captures %s --exit-after-reloads 2 &
pid=$!
# an edit lands whole (rename), as an editor's save does: a half-copied file read by the
# watcher would count as a reload of its own
put() { cp "$1" "$2.new" && mv -f "$2.new" "$2"; }
# waits for a capture while the viewer lives (a dead or broken viewer ends the
# wait at once, and the run fails on its exit status)
wait_for() { while [ ! -s "$1" ] && kill -0 $pid 2>/dev/null; do sleep 0.1; done; sleep 0.3; }
wait_for %s/0.png
xwd -root -silent > %s/good.xwd
put %s %s
wait_for %s/1.png
xwd -root -silent > %s/bad.xwd
echo "-- still broken" >> %s
wait $pid
]]):format(VIEW_X, sh_quote(file), sh_quote(dir), sh_quote(dir), sh_quote(dir), sh_quote(broken), sh_quote(file),
      sh_quote(dir), sh_quote(dir), sh_quote(file)))
    local out, code = run_x("sh " .. sh_quote(script))
    assert.are.equal(0, code, out)
    assert.matches("validation messages: 0", out, 1, true)
    assert.matches("reload: error: " .. file .. ":3:", out, 1, true)
    local good, bad = assert(read(dir .. "/good.xwd")), assert(read(dir .. "/bad.xwd"))
    for k, x in ipairs({ good, bad }) do
      -- The window sits at (0, 0) (no window manager); below the HUD (26 rows) is the
      -- picture: the centre is u = v = 0.5 with blue = 1.0, bottom left u ~ 0, v ~ 1.
      local c = xwd_pixel(x, 60, 40)
      assert.is_true(math.abs(c[1] - 128) <= 4 and math.abs(c[2] - 128) <= 4 and c[3] == 255,
        ("%s: centre pixel %d %d %d"):format(k == 1 and "good" or "bad", c[1], c[2], c[3]))
      local corner = xwd_pixel(x, 1, 79)
      assert.is_true(corner[1] < 8 and corner[2] > 248 and corner[3] == 255,
        ("corner pixel %d %d %d"):format(corner[1], corner[2], corner[3]))
      assert.are.same({ 16, 16, 24 }, xwd_pixel(x, 1, 1))   -- the HUD's band
    end
    -- HUD line 2 (rows 14..23) is the status: green when loaded, red after the bad edit.
    local function count(x, rgb)
      local n = 0
      for py = 14, 23 do
        for px = 0, 119 do
          local c = xwd_pixel(x, px, py)
          if c[1] == rgb[1] and c[2] == rgb[2] and c[3] == rgb[3] then n = n + 1 end
        end
      end
      return n
    end
    assert.is_true(count(good, { 150, 230, 150 }) > 20 and count(good, { 255, 96, 96 }) == 0)
    assert.is_true(count(bad, { 255, 96, 96 }) > 20 and count(bad, { 150, 230, 150 }) == 0)
  end)

  it("under Xvfb: a run that raises after an edit keeps the last good picture on the display", function()
    if xvfb_missing(true) then return end
    local file, dump = dir .. "/pipe.lua", dir .. "/held.xwd"
    write(file, pipeline("1.0"))
    local inner = ("echo \"X=$DISPLAY $XAUTHORITY\"; exec %s %s --device software --validation --size 120x80 "
      .. "--captures %s --exit-after-reloads 2"):format(VIEW_X, sh_quote(file), sh_quote(dir))
    local display, auth, errors = nil, nil, 0
    local out, code = run_x("sh -c " .. sh_quote(inner), function(line)
      if line:find("^X=") then display, auth = line:match("^X=(%S+) (%S*)")
      elseif line:find("^capture: .*/0%.png") then
        put(file, pipeline("0.0", [[error("boom") cmd:draw(sh, {}, 3, { blue })]]))
      elseif line:find("^frame: error:") then
        errors = errors + 1
        -- frames fail from now on: the display must still show blue = 1.0
        os.execute(("DISPLAY=%s XAUTHORITY=%s xwd -root -silent > %s"):format(display, sh_quote(auth), sh_quote(dump)))
        put(file, pipeline("0.0"))
      end
    end, function(line)
      -- the one expected frame error is the raising run; another means frames stay broken
      return line:find("^validation: ") or (line:find("^frame: error:") and errors > 1)
    end)
    assert.are.equal(0, code, out)
    -- the runtime rolls back to the last good pipeline and says so (framegraph.runtime)
    assert.matches("frame: error: reload rolled back: node 'fill' run failed: " .. file .. ":12: boom", out, 1, true)
    assert.matches("validation messages: 0", out, 1, true)
    local c = xwd_pixel(assert(read(dump)), 60, 40)
    assert.are.equal(255, c[3], ("held pixel %d %d %d"):format(c[1], c[2], c[3]))
    local before, after = read(dir .. "/0.png"), read(dir .. "/1.png")
    assert.is_true(is_png(before) and is_png(after))
    assert.are_not.equal(before, after)   -- the fix (blue = 0.0) shows
  end)

  it("under Xvfb: a resize recreates the swapchain and the window = true resolution follows it", function()
    if xvfb_missing() then return end
    local file, script, shot = dir .. "/pipe.lua", dir .. "/resize.lua", dir .. "/resized.png"
    write(file, pipeline("0.5"))
    write(script, ([[
package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
package.cpath = "build/?.so;" .. package.cpath
local bytes, done = {}, false
os.exit(require("framegraph.view").main({ %q, "--device", "software", "--validation", "--size", "96x64",
  "--frames", "3000", "--screenshot", %q }, { frame = function(n, v)
  if n == 3 then v.window:request_size(200, 120) end
  for _, r in ipairs(v.runtime:graph():resources()) do
    if r.name == "color" and r.frame == 0 then bytes[#bytes + 1] = r.bytes end
  end
  -- the resize event comes when the X server sends it: finish on the frame after
  if v.state.width == 200 and not done then
    done = true
    v.finish()
    print(("color bytes: %%d -> %%d"):format(bytes[1], bytes[#bytes]))
  end
end }), true)
]]):format(file, shot))
    local out, code = run_x("env FG_DEVICE=software lua5.4 " .. sh_quote(script))
    assert.are.equal(0, code, out)
    assert.matches("view: window 200x120 (view_window, main follow)", out, 1, true)
    assert.matches("validation messages: 0", out, 1, true)
    local b0, b1 = out:match("color bytes: (%d+) %-> (%d+)")
    assert.is_true(tonumber(b0) >= 96 * 64 * 4 and tonumber(b1) >= 200 * 120 * 4 and tonumber(b1) > tonumber(b0), out)
    local png = read(shot)
    assert.is_true(is_png(png))
    local w, h = string.unpack(">I4I4", png, 17)
    assert.are.same({ 200, 120 }, { w, h }, "IHDR width, height")
  end)

  it("renders headless without DISPLAY and writes the screenshot", function()
    local file = dir .. "/pipe.lua"
    write(file, pipeline("0.0"))
    local out, code = run(("env -u DISPLAY %s %s --device software --validation --size 32x24 --frames 3 "
      .. "--screenshot %s"):format(VIEW, sh_quote(file), sh_quote(dir .. "/a.png")))
    assert.are.equal(0, code, out)
    assert.matches("headless", out, 1, true)
    assert.matches("validation messages: 0", out, 1, true)
    write(file, pipeline("1.0"))
    local out2, code2 = run(("env -u DISPLAY %s %s --device software --size 32x24 --frames 3 --screenshot %s")
      :format(VIEW, sh_quote(file), sh_quote(dir .. "/b.png")))
    assert.are.equal(0, code2, out2)
    local a, b = read(dir .. "/a.png"), read(dir .. "/b.png")
    assert.is_true(is_png(a) and is_png(b))
    assert.are_not.equal(a, b)
  end)

  it("shows each multiplex index of an output (--output name[eye=i])", function()
    local file = dir .. "/eyes.lua"
    write(file, eyes_pipeline(false))
    local shots = {}
    for _, o in ipairs({ "color", "color[eye=1]", "color[eye=2]" }) do
      local png = dir .. "/" .. #shots .. ".png"
      local out, code = run(("env -u DISPLAY %s %s --device software --validation --size 32x24 --frames 3 "
        .. "--output %s --screenshot %s"):format(VIEW, sh_quote(file), sh_quote(o), sh_quote(png)))
      assert.are.equal(0, code, out)
      assert.matches("validation messages: 0", out, 1, true)
      shots[#shots + 1] = read(png)
    end
    assert.are.equal(shots[1], shots[2])       -- the default is the first index
    assert.are_not.equal(shots[2], shots[3])   -- each eye its own picture
    local out, code = run(("env -u DISPLAY %s %s --frames 1 --screenshot %s --output nope")
      :format(VIEW, sh_quote(file), sh_quote(dir .. "/x.png")))
    assert.are.equal(1, code)
    assert.matches("--output nope is not an output", out, 1, true)
    assert.matches("color[eye=1], color[eye=2]", out, 1, true)
  end)

  it("keeps the output's aspect ratio: a 4:3 picture in a wide window is centred between black bars", function()
    local view = require("framegraph.view")
    assert.are.same({ 40, 0, 80, 60 }, view.letterbox(64, 48, 160, 60))   -- pillarbox
    assert.are.same({ 0, 15, 64, 30 }, view.letterbox(64, 30, 64, 60))    -- letterbox
    assert.is_nil(view.letterbox(64, 48, 128, 96))                        -- same aspect: fills the window
    local file, script = dir .. "/fixed.lua", dir .. "/lb.lua"
    write(file, (pipeline("1.0"):gsub("main = { 64, 48, window = true }", "main = { 64, 48 }")))
    write(script, ([[
package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
package.cpath = "build/?.so;" .. package.cpath
local px
os.exit(require("framegraph.view").main({ %q, "--device", "software", "--validation", "--size", "160x60",
  "--frames", "3" }, { frame = function(n, v)
  if n == 3 then
    local b = assert(v.runtime:read("view_backbuffer"))
    local function at(x, y) local i = (y * 160 + x) * 4 return table.concat({ b:byte(i + 1, i + 3) }, ",") end
    print("PIXELS " .. at(5, 30) .. " " .. at(80, 30) .. " " .. at(155, 30))
  end
end }), true)
]]):format(file))
    local out, code = run("env -u DISPLAY lua5.4 " .. sh_quote(script))
    assert.are.equal(0, code, out)
    assert.matches("validation messages: 0", out, 1, true)
    local l1, l2, l3, c1, c2, c3, r1, r2, r3 = out:match("PIXELS (%d+),(%d+),(%d+) (%d+),(%d+),(%d+) (%d+),(%d+),(%d+)")
    assert.are.same({ "0", "0", "0" }, { l1, l2, l3 })                     -- the bar on the left
    assert.are.same({ "0", "0", "0" }, { r1, r2, r3 })                     -- and on the right
    assert.is_true(math.abs(tonumber(c1) - 128) <= 6 and math.abs(tonumber(c2) - 128) <= 6 and c3 == "255",
      out)                                                                 -- the picture's centre: u = v = 0.5
  end)

  it("cycles through outputs and multiplex indices with Tab (headless, through the key handler)", function()
    local file, script = dir .. "/two.lua", dir .. "/cycle.lua"
    write(file, eyes_pipeline(true))
    write(script, ([[
package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
package.cpath = "build/?.so;" .. package.cpath
os.exit(require("framegraph.view").main({ %q, "--device", "software", "--validation", "--size", "32x24",
  "--frames", "9" }, { frame = function(n, v)
  if n %% 2 == 0 then
    assert(v.runtime:save_png("view_backbuffer", ("%s/shot%%d.png"):format(n // 2)))
    v.key("tab")
  end
end }), true)
]]):format(file, dir))
    local out, code = run("env -u DISPLAY lua5.4 " .. sh_quote(script))
    assert.are.equal(0, code, out)
    assert.matches("showing color%[eye=2%]\n.*showing mono\n.*showing color%[eye=1%]", out)
    assert.matches("validation messages: 0", out, 1, true)
    local s = {}
    for k = 1, 4 do s[k] = read(("%s/shot%d.png"):format(dir, k)) assert.is_true(is_png(s[k])) end
    assert.are_not.equal(s[1], s[2])   -- eye 1 -> eye 2 (same node instances, no recompile)
    assert.are_not.equal(s[2], s[3])   -- -> mono (another mode: the present node is recompiled)
    assert.are_not.equal(s[1], s[3])
    assert.are.equal(s[1], s[4])       -- and around to eye 1
  end)

  -- The viewer on a good pipeline file where it can open no window: the exit
  -- status, the reason, and the suggestion of --screenshot.
  local function no_window(env, extra, want_code, why)
    local file = dir .. "/pipe.lua"
    write(file, pipeline("0.0"))
    local out, code = run(("%s %s %s%s"):format(env, VIEW, sh_quote(file), extra))
    assert.are.equal(want_code, code)
    assert.matches(why, out, 1, true)
    assert.matches("--screenshot", out, 1, true)
  end

  it("says DISPLAY is unset and suggests --screenshot when there is no display", function()
    no_window("env -u DISPLAY", "", 2, "DISPLAY is unset")
  end)

  it("says which X display it cannot reach and suggests --screenshot", function()
    no_window("DISPLAY=:54321", " --device software", 1, "cannot connect to the X display ':54321'")
  end)

  it("reports a broken pipeline file at start with file:line", function()
    local file = dir .. "/pipe.lua"
    write(file, pipeline("= 1"))
    local out, code = run(("env -u DISPLAY %s %s --frames 1 --screenshot %s")
      :format(VIEW, sh_quote(file), sh_quote(dir .. "/x.png")))
    assert.are.equal(1, code)
    assert.matches(file .. ":3: unexpected symbol", out, 1, true)
  end)

  it("refuses outputs it cannot show and says why", function()
    local file = dir .. "/buf.lua"
    write(file, [[
return { outputs = { "b", "d" }, nodes = {
  { name = "n", create = { b = { buffer = 256 } } },
  { name = "m", create = { d = { format = "d32_sfloat", size = { 8, 8 } } }, pass = { depth = "d" } } } }
]])
    local out, code = run(("env -u DISPLAY %s %s --frames 1"):format(VIEW, sh_quote(file)))
    assert.are.equal(1, code)
    assert.matches("no colour texture output to show ('b' is a buffer; 'd' is a depth/stencil texture (d32_sfloat))",
      out, 1, true)
  end)
end)
