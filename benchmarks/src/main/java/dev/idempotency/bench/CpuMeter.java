package dev.idempotency.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;

/**
 * CPU time of processes from {@code /proc/<pid>/stat} (user + system, all threads), in
 * nanoseconds: where a request's CPU goes — the service's JVM, its PostgreSQL backends, the load
 * generator. The kernel counts in clock ticks (10 ms), so it is read around phases of thousands
 * of requests, never around one. Zero where {@code /proc} is missing or the process is gone.
 */
final class CpuMeter {

    private static final long NANOS_PER_TICK = 10_000_000L; // USER_HZ is 100 on Linux

    private CpuMeter() {
    }

    static long cpuNanos(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // the command name (field 2) may hold spaces; the fields after it are space-separated
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * NANOS_PER_TICK; // utime, stime
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    static long cpuNanos(Collection<Long> pids) {
        long sum = 0;
        for (long pid : pids) {
            sum += cpuNanos(pid);
        }
        return sum;
    }

    static long selfNanos() {
        return cpuNanos(ProcessHandle.current().pid());
    }
}
