-- wrk script: POST /v1/sightings with a batch of 50 new sightings per request (unique client ids),
-- all of beacons on the missing list (major 1, minors 0-49 of the benchmark's UUID).
local counter = 0
local token = os.getenv("BB_SENTINEL_TOKEN")
local threads = {}
local next_id = 0

function setup(thread)
  next_id = next_id + 1
  thread:set("thread_id", next_id)
  table.insert(threads, thread)
end

local template = '{"id":"%08x-0000-4000-8000-%012x","uuid":"B5B182C7-EAB1-4988-AA99-B5C1517008D9","major":1,"minor":%d,' ..
  '"event":"present","time":"%s","firstSeen":"%s","lastSeen":"%s","rssi":-67,"distance":2.5,"zone":"near"}'

function request()
  counter = counter + 1
  local items = {}
  -- Now, not a fixed date: a sighting dated before its sentinel's enrolment is rejected, not stored.
  local now = os.date("!%Y-%m-%dT%H:%M:%SZ")
  for i = 1, 50 do
    items[i] = string.format(template, thread_id, counter * 50 + i, i - 1, now, now, now)
  end
  return wrk.format("POST", "/v1/sightings",
    { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. token },
    '{"sightings":[' .. table.concat(items, ",") .. ']}')
end
