package dev.idempotency.core.engine;

import dev.idempotency.core.adapter.CapturedResponse;
import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.adapter.HttpReply;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.IdempotencyEvent;
import dev.idempotency.core.Problem;
import dev.idempotency.core.ProblemCode;
import dev.idempotency.core.IdempotencyEvent.Outcome;
import dev.idempotency.core.store.IdempotencyRecord;
import dev.idempotency.core.store.RecordKey;
import dev.idempotency.core.store.StorageUnavailableException;
import dev.idempotency.core.store.StoredResponse;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The decision rules, as pure code every mode and both faces share: what a record in the way
 * means (replay, 422, 409), which responses are stored and how, what a replay and a problem look
 * like — and telling the listener about each. Every reply carries a {@code Date} of the engine's
 * clock (RFC 9110 §6.6.1), replacing any a replayed record kept.
 */
public final class Answers {

    private static final Logger log = LoggerFactory.getLogger(IdempotencyEngine.class);

    /** IMF-fixdate (RFC 9110 §5.6.7): {@code Sun, 06 Nov 1994 08:49:37 GMT}. */
    private static final DateTimeFormatter IMF_FIXDATE =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC);

    private final IdempotencyConfig config;

    public Answers(IdempotencyConfig config) {
        this.config = config;
    }

    /** A live record is in the way: a different request (422), its replay, or still in progress (409). */
    Decision existing(RecordKey key, String fingerprint, IdempotencyRecord record, Stopwatch watch) {
        if (!record.fingerprint().equals(fingerprint)) {
            return reject(key, ProblemCode.IDEMPOTENCY_KEY_CONFLICT, null, watch);
        }
        if (record.isCompleted()) {
            return replay(key, record.response(), watch);
        }
        return reject(key, ProblemCode.IDEMPOTENCY_REQUEST_IN_PROGRESS, null, watch);
    }

    /** Whether a duplicate of an in-flight request may wait for it to finish rather than get 409. */
    static boolean isWorthWaitingFor(IdempotencyRecord record, String fingerprint) {
        return record.fingerprint().equals(fingerprint) && !record.isCompleted();
    }

    Decision.Respond replay(RecordKey key, StoredResponse stored, Stopwatch watch) {
        emit(Outcome.REPLAYED, key, watch);
        return new Decision.Respond(dated(replayOf(stored)), Decision.Respond.Outcome.REPLAYED,
                stored.bodyStored() ? null : ProblemCode.IDEMPOTENCY_RESPONSE_NOT_STORED, null);
    }

    /**
     * What of a handler's response is stored: empty when nothing is (the replay policy says the
     * request did not fully succeed, so a retry may run it again); the whole response; or, when a
     * success cannot be kept — not captured (streamed), a body over {@code maxStoredBodyBytes} —
     * its status and allow-listed headers without the body, so a retry is told it was applied
     * rather than run again (unless {@code runAgainWhenNotStored}). Only allow-listed headers are
     * kept; a {@code Content-Type} longer than {@link StoredResponse#MAX_CONTENT_TYPE_LENGTH}
     * (longer than every shipped table holds) keeps the record from holding the body too.
     */
    Optional<StoredResponse> toStored(CapturedResponse response) {
        if (!config.replayPolicy().isStorable(response)) {
            return Optional.empty();
        }
        String contentType = response.contentType();
        boolean typeFits = contentType == null || contentType.length() <= StoredResponse.MAX_CONTENT_TYPE_LENGTH;
        if (typeFits && response.isCaptured() && response.body().length <= config.maxStoredBodyBytes()) {
            return Optional.of(new StoredResponse(response.status(), contentType, replayedHeaders(response),
                    response.body()));
        }
        if (config.runAgainWhenNotStored()) {
            return Optional.empty();
        }
        return Optional.of(StoredResponse.withoutBody(response.status(), typeFits ? contentType : null,
                replayedHeaders(response)));
    }

    private Map<String, List<String>> replayedHeaders(CapturedResponse response) {
        Map<String, List<String>> kept = new LinkedHashMap<>();
        response.headers().forEach((name, values) -> {
            if (config.replayedHeaders().contains(name) && !name.startsWith(":")
                    && !IdempotencyConfig.CREDENTIAL_HEADERS.contains(name)) {
                kept.computeIfAbsent(name, n -> new ArrayList<>()).addAll(values);
            }
        });
        return kept;
    }

    /** The storage failed while deciding: 503, never the handler without a reservation. */
    public Decision storageFailed(RecordKey key, Throwable failure, Stopwatch watch) {
        Throwable cause = Stages.unwrap(failure);
        if (cause instanceof StorageUnavailableException unavailable) {
            log.warn("Idempotency storage unavailable ({}) for key_preview={}: {}", unavailable.reason(),
                    key.keyPreview(), unavailable.getMessage());
            return withFailure(reject(key, ProblemCode.IDEMPOTENCY_STORAGE_UNAVAILABLE,
                    storageDetail(unavailable.reason()), watch), cause);
        }
        log.error("Idempotency storage failed for key_preview={}", key.keyPreview(), cause);
        return withFailure(reject(key, ProblemCode.IDEMPOTENCY_STORAGE_UNAVAILABLE, null, watch), cause);
    }

    private static Decision withFailure(Decision.Respond refusal, Throwable cause) {
        return new Decision.Respond(refusal.reply(), refusal.outcome(), refusal.problem(), cause);
    }

    /**
     * The atomic mode's answer when the final commit failed: it took the handler's writes with it,
     * so the handler's success response would be a lie; the client's retry runs the request again.
     * When the storage connection was lost, the commit may have landed all the same, and the reply
     * says so.
     *
     * @param failure what the completion failed with; {@code null} when the reservation was lost
     */
    Optional<HttpReply> notApplied(Throwable failure) {
        // A connection lost while committing leaves the outcome unknown: the COMMIT may have landed.
        // Either way a retry with the same key is safe — it replays what landed, or runs afresh.
        String detail = failure != null && Stages.unwrap(failure) instanceof StorageUnavailableException
                ? "The request may or may not have been applied (the storage connection was lost while it "
                        + "committed); retry with the same key: it is safe"
                : "The request could not be committed and was not applied; retry with the same key";
        return Optional.of(dated(problem(ProblemCode.IDEMPOTENCY_STORAGE_UNAVAILABLE, detail)
                .toReply(config.retryAfter())));
    }

    Decision passThrough(String method, String path, Stopwatch watch) {
        notify(new IdempotencyEvent(Outcome.PASSED_THROUGH, method, path, null, null, null, watch.decisionTime(),
                null));
        return new Decision.PassThrough();
    }

    Decision.Respond reject(RecordKey key, ProblemCode code, String detail, Stopwatch watch) {
        return reject(code, detail, key.method(), key.path(), key.tenant(), key.keyPreview(), watch);
    }

    public Decision.Respond reject(ProblemCode code, String detail, String method, String path, String tenant,
                            String keyPreview, Stopwatch watch) {
        notify(new IdempotencyEvent(Outcome.REJECTED, method, path, tenant, keyPreview, code.code(),
                watch.decisionTime(), null));
        boolean retryable = code == ProblemCode.IDEMPOTENCY_REQUEST_IN_PROGRESS
                || code == ProblemCode.IDEMPOTENCY_STORAGE_UNAVAILABLE;
        HttpReply reply = dated(problem(code, detail).toReply(retryable ? config.retryAfter() : null));
        return new Decision.Respond(reply, Decision.Respond.Outcome.REJECTED, code, null);
    }

    public Problem problem(ProblemCode code, String detail) {
        return new Problem(config.problemTypeBase() + code.code(), code.title(), code.status(),
                detail == null ? code.defaultDetail() : detail, code.code());
    }

    void emit(Outcome outcome, RecordKey key, Stopwatch watch) {
        notify(new IdempotencyEvent(outcome, key.method(), key.path(), key.tenant(), key.keyPreview(), null,
                watch.decisionTime(), watch.executionTime()));
    }

    private void notify(IdempotencyEvent event) {
        Listeners.tell(config.listener(), event);
    }

    /** {@code reply} with the engine's {@code Date} in place of any it had. */
    private HttpReply dated(HttpReply reply) {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        reply.headers().forEach((name, values) -> {
            if (!name.equalsIgnoreCase("Date")) {
                headers.put(name, values);
            }
        });
        headers.put("Date", List.of(IMF_FIXDATE.format(config.clock().instant())));
        return new HttpReply(reply.status(), headers, reply.body());
    }

    private HttpReply replayOf(StoredResponse stored) {
        if (!stored.bodyStored()) {
            return notStoredReply(stored);
        }
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

    /** A record kept without its body: the request was applied; say so, with where its result is. */
    private HttpReply notStoredReply(StoredResponse stored) {
        String location = stored.headers().entrySet().stream()
                .filter(e -> e.getKey().equalsIgnoreCase("Location") && !e.getValue().isEmpty())
                .map(e -> e.getValue().get(0)).findFirst().orElse(null);
        String detail = "The request with this Idempotency-Key was already applied (status " + stored.status()
                + "), but its response was not stored (streamed or too large) and cannot be sent again"
                + (location == null ? "" : "; its result is at " + location);
        HttpReply problem = problem(ProblemCode.IDEMPOTENCY_RESPONSE_NOT_STORED, detail).toReply();
        Map<String, List<String>> headers = new LinkedHashMap<>(problem.headers());
        stored.headers().forEach(headers::putIfAbsent);
        headers.put("Idempotent-Replayed", List.of("true"));
        return new HttpReply(problem.status(), headers, problem.body());
    }

    private static String storageDetail(StorageUnavailableException.Reason reason) {
        return switch (reason) {
            case NOT_PROVISIONED -> "Idempotency storage is not provisioned";
            case BUSY -> "Idempotency storage is busy";
            case UNREACHABLE -> "Idempotency storage is unreachable";
        };
    }
}
