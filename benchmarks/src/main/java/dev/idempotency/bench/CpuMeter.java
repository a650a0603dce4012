package dev.idempotency.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.stream.Stream;

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

    /**
     * CPU time of the JIT compiler's threads ({@code C1 CompilerThre…}, {@code C2 CompilerThre…}
     * in {@code /proc/<pid>/task/<tid>/comm}) of a JVM. A compiler thread that ends (with more
     * cores the JVM adds and retires them as the queue grows and drains) takes its time with it;
     * on two cores there is one C1 and one C2 thread, and both stay.
     */
    static long jitCompilerNanos(long pid) {
        long sum = 0;
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                try {
                    String stat = Files.readString(task.resolve("stat"));
                    String comm = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                    if (comm.contains("CompilerThre")) {
                        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                        sum += (Long.parseLong(f[11]) + Long.parseLong(f[12])) * NANOS_PER_TICK;
                    }
                } catch (IOException | RuntimeException e) {
                    // the thread ended in between
                }
            }
        } catch (IOException | RuntimeException e) {
            return 0;
        }
        return sum;
    }

    static long selfNanos() {
        return cpuNanos(ProcessHandle.current().pid());
    }
}
