package dev.idempotency.bench;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The runner's settings: {@code --name=value} on the command line ({@link #USAGE}), with defaults
 * sized for a full run of a few minutes on two cores.
 *
 * @param root              the checkout (with built example modules)
 * @param frameworks        example services to load
 * @param configs           configurations per service
 * @param connections       concurrent clients
 * @param rounds            turns the configurations take, in each phase
 * @param warmupRequests    warm-up requests per configuration ...
 * @param warmupTime        ... sent for at most this long
 * @param requests          closed-loop requests (capacity and JDBC counts)
 * @param openLoopRequests  open-loop requests (latency)
 * @param openLoopFraction  the open-loop rate as a fraction of the framework's lowest capacity
 * @param phaseTimeLimit    the bound on each measured phase
 * @param serverJvmArgs     options for each service's JVM
 * @param jfr               record each service with Java Flight Recorder
 * @param http              run the HTTP level
 * @param jmh               run the JMH benchmarks
 * @param jmhIterationTime  JMH warm-up and measurement iteration length
 * @param databaseUrl       a {@code jdbc:postgresql:} URL of the database to make the run's schema in
 * @param resultsDir        where the results file goes
 * @param waitForLoad       before starting, wait (at most ten minutes) until the 1-minute load average is below this; 0: don't
 * @param purge             run the purge suite
 * @param purgeRows         rows the purge suite fills the table with
 * @param stores            the stores the idempotent configurations run on ({@code jdbc}: the JdbcStore only)
 * @param redisUrl          the Redis server of the {@code redis} rows (a standalone {@code redis://host:port})
 * @param args              the arguments as given
 */
record Options(Path root, List<String> frameworks, List<HttpConfig> configs, int connections, int rounds, int warmupRequests,
               Duration warmupTime, int requests, int openLoopRequests, double openLoopFraction,
               Duration phaseTimeLimit, List<String> serverJvmArgs, boolean jfr, boolean http, boolean jmh,
               Duration jmhIterationTime, String databaseUrl, Path resultsDir, double waitForLoad, boolean purge,
               int purgeRows, List<BenchStore> stores, String redisUrl, List<String> args) {

    /** The options, one a line with its default; {@code ./benchmarks/run --help} prints this text. */
    static final String USAGE = """
            usage: ./benchmarks/run [option...]   the HTTP level, the purge suite and JMH;
                                                  writes benchmarks/results/<date>.md
              --frameworks=LIST      example services, of javalin,micronaut,vertx,spring,webflux,quarkus
                                     (default javalin,micronaut,vertx,spring)
              --configs=LIST         the configurations per framework (default off,optimistic,reserve,atomic,replay)
              --stores=LIST          where the idempotent configurations keep their records, of jdbc,pg,redis,r2dbc
                                     (default jdbc; jdbc,r2dbc when --frameworks names webflux): jdbc = JdbcStore,
                                     pg = PgStore (vertx only: reserve, atomic, replay), r2dbc = R2dbcStore (webflux
                                     only: optimistic, reserve, atomic, replay), redis = RedisStore (every framework:
                                     optimistic, reserve, replay); off opens no store and is measured once
              --redis-url=URL        the redis rows' server (default $BENCH_REDIS_URL, else redis://127.0.0.1:6379)
              --database-url=URL     the PostgreSQL database of the run's schemas (default $BENCH_DATABASE_URL,
                                     else jdbc:postgresql://127.0.0.1:5432/test?user=postgres)
              --connections=16       concurrent keep-alive connections
              --rounds=4             turns the configurations take in each phase (--quick: 2)
              --requests=2400        closed-loop requests per configuration, over all rounds (--quick: 800)
              --open-requests=800    open-loop requests per configuration, over all rounds (--quick: 400)
              --open-fraction=0.5    the open-loop rate as a fraction of the framework's lowest capacity
              --warmup-requests=3000 warm-up requests per configuration (--quick: 500) ...
              --warmup-seconds=30    ... sent for at most this long (--quick: 10)
              --jmh-seconds=1        length of JMH's 4 warm-up and 4 measurement iterations (--quick: 0.3)
              --purge-rows=1000000   rows the purge suite fills the table with (--quick: 200000)
              --wait-for-load=0      first wait (at most 10 minutes) until the 1-minute load average is below this;
                                     0: don't
              --no-http              skip the HTTP level
              --no-purge             skip the purge suite
              --no-jmh               skip the JMH benchmarks
              --jfr                  record each service with Java Flight Recorder (benchmarks/target/bench-run/*.jfr;
                                     summarize a recording with dev.idempotency.bench.JfrTop)
              --quick                a smoke run with the --quick values above (numbers not for keeping)

            usage: ./benchmarks/run --engine-pg [option...]   the engine on PostgreSQL without HTTP (EngineOnPostgres);
                                                              writes benchmarks/results/<date>-engine-pg.md
              --threads=16           request threads, sharing one HikariCP pool of as many connections
              --seconds=3            length of a case's turn
              --rounds=3             turns each case takes, in rotated order
              --warmup-seconds=5     warm-up per case
              --cases=bare,floor-reserve,floor-atomic,optimistic,reserve,atomic   (bare among them)
              --database-url=URL     as above
              --results=benchmarks/results   where the results file goes
            """;

    /** The example services benchmarks/run builds: {@code examples/example-<name>}. */
    static final List<String> FRAMEWORKS = List.of("javalin", "micronaut", "vertx", "spring", "webflux", "quarkus");

    private static List<String> frameworks(String list) {
        List<String> frameworks = Arrays.stream(list.split(",")).map(String::trim).toList();
        frameworks.stream().filter(f -> !FRAMEWORKS.contains(f)).findFirst().ifPresent(f -> {
            throw new IllegalArgumentException("unknown framework " + f + " (known: " + String.join(",", FRAMEWORKS) + ")\n" + USAGE);
        });
        return frameworks;
    }

    private static final Set<String> FLAGS = Set.of("--no-http", "--no-jmh", "--quick", "--jfr", "--no-purge");

    static Options parse(Path root, String... args) {
        Map<String, String> o = new HashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            String name = eq < 0 ? arg : arg.substring(0, eq);
            if (eq < 0 && !FLAGS.contains(name) || eq >= 0 && FLAGS.contains(name)) {
                throw new IllegalArgumentException("unknown option " + arg + "\n" + USAGE);
            }
            o.put(name, eq < 0 ? "true" : arg.substring(eq + 1));
        }
        boolean quick = o.containsKey("--quick");
        Set<String> known = Set.of("--frameworks", "--configs", "--connections", "--rounds", "--requests", "--open-requests",
                "--open-fraction", "--warmup-requests", "--warmup-seconds", "--jfr", "--jmh-seconds", "--no-http", "--no-jmh", "--quick",
                "--database-url", "--wait-for-load", "--no-purge", "--purge-rows", "--stores", "--redis-url");
        o.keySet().stream().filter(k -> !known.contains(k)).findFirst().ifPresent(k -> {
            throw new IllegalArgumentException("unknown option " + k + "\n" + USAGE);
        });
        String databaseUrl = o.getOrDefault("--database-url", System.getenv().getOrDefault("BENCH_DATABASE_URL",
                "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"));
        List<String> frameworks = frameworks(o.getOrDefault("--frameworks", "javalin,micronaut,vertx,spring"));
        // WebFlux's point is its R2DBC store beside the JdbcStore: both unless --stores says otherwise
        String defaultStores = frameworks.contains("webflux") ? "jdbc,r2dbc" : "jdbc";
        return new Options(root,
                frameworks,
                Arrays.stream(o.getOrDefault("--configs", "off,optimistic,reserve,atomic,replay").split(","))
                        .map(c -> HttpConfig.valueOf(c.trim().toUpperCase(Locale.ROOT))).toList(),
                Integer.parseInt(o.getOrDefault("--connections", "16")),
                Integer.parseInt(o.getOrDefault("--rounds", quick ? "2" : "4")),
                Integer.parseInt(o.getOrDefault("--warmup-requests", quick ? "500" : "3000")),
                Duration.ofSeconds(Long.parseLong(o.getOrDefault("--warmup-seconds", quick ? "10" : "30"))),
                Integer.parseInt(o.getOrDefault("--requests", quick ? "800" : "2400")),
                Integer.parseInt(o.getOrDefault("--open-requests", quick ? "400" : "800")),
                Double.parseDouble(o.getOrDefault("--open-fraction", "0.5")),
                Duration.ofSeconds(10),
                List.of("-Xms512m", "-Xmx512m"),
                o.containsKey("--jfr"),
                !o.containsKey("--no-http"),
                !o.containsKey("--no-jmh"),
                Duration.ofMillis((long) (1000 * Double.parseDouble(o.getOrDefault("--jmh-seconds", quick ? "0.3" : "1")))),
                databaseUrl,
                root.resolve("benchmarks/results"),
                Double.parseDouble(o.getOrDefault("--wait-for-load", "0")),
                !o.containsKey("--no-purge"),
                Integer.parseInt(o.getOrDefault("--purge-rows", quick ? "200000" : "1000000")),
                Arrays.stream(o.getOrDefault("--stores", defaultStores).split(",")).map(BenchStore::of).distinct().toList(),
                o.getOrDefault("--redis-url", System.getenv().getOrDefault("BENCH_REDIS_URL", "redis://127.0.0.1:6379")),
                List.of(args));
    }

    /**
     * Every option with the value this run uses, in {@link #USAGE}'s order (flags only when set):
     * arguments that make the same run with no defaults, {@code --quick} or environment involved.
     */
    List<String> resolvedArgs() {
        List<String> resolved = new ArrayList<>(List.of(
                "--frameworks=" + String.join(",", frameworks),
                "--configs=" + configs.stream().map(HttpConfig::label).collect(Collectors.joining(",")),
                "--stores=" + stores.stream().map(BenchStore::label).collect(Collectors.joining(",")),
                "--redis-url=" + redisUrl,
                "--database-url=" + databaseUrl,
                "--connections=" + connections,
                "--rounds=" + rounds,
                "--requests=" + requests,
                "--open-requests=" + openLoopRequests,
                "--open-fraction=" + plain(openLoopFraction),
                "--warmup-requests=" + warmupRequests,
                "--warmup-seconds=" + warmupTime.toSeconds(),
                "--jmh-seconds=" + plain(jmhIterationTime.toMillis() / 1000.0),
                "--purge-rows=" + purgeRows,
                "--wait-for-load=" + plain(waitForLoad)));
        if (!http) {
            resolved.add("--no-http");
        }
        if (!purge) {
            resolved.add("--no-purge");
        }
        if (!jmh) {
            resolved.add("--no-jmh");
        }
        if (jfr) {
            resolved.add("--jfr");
        }
        return resolved;
    }

    private static String plain(double value) {
        return BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
    }
}
