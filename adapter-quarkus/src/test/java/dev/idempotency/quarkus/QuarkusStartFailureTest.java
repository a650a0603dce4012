package dev.idempotency.quarkus;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.main.LaunchResult;
import io.quarkus.test.junit.main.QuarkusMainLauncher;
import io.quarkus.test.junit.main.QuarkusMainTest;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Real starts of the test application (application.properties, a fresh PostgreSQL schema) that
 * must fail: what the user sees first is one line naming the setting or the table and the fix, on
 * standard error, with no stack trace after it. Each start adds system properties over
 * application.properties.
 */
@QuarkusMainTest
@QuarkusTestResource(PostgresSchemaResource.class)
class QuarkusStartFailureTest {

    @Test
    void aNegativeTtlNamesTheKey(QuarkusMainLauncher launcher) {
        assertFirstLine(launcher, Map.of("idempotency.ttl", "-1s"),
                "idempotency.ttl must be a positive duration; it is PT-1S");
    }

    @Test
    void aBareNumberForADurationIsRefusedNamingTheKeyAndTheUnits(QuarkusMainLauncher launcher) {
        assertFirstLine(launcher, Map.of("idempotency.lease", "30"),
                "idempotency.lease=30 has no unit: write it as 30s, 30ms, 24h or PT30S. A bare number is refused: "
                        + "Quarkus would read it as seconds, Spring Boot as milliseconds.");
    }

    @Test
    void aLeaseLongerThanTheTtlNamesBoth(QuarkusMainLauncher launcher) {
        assertFirstLine(launcher, Map.of("idempotency.ttl", "10s", "idempotency.lease", "1m"),
                "idempotency.lease (PT1M) must not be longer than idempotency.ttl (PT10S)");
    }

    @Test
    void aValueThatDoesNotConvertNamesTheKey(QuarkusMainLauncher launcher) {
        assertFirstLine(launcher, Map.of("idempotency.purge.interval", "soon"),
                "idempotency.purge.interval=soon is not a valid duration: write it as 30s, 500ms, 24h or PT30S");
    }

    @Test
    void aMisspeltKeyIsNamed(QuarkusMainLauncher launcher) {
        assertFirstLine(launcher, Map.of("idempotency.tll", "1h"), "idempotency.tll is not an idempotency setting");
    }

    @Test
    void aTransactionTimeoutShorterThanTheLeaseIsRefusedInTheAtomicMode(QuarkusMainLauncher launcher) {
        assertFirstLine(launcher, Map.of("idempotency.mode", "atomic",
                        "quarkus.transaction-manager.default-transaction-timeout", "5s"),
                "quarkus.transaction-manager.default-transaction-timeout (PT5S) is shorter than idempotency.lease "
                        + "(PT20S): in the atomic mode the transaction manager would roll back a request still running");
    }

    @Test
    void aMissingTableIsNamedWithTheFix(QuarkusMainLauncher launcher) {
        LaunchResult result = launch(launcher, Map.of("idempotency.jdbc.initialize-schema", "never"));
        assertThat(firstLine(result)).contains("quarkus_keys").contains("idempotency.jdbc.initialize-schema=always");
        assertNoStackTrace(result);
    }

    private static void assertFirstLine(QuarkusMainLauncher launcher, Map<String, String> properties, String start) {
        LaunchResult result = launch(launcher, properties);
        assertThat(firstLine(result)).startsWith(start);
        assertNoStackTrace(result);
    }

    private static LaunchResult launch(QuarkusMainLauncher launcher, Map<String, String> properties) {
        properties.forEach(System::setProperty);
        try {
            LaunchResult result = launcher.launch();
            assertThat(result.exitCode()).as("the start fails").isEqualTo(1);
            return result;
        } finally {
            properties.keySet().forEach(System::clearProperty);
        }
    }

    /** The first line on standard error: Quarkus logs to standard output. */
    private static String firstLine(LaunchResult result) {
        List<String> errors = result.getErrorStream().stream().filter(line -> !line.isBlank()).toList();
        assertThat(errors).as("standard error").isNotEmpty();
        return errors.get(0);
    }

    private static void assertNoStackTrace(LaunchResult result) {
        assertThat(result.getOutput() + "\n" + result.getErrorOutput())
                .doesNotContain("\tat ").doesNotContain("Failed to start application");
    }
}
