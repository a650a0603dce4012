package dev.idempotency.core;

import dev.idempotency.core.IdempotencyEvent.Outcome;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.Reservation;
import dev.idempotency.core.store.ReserveResult;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.core.store.Store;
import dev.idempotency.core.store.StoredResponse;
import dev.idempotency.core.store.TransactionalStore;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Idempotency-Key algorithm, once, for every framework and store.
 *
 * <p>An adapter calls {@link #before} with a view of the request. The {@link Decision} says
 * whether to run the handler untouched ({@link Decision.PassThrough}), answer without running it
 * ({@link Decision.Respond}: a replay or a problem), or run it under a reservation
 * ({@link Decision.Proceed}), in which case the adapter hands the captured response to
 * {@link Execution#finish} before the client sees it.
 *
 * <p>The life of a record: absent → in flight (reserved, leased) → completed (stored for
 * replay until it expires) — or back to absent when released (response not storable, handler
 * failed) or when its lease or time to live runs out.
 *
 * <p>Thread-safe; create one per application and {@link #close()} it on shutdown (it owns the
 * thread that renews leases).
 */
public final class IdempotencyEngine implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(IdempotencyEngine.class);

    private final Store store;
    private final IdempotencyConfig config;
    private final LeaseRenewer leaseRenewer;

    public IdempotencyEngine(Store store, IdempotencyConfig config) {
        this.store = Objects.requireNonNull(store, "store");
        this.config = Objects.requireNonNull(config, "config");
        if (config.mode() == Mode.ATOMIC && !(store instanceof TransactionalStore)) {
            throw new IllegalArgumentException("Mode.ATOMIC needs a TransactionalStore; "
                    + store.getClass().getName() + " is not one");
        }
        this.leaseRenewer = new LeaseRenewer();
    }

    public IdempotencyConfig config() {
        return config;
    }

    public Store store() {
        return store;
    }

    /**
     * Decides what happens to a request before its handler runs. Never throws for bad input.
     *
     * <p>Blocking: a request in scope with a valid key costs store calls (and, with
     * {@code inFlightWait}, may sleep), so event-loop adapters call it on a worker thread. A
     * request whose method is out of scope is answered without any I/O and without reading the
     * body, so it may be decided on any thread.
     */
    public Decision before(RequestView request) {
        String method = request.method().toUpperCase(java.util.Locale.ROOT);
        if (!config.covers(method)) {
            return passThrough(method, request.path());
        }
        IdempotencyKeys.Parsed parsed = IdempotencyKeys.parse(request.headers(config.headerName()));
        if (parsed instanceof IdempotencyKeys.Parsed.Missing) {
            return config.keyRequired()
                    ? reject(ProblemCode.IDEMPOTENCY_KEY_MISSING, null, method, request.path(), null, null)
                    : passThrough(method, request.path());
        }
        if (parsed instanceof IdempotencyKeys.Parsed.Invalid invalid) {
            return reject(ProblemCode.IDEMPOTENCY_KEY_INVALID, invalid.reason(), method, request.path(), null, null);
        }
        String key = ((IdempotencyKeys.Parsed.Valid) parsed).key();
        String keyPreview = RecordKey.preview(key);
        Optional<String> normalized = RequestPaths.normalize(request.path());
        String target = request.requestTarget();
        if (normalized.isEmpty() || target != null && target.indexOf('#') >= 0) {
            return reject(ProblemCode.IDEMPOTENCY_PATH_INVALID, null, method, abbreviated(withoutQuery(request.path())),
                    null, keyPreview);
        }
        String path = normalized.get();
        if (path.length() > RecordKey.MAX_PATH_LENGTH) {
            return reject(ProblemCode.IDEMPOTENCY_PATH_TOO_LONG, "The request path is longer than "
                    + RecordKey.MAX_PATH_LENGTH + " characters", method, abbreviated(path), null, keyPreview);
        }
        Optional<String> tenant = resolveTenant(request);
        if (tenant.isEmpty()) {
            return reject(ProblemCode.IDEMPOTENCY_TENANT_UNKNOWN, null, method, path, null, keyPreview);
        }
        if (tenant.get().length() > RecordKey.MAX_TENANT_LENGTH) {
            return reject(ProblemCode.IDEMPOTENCY_TENANT_UNKNOWN, "The tenant identifier is longer than "
                    + RecordKey.MAX_TENANT_LENGTH + " characters", method, path, null, keyPreview);
        }
        RecordKey recordKey = new RecordKey(tenant.get(), method, path, key);
        byte[] body = request.body();
        if (body.length > config.maxRequestBodyBytes()) {
            return reject(recordKey, ProblemCode.IDEMPOTENCY_REQUEST_TOO_LARGE, "The request body exceeds "
                    + config.maxRequestBodyBytes() + " bytes");
        }
        String contentType = request.header("Content-Type");
        String fingerprint = Fingerprints.of(contentType, config.canonicalizer().canonicalize(body, contentType));
        try {
            return config.mode() == Mode.OPTIMISTIC ? lookUp(recordKey, fingerprint) : reserve(recordKey, fingerprint);
        } catch (StorageUnavailableException e) {
            log.warn("Idempotency storage unavailable ({}) for key_preview={}: {}", e.reason(), keyPreview,
                    e.getMessage());
            return reject(recordKey, ProblemCode.IDEMPOTENCY_STORAGE_UNAVAILABLE, storageDetail(e.reason()));
        } catch (RuntimeException e) {
            log.error("Idempotency storage failed for key_preview={}", keyPreview, e);
            return reject(recordKey, ProblemCode.IDEMPOTENCY_STORAGE_UNAVAILABLE, ProblemCode
                    .IDEMPOTENCY_STORAGE_UNAVAILABLE.defaultDetail());
        }
    }

    /**
     * Answers a request the framework refused before the engine could decide — for example a body
     * over the framework's own size limit, which it will not hand over — with {@code code}'s
     * problem, and reports it to the listeners as the engine's own rejections are. For adapters.
     */
    public Decision.Respond reject(RequestView request, ProblemCode code, String detail) {
        String method = request.method().toUpperCase(java.util.Locale.ROOT);
        return (Decision.Respond) reject(code, detail, method, abbreviated(RequestPaths.normalize(request.path()).orElse(request.path())), null, null);
    }

    private static String withoutQuery(String path) {
        int query = path.indexOf('?');
        return query < 0 ? path : path.substring(0, query);
    }

    /** A path short enough for logs and events, not cut inside a surrogate pair. */
    private static String abbreviated(String path) {
        if (path.length() <= 64) {
            return path;
        }
        int end = Character.isHighSurrogate(path.charAt(63)) ? 63 : 64;
        return path.substring(0, end) + "…";
    }

    /**
     * A problem response in this engine's style ({@code type} under the configured base), for
     * adapters and applications that answer errors of their own.
     */
    public Problem problem(ProblemCode code, String detail) {
        return problem(code.code(), code.title(), code.status(), detail == null ? code.defaultDetail() : detail);
    }

    /**
     * A problem of the application's own (e.g. {@code validation_failed}) in the same style as
     * the engine's: {@code type} under the configured base, the code as its last segment.
     */
    public Problem problem(String code, String title, int status, String detail) {
        return new Problem(config.problemTypeBase() + code, title, status, detail, code);
    }

    /** Stops the lease-renewal thread. Executions still running lose their renewal. */
    @Override
    public void close() {
        leaseRenewer.close();
    }

    private Decision reserve(RecordKey key, String fingerprint) {
        Instant deadline = now().plus(config.inFlightWait());
        while (true) {
            Instant now = now();
            ReserveResult result = config.mode() == Mode.ATOMIC
                    ? ((TransactionalStore) store).reserveInTransaction(key, fingerprint, now, config.lease(),
                            config.ttl(), config.inFlightWait())
                    : store.reserve(key, fingerprint, now, config.lease(), config.ttl());
            if (result instanceof ReserveResult.Acquired acquired) {
                return new Decision.Proceed(new ReservedExecution(acquired.reservation(), fingerprint));
            }
            IdempotencyRecord record = ((ReserveResult.Existing) result).record();
            boolean mayWait = config.mode() != Mode.ATOMIC && now.isBefore(deadline);
            if (!record.fingerprint().equals(fingerprint) || record.isCompleted() || !mayWait
                    || !sleep(Duration.between(now, deadline), key)) {
                return answerExisting(key, fingerprint, record);
            }
        }
    }

    private Decision lookUp(RecordKey key, String fingerprint) {
        Optional<IdempotencyRecord> record = store.find(key, now());
        return record.isPresent()
                ? answerExisting(key, fingerprint, record.get())
                : new Decision.Proceed(new OptimisticExecution(key, fingerprint));
    }

    /** A live record is in the way: conflict, replay, or still in progress. */
    private Decision answerExisting(RecordKey key, String fingerprint, IdempotencyRecord record) {
        if (!record.fingerprint().equals(fingerprint)) {
            return reject(key, ProblemCode.IDEMPOTENCY_KEY_CONFLICT, null);
        }
        if (record.isCompleted()) {
            emit(Outcome.REPLAYED, key, null);
            return new Decision.Respond(replayOf(record.response()), Decision.Respond.Outcome.REPLAYED);
        }
        return reject(key, ProblemCode.IDEMPOTENCY_REQUEST_IN_PROGRESS, null);
    }

    private boolean sleep(Duration remaining, RecordKey key) {
        long millis = Math.min(config.inFlightPollInterval().toMillis(), Math.max(1, remaining.toMillis()));
        try {
            Thread.sleep(millis);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            log.debug("Interrupted while waiting for in-flight key_preview={}", key.keyPreview());
            return false;
        }
    }

    private HttpReply replayOf(StoredResponse stored) {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        if (stored.contentType() != null) {
            headers.put("Content-Type", List.of(stored.contentType()));
        }
        headers.putAll(stored.headers());
        headers.put("Cache-Control", List.of("private, no-store"));
        headers.put("X-Content-Type-Options", List.of("nosniff"));
        headers.put("Vary", List.of("Origin"));
        headers.put("Idempotent-Replayed", List.of("true"));
        return new HttpReply(stored.status(), headers, stored.body());
    }

    /** The parts of a captured response that are stored: allow-listed headers only. */
    private StoredResponse toStored(CapturedResponse response) {
        Map<String, List<String>> kept = new LinkedHashMap<>();
        response.headers().forEach((name, values) -> {
            if (config.replayedHeaders().contains(name) && !name.startsWith(":")
                    && !IdempotencyConfig.CREDENTIAL_HEADERS.contains(name)) {
                kept.computeIfAbsent(name, n -> new java.util.ArrayList<>()).addAll(values);
            }
        });
        return new StoredResponse(response.status(), response.contentType(), kept, response.body());
    }

    /** Why not: uncapturable, too large, or the replay policy says no. */
    private boolean isStorable(CapturedResponse response) {
        return response.isCaptured() && response.body().length <= config.maxStoredBodyBytes()
                && config.replayPolicy().isStorable(response);
    }

    private Optional<String> resolveTenant(RequestView request) {
        try {
            return config.tenantResolver().resolve(request);
        } catch (RuntimeException e) {
            log.warn("Tenant resolver failed; treating the tenant as unknown", e);
            return Optional.empty();
        }
    }

    private Decision passThrough(String method, String path) {
        notify(new IdempotencyEvent(Outcome.PASSED_THROUGH, method, path, null, null, null));
        return Decision.PassThrough.INSTANCE;
    }

    private Decision reject(RecordKey key, ProblemCode code, String detail) {
        return reject(code, detail, key.method(), key.path(), key.tenant(), key.keyPreview());
    }

    private Decision reject(ProblemCode code, String detail, String method, String path, String tenant,
                            String keyPreview) {
        notify(new IdempotencyEvent(Outcome.REJECTED, method, path, tenant, keyPreview, code.code()));
        boolean retryable = code == ProblemCode.IDEMPOTENCY_REQUEST_IN_PROGRESS
                || code == ProblemCode.IDEMPOTENCY_STORAGE_UNAVAILABLE;
        HttpReply reply = problem(code, detail).toReply(retryable ? config.retryAfter() : null);
        return new Decision.Respond(reply, Decision.Respond.Outcome.REJECTED);
    }

    private static String storageDetail(StorageUnavailableException.Reason reason) {
        return reason == StorageUnavailableException.Reason.NOT_PROVISIONED
                ? "Idempotency storage is not provisioned"
                : "Idempotency storage is unreachable";
    }

    private void emit(Outcome outcome, RecordKey key, String problemCode) {
        notify(new IdempotencyEvent(outcome, key.method(), key.path(), key.tenant(), key.keyPreview(), problemCode));
    }

    private void notify(IdempotencyEvent event) {
        try {
            config.listener().onEvent(event);
        } catch (RuntimeException e) {
            log.warn("Idempotency listener failed on {}", event.outcome(), e);
        }
    }

    private Instant now() {
        return config.clock().instant();
    }

    /** The reserve and atomic modes: the handler runs under a won reservation. */
    private final class ReservedExecution implements Execution {
        private final Reservation reservation;
        private final ScheduledFuture<?> renewal;

        ReservedExecution(Reservation reservation, String fingerprint) {
            this.reservation = reservation;
            // In the atomic mode the uncommitted reservation is invisible to others: nothing to renew.
            this.renewal = config.renewLease() && config.mode() == Mode.RESERVE
                    ? leaseRenewer.schedule(reservation) : null;
        }

        @Override
        public RecordKey key() {
            return reservation.key();
        }

        @Override
        public Optional<HttpReply> finish(CapturedResponse response) {
            stopRenewal();
            if (!isStorable(response)) {
                if (!response.isCaptured()) {
                    log.debug("Response for key_preview={} was not captured; releasing", key().keyPreview());
                }
                emit(Outcome.EXECUTED_NOT_STORED, key(), null);
                try {
                    reservation.release();
                } catch (RuntimeException e) {
                    // The lease still expires, so the key frees itself. In the atomic mode, though, the
                    // release's commit carried the handler's writes: they were not applied.
                    log.warn("Could not release reservation for key_preview={}: {}", key().keyPreview(), e.toString());
                    return notApplied();
                }
                return Optional.empty();
            }
            try {
                if (reservation.complete(toStored(response))) {
                    emit(Outcome.EXECUTED_STORED, key(), null);
                    return Optional.empty();
                }
                log.warn("idempotency.persist_failed key_preview={}: the reservation was lost (lease expired "
                        + "and taken over); the response was not stored", key().keyPreview());
            } catch (RuntimeException e) {
                log.warn("idempotency.persist_failed key_preview={}: {}", key().keyPreview(), e.toString());
            }
            emit(Outcome.PERSIST_FAILED, key(), null);
            return notApplied();
        }

        /**
         * In the atomic mode a failed commit took the handler's writes with it, so its success
         * response would be a lie: answer 503, and the client's retry runs the request again.
         * Otherwise the handler's effects stand and its response goes out unchanged.
         */
        private Optional<HttpReply> notApplied() {
            if (config.mode() != Mode.ATOMIC) {
                return Optional.empty();
            }
            return Optional.of(problem(ProblemCode.IDEMPOTENCY_STORAGE_UNAVAILABLE,
                    "The request could not be committed and was not applied; retry with the same key")
                    .toReply(config.retryAfter()));
        }

        @Override
        public void fail(Throwable cause) {
            stopRenewal();
            log.debug("Handler failed for key_preview={}; releasing: {}", key().keyPreview(), String.valueOf(cause));
            quietly("abort", reservation::abort);
            emit(Outcome.EXECUTION_FAILED, key(), null);
        }

        @Override
        public <T> Optional<T> unwrap(Class<T> type) {
            return reservation.unwrap(type);
        }

        private void stopRenewal() {
            if (renewal != null) {
                renewal.cancel(false);
            }
        }

        private void quietly(String what, Runnable action) {
            try {
                action.run();
            } catch (RuntimeException e) {
                // The lease still expires, so the key frees itself; nothing more to do here.
                log.warn("Could not {} reservation for key_preview={}: {}", what, key().keyPreview(), e.toString());
            }
        }
    }

    /** The optimistic mode: nothing reserved; insert-if-absent after the handler. */
    private final class OptimisticExecution implements Execution {
        private final RecordKey key;
        private final String fingerprint;

        OptimisticExecution(RecordKey key, String fingerprint) {
            this.key = key;
            this.fingerprint = fingerprint;
        }

        @Override
        public RecordKey key() {
            return key;
        }

        @Override
        public Optional<HttpReply> finish(CapturedResponse response) {
            try {
                if (isStorable(response)) {
                    boolean inserted = store.insertCompleted(key, fingerprint, toStored(response), now(), config.ttl());
                    emit(inserted ? Outcome.EXECUTED_STORED : Outcome.EXECUTED_NOT_STORED, key, null);
                    return Optional.empty();
                }
                if (response.status() == 409) {
                    // A concurrent twin may have finished first; look once more, as the reference design does.
                    Optional<IdempotencyRecord> raced = store.find(key, now());
                    if (raced.isPresent() && raced.get().isCompleted() && raced.get().fingerprint().equals(fingerprint)) {
                        emit(Outcome.REPLAYED, key, null);
                        return Optional.of(replayOf(raced.get().response()));
                    }
                }
                emit(Outcome.EXECUTED_NOT_STORED, key, null);
            } catch (RuntimeException e) {
                log.warn("idempotency.persist_failed key_preview={}: {}", key.keyPreview(), e.toString());
                emit(Outcome.PERSIST_FAILED, key, null);
            }
            return Optional.empty();
        }

        @Override
        public void fail(Throwable cause) {
            emit(Outcome.EXECUTION_FAILED, key, null);
        }

        @Override
        public <T> Optional<T> unwrap(Class<T> type) {
            return Optional.empty();
        }
    }

    /** Renews running reservations' leases on one daemon thread, started on first use. */
    private final class LeaseRenewer implements AutoCloseable {
        private ScheduledExecutorService executor;

        synchronized ScheduledFuture<?> schedule(Reservation reservation) {
            if (executor == null) {
                ScheduledThreadPoolExecutor pool = new ScheduledThreadPoolExecutor(1, r -> {
                    Thread t = new Thread(r, "idempotency-lease-renewer");
                    t.setDaemon(true);
                    return t;
                });
                // Most handlers finish long before their first renewal: drop cancelled tasks at once.
                pool.setRemoveOnCancelPolicy(true);
                executor = pool;
            }
            long period = Math.max(1, config.lease().toMillis() / 3);
            // A handler that outlives its record's time to live was lost (or hangs): stop renewing
            // so its key frees itself once the lease lapses.
            Instant giveUpAt = now().plus(config.ttl());
            ScheduledFuture<?>[] self = new ScheduledFuture<?>[1];
            self[0] = executor.scheduleAtFixedRate(() -> {
                try {
                    Instant now = now();
                    if (!now.isBefore(giveUpAt)) {
                        log.warn("Handler for key_preview={} still running after the ttl; no longer renewing its lease",
                                reservation.key().keyPreview());
                        self[0].cancel(false);
                    } else if (!reservation.renew(now, config.lease())) {
                        log.warn("Lease lost for key_preview={}; another request may run it again",
                                reservation.key().keyPreview());
                        self[0].cancel(false);
                    }
                } catch (RuntimeException e) {
                    log.warn("Lease renewal failed for key_preview={}: {}", reservation.key().keyPreview(), e.toString());
                }
            }, period, period, TimeUnit.MILLISECONDS);
            return self[0];
        }

        @Override
        public synchronized void close() {
            if (executor != null) {
                executor.shutdownNow();
            }
        }
    }
}
