-- Every runnable example is a pipeline file the tools can open without a
-- device: `framegraph check` (a separate process, no LUA_PATH) accepts it, so
-- `framegraph report`, fg.watch and the viewer can load it from anywhere.
local examples = { deferred = 1, taa = 0, vr = 0, screenshot = 0, split_screen = 0 }

describe("example pipeline files", function()
  for name, want in pairs(examples) do
    it(name .. ".lua passes `framegraph check` as a plain file", function()
      local cmd = ("cd /tmp && env -u LUA_PATH -u LUA_CPATH %s/bin/framegraph check %s/examples/%s.lua 2>&1")
        :format(os.getenv("PWD"), os.getenv("PWD"), name)
      local h = io.popen(cmd)
      local out = h:read("a")
      local _, _, code = h:close()
      -- deferred keeps a broken node on purpose (pruning is part of the tour)
      assert.are.equal(want, code, out)
      assert.falsy(out:find("module 'common' not found", 1, true), out)
    end)
  end
end)
