package dev.idempotency.bench;

import dev.idempotency.bench.http.ExampleServer;
import dev.idempotency.bench.jdbc.Counters;
import dev.idempotency.bench.jdbc.CountingDriver;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Starts the example services of a group of {@link HttpCase}s: one per mode and store, side by
 * side, each in a schema of its own with the settings of its mode and store, and checked to run
 * on the store asked for. The caller closes them.
 */
final class HttpServices {

    /** A running service, its JDBC counters and the name its database connections carry. */
    record Service(ExampleServer server, Counters counters, String applicationName, BenchStore store) {
    }

    private final Options options;
    private final BenchDatabase database;
    private final Path workDir;
    private final String runId;
    private final String redisPrefix;

    /** {@code runId} names the schemas and connections; {@code redisPrefix} starts every Redis key. */
    HttpServices(Options options, BenchDatabase database, Path workDir, String runId, String redisPrefix) {
        this.options = options;
        this.database = database;
        this.workDir = workDir;
        this.runId = runId;
        this.redisPrefix = redisPrefix;
    }

    /**
     * Starts one service per mode and store, side by side; one that does not start is recorded in
     * {@code unavailable}, as is one whose start-up line names another store than asked for (an
     * example without store selection ignores {@code IDEMPOTENCY_STORE} and {@code REDIS_URL}).
     */
    Map<HttpCase, Service> start(String framework, List<HttpCase> cases, Map<HttpCase, String> unavailable)
            throws SQLException, IOException {
        Map<HttpCase, Supplier<Service>> starters = new LinkedHashMap<>();
        for (HttpCase mode : cases.stream().map(HttpCase::service).distinct().toList()) {
            String name = framework + "-" + mode.name();
            String schema = database.createSchema(("bench_" + runId + "_" + name).replace('-', '_'));
            Path countersFile = workDir.resolve(name + ".counters");
            Files.deleteIfExists(countersFile);
            Counters counters = Counters.mapped(countersFile);
            String applicationName = "bench-" + runId + "-" + name;
            Map<String, String> env = new HashMap<>(mode.config().env());
            env.put("PORT", "0");
            if (!framework.equals("quarkus")) {
                // Quarkus reads IDEMPOTENCY_STORE as idempotency.store and refuses to start on that unknown
                // key; its example picks the store from REDIS_URL (redis, else jdbc), and wrongStore checks it
                env.put("IDEMPOTENCY_STORE", mode.store().label());
            }
            // the reactive stores, WebFlux and Quarkus get a plain PostgreSQL URL (see jdbcCounted)
            env.put("DATABASE_URL", jdbcCounted(framework, mode.store())
                    ? database.serviceUrl(schema, applicationName) : database.plainServiceUrl(schema, applicationName));
            if (mode.store() == BenchStore.REDIS) {
                env.put("REDIS_URL", options.redisUrl());
                env.put("REDIS_KEY_PREFIX", redisPrefix + name + ":");
            }
            List<String> jvm = new ArrayList<>(options.serverJvmArgs());
            if (jdbcCounted(framework, mode.store())) {
                // not otherwise: Quarkus refuses to start on a property under its mapped idempotency.*
                jvm.add("-D" + CountingDriver.COUNTERS_PROPERTY + "=" + countersFile);
            }
            if (options.jfr()) {
                jvm.add("-XX:StartFlightRecording=settings=profile," + System.getenv().getOrDefault("BENCH_JFR_EVENTS", "")
                        + "filename=" + workDir.resolve(name + ".jfr"));
            }
            Path log = workDir.resolve(name + ".log");
            starters.put(mode, () -> new Service(
                    ExampleServer.start(options.root(), framework, env, jvm, log, Duration.ofSeconds(90)), counters,
                    applicationName, mode.store()));
        }
        Map<HttpCase, CompletableFuture<Service>> starting = new LinkedHashMap<>();
        starters.forEach((mode, starter) -> starting.put(mode, CompletableFuture.supplyAsync(starter)));
        Map<HttpCase, Service> services = new LinkedHashMap<>();
        starting.forEach((mode, future) -> {
            Path log = workDir.resolve(framework + "-" + mode.name() + ".log");
            try {
                Service service;
                try {
                    service = future.join();
                } catch (RuntimeException e) {
                    Throwable cause = e.getCause() != null ? e.getCause() : e;
                    String output = cause instanceof ExampleServer.StartFailure f ? f.output() : "";
                    if (output.toLowerCase(Locale.ROOT).contains("idempotency_mode")) {
                        throw e;
                    }
                    // e.g. PgStore's pool gives up connecting after 2 s while every service of the
                    // framework starts at once on a busy machine: once more, alone
                    Progress.say("  %s: %s; starting it again, alone", mode.label(), firstLine(cause.getMessage(), output));
                    service = starters.get(mode).get();
                }
                String wrongStore = wrongStore(mode, service);
                if (wrongStore != null) {
                    Progress.say("  %s: %s; see %s", mode.label(), wrongStore, log);
                    service.server().close();
                    unavailable.put(mode, "the service did not select " + mode.store().storeClass());
                    return;
                }
                services.put(mode, service);
            } catch (RuntimeException e) {
                Throwable cause = e.getCause() != null ? e.getCause() : e;
                String output = cause instanceof ExampleServer.StartFailure f ? f.output().toLowerCase(Locale.ROOT) : "";
                boolean refused = output.contains("idempotency_mode") && output.contains(mode.config().label());
                String why = refused ? "not available" : "did not start";
                Progress.say("  %s: %s%s", mode.label(), refused
                        ? "not available (the service refuses IDEMPOTENCY_MODE=" + mode.config().label() + ")"
                        : cause.getMessage(), refused ? "" : "; see " + log);
                unavailable.put(mode, why);
            }
        });
        return services;
    }

    /**
     * Whether the service's JDBC statements go through the counting driver: not for the reactive
     * stores (a plain PostgreSQL URL), nor for WebFlux (its orders go through R2DBC), nor for
     * Quarkus (its class loader keeps the driver from the counting one, see {@link ExampleServer}).
     */
    static boolean jdbcCounted(String framework, BenchStore store) {
        return store != BenchStore.PG && store != BenchStore.R2DBC && !framework.equals("webflux")
                && !framework.equals("quarkus");
    }

    /** The message, and the first line of the service's output that tells why, e.g. its exception. */
    private static String firstLine(String message, String output) {
        for (String line : output.split("\n")) {
            if (line.contains("Exception") || line.contains("Cannot start")) {
                return message + " (" + line.trim() + ")";
            }
        }
        return message;
    }

    /**
     * Why the service's start-up line ({@code ... | idempotency store: PgStore (...) ...}) does not
     * match the case's store, or {@code null} when it does (or names none: {@code off}).
     */
    private static String wrongStore(HttpCase mode, Service service) {
        if (mode.config() == HttpConfig.OFF) {
            return null;
        }
        String log;
        try {
            log = Files.readString(service.server().log());
        } catch (IOException e) {
            return null;
        }
        int at = log.indexOf("idempotency store: ");
        if (at < 0) {
            return null;
        }
        String line = log.substring(at, Math.max(at, log.indexOf('\n', at) < 0 ? log.length() : log.indexOf('\n', at)));
        String expected = mode.store().storeClass();
        boolean other = java.util.Arrays.stream(BenchStore.values()).filter(s -> s != mode.store())
                .anyMatch(s -> line.contains(s.storeClass()));
        if (line.contains(expected) && !other || mode.store() == BenchStore.JDBC && !other) {
            return null;
        }
        return "started on another store than " + expected + " (" + line.replaceFirst(", mode:.*", "") + ")";
    }
}
