-- One rule for option tables across the Lua layer: nil is {}, anything but a
-- table raises, and a key the entry point does not take raises naming the
-- ones it does (a misspelt option would otherwise be ignored in silence).
local M = {}

-- opts: the caller's table (or nil); where: "fg.vulkan" and the like;
-- allowed: a set of the keys taken. Raises at the level of whoever called
-- the entry point that calls this.
function M.check(opts, where, allowed)
  if opts == nil then return {} end
  if type(opts) ~= "table" then
    error(("%s: options must be a table, got %s"):format(where, type(opts)), 3)
  end
  -- a proxy's __pairs could hide the keys checked here from the reads that
  -- follow (through __index): options are plain tables, as in the C bindings
  if getmetatable(opts) ~= nil then
    error(("%s: options are a table with a metatable; give a plain table"):format(where), 3)
  end
  for k in pairs(opts) do
    if not allowed[k] then
      local names = {}
      for n in pairs(allowed) do names[#names + 1] = n end
      table.sort(names)
      error(("%s: unknown option '%s' (known: %s)"):format(where, tostring(k), table.concat(names, ", ")), 3)
    end
  end
  return opts
end

return M
