-- framegraph: public Lua API. Each concern lives in its own module; this file
-- only gathers them into one table (see ../shared/DESIGN.md "Lua API contract").
local fg = { core = require("framegraph.core") }
fg.version = fg.core.version
-- The C core's vocabularies: usages, stages, formats, solvers, profiles (the
-- lists framegraph.schema checks against) and default_alignment.
fg.vocab = fg.core.vocab

local parts = { "framegraph.pack", "framegraph.graph", "framegraph.alloc", "framegraph.vulkan", "framegraph.runtime",
                "framegraph.watch", "framegraph.content" }
for _, modname in ipairs(parts) do
  local ok, part = pcall(require, modname)
  if ok then
    -- a part's private `_` names stay in the part (framegraph.watch reads the
    -- runtime's through require("framegraph.runtime")): none reach fg
    for k, v in pairs(part) do
      if type(k) ~= "string" or k:sub(1, 1) ~= "_" then fg[k] = v end
    end
  elseif not tostring(part):find("module '" .. modname .. "' not found", 1, true) then
    error(part, 0)  -- a real error inside a part must not be hidden
  end
end

return fg
