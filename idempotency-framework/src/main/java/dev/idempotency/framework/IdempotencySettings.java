package dev.idempotency.framework;

import dev.idempotency.core.IdempotencyConfig;
import dev.idempotency.core.Mode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The {@code idempotency.*} settings every framework integration reads, with the same keys and
 * defaults; a framework's properties class extends it and adds its binding. Every engine default is
 * the engine's own ({@link IdempotencyConfig#defaults()}), so the two cannot drift apart.
 *
 * <p>{@code enabled} switches the integration on; {@code paths} and {@code order} belong to the
 * filter, everything else to the engine. When the application defines an
 * {@link dev.idempotency.core.IdempotencyEngine} bean of its own, only {@code enabled},
 * {@code paths}, {@code order} and the purge settings ({@link PurgeSettings}) are read.
 */
public class IdempotencySettings {

    /** The configuration prefix. */
    public static final String PREFIX = "idempotency";

    private static final IdempotencyConfig DEFAULTS = IdempotencyConfig.defaults();

    private boolean enabled;
    private List<String> paths = new ArrayList<>(List.of("/**"));
    private int order;
    private String headerName = DEFAULTS.headerName();
    private Set<String> methods = new LinkedHashSet<>(DEFAULTS.methods());
    private boolean keyRequired = DEFAULTS.keyRequired();
    private Mode mode = DEFAULTS.mode();
    private Duration ttl = DEFAULTS.ttl();
    private Duration lease = DEFAULTS.lease();
    private boolean renewLease = DEFAULTS.renewLease();
    private Duration inFlightWait = DEFAULTS.inFlightWait();
    private Duration inFlightPollInterval = DEFAULTS.inFlightPollInterval();
    private Duration retryAfter = DEFAULTS.retryAfter();
    private int maxRequestBodyBytes = DEFAULTS.maxRequestBodyBytes();
    private int maxStoredBodyBytes = DEFAULTS.maxStoredBodyBytes();
    private boolean runAgainWhenNotStored = DEFAULTS.runAgainWhenNotStored();
    private Set<String> replayedHeaders = new LinkedHashSet<>(DEFAULTS.replayedHeaders());
    private String problemTypeBase = DEFAULTS.problemTypeBase();
    private boolean shareRecordsAcrossCallers = DEFAULTS.shareRecordsAcrossCallers();

    /**
     * The keys only an engine the integration assembles reads: with an {@code IdempotencyEngine}
     * of the application's own they are ignored (its {@code IdempotencyConfig} decides).
     */
    public static final List<String> ENGINE_KEYS = List.of("header-name", "methods", "key-required", "mode", "ttl",
            "lease", "renew-lease", "in-flight-wait", "in-flight-poll-interval", "retry-after",
            "max-request-body-bytes", "max-stored-body-bytes", "run-again-when-not-stored", "replayed-headers",
            "problem-type-base", "share-records-across-callers").stream().map(name -> PREFIX + "." + name).toList();

    /** Settings whose filter order defaults to {@code defaultOrder}, the framework's place after its security filters. */
    protected IdempotencySettings(int defaultOrder) {
        this.order = defaultOrder;
    }

    /**
     * The engine settings these describe, before the application's beans are added.
     *
     * @throws InvalidSettingsException when the ttl and the lease cannot work: either is missing or
     *         not positive, or the lease is longer than the ttl
     */
    public IdempotencyConfig.Builder toConfigBuilder() {
        checkTtlAndLease();
        return IdempotencyConfig.builder()
                .headerName(headerName)
                .methods(methods)
                .keyRequired(keyRequired)
                .mode(mode)
                .ttl(ttl)
                .lease(lease)
                .renewLease(renewLease)
                .inFlightWait(inFlightWait)
                .inFlightPollInterval(inFlightPollInterval)
                .retryAfter(retryAfter)
                .maxRequestBodyBytes(maxRequestBodyBytes)
                .maxStoredBodyBytes(maxStoredBodyBytes)
                .runAgainWhenNotStored(runAgainWhenNotStored)
                .replayedHeaders(replayedHeaders)
                .problemTypeBase(problemTypeBase)
                .shareRecordsAcrossCallers(shareRecordsAcrossCallers);
    }

    /**
     * A record must live at least as long as a reservation's lease: the ttl is where a record ends
     * unless a running handler's renewed lease keeps it, so a lease longer than the ttl would let a
     * handler's first lease outlast the record it guards.
     */
    private void checkTtlAndLease() {
        String ttlKey = PREFIX + ".ttl";
        String leaseKey = PREFIX + ".lease";
        requirePositive(ttlKey, ttl);
        requirePositive(leaseKey, lease);
        if (lease.compareTo(ttl) > 0) {
            throw new InvalidSettingsException(List.of(leaseKey, ttlKey), leaseKey + " (" + lease
                    + ") must not be longer than " + ttlKey + " (" + ttl + "): a record must outlive its reservation's "
                    + "lease. Set " + ttlKey + " to at least " + leaseKey + " (ttl: how long responses are replayed, "
                    + "default 24 h; lease: how long a reservation holds without renewal, default 30 s).");
        }
    }

