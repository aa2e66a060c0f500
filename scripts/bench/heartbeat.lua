-- wrk script: the sentinels' steady state with heartbeats: GET /v1/missing with If-None-Match (a 304)
-- carrying a Bikebeacon-Heartbeat header, round-robin over the sentinels in BB_SENTINEL_TOKENS
-- (comma-separated), so each request writes its sentinel's one health row as a real network would.
local tokens = {}
for token in string.gmatch(os.getenv("BB_SENTINEL_TOKENS") or "", "[^,]+") do table.insert(tokens, token) end
local etag = os.getenv("BB_ETAG")
local counter = 0
local beat = '{"version":"0.1.0","uptimeSeconds":3600,"backend":"dbus","adapterPresent":true,"adapterPowered":true,' ..
  '"scanning":true,"intervalSeconds":60,"reports":900,"iBeacons":3,"lastReportAgeSeconds":0.5,"missingInRange":0,' ..
  '"outboxDepth":0,"clockOffsetSeconds":0.4,"diskFreeBytes":10000000000,"diskTotalBytes":30000000000}'

function request()
  counter = counter + 1
  local token = tokens[(counter % #tokens) + 1]
  return wrk.format("GET", "/v1/missing",
    { ["Authorization"] = "Bearer " .. token, ["If-None-Match"] = etag, ["Bikebeacon-Heartbeat"] = beat })
end
