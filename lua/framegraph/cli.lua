-- framegraph.cli: the `framegraph` command (bin/framegraph).
--   framegraph report PIPELINE.lua [-o report.html] [--profile nvidia|lavapipe] [--solver NAME] [--title TEXT] [--no-graphviz]
--   framegraph check  PIPELINE.lua... [--profile nvidia|lavapipe] [--solver NAME] [--strict]
-- Both compile the pipeline with the C core only: no GPU, no Vulkan device.
-- Both run the pipeline file in a sandbox (framegraph.sandbox: no process,
-- no file writing, no native module, an instruction limit) unless --trust.
-- main(args) returns the exit status: 0 clean, 1 problems, 2 usage errors.
local source = require("framegraph.source")

local M = {}

local usage = [[
usage: framegraph report PIPELINE.lua [-o report.html] [--profile nvidia|lavapipe] [--solver NAME]
                         [--title TEXT] [--no-graphviz] [--render] [--device gpu|software] [--trust]
       framegraph check  PIPELINE.lua... [--profile nvidia|lavapipe] [--solver NAME] [--strict] [--trust]
       framegraph view   PIPELINE.lua [--output NAME] [--size WxH] [--device gpu|software]
                         [--frames N --screenshot out.png] ...   (framegraph view --help)

report  compiles the pipeline without a GPU and writes one self-contained HTML page:
        memory timeline (SVG), graph picture, stats, culled and broken nodes; --render
        adds an X-ray of a frame run on a Vulkan device (every texture at its last write).
check   prints every problem as file:line: message and exits 1 when there is one
        (broken nodes are problems; culled nodes are warnings, problems with --strict),
        and one "ok: FILE, N nodes, HEAP, saves P %" line per good file.
        Both run the pipeline file in a sandbox: no commands, no file writing, no
        native modules, require only framegraph and Lua files beside it, and a limit
        on Lua instructions. --trust runs it with the full library (your own files).
        A pipeline file must be a regular file, with --trust too: a fifo (<(...)),
        /dev/zero, a socket or a directory is refused (its read could block for good).
view    a live window onto the pipeline, reloaded on save (docs/viewer.md).
Exit status: 0 clean, 1 problems, 2 usage error.]]

-- ---------------------------------------------------------------- lines

local function escape_pattern(s) return (s:gsub("[%^%$%(%)%%%.%[%]%*%+%-%?]", "%%%0")) end

-- ---------------------------------------------------------------- loading

-- A runner with xpcall's shape: the sandbox's (instruction limit) or, with
-- --trust, xpcall itself.
local function runner(path, trust)
  if trust then return nil, xpcall end
  local env, run = require("framegraph.sandbox").new(path)
  return env, run
end

-- The message handler of a pipeline file's run: every message names the
-- user's file and line. An error raised outside the file (in framegraph's own
-- modules, or with level 0) gets the file's innermost line in front; one that
-- looks like device work without a device says so.
local function file_error(path)
  return function(e)
    if type(e) ~= "string" then e = tostring(e) end
    local tb = debug.traceback("", 2)
    local line = tb:match(escape_pattern(path) .. ":(%d+):")
    if e:find("^" .. escape_pattern(path) .. ":%d+:") then return e end
    local hint = ""
    if e:find("device", 1, true) or e:find("nil", 1, true) then
      hint = " (the file ran without a device: framegraph check and report plan without a GPU, so the "
        .. "chunk's `...` is nil; guard device work such as fg.shader with `if dev then ... end`)"
    end
    return string.format("%s:%s: %s%s", path, line or "1", e, hint)
  end
end

