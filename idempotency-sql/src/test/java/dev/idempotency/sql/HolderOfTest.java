package dev.idempotency.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.core.store.AtomicAttempt.Holder;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.RecordState;
import dev.idempotency.core.store.StoredResponse;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What a dirty read of the key's row may be used for: a fingerprint, never a replay. */
class HolderOfTest {

    private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");
    private static final RecordKey KEY = new RecordKey("t", "POST", "/orders", "k");
    private static final String MINE = "a".repeat(64);
    private static final String OTHER = "b".repeat(64);
    private static final String ROW = MINE;

    private static Optional<IdempotencyRecord> inFlight(String fingerprint, Instant leaseUntil) {
        return Optional.of(new IdempotencyRecord(KEY, fingerprint, RecordState.IN_FLIGHT, null, NOW.plusSeconds(3600),
                leaseUntil));
    }

    private static Optional<IdempotencyRecord> completed(String fingerprint) {
        return Optional.of(new IdempotencyRecord(KEY, fingerprint, RecordState.COMPLETED,
                new StoredResponse(201, null, Map.of("X", List.of("1")), new byte[0]), NOW.plusSeconds(3600), null));
    }

    @Test
    void anInFlightRowTellsItsBody() {
        assertThat(Records.holderOf(inFlight(MINE, NOW.plusSeconds(30)), ROW, NOW))
                .isEqualTo(Holder.SAME_BODY);
        assertThat(Records.holderOf(inFlight(OTHER, NOW.plusSeconds(30)), ROW, NOW))
                .isEqualTo(Holder.OTHER_BODY);
    }

    @Test
    void aCompletionThatMayNotBeCommittedIsNoReplayButAnotherBodyStillConflicts() {
        assertThat(Records.holderOf(completed(MINE), ROW, NOW)).as("ask again, from committed data")
                .isEqualTo(Holder.COMPLETING);
        assertThat(Records.holderOf(completed(OTHER), ROW, NOW)).isEqualTo(Holder.OTHER_BODY);
    }

    @Test
    void noRowOrARowThatIsNotLiveHoldsNothing() {
        assertThat(Records.holderOf(Optional.empty(), ROW, NOW)).isEqualTo(Holder.NOBODY);
        assertThat(Records.holderOf(inFlight(OTHER, NOW.minusSeconds(1)), ROW, NOW)).as("lease lapsed")
                .isEqualTo(Holder.NOBODY);
        assertThat(Records.holderOf(Optional.of(new IdempotencyRecord(KEY, OTHER, RecordState.COMPLETED,
                new StoredResponse(201, null, Map.of(), new byte[0]), NOW.minusSeconds(1), null)), ROW, NOW))
                .as("expired").isEqualTo(Holder.NOBODY);
    }

    @Test
    void anInFlightRowWhoseLeaseRunsHoldsTheKeyPastItsExpiry() {
        assertThat(Records.holderOf(Optional.of(new IdempotencyRecord(KEY, OTHER, RecordState.IN_FLIGHT, null,
                NOW.minusSeconds(1), NOW.plusSeconds(30))), ROW, NOW)).isEqualTo(Holder.OTHER_BODY);
    }
}
