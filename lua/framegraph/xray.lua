-- framegraph.xray: an X-ray of one frame for the report page (`framegraph
-- report --render`): every transient texture as it is after its last write,
-- in the order the frame writes them, as thumbnails beside the timeline.
--   xray.capture(path [, opts]) -> shots | nil, message
--     Runs the pipeline file on a device (opts.device "gpu" | "software";
--     lavapipe does) for two frames with the unaliased plan (solver "none"),
--     so every resource still holds what its last writer left, and reads each
--     texture of the last frame back. shots = {{label, name, index, format,
--     width, height, slot, node, png | why}} by the slot of the last write;
--     shots.timings: rt:timings() of the last frame (GPU ms per instance),
--     or shots.timings_why where the device has no timestamps.
--   xray.thumbnail(bytes, format, w, h [, max_w, max_h]) -> png | nil, why
--   xray.png(w, h, rgb) -> PNG bytes (8-bit RGB, stored deflate blocks)
--   xray.html(shots) -> the page's section
local M = {}

-- ------------------------------------------------------------------ PNG

local crc_table = {}
for i = 0, 255 do
  local c = i
  for _ = 1, 8 do c = (c & 1) ~= 0 and (0xEDB88320 ~ (c >> 1)) or (c >> 1) end
  crc_table[i] = c
end
local function crc32(s, crc)
  crc = (crc or 0) ~ 0xFFFFFFFF
  for i = 1, #s do crc = crc_table[(crc ~ s:byte(i)) & 0xFF] ~ (crc >> 8) end
  return crc ~ 0xFFFFFFFF
end

local function adler32(s)
  local a, b = 1, 0
  for i = 1, #s do
    a = (a + s:byte(i)) % 65521
    b = (b + a) % 65521
  end
  return (b << 16) | a
end