-- Runs the pipeline file: returns the table and the runner, or nil and a list
-- of "file:line: message" problems (syntax and runtime errors carry their line).
local function load_pipeline(path, trust)
  -- a FIFO (or a link to one), /dev/zero, a socket or a directory would block
  -- the read inside C, past every limit: refused with --trust too (a hook
  -- given `<(git show branch:file)` hung for good when nothing wrote it)
  local regular, why = source.regular(path)
  if not regular then return nil, { string.format("%s:1: %s", path, why) } end
  local f = io.open(path, "rb")
  if not f then return nil, { string.format("%s:1: cannot read the pipeline file", path) } end
  f:close()
  local env, run = runner(path, trust)
  local chunk, err
  if env then chunk, err = loadfile(path, "t", env) else chunk, err = loadfile(path, "t") end
  if not chunk then return nil, { err } end
  local ok, res = run(chunk, file_error(path))
  if not ok then return nil, { res } end
  if type(res) ~= "table" then
    return nil, { string.format("%s:1: the file must return a pipeline table {nodes = {...}}, it returned %s", path,
                                type(res)) }
  end
  return res, run
end

-- ---------------------------------------------------------------- options

local function parse(args, allowed, many)
  local o = { files = {}, many = many }
  local i = 1
  while i <= #args do
    local a = args[i]
    local key = allowed[a]
    if key == true then
      o[a:gsub("^%-+", ""):gsub("%-", "_")] = true
    elseif key then
      local v = args[i + 1]
      if v == nil then return nil, a .. " needs a value" end
      o[key] = v
      i = i + 1
    elseif a:sub(1, 1) == "-" and a ~= "-" then
      return nil, "unknown option " .. a
    else
      o.files[#o.files + 1] = a
    end
    i = i + 1
  end
  if #o.files == 0 or (#o.files > 1 and not o.many) then
    return nil, "expected " .. (o.many and "a pipeline file" or "one pipeline file") .. ", got " .. #o.files
  end
  if o.profile and o.profile ~= "nvidia" and o.profile ~= "lavapipe" then
    return nil, "--profile must be nvidia or lavapipe, got " .. o.profile
  end
  if o.solver then
    local known = require("framegraph.schema").solvers
    local ok = false
    for _, s in ipairs(known) do ok = ok or s == o.solver end
    if not ok then return nil, "--solver must be one of " .. table.concat(known, ", ") .. ", got " .. o.solver end
  end
  return o
end

-- Compiles; returns graph, or nil and "file:line: message" problems.
local function compile(path, o)
  local pipeline, run = load_pipeline(path, o.trust)
  if not pipeline then return nil, run end
  local fg = require("framegraph")
  -- under the same limit: the returned table's metamethods are the file's code too
  local ok, res = run(fg.compile, function(e) return e end, pipeline, { profile = o.profile, solver = o.solver })
  if ok then return res, run end
  if tostring(res):find("^" .. escape_pattern(path) .. ": stopped after %d+ million Lua instructions") then
    return nil, { res }
  end
  -- each problem at the line where its subject is written; indented lines explain the one above
  local out = {}
  for msg in require("framegraph.graph").locate(res, pipeline, path):gmatch("[^\n]+") do out[#out + 1] = msg end
  return nil, out
end

-- Broken nodes as problems, culled nodes as warnings.
local function node_findings(path, graph)
  local map = source.map(path)
  local problems, warnings = {}, {}
  for _, n in ipairs(graph:nodes()) do
    -- the line of what the reason names (a read written inside the node), else the node's
    local line = source.line_for(map, ("node '%s': %s"):format(n.name, n.reason or "")) or map.node[n.name] or 1
    if n.state == "broken" then
      problems[#problems + 1] = string.format("%s:%d: node '%s' is broken: %s", path, line, n.name, n.reason)
    elseif n.state == "culled" then
      warnings[#warnings + 1] = string.format("%s:%d: warning: node '%s' is culled: %s", path, line, n.name, n.reason)
    end
  end
  return problems, warnings
end

-- ---------------------------------------------------------------- commands

-- The start both commands share: parse the options, compile the file. The
-- graph and the options, or nil and the exit status (what went wrong is written).
local function open_graph(name, args, options, out, err)
  local o, why = parse(args, options)
  if not o then err:write("framegraph ", name, ": ", why, "\n", usage, "\n") return nil, 2 end
  local graph, problems = compile(o.files[1], o)
  if not graph then
    for _, p in ipairs(problems) do out:write(p, "\n") end
    return nil, 1
  end
  return graph, o, problems  -- the file's runner
end

local function cmd_check(args, out, err)
  local o, why = parse(args, { ["--profile"] = "profile", ["--solver"] = "solver", ["--strict"] = true,
                               ["--trust"] = true }, true)
  if not o then err:write("framegraph check: ", why, "\n", usage, "\n") return 2 end
  local status = 0
  for _, path in ipairs(o.files) do
    local graph, problems = compile(path, o)
    local run = graph and problems
    local ok, bad, warnings
    -- still under the file's limit: the graph keeps the file's tables (and
    -- their metamethods, which are the file's code)
    if graph then ok, bad, warnings = run(node_findings, function(e) return e end, path, graph) end
    if graph and not ok then graph:close() graph, problems = nil, { bad } end
    if not graph then
      for _, p in ipairs(problems) do out:write(p, "\n") end
      status = 1
    else
      local s, nodes = graph:stats(), #graph:nodes()
      graph:close()
      for _, p in ipairs(bad) do out:write(p, "\n") end
      for _, w in ipairs(warnings) do out:write(w, "\n") end
      if #bad > 0 or (o.strict and #warnings > 0) then
        status = 1
      else
        -- one line per good file, so a hook checking many files shows each was seen
        out:write(string.format("ok: %s, %d node%s, %s, saves %.0f %%\n", path, nodes, nodes == 1 and "" or "s",
                                require("framegraph.report").bytes(s.heap_bytes),
                                s.naive_bytes > 0 and (1 - s.heap_bytes / s.naive_bytes) * 100 or 0))
      end
    end
  end
  return status
end

local function cmd_report(args, out, err)
  local graph, o, run = open_graph("report", args, { ["-o"] = "output", ["--output"] = "output", ["--profile"] = "profile",
                                                ["--solver"] = "solver", ["--title"] = "title", ["--no-graphviz"] = true,
                                                ["--render"] = true, ["--device"] = "device", ["--trust"] = true },
                              out, err)
  if not graph then return o end
  local path = o.files[1]
  local report = require("framegraph.report")
  local target = o.output or "report.html"
  -- under the file's limit: the page reads the pipeline's own tables
  local rok, ok, werr = run(report.write_html, function(e) return e end, graph, target,
                            { title = o.title, source = path, graphviz = not o.no_graphviz,
                              render = o.render, device = o.device })
  if not rok then out:write(tostring(ok), "\n") graph:close() return 1 end
  if not ok then err:write("framegraph report: ", werr, "\n") graph:close() return 1 end
  local s = graph:stats()
  out:write(string.format("%s: %s with aliasing, %s without (saves %.1f%%), LOAD %s; %d culled, %d broken nodes\n",
                          target, report.bytes(s.heap_bytes), report.bytes(s.naive_bytes),
                          s.naive_bytes > 0 and (1 - s.heap_bytes / s.naive_bytes) * 100 or 0,
                          report.bytes(s.load_bytes), s.nodes_culled, s.nodes_broken))
  graph:close()
  return 0
end

-- main(args [, stdout, stderr]) -> exit status
function M.main(args, out, err)
  out, err = out or io.stdout, err or io.stderr
  local cmd = args[1]
  local rest = table.move(args, 2, #args, 1, {})
  if cmd == "check" then return cmd_check(rest, out, err) end
  if cmd == "report" then return cmd_report(rest, out, err) end
  if cmd == "view" then return require("framegraph.view").main(rest) end
  if cmd == "help" or cmd == "-h" or cmd == "--help" then out:write(usage, "\n") return 0 end
  err:write(cmd and ("framegraph: unknown command '" .. cmd .. "'\n") or "", usage, "\n")
  return 2
end

return M
