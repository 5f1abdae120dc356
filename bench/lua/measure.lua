-- Measurement script for bench/run.sh: one request shape per run, read from
-- the environment, and one machine-readable summary line printed by done().
--
--   BENCH_METHOD  GET (default), POST, ...
--   BENCH_TOKEN   bearer token; sent as "Authorization: Bearer <token>" when set
--   BENCH_BODY    request body; sent as JSON when set. "{seq}", BENCH_PATHS
--                 and BENCH_BODIES: see requests.lua
--   BENCH_NONCE   that value's prefix; run.sh passes a different one to every
--                 wrk run (warm-up, measurement) of a scenario
--   BENCH_EXPECT_STATUS  when set (e.g. 201), any other status is counted as
--                 "unexpected" and fails the run
--
-- For a fixed request the script defines neither request() nor response():
-- wrk then formats the request once per thread and never hands responses to
-- Lua, so the load generator spends as little of the shared CPU as possible.
-- That is also why error responses are counted by wrk itself here (status
-- >= 400; a 1xx or 3xx would pass unseen, and every scenario answers 2xx to
-- the curl request run.sh sends first). Only a body with "{seq}" (one body
-- per request) or BENCH_PATHS defines request() (requests.lua), and only
-- BENCH_EXPECT_STATUS defines response().

local method = os.getenv("BENCH_METHOD") or ""
local token = os.getenv("BENCH_TOKEN") or ""
local body = os.getenv("BENCH_BODY") or ""

local nonce = os.getenv("BENCH_NONCE") or "r"
local expect = tonumber(os.getenv("BENCH_EXPECT_STATUS") or "")

if method ~= "" then wrk.method = method end
if token ~= "" then wrk.headers["Authorization"] = "Bearer " .. token end
if body ~= "" then
  wrk.body = body
  wrk.headers["Content-Type"] = "application/json"
end

-- Main state: every thread, so done() can read their counters; each thread
-- gets its number (for "{seq}").
local threads = {}
function setup(thread)
  table.insert(threads, thread)
  thread:set("thread_number", #threads)
end

-- Thread state.
thread_number, sent, unexpected = 0, 0, 0

local shared = dofile((os.getenv("BENCH_LUA_DIR") or "bench/lua") .. "/requests.lua")
request = shared.request_function(body, nonce)

if expect then
  function response(status, headers, response_body)
    if status ~= expect then unexpected = unexpected + 1 end
  end
end

function done(summary, latency, requests)
  local e = summary.errors
  local wrong = 0
  for _, thread in ipairs(threads) do wrong = wrong + thread:get("unexpected") end
  local seconds = summary.duration / 1e6
  -- One line, key=value, parsed by bench/run.sh. Latencies in milliseconds.
  io.write(string.format(
    "BENCH requests=%d seconds=%.3f rps=%.1f p50_ms=%.3f p90_ms=%.3f p99_ms=%.3f max_ms=%.3f " ..
    "non2xx=%d unexpected=%d connect=%d read=%d write=%d timeout=%d\n",
    summary.requests, seconds, summary.requests / seconds,
    latency:percentile(50) / 1000, latency:percentile(90) / 1000,
    latency:percentile(99) / 1000, latency.max / 1000,
    e.status, wrong, e.connect, e.read, e.write, e.timeout))
end
