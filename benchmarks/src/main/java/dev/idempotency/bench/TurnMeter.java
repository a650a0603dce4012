package dev.idempotency.bench;

import dev.idempotency.bench.jdbc.Counters;
import dev.idempotency.bench.redis.RedisProbe;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a service used during one turn: its JDBC counts, the CPU time of it, its PostgreSQL
 * backends, the load generator and Redis ({@link CpuMeter}), the TCP segments it sent to
 * PostgreSQL and Redis ({@link SocketMeter}, when a run has stores beyond {@code jdbc}) and the
 * commands Redis executed ({@code redis} rows). {@link #start} before a turn, {@link Reading#stop}
 * after it; the CPU is read closest to the turn.
 */
final class TurnMeter implements AutoCloseable {

    /**
     * CPU time spent during a phase, in nanoseconds; {@code serviceJit} is the part of
     * {@code service} that the service's JIT compiler threads spent.
     */
    record Cpu(long service, long database, long loadGenerator, long serviceJit, long redis) {
        Cpu plus(Cpu o) {
            return new Cpu(service + o.service, database + o.database, loadGenerator + o.loadGenerator,
                    serviceJit + o.serviceJit, redis + o.redis);
        }

        Cpu minus(Cpu o) {
            return new Cpu(service - o.service, database - o.database, loadGenerator - o.loadGenerator,
                    serviceJit - o.serviceJit, redis - o.redis);
        }
    }

    /**
     * What one or more turns used; a segment count is -1 when not measured, {@code redisCalls} is
     * per command and empty unless the service runs on Redis.
     */
    record Usage(Counters.Snapshot jdbc, Cpu cpu, long pgSegments, long redisSegments, Map<String, Long> redisCalls) {

        Usage plus(Usage o) {
            Map<String, Long> calls = new LinkedHashMap<>(redisCalls);
            o.redisCalls.forEach((command, n) -> calls.merge(command, n, Long::sum));
            return new Usage(jdbc.plus(o.jdbc), cpu.plus(o.cpu), sum(pgSegments, o.pgSegments),
                    sum(redisSegments, o.redisSegments), calls);
        }

        private static long sum(long a, long b) {
            return a < 0 ? b : b < 0 ? a : a + b;
        }
    }

    private final BenchDatabase database;
    private final boolean segments;
    private final int redisPort;
    /** The runner's connection to Redis, when a {@code redis} row runs. */
    private final RedisProbe redis;
    private final long redisPid;

    private TurnMeter(BenchDatabase database, boolean segments, int redisPort, RedisProbe redis, long redisPid) {
        this.database = database;
        this.segments = segments;
        this.redisPort = redisPort;
        this.redis = redis;
        this.redisPid = redisPid;
    }

    /** Connects to the Redis server of {@link Options#redisUrl()} when {@link Options#stores()} has {@code redis}. */
    static TurnMeter open(Options options, BenchDatabase database) {
        int port = java.net.URI.create(options.redisUrl()).getPort();
        boolean segments = !options.stores().equals(List.of(BenchStore.JDBC));
        if (!options.stores().contains(BenchStore.REDIS)) {
            return new TurnMeter(database, segments, port < 0 ? 6379 : port, null, -1);
        }
        RedisProbe redis = RedisProbe.connect(options.redisUrl());
        long pid = redis.processId();
        if (CpuMeter.cpuNanos(pid) == 0) {
            Progress.say("redis-server (pid %d as it reports it) is not visible in /proc: its CPU is not counted", pid);
            pid = -1;
        }
        return new TurnMeter(database, segments, port < 0 ? 6379 : port, redis, pid);
    }

    /** E.g. {@code Redis 7.0.15 at redis://127.0.0.1:6379}, or {@code null} without Redis. */
    String redisDescription(Options options) {
        return redis == null ? null
                : "Redis " + redis.version() + " at " + options.redisUrl().replaceFirst("://[^@/]*@", "://");
    }

    /** The readings before a turn of {@code service}. */
    Reading start(HttpServices.Service service) throws SQLException {
        return new Reading(service);
    }

    /** The readings taken before a turn. */
    final class Reading {
        private final HttpServices.Service service;
        private final List<Long> backends;
        private final long pid;
        private final Map<String, Long> pgSockets;
        private final Map<String, Long> redisSockets;
        private final Counters.Snapshot jdbc;
        private final Map<String, Long> redisCalls;
        private final Cpu cpu;

        private Reading(HttpServices.Service service) throws SQLException {
            this.service = service;
            backends = database.backendPids(service.applicationName());
            pid = service.server().pid();
            boolean onRedis = service.store() == BenchStore.REDIS;
            pgSockets = segments ? SocketMeter.segmentsTo(pid, database.port()) : null;
            redisSockets = segments && onRedis ? SocketMeter.segmentsTo(pid, redisPort) : null;
            jdbc = service.counters().snapshot();
            redisCalls = onRedis ? redis.commandCalls() : null;
            cpu = cpu();
        }

        /** What the service used since this reading. */
        Usage stop() {
            Cpu used = cpu().minus(cpu);
            long pg = pgSockets == null ? -1 : SocketMeter.delta(SocketMeter.segmentsTo(pid, database.port()), pgSockets);
            long toRedis = redisSockets == null ? -1 : SocketMeter.delta(SocketMeter.segmentsTo(pid, redisPort), redisSockets);
            Map<String, Long> calls = redisCalls == null ? Map.of() : redisCallsMinus(redis.commandCalls(), redisCalls);
            return new Usage(service.counters().snapshot().minus(jdbc), used, pg, toRedis, calls);
        }

        private Cpu cpu() {
            long redisCpu = service.store() == BenchStore.REDIS && redisPid > 0 ? CpuMeter.cpuNanos(redisPid) : 0;
            return new Cpu(CpuMeter.cpuNanos(pid), CpuMeter.cpuNanos(backends), CpuMeter.selfNanos(),
                    CpuMeter.jitCompilerNanos(pid), redisCpu);
        }
    }

    /** What the server executed in between, per command; the runner's own {@code INFO} calls left out. */
    private static Map<String, Long> redisCallsMinus(Map<String, Long> after, Map<String, Long> before) {
        Map<String, Long> delta = new TreeMap<>();
        after.forEach((command, calls) -> {
            long d = calls - before.getOrDefault(command, 0L);
            if (d > 0 && !command.equals("info")) {
                delta.put(command, d);
            }
        });
        return delta;
    }

    @Override
    public void close() {
        if (redis != null) {
            redis.close();
        }
    }
}
