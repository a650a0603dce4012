package dev.idempotency.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.ReserveResult;
import dev.idempotency.core.store.StoredResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * InnoDB caps a primary key at 3072 bytes: a record key at every column's longest — key 255
 * ASCII, tenant 191 and path 500 four-byte characters, method 32, and a caller (16 bytes) — is
 * stored and found, and the caller still tells two such records apart.
 */
class MariaDbPrimaryKeyBudgetTest {

    private static final Instant NOW = Instant.parse("2031-03-01T00:00:00Z");
    private static final String FOUR_BYTES = "\uD83D\uDE00"; // U+1F600, four bytes in UTF-8

    @Test
    void aKeyAtEveryMaximumLengthFits() {
        try (TestDatabase db = TestDatabase.mariadb()) {
            JdbcStore store = JdbcStore.create(db.pool("budget", 2));
            store.createTableIfMissing();
            String tenant = FOUR_BYTES.repeat(191);
            String path = FOUR_BYTES.repeat(500);
            String key = "k".repeat(255);
            String method = "M".repeat(32);
            assertThat(tenant.getBytes(StandardCharsets.UTF_8).length + path.getBytes(StandardCharsets.UTF_8).length
                    + key.length() + method.length() + 16).isEqualTo(3067);
            RecordKey alice = new RecordKey(tenant, RecordKey.callerOf("alice"), method, path, key);
            RecordKey bob = new RecordKey(tenant, RecordKey.callerOf("bob"), method, path, key);

            for (RecordKey k : new RecordKey[] {alice, bob}) {
                ReserveResult reserved = store.reserve(k, "f".repeat(64), NOW, Duration.ofSeconds(30), Duration.ofHours(1));
                assertThat(reserved).as(k.caller()).isInstanceOf(ReserveResult.Acquired.class);
                assertThat(((ReserveResult.Acquired) reserved).reservation().complete(new StoredResponse(201, null,
                        Map.of(), k.caller().getBytes(StandardCharsets.UTF_8)))).isTrue();
            }

            assertThat(store.find(alice, NOW).orElseThrow().response().body())
                    .isEqualTo(alice.caller().getBytes(StandardCharsets.UTF_8));
            assertThat(store.find(bob, NOW).orElseThrow().key()).isEqualTo(bob);
        }
    }
}
