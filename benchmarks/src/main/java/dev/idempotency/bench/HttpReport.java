package dev.idempotency.bench;

import dev.idempotency.bench.http.LoadResult;
import dev.idempotency.bench.jdbc.Counters;
import dev.idempotency.bench.report.Table;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The report's HTTP section as Markdown: the main table (ratios to {@code off}), the stores side
 * by side (ratios to the pair's JdbcStore), and their {@link Report.Target}s.
 */
final class HttpReport {

    private final Options options;
    private final HttpSuite.Result http;
    private final List<Report.Target> targets;

    /** {@code targets}: the report's list, which {@link #render()} adds to. */
    HttpReport(Options options, HttpSuite.Result http, List<Report.Target> targets) {
        this.options = options;
        this.http = http;
        this.targets = targets;
    }

    /** The section; adds the HTTP targets to the report's list as it goes. */
    String render() {
        StringBuilder out = new StringBuilder("## HTTP: the example services on PostgreSQL\n\n");
        out.append(String.format(Locale.ROOT, """
                `POST /orders` with the README's order body, %d concurrent keep-alive connections, unique keys \
                (replay: one key, completed before the run, repeated by every request; served by the reserve-mode \
                service). One service JVM per mode, each on empty tables of its own, all started and warmed up \
                (%,d requests each) first; then the configurations take turns, %d rounds in rotated order: **req/s** from \
                %,d requests per configuration sent back to back (closed loop), with the JDBC counts of those \
                requests; **p50/p99** from %,d requests per configuration at a fixed rate per framework (open loop, \
                latency counted from when each request was due): %s. Ratios are to `off` (the same routes without the \
                middleware) of the same framework in this run; for latency, below 1.00× is faster. **× off per \
                round**: the lowest and highest ratio of a single round — the spread is the machine's noise.

                """, options.connections(), options.warmupRequests(), options.rounds(), options.requests(),
                options.openLoopRequests(), rates()));
        boolean stores = !options.stores().equals(List.of(BenchStore.JDBC));
        boolean redis = options.stores().contains(BenchStore.REDIS);
        List<String> headers = new ArrayList<>(List.of("framework", "configuration", "store", ">req/s", ">× off",
                ">× off per round", ">× off by CPU", ">p50 ms", ">× off", ">p99 ms", ">× off",
                stores ? ">JDBC round trips/req" : ">round trips/req", stores ? ">JdbcStore stmts/req" : ">store stmts/req",
                stores ? ">JDBC commits/req" : ">commits/req"));
        if (stores) {
            headers.add(">PostgreSQL TCP segs/req");
        }
        if (redis) {
            headers.add(">Redis cmds / TCP segs per req");
        }
        headers.addAll(List.of(">CPU µs/req service / db / load gen", ">errors", "notes"));
        Table table = new Table(headers.toArray(String[]::new));
        for (HttpRow row : mainTableRows()) {
            String storeLabel = row.httpCase().storeLabel();
            if (!row.ran()) {
                table.row(row.framework(), row.config().label(), storeLabel, "n/a (" + row.unavailable() + ")");
                continue;
            }
            Optional<HttpRow> off = off(row.framework());
            // a pair's rows ran in other turns than off, at another open-loop rate: no per-round or latency ratios
            Optional<HttpRow> sameTurns = off.filter(o -> o.group().equals(row.group()));
            LoadResult c = row.capacity();
            LoadResult l = row.latency();
            Counters.Snapshot j = row.jdbc();
            List<String> cells = new ArrayList<>(List.of(row.framework(), row.config().label(), storeLabel,
                    Table.number(c.throughput(), 0),
                    off.map(o -> Table.ratio(c.throughput() / o.capacity().throughput())).orElse(""),
                    sameTurns.filter(o -> o != row).map(o -> roundRange(row, o)).orElse(""),
                    off.map(o -> Table.ratio(cpuPerRequest(o) / cpuPerRequest(row))).orElse(""),
                    Table.number(l.latencyMillis(0.50), 2),
                    sameTurns.map(o -> Table.ratio(l.latencyMillis(0.50) / o.latency().latencyMillis(0.50))).orElse(""),
                    Table.number(l.latencyMillis(0.99), 2),
                    sameTurns.map(o -> Table.ratio(l.latencyMillis(0.99) / o.latency().latencyMillis(0.99))).orElse(""),
                    row.jdbcCounted() ? Table.number(row.perRequest(j.roundTrips()), 2) : "n/a",
                    row.jdbcCounted() && (row.store() == BenchStore.JDBC || row.config() == HttpConfig.OFF)
                            ? Table.number(row.perRequest(j.get(Counters.Slot.STORE_STATEMENTS)), 2) : "n/a",
                    row.jdbcCounted() ? Table.number(row.perRequest(j.get(Counters.Slot.COMMITS)), 2) : "n/a"));
            if (stores) {
                cells.add(row.pgSegments() < 0 ? "" : Table.number(row.perRequest(row.pgSegments()), 2));
            }
            if (redis) {
                cells.add(row.store() == BenchStore.REDIS && row.config() != HttpConfig.OFF
                        ? Table.number(row.redisCommandsPerRequest(), 2) + " / "
                        + (row.redisSegments() < 0 ? "n/a" : Table.number(row.perRequest(row.redisSegments()), 2)) : "");
            }
            cells.addAll(List.of(cpu(row), Integer.toString(c.errors() + l.errors()), notes(row)));
            table.row(cells.toArray(String[]::new));
        }
        out.append(table.render());
        if (stores) {
            out.append("""

                    **Stores.** `jdbc`: `JdbcStore`, the records in the service's PostgreSQL schema next to the \
                    orders (`IDEMPOTENCY_STORE=jdbc`); `pg`: `PgStore` on the reactive Vert.x PostgreSQL client \
                    (`IDEMPOTENCY_STORE=pg`; in the atomic mode the order is written through the reservation's \
                    connection, otherwise by the blocking JDBC handler); `r2dbc`: `R2dbcStore` on the WebFlux \
                    example's R2DBC pool, which its orders use too (the WebFlux `jdbc` rows: the same orders on \
                    R2DBC, the records in `JdbcStore` on the filter's bounded elastic schedulers); `redis`: `RedisStore` (`REDIS_URL`, a \
                    key prefix of the run's own, removed at the end), the orders still in PostgreSQL. `off` opens \
                    no store: one row per framework, the baseline of every store's rows. The `pg` and `redis` rows \
                    come from pairs of services measured after the main group (see *Stores side by side*): their \
                    `× off` compares turns minutes apart, and their latency was taken at their pair's rate, so it \
                    has no ratio here. **JDBC** columns count \
                    the service's JDBC connections only: the orders for `redis`, everything for `jdbc`; `n/a` for \
                    WebFlux (R2DBC orders, a plain URL), Quarkus (a plain URL: its class loader keeps the JDBC \
                    driver from the counting one) and `pg`, whose service gets a plain PostgreSQL URL (the example takes `PgStore` only for one, so \
                    the counting driver is not in between; the reactive client is not JDBC anyway, and \
                    `pg_stat_statements` is not loaded on this server). **TCP segs/req**, from the kernel, on any \
                    client: the TCP data segments the service's connections sent to PostgreSQL (all of them: JDBC \
                    pool and reactive pool) or to Redis during the row's closed-loop turns (`data_segs_out` of \
                    `ss -tinp`, per socket, before and after). On loopback one write is one segment, so this \
                    counts the client's writes: for pgJDBC, which writes each round trip's messages at once, the \
                    round trips (the `jdbc` rows match their counted round trips); for a client that pipelines \
                    messages in separate writes without waiting, more than its round trips — an upper bound \
                    there. **Redis cmds**: commands the Redis server executed during those turns (`INFO \
                    commandstats` before and after, the runner's `INFO` left out; server-wide, so anyone else's \
                    commands in those seconds would count too; notes: per command) — the commands a Lua script \
                    runs count as well, so the client's own calls are the `evalsha`/`eval` and whatever is not \
                    called from a script; the round trips are the TCP segments. **db** CPU for `redis` rows: \
                    PostgreSQL backends + the `redis-server` process.
                    """);
        }
        out.append("""

                JDBC counts per request of the closed-loop phase, counted in the service by a wrapping JDBC driver: \
                **round trips** = statement executions + explicit COMMIT/ROLLBACK + connection checks; **store \
                stmts** = statements on `idempotency_keys`; **commits** = transactions committed (an autocommit \
                statement is one, reads included; `n/a` where the service gets a plain URL: WebFlux, Quarkus, \
                `pg`). **CPU µs/req**: CPU time (user + system, from `/proc`) per \
                request over the closed-loop phase, of the service's JVM, of the PostgreSQL backends serving its \
                connections, and of the load generator's JVM — on two cores, what the three together spend is \
                what caps the throughput. **× off by CPU** = the `off` row's total CPU per request divided by this \
                row's: the throughput ratio the machine would show if CPU were all that limited it, a cross-check \
                that other work on the machine barely moves.
                """);
        for (String framework : options.frameworks()) {
            off(framework).ifPresent(off -> {
                ratioTarget(framework, HttpConfig.ATOMIC, off, 0.90);
                ratioTarget(framework, HttpConfig.RESERVE, off, 0.60);
                ratioTarget(framework, HttpConfig.REPLAY, off, 1.50);
            });
        }
        if (stores) {
            out.append('\n').append(storeSection());
        }
        return out.toString();
    }

    /** Throughput targets of a store against the JdbcStore, same framework and configuration. */
    private static final java.util.Map<BenchStore, java.util.Map<HttpConfig, Double>> STORE_TARGETS = java.util.Map.of(
            BenchStore.PG, java.util.Map.of(HttpConfig.RESERVE, 1.25, HttpConfig.ATOMIC, 1.25, HttpConfig.REPLAY, 1.10));

    /**
     * Each non-JDBC store row beside the JDBC store's row of the same framework and configuration:
     * the ratios of throughput (whole run and per round, both measured in the same turns) and latency.
     */
    private String storeSection() {
        StringBuilder out = new StringBuilder("### Stores side by side\n\n");
        out.append("""
                Each store was measured in pairs: per service mode, a `JdbcStore` service and one on the store, \
                freshly started and warmed up together, taking turns head to head (the pair's own rounds, with its \
                own open-loop rate); the other services of the framework were stopped. Each store row against the \
                `JdbcStore` row of its pair: **× jdbc** = req/s ÷ the pair's JdbcStore req/s (above 1.00× is \
                faster), **per round** = the lowest and highest ratio of a single round of the pair; p50/p99 at the \
                pair's rate (below 1.00× is faster); **× off** against the main group's `off` (other turns: \
                indicative only). `redis` against `jdbc` is Redis against PostgreSQL (both keep the orders in \
                PostgreSQL).

                """);
        Table table = new Table("framework", "configuration", "store", ">req/s", ">jdbc req/s", ">× jdbc", ">per round",
                ">p50 ms", ">jdbc p50 ms", ">p99 ms", ">jdbc p99 ms", ">p99 × jdbc", ">× off",
                ">CPU µs/req service / db / load gen (jdbc)", "target");
        for (HttpRow row : http.rows()) {
            if (row.store() == BenchStore.JDBC || row.config() == HttpConfig.OFF) {
                continue;
            }
            Double bound = STORE_TARGETS.getOrDefault(row.store(), java.util.Map.of()).get(row.config());
            String what = String.format(Locale.ROOT, "%s: %s %s ≥ %.2f× jdbc %s (req/s)", row.framework(),
                    row.store().label(), row.config().label(), bound == null ? 0 : bound, row.config().label());
            Optional<HttpRow> jdbc = http.rows().stream().filter(r -> r.framework().equals(row.framework())
                    && r.config() == row.config() && r.store() == BenchStore.JDBC && r.group().equals(row.group()))
                    .findFirst();
            if (!row.ran() || jdbc.isEmpty() || !jdbc.get().ran()) {
                String why = !row.ran() ? row.unavailable() : jdbc.isEmpty() ? "no jdbc row" : "jdbc " + jdbc.get().unavailable();
                table.row(row.framework(), row.config().label(), row.store().label(), "n/a (" + why + ")");
                if (bound != null) {
                    targets.add(new Report.Target(what, "n/a (" + why + ")", false));
                }
                continue;
            }
            HttpRow j = jdbc.get();
            double ratio = row.capacity().throughput() / j.capacity().throughput();
            Optional<HttpRow> off = off(row.framework());
            table.row(row.framework(), row.config().label(), row.store().label(), Table.number(row.capacity().throughput(), 0),
                    Table.number(j.capacity().throughput(), 0), Table.ratio(ratio), roundRange(row, j),
                    Table.number(row.latency().latencyMillis(0.50), 2), Table.number(j.latency().latencyMillis(0.50), 2),
                    Table.number(row.latency().latencyMillis(0.99), 2), Table.number(j.latency().latencyMillis(0.99), 2),
                    Table.ratio(row.latency().latencyMillis(0.99) / j.latency().latencyMillis(0.99)),
                    off.map(o -> Table.ratio(row.capacity().throughput() / o.capacity().throughput())).orElse(""),
                    cpu(row) + " (" + cpu(j) + ")",
                    bound == null ? "" : String.format(Locale.ROOT, "≥ %.2f× %s", bound, ratio >= bound ? "met" : "**missed**"));
            if (bound != null) {
                targets.add(new Report.Target(what, Table.ratio(ratio), ratio >= bound));
            }
        }
        return out.append(table.render()).toString();
    }

    /** The lowest and highest of the rounds' ratios, e.g. {@code 0.58–0.66}: how much the machine moved under the run. */
    private static String roundRange(HttpRow row, HttpRow off) {
        int rounds = Math.min(row.roundThroughputs().size(), off.roundThroughputs().size());
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        for (int r = 0; r < rounds; r++) {
            double ratio = row.roundThroughputs().get(r) / off.roundThroughputs().get(r);
            min = Math.min(min, ratio);
            max = Math.max(max, ratio);
        }
        return rounds == 0 ? "" : String.format(Locale.ROOT, "%.2f–%.2f", min, max);
    }

    /** Service + database + load generator CPU per request, in nanoseconds. */
    private static double cpuPerRequest(HttpRow row) {
        TurnMeter.Cpu cpu = row.cpu();
        return row.perRequest(cpu.service() + cpu.database() + cpu.redis() + cpu.loadGenerator());
    }

    /** E.g. {@code 825 / 200 / 150}; for Redis rows the db part is PostgreSQL + Redis, e.g. {@code 210+95}. */
    private static String cpu(HttpRow row) {
        TurnMeter.Cpu cpu = row.cpu();
        String db = row.store() == BenchStore.REDIS && row.config() != HttpConfig.OFF
                ? String.format(Locale.ROOT, "%.0f+%.0f", row.perRequest(cpu.database()) / 1000, row.perRequest(cpu.redis()) / 1000)
                : String.format(Locale.ROOT, "%.0f", row.perRequest(cpu.database()) / 1000);
        return String.format(Locale.ROOT, "%.0f / %s / %.0f", row.perRequest(cpu.service()) / 1000,
                db, row.perRequest(cpu.loadGenerator()) / 1000);
    }

    private String rates() {
        List<String> parts = new ArrayList<>();
        http.openLoopRates().forEach((group, rate) -> parts.add(String.format(Locale.ROOT, "%s %,.0f req/s", group, rate)));
        return String.join(", ", parts) + String.format(Locale.ROOT,
                " (%.0f%% of the lowest capacity in the framework's group of services, so that no configuration is overloaded)",
                options.openLoopFraction() * 100);
    }

    /**
     * The main group's rows, each JdbcStore row followed by the other stores' rows of the same
     * configuration (measured in their pairs); the pairs' own JdbcStore rows are in the store table.
     */
    private List<HttpRow> mainTableRows() {
        List<HttpRow> rows = new ArrayList<>();
        List<HttpRow> storeRows = http.rows().stream().filter(r -> r.store() != BenchStore.JDBC).toList();
        List<HttpRow> placed = new ArrayList<>();
        for (HttpRow row : http.rows()) {
            if (!row.group().isEmpty()) {
                continue;
            }
            rows.add(row);
            for (HttpRow s : storeRows) {
                if (s.framework().equals(row.framework()) && s.config() == row.config()) {
                    rows.add(s);
                    placed.add(s);
                }
            }
        }
        // a store row whose configuration the main group does not have (e.g. --stores=redis without jdbc)
        storeRows.stream().filter(s -> !placed.contains(s)).forEach(rows::add);
        return rows;
    }

    private static String notes(HttpRow row) {
        List<String> notes = new ArrayList<>();
        if (row.capacity().timeCapped() || row.latency().timeCapped()) {
            notes.add("time limit hit");
        }
        LoadResult l = row.latency();
        if (l.throughput() < 0.95 * l.targetRate()) {
            notes.add(String.format(Locale.ROOT, "kept up with only %,.0f req/s", l.throughput()));
        }
        if (row.config() == HttpConfig.REPLAY) {
            long answered = row.capacity().succeeded() + row.latency().succeeded();
            long replayed = row.capacity().replayed() + row.latency().replayed();
            if (replayed != answered) {
                notes.add((answered - replayed) + " not replayed");
            }
        }
        if (!row.redisCalls().isEmpty()) {
            List<String> calls = new ArrayList<>();
            row.redisCalls().forEach((command, n) -> calls.add(command + " " + Table.number(row.perRequest(n), 2)));
            notes.add("Redis: " + String.join(", ", calls));
        }
        if (row.capacity().firstError() != null || l.firstError() != null) {
            notes.add("e.g. " + (row.capacity().firstError() != null ? row.capacity().firstError() : l.firstError()));
        }
        return String.join("; ", notes);
    }

    private Optional<HttpRow> off(String framework) {
        return http.rows().stream().filter(r -> r.framework().equals(framework) && r.config() == HttpConfig.OFF
                && r.ran()).findFirst();
    }

    private void ratioTarget(String framework, HttpConfig config, HttpRow off, double bound) {
        String what = String.format(Locale.ROOT, "%s: %s ≥ %.2f× off (req/s)", framework, config.label(), bound);
        http.rows().stream().filter(r -> r.framework().equals(framework) && r.config() == config
                        && r.store() == BenchStore.JDBC).findFirst()
                // a mode the service refuses (WebFlux on jdbc) is no target; one that failed to start is missed
                .filter(row -> row.ran() || !"not available".equals(row.unavailable()))
                .ifPresent(row -> {
                    if (!row.ran()) {
                        targets.add(new Report.Target(what, "n/a (" + row.unavailable() + ")", false));
                    } else {
                        double ratio = row.capacity().throughput() / off.capacity().throughput();
                        targets.add(new Report.Target(what, Table.ratio(ratio), ratio >= bound));
                    }
                });
    }
}
