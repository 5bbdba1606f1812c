-- Prints one machine-readable line at the end of a wrk run, read by servers.sh:
-- RESULT <requests> <duration µs> <p50 µs> <p99 µs> <socket errors> <non-2xx/3xx responses>
done = function(summary, latency, requests)
    local errors = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
    io.write(string.format("RESULT %d %d %d %d %d %d\n", summary.requests, summary.duration,
        latency:percentile(50), latency:percentile(99), errors, summary.errors.status))
end
