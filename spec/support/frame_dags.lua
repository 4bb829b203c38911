-- Generators of frame-graph-like pipelines (tables for fg.compile, no `run`):
-- used by spec/schedule_order_spec.lua and bench/schedule.lua.
--   frame(seed, instances): blocks of shadow cascades (a fan-out every view's
--     lighting reads), per-view chains multiplexed by eye and/or tile
--     (gbuffer, ssao, lighting, a bloom chain down and up, tonemap) that all
--     write one shared target (modifiers of one resource, ordered), some with
--     a history (TAA), some after/before edges; until the expanded graph has
--     at least `instances` node instances.
--   random(seed, nodes): unstructured DAGs (reads of recent products,
--     modifies, renames, history, multiplexed nodes, side effects, after).
local M = {}

local function rng(seed)
  local s = (seed * 2654435761 + 12345) % 4294967296
  return function(n)  -- 1..n
    s = (s * 1103515245 + 12345) % 2147483648
    return s % n + 1
  end
end

local FORMATS = { "rgba8_unorm", "rgba16_sfloat", "r8_unorm", "rg16_sfloat", "r32_sfloat" }

function M.frame(seed, instances)
  local r = rng(seed)
  local eye, tile = r(2), ({ 1, 2, 4 })[r(3)]
  local p = {
    name = "frame" .. seed,
    dimensions = { eye = eye, tile = tile },
    resolutions = { main = { 1280, 720 }, shadow = { 1024, 1024 } },
    outputs = {},
    nodes = {},
  }
  local modes = { { "eye" }, { "tile" }, { "eye", "tile" } }
  local count, b = 0, 0
  local function add(n, mux)
    p.nodes[#p.nodes + 1] = n
    local c = 1
    for _, d in ipairs(mux or {}) do c = c * p.dimensions[d] end
    count = count + c
  end
  while count < instances do
    b = b + 1
    local pre = "b" .. b .. "_"
    local mux = modes[r(3)]
    add({ name = pre .. "clear", create = { [pre .. "final"] = { format = "rgba8_unorm", size = "main" } } })
    p.outputs[#p.outputs + 1] = pre .. "final"
    local cascades = {}
    for c = 1, r(4) do
      local sm = pre .. "sm" .. c
      add({ name = pre .. "cascade" .. c, create = { [sm] = { format = "d32_sfloat", size = { "shadow", 1 / c } } },
            pass = { depth = sm } })
      cascades[#cascades + 1] = sm
    end
    add({ name = pre .. "gbuffer", multiplex = mux,
          create = { [pre .. "albedo"] = { format = "rgba8_unorm", size = "main" },
                     [pre .. "normal"] = { format = "rgba16_sfloat", size = "main" },
                     [pre .. "depth"] = { format = "d32_sfloat", size = "main" } },
          pass = { color = { pre .. "albedo", pre .. "normal" }, depth = pre .. "depth" } }, mux)
    add({ name = pre .. "ssao", multiplex = mux, read = { pre .. "depth", pre .. "normal" },
          create = { [pre .. "ao"] = { format = "r8_unorm", size = { "main", 0.5 } } } }, mux)
    local lread = { pre .. "albedo", pre .. "normal", pre .. "depth", pre .. "ao" }
    for _, sm in ipairs(cascades) do lread[#lread + 1] = sm end
    add({ name = pre .. "lighting", multiplex = mux, read = lread,
          create = { [pre .. "hdr"] = { format = "rgba16_sfloat", size = "main" } } }, mux)
    local prev, levels = pre .. "hdr", r(5)
    for l = 1, levels do
      local out = pre .. "down" .. l
      add({ name = pre .. "bloom_down" .. l, multiplex = mux, read = { prev },
            create = { [out] = { format = FORMATS[2], size = { "main", 0.5 ^ l } } } }, mux)
      prev = out
    end
    for l = levels - 1, 1, -1 do
      local out = pre .. "up" .. l
      add({ name = pre .. "bloom_up" .. l, multiplex = mux, read = { prev, pre .. "down" .. l },
            create = { [out] = { format = FORMATS[2], size = { "main", 0.5 ^ l } } } }, mux)
      prev = out
    end
    local tread = { pre .. "hdr", prev }
    local tcreate = { [pre .. "ldr"] = { format = "rgba8_unorm", size = "main" } }
    local history
    if r(3) == 1 then  -- TAA: the previous frame's ldr
      tcreate[pre .. "ldr"].history = "clear"
      history = { [pre .. "ldr"] = "sampled" }
    end
    if levels == 1 then tread = { pre .. "hdr", pre .. "down1" } end
    add({ name = pre .. "tonemap", multiplex = mux, read = tread, create = tcreate, history = history,
          after = r(4) == 1 and { pre .. "cascade1" } or nil }, mux)
    add({ name = pre .. "present", multiplex = mux, read = { pre .. "ldr" }, modify = { [pre .. "final"] = "storage" } },
        mux)
  end
  return p
end

function M.random(seed, nodes)
  local r = rng(seed)
  local p = {
    name = "random" .. seed,
    dimensions = { eye = 2, tile = r(3) },
    resolutions = { main = { 256, 256 } },
    outputs = {},
    nodes = {},
  }
  local modes = { {}, {}, { "eye" }, { "tile" }, { "eye", "tile" } }
  local made = {}  -- {name, mode index, read = bool, renamed = bool}
  local node_mode = {}
  for i = 1, nodes do
    local mi = r(#modes)
    local n = { name = "n" .. i, multiplex = #modes[mi] > 0 and modes[mi] or nil, create = {} }
    local used = {}
    for _ = 1, r(3) - 1 do
      if #made > 0 then
        local m = made[#made - r(math.min(#made, 8)) + 1]
        -- a node may use its own or a narrower mode: {} < eye, tile < eye+tile
        local ok = m.mode == 1 or m.mode == 2 or m.mode == mi or mi == 5
        if ok and not used[m.name] and not m.renamed then
          used[m.name] = true
          local k = r(6)
          if k == 1 and not m.read then
            n.modify = n.modify or {}
            n.modify[m.name] = "storage"
          elseif k == 2 and not m.read and not m.hist then
            n.rename = n.rename or {}
            local to = m.name .. "r"
            n.rename[m.name] = to
            m.renamed = true
            made[#made + 1] = { name = to, mode = m.mode }
          else
            n.read = n.read or {}
            n.read[#n.read + 1] = m.name
            m.read = true
          end
        end
      end
    end
    local c = "t" .. i
    n.create[c] = { format = FORMATS[r(#FORMATS)], size = { "main", 1 / r(4) } }
    if r(8) == 1 then
      n.create[c].history = "clear"
      n.history = { [c] = "sampled" }
    end
    if r(5) == 1 then n.side_effects = true end
    if i > 2 and r(6) == 1 then
      local o = i - r(2)
      local om = node_mode[o]  -- after/before join comparable modes only
      if om <= 2 or mi <= 2 or om == mi or om == 5 or mi == 5 then n.after = { "n" .. o } end
    end
    node_mode[i] = mi
    -- a history read counts as a read: nobody may modify or rename it afterwards
    made[#made + 1] = { name = c, mode = mi, hist = n.history ~= nil, read = n.history ~= nil }
    p.nodes[#p.nodes + 1] = n
  end
  for k, m in ipairs(made) do  -- some sinks are outputs, so that few nodes are culled
    if k >= #made - 2 or (not m.read and not m.renamed and r(3) == 1) then p.outputs[#p.outputs + 1] = m.name end
  end
  return p
end

return M
