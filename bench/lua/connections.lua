-- Per-connection progress check for bench/run.sh.
--
-- wrk's Lua API cannot tell connections apart, but its state is per thread
-- and wrk gives each thread connections/threads connections. bench/run.sh
-- therefore runs this script with as many threads as connections
-- (wrk -tN -cN): one thread = one keep-alive connection, and the per-thread
-- counters below are per-connection counters.
--
-- Why it is needed: wrk only notices a slow request when its response finally
-- arrives, so a connection that never gets an answer (a Poco server with fewer
-- worker threads than keep-alive connections, see stack-facts.md) is
-- invisible in wrk's own report: no timeout, no error, just fewer requests.
--
-- For each connection it records the responses, the non-2xx responses and
-- the longest wait without a response (from the thread's start to the first
-- response, between responses, and from the last response to the end of the
-- run). A connection is "starved" with no response at all and "stalled" when
-- that longest wait exceeds BENCH_MAX_GAP_MS. Same environment as measure.lua
-- ("{seq}" in BENCH_BODY included); a status outside 200-299, or other than
-- BENCH_EXPECT_STATUS when that is set, counts as non2xx.

local ffi = require("ffi")
ffi.cdef [[
  typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
  int clock_gettime(int clock_id, bench_timespec *tp);
]]
local CLOCK_MONOTONIC = 1  -- shared by every thread, and by the main state
local ts = ffi.new("bench_timespec")
local function now_ms()
  ffi.C.clock_gettime(CLOCK_MONOTONIC, ts)
  return tonumber(ts.tv_sec) * 1000 + tonumber(ts.tv_nsec) / 1e6
end

local method = os.getenv("BENCH_METHOD") or ""
local token = os.getenv("BENCH_TOKEN") or ""
local body = os.getenv("BENCH_BODY") or ""
local max_gap_ms = tonumber(os.getenv("BENCH_MAX_GAP_MS") or "2000")
local nonce = os.getenv("BENCH_NONCE") or "c"
local expect = tonumber(os.getenv("BENCH_EXPECT_STATUS") or "")

if method ~= "" then wrk.method = method end
if token ~= "" then wrk.headers["Authorization"] = "Bearer " .. token end
if body ~= "" then
  wrk.body = body
  wrk.headers["Content-Type"] = "application/json"
end

-- Main state: keep every thread so done() can read its counters.
local threads = {}
function setup(thread)
  table.insert(threads, thread)
  thread:set("thread_number", #threads)
end

-- Thread state (globals, read back with thread:get()).
responses, non2xx, max_gap, started, last = 0, 0, 0, 0, 0
thread_number, sent = 0, 0

local shared = dofile((os.getenv("BENCH_LUA_DIR") or "bench/lua") .. "/requests.lua")
request = shared.request_function(body, nonce)

function init(args)
  started = now_ms()
  last = started
end

function response(status, headers, body)
  local t = now_ms()
  if t - last > max_gap then max_gap = t - last end
  last = t
  responses = responses + 1
  if expect then
    if status ~= expect then non2xx = non2xx + 1 end
  elseif status < 200 or status > 299 then
    non2xx = non2xx + 1
  end
end

function done(summary, latency, requests)
  local finished = now_ms()
  local counts = {}
  local starved, stalled, bad, worst_gap, starved_ids = 0, 0, 0, 0, {}
  for i, thread in ipairs(threads) do
    local n = thread:get("responses")
    -- The wait after the last response counts too: a connection served at
    -- first and then left waiting is stalled, not fine.
    local gap = math.max(thread:get("max_gap"), finished - thread:get("last"))
    counts[#counts + 1] = n
    bad = bad + thread:get("non2xx")
    if gap > worst_gap then worst_gap = gap end
    if n == 0 then
      starved = starved + 1
      starved_ids[#starved_ids + 1] = tostring(i)
    elseif gap > max_gap_ms then
      stalled = stalled + 1
    end
  end
  table.sort(counts)
  local e = summary.errors
  io.write(string.format(
    "CHECK connections=%d served=%d starved=%d stalled=%d min=%d median=%d max=%d " ..
    "worst_gap_ms=%.0f max_gap_ms=%d non2xx=%d connect=%d read=%d write=%d timeout=%d " ..
    "starved_ids=%s\n",
    #counts, #counts - starved, starved, stalled, counts[1] or 0,
    counts[math.floor((#counts + 1) / 2)] or 0, counts[#counts] or 0,
    worst_gap, max_gap_ms, bad, e.connect, e.read, e.write, e.timeout,
    #starved_ids > 0 and table.concat(starved_ids, ",") or "-"))
end
