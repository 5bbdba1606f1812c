-- GET /trips/:code for random codes of the 100,000 seeded trips.
dofile("Scripts/wrk/report.lua")
local rows = tonumber(os.getenv("TRIP_ROWS") or "100000")
math.randomseed(os.time() + math.floor(os.clock() * 1000000))
request = function()
    return wrk.format("GET", string.format("/trips/T%06d", math.random(1, rows)))
end
