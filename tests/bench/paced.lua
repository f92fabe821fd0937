-- wrk at a fixed request rate, evenly spaced: the load of bench_http's fixed-rate rows.
--
-- hey -q paces each of its connections with its own ticker, and every ticker starts at the
-- same instant: "200 req/s" over 100 connections at 2 req/s each is 100 requests sent at
-- once every half second (its -o csv offsets show it), so its p99 was the time the server
-- takes to drain a burst of 100, whatever the rate. Here each wrk thread hands out send
-- times one interval apart to whichever of its connections is free (the threads interleaved),
-- so the requests arrive evenly at RATE a second. A connection still waits for its answer
-- before it sends again: when the server falls behind, the requests due meanwhile go out
-- as soon as connections free up, and "sent/s" falls below the rate.
--
-- Environment: WRK_RATE (requests a second, all threads), WRK_THREADS (wrk's -t), and for a
-- request with a body WRK_METHOD and WRK_BODY (sent as application/json).
-- Prints one line: "paced sent=<n> 1xx=.. 2xx=.. 3xx=.. 4xx=.. 5xx=.. none=<socket errors>
-- p50_ms=.. p99_ms=.."

local ffi = require("ffi")
ffi.cdef [[
  typedef struct { long tv_sec; long tv_nsec; } paced_timespec;
  int clock_gettime(int clk_id, paced_timespec *tp);
]]
local ts = ffi.new("paced_timespec[1]")
local function now_ms()
  ffi.C.clock_gettime(1, ts) -- CLOCK_MONOTONIC
  return tonumber(ts[0].tv_sec) * 1000 + tonumber(ts[0].tv_nsec) / 1e6
end

wrk.method = os.getenv("WRK_METHOD") or "GET"
if os.getenv("WRK_BODY") then
  wrk.body = os.getenv("WRK_BODY")
  wrk.headers["Content-Type"] = "application/json"
end

local threads = {}
local created = 0

function setup(thread)
  thread:set("index", created)
  created = created + 1
  table.insert(threads, thread)
end

function init(args)
  local rate = tonumber(os.getenv("WRK_RATE"))
  local count = tonumber(os.getenv("WRK_THREADS") or "1")
  interval = 1000 * count / rate -- ms between two sends of this thread
  -- the threads' send times interleave: thread i starts i/count of an interval later
  slot = now_ms() + 50 + interval * index / count
  c1, c2, c3, c4, c5 = 0, 0, 0, 0, 0
end

function delay()
  local wait = slot - now_ms()
  slot = slot + interval
  if wait < 0 then return 0 end
  return math.floor(wait + 0.5)
end

function response(status, headers, body)
  if status < 200 then c1 = c1 + 1
  elseif status < 300 then c2 = c2 + 1
  elseif status < 400 then c3 = c3 + 1
  elseif status < 500 then c4 = c4 + 1
  else c5 = c5 + 1 end
end

function done(summary, latency, requests)
  local n = { 0, 0, 0, 0, 0 }
  for _, thread in ipairs(threads) do
    n[1] = n[1] + thread:get("c1")
    n[2] = n[2] + thread:get("c2")
    n[3] = n[3] + thread:get("c3")
    n[4] = n[4] + thread:get("c4")
    n[5] = n[5] + thread:get("c5")
  end
  local e = summary.errors
  local none = e.connect + e.read + e.write + e.timeout
  io.write(string.format(
    "paced sent=%d seconds=%.3f 1xx=%d 2xx=%d 3xx=%d 4xx=%d 5xx=%d none=%d p50_ms=%.2f p99_ms=%.2f\n",
    summary.requests, summary.duration / 1e6, n[1], n[2], n[3], n[4], n[5], none,
    latency:percentile(50.0) / 1000, latency:percentile(99.0) / 1000))
end
