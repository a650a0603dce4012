package dev.idempotency.bench.http;

/**
 * What one load phase measured.
 *
 * @param requested      requests the phase was asked to send
 * @param succeeded      answers with the expected status
 * @param errors         other statuses and I/O failures
 * @param replayed       answers carrying {@code Idempotent-Replayed: true}
 * @param elapsedNanos   from the first request's start to the last answer
 * @param latencies      latency of each successful request in nanoseconds, sorted
 * @param targetRate     the open-loop rate, 0 for a closed loop
 * @param firstError     a sample error, or {@code null}
 * @param timeCapped     the time limit stopped the phase before every request was sent
 */
public record LoadResult(int requested, int succeeded, int errors, int replayed, long elapsedNanos,
                         long[] latencies, double targetRate, String firstError, boolean timeCapped) {

    /** Several phases as one: counts and times added, latencies pooled. */
    public static LoadResult merge(java.util.List<LoadResult> parts) {
        int requested = 0;
        int succeeded = 0;
        int errors = 0;
        int replayed = 0;
        long elapsed = 0;
        String firstError = null;
        boolean capped = false;
        for (LoadResult p : parts) {
            requested += p.requested;
            succeeded += p.succeeded;
            errors += p.errors;
            replayed += p.replayed;
            elapsed += p.elapsedNanos;
            firstError = firstError != null ? firstError : p.firstError;
            capped |= p.timeCapped;
        }
        long[] latencies = parts.stream().flatMapToLong(p -> java.util.Arrays.stream(p.latencies)).sorted().toArray();
        return new LoadResult(requested, succeeded, errors, replayed, Math.max(1, elapsed), latencies,
                parts.isEmpty() ? 0 : parts.get(0).targetRate, firstError, capped);
    }

    /** Answers per second, errors included (each was a full round trip). */
    public double throughput() {
        return (succeeded + errors) * 1e9 / elapsedNanos;
    }

    /** The latency at quantile {@code q} (0..1) in milliseconds; NaN when nothing succeeded. */
    public double latencyMillis(double q) {
        if (latencies.length == 0) {
            return Double.NaN;
        }
        int index = (int) Math.ceil(q * latencies.length) - 1;
        return latencies[Math.max(0, Math.min(latencies.length - 1, index))] / 1e6;
    }
}