local function chunk(kind, data)
  return string.pack(">I4", #data) .. kind .. data .. string.pack(">I4", crc32(kind .. data))
end

-- Uncompressed deflate (stored blocks): thumbnails are small, and the page
-- needs no zlib.
-- channels: 3 (RGB, the default) or 4 (RGBA); pixels: w * h * channels bytes.
function M.png(w, h, pixels, channels)
  local n = channels or 3
  local rows = {}
  for y = 0, h - 1 do rows[#rows + 1] = "\0" .. pixels:sub(y * w * n + 1, (y + 1) * w * n) end
  local raw = table.concat(rows)
  local blocks, pos = { "\120\1" }, 1
  repeat
    local part = raw:sub(pos, pos + 65534)
    pos = pos + #part
    local last = pos > #raw and 1 or 0
    blocks[#blocks + 1] = string.pack("<BI2I2", last, #part, (~#part) & 0xFFFF) .. part
  until pos > #raw
  blocks[#blocks + 1] = string.pack(">I4", adler32(raw))
  return "\137PNG\r\n\26\n" .. chunk("IHDR", string.pack(">I4I4BBBBB", w, h, 8, n == 4 and 6 or 2, 0, 0, 0))
         .. chunk("IDAT", table.concat(blocks)) .. chunk("IEND", "")
end

-- ----------------------------------------------------------- texels

local function half(h)
  local s, e, m = (h >> 15) & 1, (h >> 10) & 31, h & 1023
  local v
  if e == 0 then v = m * 2.0 ^ -24 elseif e == 31 then v = m == 0 and math.huge or 0 / 0
  else v = (m + 1024) * 2.0 ^ (e - 25) end
  return s == 1 and -v or v
end

-- format -> bytes per texel, function(bytes, at) -> r, g, b (floats; depth: one value, scaled later)
local decoders = {
  rgba8_unorm = { 4, function(s, i) local r, g, b = s:byte(i, i + 2) return r / 255, g / 255, b / 255 end },
  rgba8_srgb = { 4, function(s, i) local r, g, b = s:byte(i, i + 2) return r / 255, g / 255, b / 255 end },
  bgra8_unorm = { 4, function(s, i) local b, g, r = s:byte(i, i + 2) return r / 255, g / 255, b / 255 end },
  bgra8_srgb = { 4, function(s, i) local b, g, r = s:byte(i, i + 2) return r / 255, g / 255, b / 255 end },
  r8_unorm = { 1, function(s, i) local v = s:byte(i) / 255 return v, v, v end },
  rg8_unorm = { 2, function(s, i) local r, g = s:byte(i, i + 1) return r / 255, g / 255, 0 end },
  rgba16_sfloat = { 8, function(s, i)
    local r, g, b = string.unpack("<I2I2I2", s, i) return half(r), half(g), half(b) end },
  rg16_sfloat = { 4, function(s, i) local r, g = string.unpack("<I2I2", s, i) return half(r), half(g), 0 end },
  r16_sfloat = { 2, function(s, i) local v = half((string.unpack("<I2", s, i))) return v, v, v end },
  rgba16_unorm = { 8, function(s, i)
    local r, g, b = string.unpack("<I2I2I2", s, i) return r / 65535, g / 65535, b / 65535 end },
  r16_unorm = { 2, function(s, i) local v = string.unpack("<I2", s, i) / 65535 return v, v, v end },
  rgba32_sfloat = { 16, function(s, i) local r, g, b = string.unpack("<fff", s, i) return r, g, b end },
  rg32_sfloat = { 8, function(s, i) local r, g = string.unpack("<ff", s, i) return r, g, 0 end },
  r32_sfloat = { 4, function(s, i) local v = string.unpack("<f", s, i) return v, v, v end },
  d32_sfloat = { 4, function(s, i) local v = string.unpack("<f", s, i) return v, v, v end, depth = true },
  d16_unorm = { 2, function(s, i) local v = string.unpack("<I2", s, i) / 65535 return v, v, v end, depth = true },
}

local function u8(v)
  if not (v > 0) then return 0 end  -- NaN too
  if v >= 1 then return 255 end
  return math.floor(v * 255 + 0.5)
end

function M.thumbnail(bytes, format, w, h, max_w, max_h)
  local dec = decoders[format]
  if not dec then return nil, "no picture for " .. tostring(format) end
  if not bytes or #bytes < w * h * dec[1] then return nil, "read back " .. #(bytes or "") .. " bytes" end
  max_w, max_h = max_w or 240, max_h or 160
  local s = math.min(1, max_w / w, max_h / h)
  local tw, th = math.max(1, math.floor(w * s)), math.max(1, math.floor(h * s))
  local vals = {}
  local lo, hi = math.huge, -math.huge
  for y = 0, th - 1 do
    local sy = math.min(h - 1, math.floor((y + 0.5) * h / th))
    for x = 0, tw - 1 do
      local sx = math.min(w - 1, math.floor((x + 0.5) * w / tw))
      local r, g, b = dec[2](bytes, (sy * w + sx) * dec[1] + 1)
      vals[#vals + 1] = { r, g, b }
      if dec.depth and r == r then lo, hi = math.min(lo, r), math.max(hi, r) end
    end
  end
  local out = {}
  for i, v in ipairs(vals) do
    local r, g, b = v[1], v[2], v[3]
    if dec.depth then  -- stretched over the range the picture uses, near = dark
      local t = hi > lo and (r - lo) / (hi - lo) or 0
      r, g, b = t, t, t
    end
    out[i] = string.char(u8(r), u8(g), u8(b))
  end
  return M.png(tw, th, table.concat(out)), nil, tw, th
end

-- ------------------------------------------------------------ capture

local function index_text(index)
  local keys = {}
  for k in pairs(index or {}) do keys[#keys + 1] = k end
  table.sort(keys)
  for i, k in ipairs(keys) do keys[i] = k .. "=" .. tostring(index[k]) end
  return #keys > 0 and "[" .. table.concat(keys, ",") .. "]" or ""
end

function M.capture(path, opts)
  opts = opts or {}
  local fg = require("framegraph")
  local okd, dev = pcall(fg.vulkan, { prefer = opts.device or "gpu" })
  if not okd then return nil, "no Vulkan device for --render: " .. tostring(dev) end
  local okr, rt = pcall(fg.runtime, dev, path, { solver = "none" })
  if not okr or not rt then dev:close() return nil, tostring(rt) end
  local ok, err = pcall(function() rt:frame() rt:frame() end)
  if not ok then rt:close() dev:close() return nil, tostring(err) end
  -- GPU time per instance of the last frame, for the report's GPU timeline:
  -- timings only list frames the GPU has finished, so wait for it
  pcall(dev.wait_idle, dev)
  local tok, t, terr = pcall(rt.timings, rt)
  local timings, timings_why
  if not tok then timings_why = tostring(t)
  elseif not t then timings_why = tostring(terr)
  elseif #t == 0 or not t.frame_ms then timings_why = "no frame had finished on the GPU"
  else timings = t end
  local g = rt:graph()
  -- the last writer of each physical resource: its slot and instance name
  local writer = {}
  for _, inst in ipairs(g:instances()) do
    for _, u in ipairs(inst.uses) do
      if u.access == "create" or u.access == "modify" or u.access == "rename" then
        for _, id in ipairs(u.resource or {}) do
          local w = writer[id]
          -- instances() counts slots from 1, the timeline from 0
          if not w or inst.slot - 1 > w.slot then writer[id] = { slot = inst.slot - 1, node = inst.name } end
        end
      end
    end
  end
  local shots, seen = {}, {}
  for _, r in ipairs(g:resources()) do
    local key = r.name .. index_text(r.index)
    if r.kind == "texture" and not seen[key] and writer[r.id] then
      seen[key] = true
      local shot = { label = key, name = r.name, index = r.index, format = r.format, width = r.width,
                     height = r.height, slot = writer[r.id].slot, node = writer[r.id].node }
      local rok, bytes = pcall(rt.read, rt, r.name, next(r.index or {}) and r.index or nil)
      if rok and bytes then
        local png, why = M.thumbnail(bytes, r.format, r.width, r.height)
        shot.png, shot.why = png, why
      else
        shot.why = "not read back: " .. tostring(bytes)
      end
      shots[#shots + 1] = shot
    end
  end
  table.sort(shots, function(a, b) if a.slot ~= b.slot then return a.slot < b.slot end return a.label < b.label end)
  rt:close()
  dev:close()
  shots.timings, shots.timings_why = timings, timings_why
  return shots
end

-- ---------------------------------------------------------------- html

local b64chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
local function base64(s)
  local out = {}
  for i = 1, #s, 3 do
    local a, b, c = s:byte(i, i + 2)
    local n = (a << 16) | ((b or 0) << 8) | (c or 0)
    local k = {}
    for j = 3, 0, -1 do
      local v = (n >> (6 * j)) & 63
      k[#k + 1] = b64chars:sub(v + 1, v + 1)
    end
    if not b then k[3], k[4] = "=", "=" elseif not c then k[4] = "=" end
    out[#out + 1] = table.concat(k)
  end
  return table.concat(out)
end
M.base64 = base64

local function esc(s) return (tostring(s):gsub("&", "&amp;"):gsub("<", "&lt;"):gsub(">", "&gt;"):gsub('"', "&quot;")) end

function M.html(shots)
  local o = {}
  o[#o + 1] = "<h2>X-ray of a frame</h2>"
  o[#o + 1] = '<p class="sub">Every transient texture as its last writer left it, in the order the frame writes them '
              .. "(rendered unaliased on a Vulkan device, second frame; depth stretched over the range it uses, "
              .. "HDR values clamped to 0..1).</p>"
  o[#o + 1] = '<div class="xray">'
  for _, s in ipairs(shots) do
    local pic = s.png and ('<img alt="%s" src="data:image/png;base64,%s">'):format(esc(s.label), base64(s.png))
                or ('<div class="nopic">%s</div>'):format(esc(s.why or "no picture"))
    o[#o + 1] = ('<figure class="shot">%s<figcaption><b>%s</b><br>%s %dx%d<br>after %s (slot %d)</figcaption></figure>')
      :format(pic, esc(s.label), esc(s.format), s.width, s.height, esc(s.node), s.slot)
  end
  o[#o + 1] = "</div>"
  return table.concat(o, "\n")
end

M.css = [[
.xray { display: flex; flex-wrap: wrap; gap: 10px; }
.xray figure { margin: 0; width: 244px; font-size: 12px; }
.xray img { display: block; width: 240px; border: 2px solid #ddd; image-rendering: pixelated; }
.xray .nopic { width: 240px; height: 60px; background: #f0f0f0; color: #777; display: flex; align-items: center; justify-content: center; }
]]

return M
