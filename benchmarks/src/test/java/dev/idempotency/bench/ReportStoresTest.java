package dev.idempotency.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.bench.http.LoadResult;
import dev.idempotency.bench.jdbc.Counters;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The store rows and their ratios to the JdbcStore, from made-up measurements (no services). */
class ReportStoresTest {

    private static HttpRow row(String framework, HttpConfig config, BenchStore store, double reqPerSecond,
                               Map<String, Long> redisCalls) {
        return row(framework, config, store, reqPerSecond, redisCalls, "");
    }

    private static HttpRow row(String framework, HttpConfig config, BenchStore store, double reqPerSecond,
                               Map<String, Long> redisCalls, String group) {
        long nanos = (long) (1000 / reqPerSecond * 1e9);
        LoadResult capacity = new LoadResult(1000, 1000, 0, config == HttpConfig.REPLAY ? 1000 : 0, nanos,
                new long[] {1_000_000}, 0, null, false);
        LoadResult latency = new LoadResult(100, 100, 0, config == HttpConfig.REPLAY ? 100 : 0, 1_000_000_000L,
                new long[] {2_000_000}, 100, null, false);
        return new HttpRow(framework, config, capacity, List.of(reqPerSecond, reqPerSecond), latency,
                Counters.Snapshot.zero(), new TurnMeter.Cpu(1000L * 500_000, 1000L * 200_000, 1000L * 100_000, 0,
                store == BenchStore.REDIS ? 1000L * 50_000 : 0), null, store, store != BenchStore.PG, redisCalls, 3000,
                store == BenchStore.REDIS ? 1900 : -1, group);
    }

    @Test
    void storeRowsStandBesideTheJdbcStoreWithTheirRatiosAndTargets() {
        Options options = Options.parse(Path.of("."), "--stores=jdbc,pg,redis", "--frameworks=vertx");
        List<HttpRow> rows = List.of(
                row("vertx", HttpConfig.OFF, BenchStore.JDBC, 1000, Map.of()),
                row("vertx", HttpConfig.RESERVE, BenchStore.JDBC, 490, Map.of()),
                row("vertx", HttpConfig.ATOMIC, BenchStore.JDBC, 390, Map.of()),
                row("vertx", HttpConfig.REPLAY, BenchStore.JDBC, 1490, Map.of()),
                row("vertx", HttpConfig.RESERVE, BenchStore.JDBC, 500, Map.of(), "pg-reserve"),
                row("vertx", HttpConfig.RESERVE, BenchStore.PG, 650, Map.of(), "pg-reserve"),
                row("vertx", HttpConfig.REPLAY, BenchStore.JDBC, 1500, Map.of(), "pg-reserve"),
                HttpRow.unavailable("vertx", new HttpCase(HttpConfig.REPLAY, BenchStore.PG, "pg-reserve"), "did not start"),
                row("vertx", HttpConfig.ATOMIC, BenchStore.JDBC, 400, Map.of(), "pg-atomic"),
                row("vertx", HttpConfig.ATOMIC, BenchStore.PG, 480, Map.of(), "pg-atomic"),
                row("vertx", HttpConfig.RESERVE, BenchStore.JDBC, 500, Map.of(), "redis-reserve"),
                row("vertx", HttpConfig.RESERVE, BenchStore.REDIS, 800, Map.of("evalsha", 2000L), "redis-reserve"));
        Report report = new Report(options, new Machine(2, "cpu", "jdk", "db", "abc"), ZonedDateTime.now(), 1, 1, 60,
                new HttpSuite.Result(rows, Map.of("vertx", 200.0), "Redis 7.0.15 at redis://127.0.0.1:6379"), null, null);
        String text = report.render();

        assertThat(text).contains("### Stores side by side").contains("Redis cmds / TCP segs per req").contains("JDBC round trips/req")
                .contains("- Redis (the `redis` rows): Redis 7.0.15");
        assertThat(text).containsPattern("\\| vertx +\\| reserve +\\| pg +\\| +650 \\| +500 \\| +1\\.30× \\|");
        assertThat(text).containsPattern("\\| vertx +\\| reserve +\\| redis +\\| +800 \\| +500 \\| +1\\.60× \\|");
        assertThat(text).containsPattern("\\| vertx +\\| off +\\| none +\\|");
        // in the main table: the main group's jdbc row, then the store rows of that configuration
        assertThat(text).containsPattern("\\| vertx +\\| reserve +\\| jdbc +\\| +490 \\|[^\\n]*\\n\\| vertx +\\| reserve +\\| pg +\\| +650 \\|"
                + "[^\\n]*\\n\\| vertx +\\| reserve +\\| redis +\\| +800 \\|");
        assertThat(text).doesNotContainPattern("\\| vertx +\\| reserve +\\| jdbc +\\| +500 \\|");
        assertThat(text).contains("Redis: evalsha 2.00").contains("200+50").contains(" 2.00 / 1.90 |")
                .contains("PostgreSQL TCP segs/req");
        assertThat(report.targets()).anySatisfy(t -> {
            assertThat(t.what()).isEqualTo("vertx: pg reserve ≥ 1.25× jdbc reserve (req/s)");
            assertThat(t.met()).isTrue();
        }).anySatisfy(t -> {
            assertThat(t.what()).isEqualTo("vertx: pg atomic ≥ 1.25× jdbc atomic (req/s)");
            assertThat(t.figure()).isEqualTo("1.20×");
            assertThat(t.met()).isFalse();
        }).anySatisfy(t -> {
            assertThat(t.what()).isEqualTo("vertx: pg replay ≥ 1.10× jdbc replay (req/s)");
            assertThat(t.figure()).isEqualTo("n/a (did not start)");
        }).anySatisfy(t -> assertThat(t.what()).isEqualTo("vertx: reserve ≥ 0.60× off (req/s)"));
        // the pg row's JDBC columns are not counted
        assertThat(text).containsPattern("\\| vertx +\\| reserve +\\| pg +\\|[^\\n]*\\| +n/a \\| +n/a \\| +n/a \\| +3\\.00 \\|");
    }