    private static void requirePositive(String key, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new InvalidSettingsException(List.of(key), key + " must be a positive duration; it is " + value);
        }
    }

    /** Whether the filter is installed at all; default {@code false}. */
    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /** Ant-style path patterns the filter covers; default {@code /**} (every path). */
    public List<String> getPaths() {
        return paths;
    }

    public void setPaths(List<String> paths) {
        this.paths = new ArrayList<>(paths);
    }

    /**
     * The filter's order; by default just after the framework's security filters, so
     * authentication has run: the caller, and a tenant resolver, can read its result.
     */
    public int getOrder() {
        return order;
    }

    public void setOrder(int order) {
        this.order = order;
    }

    /** The request header carrying the key; default {@code Idempotency-Key}. */
    public String getHeaderName() {
        return headerName;
    }

    public void setHeaderName(String headerName) {
        this.headerName = headerName;
    }

    /** The HTTP methods in scope; default {@code POST}. */
    public Set<String> getMethods() {
        return methods;
    }

    public void setMethods(Set<String> methods) {
        this.methods = new LinkedHashSet<>(methods);
    }

    /** Answer 400 when the key is missing, instead of passing the request through; default false. */
    public boolean isKeyRequired() {
        return keyRequired;
    }

    public void setKeyRequired(boolean keyRequired) {
        this.keyRequired = keyRequired;
    }

    /** {@code OPTIMISTIC}, {@code RESERVE} (default) or {@code ATOMIC}. */
    public Mode getMode() {
        return mode;
    }

    public void setMode(Mode mode) {
        this.mode = mode;
    }

    /** How long a record lives, counted from its reservation (the first request): its response is replayed until then; default 24 h. */
    public Duration getTtl() {
        return ttl;
    }

    public void setTtl(Duration ttl) {
        this.ttl = ttl;
    }

    /** How long a reservation is safe without renewal; default 30 s. */
    public Duration getLease() {
        return lease;
    }

    public void setLease(Duration lease) {
        this.lease = lease;
    }

    /** Renew the lease while the handler runs; default true. */
    public boolean isRenewLease() {
        return renewLease;
    }

    public void setRenewLease(boolean renewLease) {
        this.renewLease = renewLease;
    }

    /**
     * How long a duplicate waits for the first request to finish before it gets 409; default 0
     * (answer 409 at once).
     */
    public Duration getInFlightWait() {
        return inFlightWait;
    }

    public void setInFlightWait(Duration inFlightWait) {
        this.inFlightWait = inFlightWait;
    }

    /** How often a waiting duplicate looks again; default 50 ms. */
    public Duration getInFlightPollInterval() {
        return inFlightPollInterval;
    }

    public void setInFlightPollInterval(Duration inFlightPollInterval) {
        this.inFlightPollInterval = inFlightPollInterval;
    }

    /** The {@code Retry-After} sent with 409 and 503; default 1 s. */
    public Duration getRetryAfter() {
        return retryAfter;
    }

    public void setRetryAfter(Duration retryAfter) {
        this.retryAfter = retryAfter;
    }

    /** Larger request bodies get 413; default 1 MiB. */
    public int getMaxRequestBodyBytes() {
        return maxRequestBodyBytes;
    }

    public void setMaxRequestBodyBytes(int maxRequestBodyBytes) {
        this.maxRequestBodyBytes = maxRequestBodyBytes;
    }

    /**
     * A success with a larger body is sent, and stored without its body: a retry gets 410
     * {@code idempotency_response_not_stored}; default 4 MiB.
     */
    public int getMaxStoredBodyBytes() {
        return maxStoredBodyBytes;
    }

    public void setMaxStoredBodyBytes(int maxStoredBodyBytes) {
        this.maxStoredBodyBytes = maxStoredBodyBytes;
    }

    /**
     * Release the key of a success that cannot be stored whole (streamed, or over
     * {@code max-stored-body-bytes}) instead, so a retry, or a duplicate sent while it runs, runs the
     * handler again; default false. Only for handlers that are safe to repeat.
     */
    public boolean isRunAgainWhenNotStored() {
        return runAgainWhenNotStored;
    }

    public void setRunAgainWhenNotStored(boolean runAgainWhenNotStored) {
        this.runAgainWhenNotStored = runAgainWhenNotStored;
    }

    /** Response headers stored and replayed; default Location, Content-Location, ETag, Last-Modified, Link. */
    public Set<String> getReplayedHeaders() {
        return replayedHeaders;
    }

    public void setReplayedHeaders(Set<String> replayedHeaders) {
        this.replayedHeaders = new LinkedHashSet<>(replayedHeaders);
    }

    /** The prefix of each problem document's {@code type}; default {@code urn:idempotency:problem:}. */
    public String getProblemTypeBase() {
        return problemTypeBase;
    }

    public void setProblemTypeBase(String problemTypeBase) {
        this.problemTypeBase = problemTypeBase;
    }

    /**
     * File every caller's records of a tenant together instead of each authenticated caller's
     * apart; default false. A risk: a caller who sends another caller's key and body gets that
     * caller's response, and one who sends another body learns that the key exists.
     */
    public boolean isShareRecordsAcrossCallers() {
        return shareRecordsAcrossCallers;
    }

    public void setShareRecordsAcrossCallers(boolean shareRecordsAcrossCallers) {
        this.shareRecordsAcrossCallers = shareRecordsAcrossCallers;
    }
}
