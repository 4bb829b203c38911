-- examples/deferred.lua: its plan saves memory (the bloom chain most of all),
-- and on a device (lavapipe unless FG_DEVICE=gpu) it renders a real image
-- that is bit-identical without aliasing, with pooling, with our plan and with
-- poisoned memory, with no validation message. Small resolutions keep it fast.
package.path = "examples/?.lua;" .. package.path
local fg = require("framegraph")
require("framegraph.assertions")
local ex = require("common")

local PATH = "examples/deferred.lua"
local SMALL = { main = { 96, 64 }, shadow = { 128, 128 } }

local function node(g, name)
  for _, n in ipairs(g:nodes()) do if n.name == name then return n end end
end

describe("examples/deferred.lua", function()
  it("loads without a device and compiles with its extras out of the compiler's way", function()
    local p, extras = ex.load(PATH)
    assert.is_function(extras.after)
    assert.is_nil(rawget(p, "example"))
    for _, n in ipairs(p.nodes) do assert.is_nil(n.run) end      -- no device: declarations only
    local g = fg.compile(dofile(PATH))
    assert.are.equal("culled", node(g, "debug_normals").state)
    assert.are.equal("broken", node(g, "lens_dirt").state)
    assert.are.equal(18, #g:order())
  end)

  it("saves memory, mostly in the bloom chain, at the default and the spec's resolution", function()
    local p, extras = ex.load(PATH)
    for _, res in ipairs{ false, SMALL } do
      local g = fg.compile(p, { resolutions = res or nil })
      assert.saves_memory(g, 0.5)
      assert.near_optimal(g, 1.05)
      local b = extras.bloom(g)
      assert.are.equal(2 * 11, #b.mips)                        -- 6 down + 5 up, two frame copies each
      assert.is_true(b.covered < 0.6 * b.bytes)                -- the mips share memory with each other
      assert.is_true(#b.reused > 0)                            -- and with resources done before them
      local none = extras.bloom(fg.compile(p, { resolutions = res or nil, solver = "none" }))
      assert.are.equal(none.bytes, none.covered)               -- without aliasing nothing is shared
    end
  end)

  it("runs by its one command (examples/run.lua) and writes its PNG", function()
    local dir = os.tmpname()
    os.remove(dir)
    local cmd = ("FG_DEVICE=%s lua5.4 examples/run.lua deferred %s 2>&1"):format(os.getenv("FG_DEVICE") or "software",
                                                                                  dir)
    local f = assert(io.popen(cmd))
    local out = f:read("a")
    local ok, _, code = f:close()
    assert.is_true(ok, out)
    assert.are.equal(0, code)
    assert.matches("none .* pool .* best .* best%+poison", out:gsub("\n", " "))
    assert.matches("outputs identical across runs: true", out)
    assert.matches("bloom chain in this plan: .* reuses the memory of", out)
    assert.matches("validation messages: 0", out)
    local png = assert(io.open(dir .. "/deferred.png", "rb"))
    assert.are.equal("\137PNG", png:read(4))
    png:close()
    os.remove(dir .. "/deferred.png")
    os.remove(dir)
  end)

  describe("on a device", function()
    local dev
    setup(function() dev = ex.device("software") end)
    teardown(function() if dev then dev:close() end end)

    it("renders the same image with every solver and with poison, without validation messages", function()
      local p = ex.load(PATH, dev)
      local runs = ex.memory(dev, p, { frames = 2, poison = true, resolutions = SMALL })
      assert.are.equal(4, #runs)
      assert.is_true(ex.identical(runs))
      local by = {}
      for _, r in ipairs(runs) do by[r.label] = r end
      assert.is_true(by.best.device < by.pool.device)
      assert.is_true(by.pool.device < by.none.device)
      assert.near_optimal({ heap_bytes = by.best.heap, load_bytes = by.best.load }, 1.05)   -- on the device too
      assert.are.same({}, dev:messages())

      -- a real render, not a cleared or uniform image: the sky at the top is
      -- blue, the scene below has many colours and the glass/orb/shadows vary
      local img = by.best.images.final
      assert.are.equal(96 * 64 * 4, #img)
      local function px(x, y) return img:byte((y * 96 + x) * 4 + 1, (y * 96 + x) * 4 + 3) end
      local r, g, b = px(2, 1)
      assert.is_true(b > r and b > 100, ("sky pixel %d,%d,%d"):format(r, g, b))
      local colours = {}
      local n = 0
      for i = 1, #img, 4 do
        local k = img:sub(i, i + 2)
        if not colours[k] then colours[k] = true; n = n + 1 end
      end
      assert.is_true(n > 1000, n .. " distinct colours")
    end)

    it("draws the shipped mesh (fg.mesh, fg.image, cmd:draw_indexed) beside the traced shapes", function()
      local p, extras = ex.load(PATH, dev)
      local function picture(mesh)
        extras.mesh = mesh
        local rt = assert(fg.runtime(dev, p, { resolutions = SMALL }))
        rt:frame()
        rt:frame()
        local img = assert(rt:read("final"))
        rt:close()
        return img
      end
      local with, without = picture(true), picture(false)
      extras.mesh = true
      local W, H = SMALL.main[1], SMALL.main[2]
      local cx, cy = extras.knot_pixel(1, W, H)     -- the second frame's camera (ctx.frame = 1)
      assert.is_true(cx > 4 and cx < W / 2 and cy > 4 and cy < H - 4, ("knot at %d,%d"):format(cx, cy))
      -- around the knot's centre the picture changes; far from it (the right
      -- half: pillars, box) it changes at most by the bloom's faint spread
      local near_changed, near, far_diff, far = 0, 0, 0, 0
      for y = 0, H - 1 do
        for x = 0, W - 1 do
          local i = (y * W + x) * 4
          local d = 0
          for k = 1, 3 do d = d + math.abs(with:byte(i + k) - without:byte(i + k)) end
          if (x - cx) ^ 2 + (y - cy) ^ 2 <= 64 then
            near = near + 1
            if d > 30 then near_changed = near_changed + 1 end
          elseif x > W * 0.6 then
            far = far + 1
            far_diff = far_diff + d
          end
        end
      end
      assert.is_true(near_changed > 0.3 * near, ("%d of %d pixels near the knot changed"):format(near_changed, near))
      assert.is_true(far_diff / far < 3, ("mean change far from the knot %.2f"):format(far_diff / far))
      assert.are.same({}, dev:messages())
    end)

    it("says in its printout that the bloom chain shares memory", function()
      local p, extras = ex.load(PATH, dev)
      local rt = fg.runtime(dev, p, { resolutions = SMALL })
      rt:frame()
      local text = table.concat(extras.bloom_lines(rt:graph()), "\n")
      rt:close()
      assert.matches("bloom chain %(11 transient textures per frame%)", text)
      assert.matches("bloom_down6 1x1", text)
      assert.matches("reuses the memory of: [%w_]+", text)
      local none = table.concat(extras.bloom_lines(fg.compile(p, { resolutions = SMALL, solver = "none" })), "\n")
      assert.matches("covering [%d.]+ KiB of the heap %(100%%%); reuses the memory of: nothing", none)
      assert.are.same({}, dev:messages())
    end)
  end)
end)
