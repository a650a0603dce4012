package dev.idempotency.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.bench.http.LoadResult;
import dev.idempotency.bench.jdbc.Counters;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A results file's header records the command that made it: as given, and every option resolved. */
class CommandLineTest {

    private static final Machine MACHINE = new Machine(2, "cpu", "jdk", "db", "abc");

    private static String header(String report) {
        return report.substring(0, report.indexOf("\n## "));
    }

    @Test
    void theReportHeaderHasTheArgumentsAsGivenAndResolved() {
        Options options = Options.parse(Path.of("."), "--quick", "--frameworks=vertx", "--no-jmh",
                "--database-url=jdbc:postgresql://db:5432/bench?user=bench&password=secret");
        HttpRow off = new HttpRow("vertx", HttpConfig.OFF, new LoadResult(100, 100, 0, 0, 100_000_000L,
                new long[] {1_000_000}, 0, null, false), List.of(1000.0), new LoadResult(10, 10, 0, 0, 10_000_000L,
                new long[] {1_000_000}, 10, null, false), Counters.Snapshot.zero(), new TurnMeter.Cpu(1, 1, 1, 0, 0),
                null, BenchStore.JDBC, true, Map.of(), 0, -1, "");
        String text = new Report(options, MACHINE, ZonedDateTime.now(), 1, 1, 60,
                new HttpSuite.Result(List.of(off), Map.of("vertx", 200.0), null), null, null).render();

        assertThat(header(text)).contains("\n- command: `./benchmarks/run --quick --frameworks=vertx --no-jmh "
                + "'--database-url=jdbc:postgresql://db:5432/bench?user=bench&password=***'`\n");
        assertThat(header(text)).contains("\n- resolved: `./benchmarks/run --frameworks=vertx "
                + "--configs=off,optimistic,reserve,atomic,replay --stores=jdbc --redis-url=" + options.redisUrl()
                + " '--database-url=jdbc:postgresql://db:5432/bench?user=bench&password=***' --connections=16 --rounds=2 "
                + "--requests=800 --open-requests=400 --open-fraction=0.5 --warmup-requests=500 --warmup-seconds=10 "
                + "--jmh-seconds=0.3 --purge-rows=200000 --wait-for-load=0 --no-jmh`\n");
        assertThat(text).doesNotContain("secret");
    }

    @Test
    void theResolvedArgumentsMakeTheSameRun() {
        Options given = Options.parse(Path.of("."), "--quick", "--frameworks=webflux,quarkus", "--jfr", "--no-purge",
                "--open-fraction=0.25", "--jmh-seconds=0.5");
        Options again = Options.parse(Path.of("."), given.resolvedArgs().toArray(String[]::new));

        assertThat(again.resolvedArgs()).isEqualTo(given.resolvedArgs());
        assertThat(again.stores()).containsExactly(BenchStore.JDBC, BenchStore.R2DBC);
        assertThat(again.rounds()).isEqualTo(2);
        assertThat(again.jmhIterationTime()).isEqualTo(given.jmhIterationTime());
        assertThat(again.openLoopFraction()).isEqualTo(0.25);
        assertThat(again.jfr()).isTrue();
        assertThat(again.purge()).isFalse();
        assertThat(again.jmh()).isTrue();
    }

    @Test
    void theEnginePgHeaderHasItsCommandLine() {
        EngineOptions options = EngineOptions.parse("--rounds=4", "--cases=bare,reserve");
        String head = EngineOnPostgres.header(options, ZonedDateTime.now(), MACHINE, 1.5, 2.5);

        assertThat(head).contains("\n- command: `./benchmarks/run --engine-pg --rounds=4 --cases=bare,reserve`\n");
        assertThat(head).contains("\n- resolved: `./benchmarks/run --engine-pg --threads=16 --seconds=3 --rounds=4 "
                + "--warmup-seconds=5 --cases=bare,reserve ");
        assertThat(head).contains("16 threads, one HikariCP pool of 16, 4 rounds of 3.0 s per case");
        assertThat(EngineOptions.parse(options.resolvedArgs().toArray(String[]::new))).isEqualTo(
                new EngineOptions(16, 3, 4, 5, List.of("bare", "reserve"), options.databaseUrl(), options.results(),
                        options.resolvedArgs()));
    }

    @Test
    void quotesWhatAShellWouldSplitAndMasksPasswords() {
        assertThat(CommandLine.line("./benchmarks/run", List.of("--stores=jdbc,redis", "--redis-url=redis://:pw@h:6379",
                "--x=it's", "--database-url=jdbc:postgresql://h/db?user=u&password=p"))).isEqualTo(
                "./benchmarks/run --stores=jdbc,redis '--redis-url=redis://:***@h:6379' '--x=it'\\''s' "
                        + "'--database-url=jdbc:postgresql://h/db?user=u&password=***'");
        assertThat(CommandLine.header("run", List.of(), List.of("--a=`b`"))).isEqualTo(
                "- command: `run`\n- resolved: `` run '--a=`b`' ``\n");
    }
}
