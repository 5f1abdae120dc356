-- Measurement script for bench/run.sh: one request shape per run, read from
-- the environment, and one machine-readable summary line printed by done().
--
--   BENCH_METHOD  GET (default), POST, ...
--   BENCH_TOKEN   bearer token; sent as "Authorization: Bearer <token>" when set
--   BENCH_BODY    request body; sent as JSON when set
--
-- The script deliberately defines neither request() nor response(): wrk then
-- formats the request once per thread and never hands responses to Lua, so
-- the load generator spends as little of the shared CPU as possible. That is
-- also why non-2xx responses are counted by wrk itself here (status >= 400);
-- the per-connection check (connections.lua) counts every non-2xx status.

local method = os.getenv("BENCH_METHOD") or ""
local token = os.getenv("BENCH_TOKEN") or ""
local body = os.getenv("BENCH_BODY") or ""

if method ~= "" then wrk.method = method end
if token ~= "" then wrk.headers["Authorization"] = "Bearer " .. token end
if body ~= "" then
  wrk.body = body
  wrk.headers["Content-Type"] = "application/json"
end

function done(summary, latency, requests)
  local e = summary.errors
  local seconds = summary.duration / 1e6
  -- One line, key=value, parsed by bench/run.sh. Latencies in milliseconds.
  io.write(string.format(
    "BENCH requests=%d seconds=%.3f rps=%.1f p50_ms=%.3f p90_ms=%.3f p99_ms=%.3f max_ms=%.3f " ..
    "non2xx=%d connect=%d read=%d write=%d timeout=%d\n",
    summary.requests, seconds, summary.requests / seconds,
    latency:percentile(50) / 1000, latency:percentile(90) / 1000,
    latency:percentile(99) / 1000, latency.max / 1000,
    e.status, e.connect, e.read, e.write, e.timeout))
end
