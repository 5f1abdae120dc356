-- The request shapes of a scenario, for measure.lua (loaded with dofile from
-- BENCH_LUA_DIR, which bench/run.sh sets).
--
--   BENCH_BODY    every "{seq}" in it is replaced, per request, by a value
--                 unique within the run: BENCH_NONCE-<wrk thread>-<request number>
--   BENCH_PATHS   optional: several paths, one per line; request k of a thread
--                 goes to path (offset + k) mod n, each thread starting at its
--                 own offset, so threads work on different records
--   BENCH_BODIES  optional, with BENCH_PATHS: several bodies, one per line,
--                 taken in turn each time the thread's walk through the paths
--                 wraps around (a deal moved to stage B, then back to A: every
--                 request is a real change)
--
-- Uses the thread globals `thread_number` and `sent` of the calling script.
local M = {}

local function lines(text)
  local out = {}
  for line in (text or ""):gmatch("[^\n]+") do table.insert(out, line) end
  return out
end

-- The request() function for this shape, or nil when every request is the
-- same (wrk then formats it once per thread and Lua stays out of the way).
function M.request_function(body, nonce)
  local paths, bodies = lines(os.getenv("BENCH_PATHS")), lines(os.getenv("BENCH_BODIES"))
  if #paths > 0 then
    if #bodies == 0 then bodies = {body} end
    return function()
      sent = sent + 1
      local step = (thread_number - 1) * 7919 + sent - 1  -- 7919: a prime offset per thread
      local chosen = bodies[math.floor(step / #paths) % #bodies + 1]
      return wrk.format(nil, paths[step % #paths + 1], nil, chosen ~= "" and chosen or nil)
    end
  end
  if body:find("{seq}", 1, true) then
    return function()
      sent = sent + 1
      local seq = nonce .. "-" .. thread_number .. "-" .. sent
      return wrk.format(nil, nil, nil, (body:gsub("{seq}", seq)))
    end
  end
  return nil
end

return M
