-- A small strict JSON parser for specs (RFC 8259 values; no extensions):
-- decode(text) -> value, or raises "json: <what> at byte N". Objects become
-- tables, arrays sequences, null becomes json.null.
local M = { null = setmetatable({}, { __tostring = function() return "null" end }) }

local function fail(pos, what) error(("json: %s at byte %d"):format(what, pos), 0) end

local escapes = { ['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f", n = "\n", r = "\r", t = "\t" }

local function skip(s, i) return s:find("[^ \t\r\n]", i) or #s + 1 end

local value

local function str(s, i) -- s:sub(i, i) == '"'
  local out, j = {}, i + 1
  while true do
    local c = s:sub(j, j)
    if c == "" then fail(j, "unterminated string") end
    if c == '"' then return table.concat(out), j + 1 end
    if c:byte() < 32 then fail(j, "control character in string") end
    if c == "\\" then
      local e = s:sub(j + 1, j + 1)
      if escapes[e] then out[#out + 1] = escapes[e]; j = j + 2
      elseif e == "u" then
        local h = s:sub(j + 2, j + 5)
        if not h:match("^%x%x%x%x$") then fail(j, "bad \\u escape") end
        out[#out + 1] = utf8.char(tonumber(h, 16)); j = j + 6
      else fail(j, "bad escape") end
    else out[#out + 1] = c; j = j + 1 end
  end
end

local function num(s, i)
  local t = s:match("^-?%d+%.?%d*[eE]?[-+]?%d*", i)
  if not t or not t:match("^-?0$") and not t:match("^-?[1-9]") and not t:match("^-?0[.eE]") then fail(i, "bad number") end
  if t:match("%.$") or t:match("[eE][-+]?$") then fail(i, "bad number") end
  local v = math.tointeger(tonumber(t)) or tonumber(t)
  return v, i + #t
end

function value(s, i)
  i = skip(s, i)
  local c = s:sub(i, i)
  if c == "{" then
    local t = {}
    i = skip(s, i + 1)
    if s:sub(i, i) == "}" then return t, i + 1 end
    while true do
      if s:sub(i, i) ~= '"' then fail(i, "expected a key") end
      local k
      k, i = str(s, i)
      i = skip(s, i)
      if s:sub(i, i) ~= ":" then fail(i, "expected ':'") end
      if t[k] ~= nil then fail(i, "duplicate key '" .. k .. "'") end
      t[k], i = value(s, i + 1)
      i = skip(s, i)
      local d = s:sub(i, i)
      if d == "}" then return t, i + 1 end
      if d ~= "," then fail(i, "expected ',' or '}'") end
      i = skip(s, i + 1)
    end
  elseif c == "[" then
    local t, n = {}, 0
    i = skip(s, i + 1)
    if s:sub(i, i) == "]" then return t, i + 1 end
    while true do
      n = n + 1
      t[n], i = value(s, i)
      i = skip(s, i)
      local d = s:sub(i, i)
      if d == "]" then return t, i + 1 end
      if d ~= "," then fail(i, "expected ',' or ']'") end
      i = i + 1
    end
  elseif c == '"' then return str(s, i)
  elseif s:sub(i, i + 3) == "true" then return true, i + 4
  elseif s:sub(i, i + 4) == "false" then return false, i + 5
  elseif s:sub(i, i + 3) == "null" then return M.null, i + 4
  elseif c:match("[-%d]") then return num(s, i)
  end
  fail(i, "unexpected '" .. c .. "'")
end

function M.decode(s)
  local v, i = value(s, 1)
  i = skip(s, i)
  if i <= #s then fail(i, "trailing characters") end
  return v
end

return M