    @Test
    void theDefaultRunHasOnlyTheJdbcStoreAndNoStoreSection() {
        Options options = Options.parse(Path.of("."));
        assertThat(options.stores()).containsExactly(BenchStore.JDBC);
        assertThat(options.redisUrl()).startsWith("redis://");
        List<HttpRow> rows = List.of(row("vertx", HttpConfig.OFF, BenchStore.JDBC, 1000, Map.of()),
                row("vertx", HttpConfig.RESERVE, BenchStore.JDBC, 500, Map.of()));
        String text = new Report(options, new Machine(2, "cpu", "jdk", "db", "abc"), ZonedDateTime.now(), 1, 1, 60,
                new HttpSuite.Result(rows, Map.of("vertx", 200.0), null), null, null).render();
        assertThat(text).doesNotContain("Stores side by side").doesNotContain("Redis").contains("| round trips/req");
    }

    @Test
    void storesRunWhereTheExamplesHaveThem() {
        assertThat(BenchStore.PG.runs("vertx", HttpConfig.ATOMIC)).isTrue();
        assertThat(BenchStore.PG.runs("javalin", HttpConfig.RESERVE)).isFalse();
        assertThat(BenchStore.PG.runs("vertx", HttpConfig.OPTIMISTIC)).isFalse();
        assertThat(BenchStore.REDIS.runs("micronaut", HttpConfig.OPTIMISTIC)).isTrue();
        assertThat(BenchStore.REDIS.runs("vertx", HttpConfig.ATOMIC)).isFalse();
        assertThat(BenchStore.JDBC.runs("javalin", HttpConfig.ATOMIC)).isTrue();
    }
}
