-- bench/mutate: random one- and two-field edits of an example pipeline, each
-- through rt:reload and two frames on a validating lavapipe device. Every
-- edit must be refused with a message, or run without a validation message
-- and without a crash; the first validation message stops the run and prints
-- the edit (docs/RELIABILITY.md, "Defects found and fixed").
-- Run: . scripts/env.sh; lua5.4 bench/mutate.lua [example=deferred] [seed=1] [edits=150] [valid=0]
-- valid=1 draws the new values from the vocabularies (usages, formats,
-- sizes), so more edits compile and reach the GPU.
package.path = "lua/?.lua;lua/?/init.lua;examples/?.lua;" .. package.path
local fg = require("framegraph")

local name, seed, N, valid = arg[1] or "deferred", tonumber(arg[2]) or 1, tonumber(arg[3]) or 150, arg[4] == "1"
math.randomseed(seed)
local dev = fg.vulkan{ validation = true, prefer = "software" }
local base = assert(loadfile("examples/" .. name .. ".lua"))(dev)

local wild = { 0, -1, 1 << 40, 2 ^ 40, 0.5, "x", "", "main", true, false, {}, { 1 }, { "main", -2 }, { 0, 0 }, { 3, 5 },
  { 1 << 31, 1 << 31 }, "rgba8_unorm", "storage", "sampled", "transfer_dst", 1e308, 0 / 0, "\0",
  { format = "r8_unorm", size = "main" }, { "main", 0.25 } }
local tame = { { "main", 0.5 }, { "main", 0.25 }, { 16, 16 }, "main", true, false, 1, 2 }
for _, u in ipairs(fg.vocab.usages) do tame[#tame + 1] = u end
for _, f in ipairs(fg.vocab.formats) do tame[#tame + 1] = f end
for _, s in ipairs(fg.vocab.stages) do tame[#tame + 1] = s end
local vals = valid and tame or wild
local fields = { "size", "format", "usage", "stage", "mips", "layers", "history", "optional", "side_effects", 1, 2 }

local function deepcopy(t)
  if type(t) ~= "table" then return t end
  local c = setmetatable({}, getmetatable(t))
  for k, v in pairs(t) do c[k] = deepcopy(v) end
  return c
end
local function tables(t, out, paths, path, depth)
  out[#out + 1] = t; paths[#paths + 1] = path
  if depth < 6 then
    for k, v in pairs(t) do if type(v) == "table" then tables(v, out, paths, path .. "." .. tostring(k), depth + 1) end end
  end
  return out, paths
end
local function show(v)
  if type(v) ~= "table" then return type(v) == "string" and ("%q"):format(v) or tostring(v) end
  local o = {}
  for k, x in pairs(v) do o[#o + 1] = tostring(k) .. "=" .. show(x) end
  return "{" .. table.concat(o, ", ") .. "}"
end

local rt = assert(fg.runtime(dev, base, { resolutions = { main = { 64, 48 } } }))
rt:frame()
local accepted, refused, failed_frames = 0, 0, 0
for i = 1, N do
  local p, edits = deepcopy(base), {}
  for _ = 1, math.random(1, 2) do
    local ts, ps = tables(p, {}, {}, "p", 0)
    local j = math.random(#ts)
    local t, keys = ts[j], {}
    for k in pairs(t) do keys[#keys + 1] = k end
    table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
    local k = (#keys > 0 and math.random(2) == 1) and keys[math.random(#keys)] or fields[math.random(#fields)]
    local v = vals[math.random(#vals)]
    edits[#edits + 1] = ps[j] .. "." .. tostring(k) .. " = " .. show(v)
    t[k] = deepcopy(v)
  end
  local ok, err = rt:reload(p)
  if ok then accepted = accepted + 1 else refused = refused + 1; assert(type(err) == "string" and #err > 0) end
  for _ = 1, 2 do if not pcall(rt.frame, rt) then failed_frames = failed_frames + 1 end end
  local m = dev:messages()
  if #m > 0 then
    print(("edit %d (%s) drew a validation message:\n%s"):format(i, table.concat(edits, "; "), m[1]:sub(1, 800)))
    os.exit(1)
  end
end
print(("mutate %s seed %d: %d edits, %d accepted, %d refused, %d frames raised (rolled back), 0 validation messages")
  :format(name, seed, N, accepted, refused, failed_frames))
rt:close()
dev:close()
