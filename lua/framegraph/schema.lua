-- framegraph.schema: checks the shape of a pipeline table (and compile
-- options) before the C compiler sees it. Every problem is collected; check()
-- raises one error listing all of them, one per line, each naming the node,
-- the resource and the field, and saying what is expected.
-- The vocabularies (usages, stages, formats, solvers, profiles) are the C
-- core's own lists (fg_vocab.h, exported as core.vocab), and each option is
-- checked by the C function fg.pack and fg.runtime use too (core.check_option).
local core = require("framegraph.core")
local M = {}

M.usages = core.vocab.usages
M.stages = core.vocab.stages
M.formats = core.vocab.formats
M.solvers = core.vocab.solvers
M.profiles = core.vocab.profiles
-- the C planner's limit per texture side (FG_MAX_EXTENT); devices check their own
M.max_extent = core.vocab.max_extent
M.max_dimension_count = core.vocab.max_dimension_count

local function set_of(list)
  local s = {}
  for _, v in ipairs(list) do s[v] = true end
  return s
end
local usage_set, stage_set, format_set = set_of(M.usages), set_of(M.stages), set_of(M.formats)

-- messages list the usages a user writes ("none" is for blobs and implied)
local usage_hint = {}
for _, u in ipairs(M.usages) do if u ~= "none" then usage_hint[#usage_hint + 1] = u end end
usage_hint = table.concat(usage_hint, ", ")
local stage_hint, format_hint = table.concat(M.stages, ", "), table.concat(M.formats, ", ")

local pipeline_fields = { "name", "dimensions", "resolutions", "outputs", "external", "nodes" }
local node_fields = { "name", "multiplex", "after", "before", "create", "read", "modify", "rename", "history",
                      "pass", "side_effects", "run", "queue" }
local create_fields = { "format", "size", "buffer", "blob", "history", "mips", "layers", "depth", "usage", "stage" }
local external_fields = { "format", "size", "buffer", "provide", "multiplex", "mips", "layers", "depth" }
local request_fields = { "usage", "stage", "optional" }

local function is_posint(v) return math.type(v) == "integer" and v > 0 end
-- a finite number: NaN fails every comparison, so `x <= 0` alone lets it by
local function is_finite(v) return type(v) == "number" and v == v and v > -math.huge and v < math.huge end
-- the C planner's largest resource (FG_MAX_RESOURCE_BYTES, 1 TiB)
M.max_resource_bytes = 1 << 40
local function sorted_keys(t)
  local keys = {}
  for k in pairs(t) do if type(k) == "string" then keys[#keys + 1] = k end end
  table.sort(keys)
  return keys
end
local function is_array(t)
  local n = #t
  for k in pairs(t) do
    if math.type(k) ~= "integer" or k < 1 or k > n then return false end
  end
  return true
end

-- Problem collector.
local function collector()
  local list = {}
  return list, function(fmt, ...) list[#list + 1] = string.format(fmt, ...) end
end

-- Names reach C as NUL-terminated strings: "a\0b" would silently become "a".
-- shown(name) is how a name reads in a message (a NUL as \0).
local function shown(name) return (name:gsub("%z", "\\0")) end
local function check_name(add, where, what, name)
  if name == "" then  -- nothing could name it back (ctx.index[""], rt:read(""))
    add("%s: %s name is empty; give it a name", where, what)
  elseif type(name) == "string" and name:find("\0", 1, true) then
    add("%s: %s name '%s' contains a NUL byte (\\0): names must be plain text, remove it", where, what,
        shown(name))
  end
end

-- allowed-field sets are built once per list (check runs on every compile)
local set_cache = setmetatable({}, { __mode = "k" })
local function unknown_fields(add, where, t, allowed)
  local ok = set_cache[allowed]
  if not ok then ok = set_of(allowed); set_cache[allowed] = ok end
  local bad, nonstring
  for k in pairs(t) do
    if type(k) ~= "string" then nonstring = nonstring or k
    elseif not ok[k] then bad = bad or {}; bad[#bad + 1] = k end
  end
  if bad then
    table.sort(bad)
    for _, k in ipairs(bad) do
      add("%s: unknown field '%s' (expected one of %s)", where, k, table.concat(allowed, ", "))
    end
  end
  if nonstring ~= nil then add("%s: unexpected key %s (fields are named)", where, tostring(nonstring)) end
end

local function check_usage(add, where, u)
  if u == nil then return end
  if type(u) ~= "string" then
    add("%s: usage must be a string (one of %s), got %s", where, usage_hint, type(u))
  elseif not usage_set[u] then
    add("%s: unknown usage '%s' (expected one of %s)", where, shown(u), usage_hint)
  end
end
local function check_stage(add, where, s)
  if s == nil then return end
  if type(s) ~= "string" or not stage_set[s] then
    add("%s: unknown stage '%s' (expected one of %s)", where, tostring(s), stage_hint)
  end
end

local function check_size(add, where, size, required)
  if size == nil then
    if required then add("%s: missing size (a resolution name like \"main\", {\"main\", 0.5} or {width, height})", where) end
    return
  end
  if type(size) == "string" then return check_name(add, where, "resolution", size) end
  if type(size) ~= "table" then
    add("%s: size must be a resolution name, {name, scale} or {width, height}, got %s", where, type(size))
    return
  end
  if type(size[1]) == "string" then
    check_name(add, where, "resolution", size[1])
    for i = 2, 3 do
      if size[i] ~= nil and not (is_finite(size[i]) and size[i] > 0) then
        add("%s: size scale must be a positive finite number, got %s", where, tostring(size[i]))
      end
    end
  else
    if not is_posint(size[1]) or not is_posint(size[2]) then
      add("%s: size {width, height} must be positive integers, got {%s, %s}", where, tostring(size[1]),
          tostring(size[2]))
    elseif size[1] > M.max_extent or size[2] > M.max_extent then
      add("%s: size {%d, %d} is over %d per side, more than any Vulkan device allows: lower it", where, size[1],
          size[2], M.max_extent)
    end
  end
end

local function check_format(add, where, f, required)
  if f == nil then
    if required then add("%s: missing format (e.g. \"rgba8_unorm\")", where) end
  elseif type(f) ~= "string" or not format_set[f] then
    add("%s: unknown format '%s' (expected one of %s)", where, type(f) == "string" and shown(f) or tostring(f),
        format_hint)
  end
end

local count_fields = { "mips", "layers", "depth" }
local function check_create(add, where, d)
  if type(d) ~= "table" then
    add("%s: expected a table ({format=, size=}, {buffer=bytes} or {blob={}}), got %s", where, type(d))
    return
  end
  unknown_fields(add, where, d, create_fields)
  local kinds = (d.format ~= nil and 1 or 0) + (d.buffer ~= nil and 1 or 0) + (d.blob ~= nil and 1 or 0)
  if kinds == 0 then
    add("%s: say what it is: a texture {format=, size=}, a buffer {buffer=bytes} or a blob {blob={}}", where)
  elseif kinds > 1 then
    add("%s: format, buffer and blob are exclusive: give exactly one", where)
  end
  if d.format ~= nil then
    check_format(add, where, d.format, true)
    check_size(add, where, d.size, true)
  end
  if d.buffer ~= nil and not is_posint(d.buffer) then
    add("%s: buffer must be a positive integer number of bytes, got %s", where, tostring(d.buffer))
  end
  if d.blob ~= nil and type(d.blob) ~= "table" and d.blob ~= true then
    add("%s: blob must be a table (e.g. {size = bytes}) or true, got %s", where, type(d.blob))
  elseif type(d.blob) == "table" then
    unknown_fields(add, where .. ": blob", d.blob, { "size" })
    local b = d.blob.size
    if b ~= nil and not (math.type(b) == "integer" and b >= 0 and b <= M.max_resource_bytes) then
      add("%s: blob size must be an integer number of bytes from 0 to %d (1 TiB), got %s", where,
          M.max_resource_bytes, tostring(b))
    end
  end
  if d.history ~= nil and d.history ~= "clear" and d.history ~= "discard" then
    add("%s: history must be \"clear\" or \"discard\", got '%s'", where, tostring(d.history))
  end
  for _, f in ipairs(count_fields) do
    if d[f] ~= nil and not is_posint(d[f]) then
      add("%s: %s must be a positive integer, got %s", where, f, tostring(d[f]))
    end
  end
  check_usage(add, where, d.usage)
  check_stage(add, where, d.stage)
end

-- value of a read/modify/history entry: usage string, true, or {usage=, stage=, optional=}
local function check_request(add, where, v, allow_optional)
  if v == true then return end
  if type(v) == "string" then return check_usage(add, where, v) end
  if type(v) ~= "table" then
    add("%s: expected a usage string or {usage=, stage=%s}, got %s", where,
        allow_optional and ", optional=" or "", type(v))
    return
  end
  unknown_fields(add, where, v, request_fields)
  check_usage(add, where, v.usage)
  check_stage(add, where, v.stage)
  if v.optional ~= nil then
    if not allow_optional then add("%s: optional is only allowed on read and history", where)
    elseif type(v.optional) ~= "boolean" then add("%s: optional must be a boolean", where) end
  end
end

-- A request list: {"a", "b", c = spec}; `verb` names the field in messages.
local function check_requests(add, nwhere, verb, t, allow_optional)
  if t == nil then return end
  if type(t) ~= "table" then
    add("%s: %s must be a table of resource names, got %s", nwhere, verb, type(t))
    return
  end
  for i, v in ipairs(t) do
    if type(v) ~= "string" then
      add("%s: %s[%d]: expected a resource name, got %s", nwhere, verb, i, type(v))
    else
      check_name(add, string.format("%s: %s[%d]", nwhere, verb, i), "resource", v)
    end
  end
  for _, k in ipairs(sorted_keys(t)) do
    local v = t[k]
    check_name(add, nwhere .. ": " .. verb, "resource", k)
    -- fast path for the common case; the message is only built for a problem
    if not (v == true or (type(v) == "string" and usage_set[v])) then
      check_request(add, string.format("%s: %s '%s'", nwhere, verb, shown(k)), v, allow_optional)
    end
  end
end

local function check_names(add, where, t, what)
  if t == nil then return end
  if type(t) == "string" then return check_name(add, where, what, t) end
  if type(t) ~= "table" or not is_array(t) then
    add("%s: expected a %s name or a list of them", where, what)
    return
  end
  for i, v in ipairs(t) do
    if type(v) ~= "string" then add("%s[%d]: expected a %s name, got %s", where, i, what, type(v))
    else check_name(add, string.format("%s[%d]", where, i), what, v) end
  end
end

-- a name listed twice ({"eye", "eye"}): one mention is what was meant
local function check_repeats(add, where, t, what)
  if type(t) ~= "table" then return end
  local seen = {}
  for _, v in ipairs(t) do
    if type(v) == "string" then
      if seen[v] then
        add("%s: %s '%s' is listed twice, list it once", where, what, shown(v))
        return
      end
      seen[v] = true
    end
  end
end

local function check_attachment(add, where, a, depth)
  if type(a) == "string" then return check_name(add, where, "resource", a) end
  if type(a) ~= "table" or type(a[1]) ~= "string" then
    add("%s: expected a resource name or {name, clear = ...}", where)
    return
  end
  check_name(add, where, "resource", a[1])
  for k in pairs(a) do
    if k ~= 1 and k ~= "clear" and (not depth or k ~= "stencil") then
      add("%s: unknown field '%s' (an attachment is {name, clear = ...%s})", where, tostring(k),
          depth and ", stencil = ..." or "")
    end
  end
  if a.clear ~= nil then
    if depth then
      if type(a.clear) ~= "number" then add("%s: depth clear must be a number, got %s", where, type(a.clear))
      elseif not (a.clear >= 0 and a.clear <= 1) then
        add("%s: depth clear must be a number from 0 to 1 (Vulkan's depth range), got %s", where, tostring(a.clear))
      end
    elseif type(a.clear) ~= "table" or #a.clear < 3 then
      add("%s: color clear must be {r, g, b, a}", where)
    else
      for i = 1, 4 do
        local c = a.clear[i]
        -- the clear colour reaches Vulkan as 32-bit floats: past 3.4e38 the cast is undefined
        if (i < 4 or c ~= nil) and not (is_finite(c) and math.abs(c) <= 3.4e38) then
          add("%s: color clear component %d must be a finite number, got %s", where, i, tostring(c))
        end
      end
    end
  end
  if depth and a.stencil ~= nil and not (math.type(a.stencil) == "integer" and a.stencil >= 0 and a.stencil <= 255) then
    add("%s: stencil clear must be an integer from 0 to 255, got %s", where, tostring(a.stencil))
  end
end

local function check_node(add, node, i, dims)
  if type(node) ~= "table" then
    add("nodes[%d]: expected a node table, got %s", i, type(node))
    return
  end
  local where
  if type(node.name) ~= "string" or node.name == "" then
    where = string.format("nodes[%d]", i)
    add("%s: missing name (every node needs a unique string name)", where)
  elseif node.name:find("\0", 1, true) then
    where = string.format("nodes[%d]", i)
    check_name(add, where, "node", node.name)
  else
    where = string.format("node '%s'", node.name)
  end
  unknown_fields(add, where, node, node_fields)
  if node.multiplex ~= nil then
    if type(node.multiplex) ~= "table" or not is_array(node.multiplex) then
      add("%s: multiplex must be a list of dimension names", where)
    else
      check_names(add, where .. ": multiplex", node.multiplex, "dimension")
      check_repeats(add, where .. ": multiplex", node.multiplex, "dimension")
    end
  end
  check_names(add, where .. ": after", node.after, "node")
  check_names(add, where .. ": before", node.before, "node")
  for _, verb in ipairs({ "after", "before" }) do
    local list = node[verb]
    if type(list) == "string" then list = { list } end
    if type(list) == "table" and type(node.name) == "string" then
      for _, v in ipairs(list) do
        if v == node.name then
          add("%s: %s '%s': a node cannot run %s itself, remove it", where, verb, shown(v), verb)
          break
        end
      end
    end
  end
  if node.create ~= nil then
    if type(node.create) ~= "table" then
      add("%s: create must be a table name = description, got %s", where, type(node.create))
    else
      for k in pairs(node.create) do
        if type(k) ~= "string" then add("%s: create: entries must be named (name = {format=, size=})", where) break end
      end
      for _, k in ipairs(sorted_keys(node.create)) do
        check_name(add, where .. ": create", "resource", k)
        check_create(add, string.format("%s: create '%s'", where, shown(k)), node.create[k])
      end
    end
  end
  check_requests(add, where, "read", node.read, true)
  check_requests(add, where, "modify", node.modify, false)
  check_requests(add, where, "history", node.history, true)
  if node.rename ~= nil then
    if type(node.rename) ~= "table" then
      add("%s: rename must be a table old = new, got %s", where, type(node.rename))
    else
      for k in pairs(node.rename) do  -- rename = { "x" } would be skipped, silently
        if type(k) ~= "string" then add("%s: rename: entries must be named (old = \"new\")", where) break end
      end
      for _, k in ipairs(sorted_keys(node.rename)) do
        local v, rw = node.rename[k], string.format("%s: rename '%s'", where, shown(k))
        check_name(add, where .. ": rename", "resource", k)
        check_name(add, rw, "resource", type(v) == "table" and v.to or v)
        if type(v) == "table" then
          unknown_fields(add, rw, v, { "to", "usage", "stage" })
          if type(v.to) ~= "string" then add("%s: missing the new name (to = \"...\")", rw) end
          check_usage(add, rw, v.usage)
          check_stage(add, rw, v.stage)
        elseif type(v) ~= "string" then
          add("%s: expected the new name as a string, got %s", rw, type(v))
        elseif v == k then
          add("%s: renaming to the same name does nothing (use modify)", rw)
        end
      end
    end
  end
  if node.pass ~= nil then
    if type(node.pass) ~= "table" then
      add("%s: pass must be a table {color = {...}, depth = ...}", where)
    else
      unknown_fields(add, where .. ": pass", node.pass, { "color", "depth" })
      local c = node.pass.color
      if type(c) == "string" then c = { c } end
      if c ~= nil and type(c) ~= "table" then add("%s: pass color must be a list of attachments", where)
      elseif c then
        for j, a in ipairs(c) do check_attachment(add, string.format("%s: pass color[%d]", where, j), a, false) end
      end
      if node.pass.depth ~= nil then check_attachment(add, where .. ": pass depth", node.pass.depth, true) end
    end
  end
  if node.side_effects ~= nil and type(node.side_effects) ~= "boolean" then
    add("%s: side_effects must be a boolean, got %s", where, type(node.side_effects))
  end
  if node.queue ~= nil then
    if node.queue ~= "graphics" and node.queue ~= "async" then
      add("%s: queue must be \"async\" (a compute node on the async compute queue) or \"graphics\", got %s",
          where, type(node.queue) == "string" and ("'" .. node.queue .. "'") or type(node.queue))
    elseif node.queue == "async" and node.pass ~= nil then
      add("%s: queue = \"async\" is for compute nodes, and this one has a pass: drop the pass or the queue", where)
    elseif node.queue == "async" then
      -- a compute queue runs no graphics stage: a barrier there cannot name one
      local ok_stage = { compute = true, transfer = true, host = true, all = true, draw_indirect = true }
      for _, field in ipairs{ "create", "read", "modify", "history", "rename" } do
        local t = node[field]
        if type(t) == "table" then
          for k, v in pairs(t) do
            if type(v) == "table" and type(v.stage) == "string" and not ok_stage[v.stage] then
              add("%s: %s '%s': stage '%s' is a graphics stage, and the node runs on the async compute queue "
                  .. "(use compute, transfer or draw_indirect)", where, field, tostring(type(k) == "string" and k or v[1]), v.stage)
            end
          end
        end
      end
    end
  end
  if type(node.run) == "string" then
    -- a C callback of the host (include/framegraph.h, fg_device_register_node)
    if not node.run:match("^host:[%w_%.%-]+$") then
      add("%s: run must be a function(cmd, ctx), got string \"%s\" (a string names a host's C callback: "
          .. "\"host:name\", with letters, digits, _ . - in name)", where, node.run)
    end
  elseif node.run ~= nil and type(node.run) ~= "function" then
    add("%s: run must be a function(cmd, ctx), got %s (or \"host:name\" for a host's C callback)", where, type(node.run))
  end
end

local function check_dims(add, where, t)
  if t == nil then return end
  if type(t) ~= "table" then add("%s must be a table name = count", where) return end
  for k, v in pairs(t) do
    if type(k) ~= "string" then add("%s: names must be strings", where)
    elseif k == "" or k:find("\0", 1, true) then check_name(add, where, "dimension", k)
    elseif not is_posint(v) or v > M.max_dimension_count then
      add("%s: '%s' must be a positive integer count (at most %d), got %s", where, k, M.max_dimension_count,
          tostring(v))
    end
  end
end
local function check_resolutions(add, where, t)
  if t == nil then return end
  if type(t) ~= "table" then add("%s must be a table name = {width, height}", where) return end
  for k in pairs(t) do
    if type(k) ~= "string" then add("%s: entries must be named (name = {width, height})", where) break end
  end
  for _, k in ipairs(sorted_keys(t)) do
    local v = t[k]
    check_name(add, where, "resolution", k)
    local extra
    -- `window = true`: the resolution follows a viewer's window (framegraph view)
    if type(v) == "table" then
      for key in pairs(v) do if key ~= 1 and key ~= 2 and key ~= "window" then extra = key end end
    end
    if type(v) ~= "table" or not is_posint(v[1]) or not is_posint(v[2]) then
      add("%s: '%s' must be {width, height} with positive integers", where, k)
    elseif extra ~= nil then
      add("%s: '%s' must be {width, height [, window = true]}, nothing else (found key '%s')", where, k,
          tostring(extra))
    elseif v.window ~= nil and type(v.window) ~= "boolean" then
      add("%s: '%s': window must be true or false (whether it follows the viewer's window)", where, k)
    elseif v[1] > M.max_extent or v[2] > M.max_extent then
      add("%s: '%s' = {%d, %d} is over %d per side, more than any Vulkan device allows: lower it", where, k, v[1],
          v[2], M.max_extent)
    end
  end
end

-- Options of fg.compile (entry "compile") or fg.runtime ("runtime"): the
-- field list and each value's rule come from the C core, shared with fg.pack.
local function check_opts(add, opts, entry)
  if type(opts) ~= "table" then add("opts: expected a table, got %s", type(opts)) return end
  local fields = core.options[entry]
  if not fields then error("schema: unknown entry point '" .. tostring(entry) .. "' (compile or runtime)", 3) end
  unknown_fields(add, "opts", opts, fields)
  -- solver and profile first: the order these messages always came in
  local order = { "solver", "profile" }
  for _, k in ipairs(fields) do if k ~= "solver" and k ~= "profile" then order[#order + 1] = k end end
  for _, k in ipairs(order) do
    local v = opts[k]
    if v ~= nil then
      local problem = core.check_option(k, v)
      if problem then add("%s", problem) end
    end
  end
  check_dims(add, "opts.dimensions", opts.dimensions)
  check_resolutions(add, "opts.resolutions", opts.resolutions)
end

-- Returns the list of problems (empty when fine). entry: "compile" (the
-- default) or "runtime", whose options differ.
function M.problems(pipeline, opts, entry)
  local list, add = collector()
  if type(pipeline) ~= "table" then
    add("pipeline: expected a table, got %s", type(pipeline))
    return list
  end
  unknown_fields(add, "pipeline", pipeline, pipeline_fields)
  if pipeline.name ~= nil and type(pipeline.name) ~= "string" then add("pipeline: name must be a string") end
  check_name(add, "pipeline", "pipeline", pipeline.name)
  check_dims(add, "dimensions", pipeline.dimensions)
  check_resolutions(add, "resolutions", pipeline.resolutions)
  if type(pipeline.outputs) == "string" then
    add("outputs: expected a list of resource names, got the string '%s' (write outputs = { \"%s\" })",
        shown(pipeline.outputs), shown(pipeline.outputs))
  elseif pipeline.outputs ~= nil then
    check_names(add, "outputs", pipeline.outputs, "resource")
  end
  if pipeline.external ~= nil then
    if type(pipeline.external) ~= "table" then add("external must be a table name = {format=, size=, provide=}")
    else
      for k in pairs(pipeline.external) do  -- external = { {...} } would be skipped, silently
        if type(k) ~= "string" then add("external: entries must be named (name = {format=, size=, provide=})") break end
      end
      for _, k in ipairs(sorted_keys(pipeline.external)) do
        local e, w = pipeline.external[k], string.format("external '%s'", shown(k))
        check_name(add, "external", "resource", k)
        if type(e) ~= "table" then add("%s: expected a table {format=, size=, provide=}", w)
        else
          unknown_fields(add, w, e, external_fields)
          if e.buffer == nil then check_format(add, w, e.format, false) end
          check_size(add, w, e.size, false)
          if e.multiplex ~= nil then
            check_names(add, w .. ": multiplex", e.multiplex, "dimension")
            check_repeats(add, w .. ": multiplex", e.multiplex, "dimension")
          end
          if e.buffer ~= nil and not is_posint(e.buffer) then
            add("%s: buffer must be a positive integer number of bytes, got %s", w, tostring(e.buffer))
          end
          for _, f in ipairs(count_fields) do
            if e[f] ~= nil and not is_posint(e[f]) then
              add("%s: %s must be a positive integer, got %s", w, f, tostring(e[f]))
            end
          end
          if e.provide ~= nil and type(e.provide) ~= "function" then add("%s: provide must be a function(index)", w) end
        end
      end
    end
  end
  if type(pipeline.nodes) ~= "table" then
    add("pipeline: nodes must be a list of node tables, got %s", type(pipeline.nodes))
  else
    if not is_array(pipeline.nodes) then add("pipeline: nodes must be a list (array), not a map") end
    local seen = {}
    for i, n in ipairs(pipeline.nodes) do
      check_node(add, n, i, pipeline.dimensions or {})
      -- the same words as the C compiler's check: an incremental update
      -- (graph:update) matches nodes by name, so it must never see two
      local name = type(n) == "table" and n.name or nil
      if type(name) == "string" then
        if seen[name] then
          add("node '%s' is declared twice (nodes #%d and #%d): node names must be unique", name, seen[name], i)
        else
          seen[name] = i
        end
      end
    end
  end
  if opts ~= nil then check_opts(add, opts, entry or "compile") end
  return list
end

function M.check(pipeline, opts, entry)
  local list = M.problems(pipeline, opts, entry)
  if #list > 0 then error(table.concat(list, "\n"), 0) end
  return true
end

return M
