package dev.idempotency.bench;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code ./benchmarks/run --engine-pg}'s settings ({@link EngineOnPostgres}): {@code --name=value}
 * after {@code --engine-pg}, the defaults as in {@link Options#USAGE}.
 *
 * @param threads       request threads, sharing one pool of as many connections
 * @param seconds       length of a case's turn
 * @param rounds        turns each case takes
 * @param warmupSeconds warm-up per case
 * @param cases         the cases, {@code bare} among them
 * @param databaseUrl   a {@code jdbc:postgresql:} URL of the database to make the run's schema in
 * @param results       where the results file goes
 * @param args          the arguments as given
 */
record EngineOptions(int threads, double seconds, int rounds, double warmupSeconds, List<String> cases,
                     String databaseUrl, Path results, List<String> args) {

    static final List<String> ALL_CASES = List.of("bare", "floor-reserve", "floor-atomic", "optimistic", "reserve", "atomic");

    private static final Set<String> NAMES = Set.of("threads", "seconds", "rounds", "warmup-seconds", "cases",
            "database-url", "results");

    static EngineOptions parse(String... args) {
        Map<String, String> o = new LinkedHashMap<>();
        for (String a : args) {
            int eq = a.indexOf('=');
            if (!a.startsWith("--") || eq < 0 || !NAMES.contains(a.substring(2, eq))) {
                throw new IllegalArgumentException("expected --name=value with a name of " + NAMES + ", got: " + a);
            }
            o.put(a.substring(2, eq), a.substring(eq + 1));
        }
        List<String> cases = List.of(o.getOrDefault("cases", String.join(",", ALL_CASES)).split(","));
        if (!ALL_CASES.containsAll(cases) || !cases.contains("bare")) {
            throw new IllegalArgumentException("--cases: some of " + ALL_CASES + ", bare among them");
        }
        return new EngineOptions(Integer.parseInt(o.getOrDefault("threads", "16")),
                Double.parseDouble(o.getOrDefault("seconds", "3")),
                Integer.parseInt(o.getOrDefault("rounds", "3")),
                Double.parseDouble(o.getOrDefault("warmup-seconds", "5")),
                cases,
                o.getOrDefault("database-url", System.getenv().getOrDefault("BENCH_DATABASE_URL",
                        "jdbc:postgresql://127.0.0.1:5432/test?user=postgres")),
                Path.of(o.getOrDefault("results", "benchmarks/results")),
                List.of(args));
    }

    /** Every option with the value this run uses: arguments that make the same run. */
    List<String> resolvedArgs() {
        return List.of("--threads=" + threads, "--seconds=" + plain(seconds), "--rounds=" + rounds,
                "--warmup-seconds=" + plain(warmupSeconds), "--cases=" + String.join(",", cases),
                "--database-url=" + databaseUrl, "--results=" + results);
    }

    /** The results file's command lines ({@link CommandLine#header}). */
    String header() {
        return CommandLine.header("./benchmarks/run --engine-pg", args, resolvedArgs());
    }

    private static String plain(double value) {
        return java.math.BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
    }
}
