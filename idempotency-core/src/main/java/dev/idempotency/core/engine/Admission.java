package dev.idempotency.core.engine;

import dev.idempotency.core.adapter.Decision;
import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.IdempotencyEngine;
import dev.idempotency.core.ProblemCode;
import dev.idempotency.core.adapter.RequestPaths;
import dev.idempotency.core.adapter.RequestView;
import dev.idempotency.core.internal.WithheldMessage;
import dev.idempotency.core.store.RecordKey;
import java.util.Locale;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything decided about a request before the store is asked: is it in scope, is its key valid,
 * which record is it (tenant, caller, method, path, key), is its body acceptable, and its fingerprint.
 * Pure: no I/O, the same for every mode and both faces.
 */
public sealed interface Admission {

    /** Answered without the store: passed through or refused. */
    record Decided(Decision decision) implements Admission {
    }

    /** An idempotent request: its record and its fingerprint, for the mode's flow. */
    record Admitted(RecordKey key, String fingerprint, Stopwatch watch) implements Admission {
    }

    static Admission of(RequestView request, IdempotencyConfig config, Callers callers, Answers answers,
            Stopwatch watch) {
        String method = request.method().toUpperCase(Locale.ROOT);
        if (!config.covers(method)) {
            return new Decided(answers.passThrough(method, request.path(), watch));
        }
        IdempotencyKeys.Parsed parsed = IdempotencyKeys.parse(request.headers(config.headerName()));
        if (parsed instanceof IdempotencyKeys.Parsed.Missing) {
            return new Decided(config.keyRequired()
                    ? answers.reject(ProblemCode.IDEMPOTENCY_KEY_MISSING, null, method, request.path(), null, null, watch)
                    : answers.passThrough(method, request.path(), watch));
        }
        if (parsed instanceof IdempotencyKeys.Parsed.Invalid invalid) {
            return new Decided(answers.reject(ProblemCode.IDEMPOTENCY_KEY_INVALID, invalid.reason(), method,
                    request.path(), null, null, watch));
        }
        String key = ((IdempotencyKeys.Parsed.Valid) parsed).key();
        String keyPreview = RecordKey.preview(key);
        Optional<String> normalized = RequestPaths.normalize(request.path());
        String target = request.requestTarget();
        if (normalized.isEmpty() || target != null && target.indexOf('#') >= 0) {
            String detail = normalized.isEmpty() ? RequestPaths.refusal(request.path()) : RequestPaths.FRAGMENT;
            return new Decided(answers.reject(ProblemCode.IDEMPOTENCY_PATH_INVALID, detail, method,
                    abbreviated(withoutQuery(request.path())), null, keyPreview, watch));
        }
        String path = normalized.get();
        if (path.length() > RecordKey.MAX_PATH_LENGTH) {
            return new Decided(answers.reject(ProblemCode.IDEMPOTENCY_PATH_TOO_LONG, "The request path is longer than "
                    + RecordKey.MAX_PATH_LENGTH + " characters", method, abbreviated(path), null, keyPreview, watch));
        }
        Optional<String> tenant = resolveTenant(request, config);
        if (tenant.isEmpty()) {
            return new Decided(answers.reject(ProblemCode.IDEMPOTENCY_TENANT_UNKNOWN, null, method, path, null,
                    keyPreview, watch));
        }
        if (tenant.get().length() > RecordKey.MAX_TENANT_LENGTH) {
            return new Decided(answers.reject(ProblemCode.IDEMPOTENCY_TENANT_UNKNOWN,
                    "The tenant identifier is longer than " + RecordKey.MAX_TENANT_LENGTH + " characters", method,
                    path, null, keyPreview, watch));
        }
        Callers.Filing caller = callers.of(request);
        if (caller instanceof Callers.Filing.Refused refused) {
            return new Decided(answers.reject(ProblemCode.IDEMPOTENCY_CALLER_UNKNOWN, refused.detail(), method, path,
                    tenant.get(), keyPreview, watch));
        }
        RecordKey recordKey = new RecordKey(tenant.get(), ((Callers.Filing.Under) caller).caller(), method, path, key);
        byte[] body = request.body();
        if (body.length > config.maxRequestBodyBytes()) {
            return new Decided(answers.reject(recordKey, ProblemCode.IDEMPOTENCY_REQUEST_TOO_LARGE,
                    "The request body exceeds " + config.maxRequestBodyBytes() + " bytes", watch));
        }
        ContentCodings.Decoded decoded = ContentCodings.decode(request.headers("Content-Encoding"), body,
                config.maxRequestBodyBytes());
        if (decoded instanceof ContentCodings.Decoded.TooLarge) {
            return new Decided(answers.reject(recordKey, ProblemCode.IDEMPOTENCY_REQUEST_TOO_LARGE,
                    "The request body exceeds " + config.maxRequestBodyBytes() + " bytes once decoded", watch));
        }
        if (decoded instanceof ContentCodings.Decoded.Unsupported) {
            // No fingerprint of it would match its retries sent in another coding.
            return new Decided(answers.reject(recordKey, ProblemCode.IDEMPOTENCY_CONTENT_ENCODING_UNSUPPORTED, null,
                    watch));
        }
        byte[] content = ((ContentCodings.Decoded.Content) decoded).bytes();
        String contentType = request.header("Content-Type");
        String fingerprint = Fingerprints.of(request.query(), contentType, config.canonicalizer().canonicalize(content, contentType));
        return new Admitted(recordKey, fingerprint, watch);
    }

    /** A path short enough for logs and events, not cut inside a surrogate pair. */
    static String abbreviated(String path) {
        if (path.length() <= 64) {
            return path;
        }
        int end = Character.isHighSurrogate(path.charAt(63)) ? 63 : 64;
        return path.substring(0, end) + "…";
    }

    private static String withoutQuery(String path) {
        int query = path.indexOf('?');
        return query < 0 ? path : path.substring(0, query);
    }

    private static Optional<String> resolveTenant(RequestView request, IdempotencyConfig config) {
        try {
            return config.tenantResolver().resolve(request);
        } catch (RuntimeException e) {
            Logger log = LoggerFactory.getLogger(IdempotencyEngine.class);
            log.warn("Tenant resolver failed; treating the tenant as unknown", WithheldMessage.of(e));
            return Optional.empty();
        }
    }
}
