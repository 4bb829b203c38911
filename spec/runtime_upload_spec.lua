-- Runtime upload ring (rt:upload / ctx.upload) on lavapipe with validation +
-- synchronization validation: per-frame data copied into buffers and
-- textures, bound directly to dispatches, recycled once the GPU is done with
-- a frame, stale handles refused, a full ring reported as nil, message.
package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
local fg = require("framegraph")

local SHADERS = fg.shader_dir()

-- n little-endian uint32 words: word j = seed * 1000003 + j * 7919 (mod 2^32)
local function words(seed, n)
  local t = {}
  for j = 0, n - 1 do t[#t + 1] = string.pack("<I4", (seed * 1000003 + j * 7919) & 0xffffffff) end
  return table.concat(t)
end

describe("fg.runtime uploads", function()
  local dev, sh
  setup(function()
    dev = fg.vulkan{ validation = true, prefer = "software" }
    sh = {
      up = fg.shader(dev, SHADERS .. "/rt_upload.comp.spv"),
      buf = fg.shader(dev, SHADERS .. "/rt_buf.comp.spv"),
    }
  end)
  teardown(function() dev:close() end)
  after_each(function() assert.are.same({}, dev:messages()) end)

  -- One node copies this frame's upload into a buffer and a 4x4 rgba8 texture.
  local function copy_pipeline(get)
    return {
      outputs = { "out", "tex" },
      nodes = {
        { name = "copy",
          create = { out = { buffer = 64, usage = "transfer_dst" },
                     tex = { format = "rgba8_unorm", size = { 4, 4 }, usage = "transfer_dst" } },
          run = function(cmd, ctx)
            local h = get(ctx)
            cmd:copy(h, "out")
            cmd:copy(h, "tex")
          end },
      },
    }
  end

  it("copies per-frame uploads into a buffer and a texture, read back every frame", function()
    local cur
    local rt = fg.runtime(dev, copy_pipeline(function() return cur end), { solver = "best" })
    for i = 1, 6 do
      local data = words(i, 16)
      cur = assert(rt:upload(data))
      assert.are.equal(64, #cur)
      assert.is_true(cur:valid())
      rt:frame()
      assert.is_false(cur:valid(), "an upload must not outlive its frame")
      assert.are.equal(data, rt:read("out"), "frame " .. i .. " buffer")
      assert.are.equal(data, rt:read("tex"), "frame " .. i .. " texture")
    end
    rt:close()
  end)

  it("ctx.upload inside run: data produced while recording", function()
    local rt = fg.runtime(dev, copy_pipeline(function(ctx)
      return assert(ctx.upload(words(100 + ctx.frame, 16)))
    end), {})
    for f = 0, 3 do
      rt:frame()
      assert.are.equal(words(100 + f, 16), rt:read("out"))
    end
    rt:close()
  end)

  it("binds uploads directly to a dispatch over 6 frames with 2 in flight", function()
    -- acc_i = acc_{i-1} * mul + up_i + add_i (uint32): every frame's uniform
    -- and storage uploads enter the chain, and the frames are not waited
    -- for in between (only the final read waits).
    local N, MUL = 256, 3
    local cur
    local p = {
      outputs = { "acc" },
      nodes = {
        { name = "acc", create = { acc = { buffer = N * 4, history = "clear" } },
          history = { acc = "storage" },
          run = function(cmd, ctx)
            local params = assert(ctx.upload(string.pack("<I4I4I4I4", MUL, 11 * ctx.frame, N, 0)))
            cmd:dispatch(sh.up, { [0] = params, [1] = cur, [2] = { "acc", history = true }, [3] = "acc" }, N // 64)
          end },
      },
    }
    local rt = fg.runtime(dev, p, { solver = "best", upload_bytes = 4096, upload_segment = 1024 })
    local expect = {}
    for j = 1, N do expect[j] = 0 end
    for i = 0, 5 do
      local data = words(i + 1, N)
      cur = assert(rt:upload(data))
      rt:frame()
      for j = 1, N do
        expect[j] = (expect[j] * MUL + string.unpack("<I4", data, 4 * j - 3) + 11 * i) & 0xffffffff
      end
    end
    local got = assert(rt:read("acc"))
    for j = 1, N do
      assert.are.equal(expect[j], string.unpack("<I4", got, 4 * j - 3), "word " .. j)
    end
    local st = rt:upload_stats()
    assert.are.equal(12, st.allocations)
    rt:close()
  end)

  it("recycles ring segments: uploads totalling many times the ring succeed", function()
    local cur
    local p = {
      outputs = { "out" },
      nodes = {
        { name = "copy", create = { out = { buffer = 12288, usage = "transfer_dst" } },
          run = function(cmd) cmd:copy(cur, "out") end },
      },
    }
    local RING = 64 * 1024
    local rt = fg.runtime(dev, p, { upload_bytes = RING, upload_segment = 4096 })
    for i = 1, 40 do
      cur = assert(rt:upload(words(i, 3072)))   -- 12 KiB: three segments
      rt:frame()
      if i % 10 == 0 then assert.are.equal(words(i, 3072), rt:read("out"), "frame " .. i) end
    end
    local st = rt:upload_stats()
    assert.are.equal(RING, st.size)
    assert.are.equal(40, st.allocations)
    assert.is_true(st.bytes >= 7 * RING, "the ring carried " .. st.bytes .. " bytes")
    assert.are.equal(0, st.full)
    rt:close()
  end)

  it("keeps the ring across a reload that rebuilds the plan", function()
    local cur
    local p = copy_pipeline(function() return cur end)
    local rt = fg.runtime(dev, p, {})
    cur = assert(rt:upload(words(1, 16)))
    rt:frame()
    local p2 = copy_pipeline(function() return cur end)
    p2.nodes[1].create.out.buffer = 128
    assert(rt:reload(p2))
    for i = 2, 4 do
      cur = assert(rt:upload(words(i, 16)))
      rt:frame()
      assert.are.equal(words(i, 16), rt:read("out"):sub(1, 64))
    end
    rt:close()
  end)

  it("refuses a stale upload with a clear error, and uploads of other runtimes", function()
    local cur
    local rt = fg.runtime(dev, copy_pipeline(function() return cur end), {})
    cur = assert(rt:upload(words(1, 16)))
    rt:frame()
    local ok, err = pcall(rt.frame, rt)          -- same handle, next frame
    assert.is_false(ok)
    assert.matches("node 'copy'", err)
    assert.matches("stale upload", err)
    assert.matches("valid only in the%s+frame they were made for", err)
    assert.matches("stale", tostring(cur))
    -- the runtime goes on with a fresh upload
    cur = assert(rt:upload(words(2, 16)))
    rt:frame()
    assert.are.equal(words(2, 16), rt:read("out"))
    -- an upload from another runtime
    local rt2 = fg.runtime(dev, copy_pipeline(function() return cur end), {})
    cur = assert(rt:upload(words(3, 16)))
    ok, err = pcall(rt2.frame, rt2)
    assert.is_false(ok)
    assert.matches("another runtime", err)
    rt2:close()
    rt:frame()                                     -- consumes cur in its own runtime
    rt:close()
  end)

  it("refuses uploads where the GPU would write them", function()
    local cur
    local p = {
      outputs = { "out" },
      nodes = {
        { name = "gen", create = { out = { buffer = 256 } },
          run = function(cmd) cmd:dispatch(sh.buf, { [0] = "out", [1] = cur }, 1, 1, 1, { 0, 64, 0 }) end },
      },
    }
    local rt = fg.runtime(dev, p, {})
    cur = assert(rt:upload(words(1, 64)))
    local ok, err = pcall(rt.frame, rt)
    assert.is_false(ok)
    assert.matches("node 'gen'", err)
    assert.matches("read%-only for the GPU", err)
    assert.matches("readonly", err)
    -- a new runtime: a reload's failing run would roll back to the dispatch
    -- above (the runtime keeps its own copy of the pipeline it was given)
    rt:close()
    p.nodes[1].run = function(cmd) cmd:copy("out", cur) end
    rt = fg.runtime(dev, p, {})
    cur = assert(rt:upload(words(1, 64)))
    ok, err = pcall(rt.frame, rt)
    assert.is_false(ok)
    assert.matches("only be a copy%s+source", err)
    rt:close()
  end)

  it("returns nil, message when one frame's uploads fill the ring", function()
    local cur, inside
    local p = {
      outputs = { "out" },
      nodes = {
        { name = "copy", create = { out = { buffer = 4096, usage = "transfer_dst" } },
          run = function(cmd, ctx)
            inside = { ctx.upload(string.rep("x", 4096)) }
            cmd:copy(cur, "out")
          end },
      },
    }
    local rt = fg.runtime(dev, p, { upload_bytes = 16384, upload_segment = 4096 })
    local hs = {}
    for k = 1, 4 do hs[k] = assert(rt:upload(string.rep(string.char(k), 4096))) end
    local h, err = rt:upload(string.rep("y", 16))
    assert.is_nil(h)
    assert.matches("rt:upload", err)
    assert.matches("upload_bytes", err)
    h, err = rt:upload(string.rep("y", 20000))    -- larger than the whole ring
    assert.is_nil(h)
    assert.matches("does not fit the upload ring of 16384 bytes", err)
    assert.is_true(rt:upload_stats().full >= 1)
    -- the frame still runs with what fitted; inside run the ring is full too
    cur = hs[2]
    rt:frame()
    assert.is_nil(inside[1])
    assert.matches("ctx.upload", inside[2])
    assert.are.equal(string.rep(string.char(2), 4096), rt:read("out"))
    -- after the frame the ring has room again
    for k = 1, 3 do
      cur = assert(rt:upload(words(k, 1024)))
      rt:frame()
    end
    assert.are.equal(words(3, 1024), rt:read("out"))
    rt:close()
  end)

  it("misuse raises: empty data, bad alignment, bad ring options", function()
    local rt = fg.runtime(dev, copy_pipeline(function() end), {})
    assert.has_error(function() rt:upload("") end)
    assert.has_error(function() rt:upload("abcd", 3) end)
    local h = assert(rt:upload("abcd", 256))
    assert.are.equal(0, h:offset() % 256)
    rt:close()
    assert.has_error(function() fg.runtime(dev, copy_pipeline(function() end), { upload_bytes = 10 }) end)
    assert.has_error(function()
      fg.runtime(dev, copy_pipeline(function() end), { upload_bytes = 65536, upload_segment = 3000 })
    end)
  end)
end)
