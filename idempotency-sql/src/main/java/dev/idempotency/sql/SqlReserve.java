package dev.idempotency.sql;

import dev.idempotency.core.store.AsyncReserveResult;
import dev.idempotency.core.store.AsyncStore;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import java.lang.System.Logger.Level;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The reserve mode's reservation, written once for the SQL stores: the dialect's reservation
 * statement (PostgreSQL: the fresh-key statement, then the take-over; MariaDB, MySQL, H2: the
 * upsert, {@link SqlSession#upsert}) until one settles — its own row (won) or a live record in the way (lost) — at most
 * {@link AtomicSql#MAX_ATTEMPTS} more times.
 */
public final class SqlReserve {

    private static final System.Logger log = System.getLogger(SqlReserve.class.getName());

    /** What a reservation statement's row says: won, or the record in the way (live or not). */
    public record Found(boolean won, IdempotencyRecord record) {
    }

    private SqlReserve() {
    }

    /** The reservation statement of attempt {@code attempt} (0 first). */
    public static String statement(SqlDialect dialect, int attempt) {
        return dialect != SqlDialect.POSTGRES ? "upsert" : attempt == 0 ? "reserveFresh" : "reserve";
    }

    /** {@code row} of a reservation statement: PostgreSQL says {@code won}; MariaDB's row holds this attempt's owner token. */
    public static Found found(SqlDialect dialect, RecordKey key, String ownerToken, SqlSession.Row row) {
        boolean won = dialect == SqlDialect.POSTGRES ? Boolean.TRUE.equals(row.bool("won"))
                : ownerToken.equals(row.text("owner_token"));
        return new Found(won, won ? null : Records.read(key, row));
    }

    /**
     * The reservation's outcome: {@code won}, or the live record in the way.
     *
     * @param run runs a reservation statement, by name ({@link #statement}), the store's way (its
     *            bounds, its tenant), mapping each row while it is readable
     */
    public static CompletionStage<Found> reserve(SqlDialect dialect, RecordKey key, String token, Instant now,
                                                 BiFunction<String, Function<SqlSession.Row, Found>,
                                                         CompletionStage<List<Found>>> run) {
        return reserve(dialect, key, token, now, run, 0);
    }

    /** {@link #reserve} for an {@link AsyncStore}, its result built by core. */
    public static CompletionStage<AsyncReserveResult> reserve(AsyncStore store, SqlDialect dialect, RecordKey key,
                                                              String token, Instant now,
                                                              BiFunction<String, Function<SqlSession.Row, Found>,
                                                                      CompletionStage<List<Found>>> run) {
        return reserve(dialect, key, token, now, run, 0).thenApply(found -> found.won()
                ? AsyncReserveResult.acquired(store, key, token) : new AsyncReserveResult.Existing(found.record()));
    }

    private static CompletionStage<Found> reserve(
            SqlDialect dialect, RecordKey key, String token, Instant now,
            BiFunction<String, Function<SqlSession.Row, Found>, CompletionStage<List<Found>>> run, int attempt) {
        return run.apply(statement(dialect, attempt), r -> found(dialect, key, token, r)).thenCompose(rows -> {
            Found found = rows.isEmpty() ? null : rows.get(0);
            if (found != null && (found.won() || Records.isLive(found.record(), now))) {
                return CompletableFuture.completedFuture(found);
            }
            if (attempt >= AtomicSql.MAX_ATTEMPTS) {
                return CompletableFuture.failedFuture(new IllegalStateException("Could not settle the reservation of"
                        + " key_preview=" + key.keyPreview() + " after " + (attempt + 1)
                        + " statements: the row kept changing"));
            }
            if (attempt > 0) {
                log.log(Level.DEBUG, "Reservation of key_preview={0} raced a concurrent change; asking again"
                        + " (attempt {1})", key.keyPreview(), attempt);
            }
            return reserve(dialect, key, token, now, run, attempt + 1);
        });
    }
}
