-- PUT /trips: nine in ten update a random seeded trip, one in ten inserts a trip with a new code.
dofile("Scripts/wrk/report.lua")
local rows = tonumber(os.getenv("TRIP_ROWS") or "100000")
math.randomseed(os.time() + math.floor(os.clock() * 1000000))
local headers = { ["Content-Type"] = "application/json" }
request = function()
    local number = math.random(1, rows)
    if math.random(1, 10) == 1 then number = math.random(rows + 1, 99999999) end
    local body = string.format('{"code":"T%06d","name":"Trip %d","rating":%d}', number, number, math.random(0, 99))
    return wrk.format("PUT", "/trips", headers, body)
end
