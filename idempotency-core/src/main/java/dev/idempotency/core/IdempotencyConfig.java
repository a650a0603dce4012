package dev.idempotency.core;

import dev.idempotency.core.internal.Require;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/**
 * Immutable engine settings, checked when built. {@link #defaults()} gives every default below;
 * {@link #builder()} changes some.
 *
 * <table>
 *   <caption>Settings and defaults</caption>
 *   <tr><th>setting</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@code headerName}</td><td>{@code Idempotency-Key}</td><td>the request header carrying the key</td></tr>
 *   <tr><td>{@code methods}</td><td>{@code POST}</td><td>methods in scope; others pass through</td></tr>
 *   <tr><td>{@code keyRequired}</td><td>false</td><td>answer 400 {@code idempotency_key_missing} instead of passing through</td></tr>
 *   <tr><td>{@code mode}</td><td>{@link Mode#RESERVE}</td><td>optimistic, reserve or atomic</td></tr>
 *   <tr><td>{@code ttl}</td><td>24 h</td><td>how long a record lives, counted from its reservation (the first request; a
 *       take-over of a lapsed lease counts again), not from its completion</td></tr>
 *   <tr><td>{@code lease}</td><td>30 s</td><td>how long a reservation is safe without renewal (in the atomic mode,
 *       stores may also use it to end a transaction left idle that long)</td></tr>
 *   <tr><td>{@code renewLease}</td><td>true</td><td>renew the lease every {@code lease / 3} while the handler runs</td></tr>
 *   <tr><td>{@code inFlightWait}</td><td>0</td><td>how long a duplicate waits for the first to finish before 409</td></tr>
 *   <tr><td>{@code inFlightPollInterval}</td><td>50 ms</td><td>how often a waiting duplicate looks again (not used in the
 *       atomic mode, where the database wakes the waiter)</td></tr>
 *   <tr><td>{@code retryAfter}</td><td>1 s</td><td>{@code Retry-After} on 409 and 503</td></tr>
 *   <tr><td>{@code maxRequestBodyBytes}</td><td>1 MiB</td><td>larger bodies, as sent or once decoded (gzip, deflate), get 413</td></tr>
 *   <tr><td>{@code maxStoredBodyBytes}</td><td>4 MiB</td><td>a larger success is stored without its body: a retry
 *       gets 410 {@code idempotency_response_not_stored} (so does one whose body was streamed, not captured)</td></tr>
 *   <tr><td>{@code runAgainWhenNotStored}</td><td>false</td><td>instead, release the key of a success that cannot be
 *       stored whole, so a retry or a concurrent duplicate RUNS THE HANDLER AGAIN</td></tr>
 *   <tr><td>{@code replayedHeaders}</td><td>Location, Content-Location, ETag, Last-Modified, Link</td><td>response headers stored and replayed (credential headers are refused)</td></tr>
 *   <tr><td>{@code canonicalizer}</td><td>{@link BodyCanonicalizer#sortedJson()}</td><td>how bodies are normalized before hashing</td></tr>
 *   <tr><td>{@code replayPolicy}</td><td>{@link ReplayPolicy#defaults()}</td><td>which responses are stored</td></tr>
 *   <tr><td>{@code tenantResolver}</td><td>{@code fixed("default")}</td><td>the tenant of each request</td></tr>
 *   <tr><td>{@code callerResolver}</td><td>{@link CallerResolver#principal()}</td><td>the authenticated caller of each
 *       request: each caller's records are its own</td></tr>
 *   <tr><td>{@code shareRecordsAcrossCallers}</td><td>false</td><td>instead, file every caller's records of a tenant
 *       together, so ONE CALLER'S KEY REPLAYS ANOTHER CALLER'S RESPONSE</td></tr>
 *   <tr><td>{@code clock}</td><td>{@link Clock#systemUTC()}</td><td>the time for expiry and leases</td></tr>
 *   <tr><td>{@code listener}</td><td>none</td><td>told every request's outcome and store call ({@code addListener} for several)</td></tr>
 *   <tr><td>{@code problemTypeBase}</td><td>{@code urn:idempotency:problem:}</td><td>prefix of each problem's {@code type} URI</td></tr>
 * </table>
 */
public final class IdempotencyConfig {

    /** Headers that carry credentials: never stored, never replayed, refused in the allow-list. */
    public static final Set<String> CREDENTIAL_HEADERS = HttpNames.CREDENTIAL_HEADERS;

    /**
     * Hop-by-hop and framing headers (RFC 9110 §7.6.1, §6.4, §8.6; RFC 9112 §6.1), which the
     * server writes for each message: a replayed copy would contradict the message it rides on, so
     * they cannot be allow-listed for replay. {@code Content-Type} is stored and replayed on its own.
     */
    public static final Set<String> FRAMING_HEADERS = HttpNames.FRAMING_HEADERS;

    private final String headerName;
    private final Set<String> methods;
    private final boolean keyRequired;
    private final Mode mode;
    private final Duration ttl;
    private final Duration lease;
    private final boolean renewLease;
    private final Duration inFlightWait;
    private final Duration inFlightPollInterval;
    private final Duration retryAfter;
    private final int maxRequestBodyBytes;
    private final int maxStoredBodyBytes;
    private final boolean runAgainWhenNotStored;
    private final Set<String> replayedHeaders;
    private final BodyCanonicalizer canonicalizer;
    private final ReplayPolicy replayPolicy;
    private final TenantResolver tenantResolver;
    private final CallerResolver callerResolver;
    private final boolean shareRecordsAcrossCallers;
    private final Clock clock;
    private final IdempotencyListener listener;
    private final String problemTypeBase;

    private IdempotencyConfig(Builder b) {
        headerName = HttpNames.token(b.headerName);
        methods = HttpNames.methods(b.methods);
        keyRequired = b.keyRequired;
        mode = Objects.requireNonNull(b.mode, "mode");
        ttl = Require.positive(b.ttl, "ttl");
        lease = Require.notLonger(Require.positive(b.lease, "lease"), "lease", ttl, "ttl");
        renewLease = b.renewLease;
        inFlightWait = Require.notNegative(b.inFlightWait, "inFlightWait");
        inFlightPollInterval = Require.positive(b.inFlightPollInterval, "inFlightPollInterval");
        retryAfter = Require.positive(b.retryAfter, "retryAfter");
        maxRequestBodyBytes = Require.positive(b.maxRequestBodyBytes, "maxRequestBodyBytes");
        maxStoredBodyBytes = Require.positive(b.maxStoredBodyBytes, "maxStoredBodyBytes");
        runAgainWhenNotStored = b.runAgainWhenNotStored;
        canonicalizer = Objects.requireNonNull(b.canonicalizer, "canonicalizer");
        replayPolicy = Objects.requireNonNull(b.replayPolicy, "replayPolicy");
        tenantResolver = Objects.requireNonNull(b.tenantResolver, "tenantResolver");
        callerResolver = Objects.requireNonNull(b.callerResolver, "callerResolver");
        shareRecordsAcrossCallers = b.shareRecordsAcrossCallers;
        clock = Objects.requireNonNull(b.clock, "clock");
        listener = Objects.requireNonNull(b.listener, "listener");
        problemTypeBase = Objects.requireNonNull(b.problemTypeBase, "problemTypeBase");
        replayedHeaders = HttpNames.replayable(b.replayedHeaders);
    }

    /** Every setting at its default. */
    public static IdempotencyConfig defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this config's values, to derive a changed copy. */
    public Builder toBuilder() {
        return new Builder()
                .headerName(headerName).methods(methods).keyRequired(keyRequired).mode(mode).ttl(ttl)
                .lease(lease).renewLease(renewLease).inFlightWait(inFlightWait)
                .inFlightPollInterval(inFlightPollInterval).retryAfter(retryAfter)
                .maxRequestBodyBytes(maxRequestBodyBytes).maxStoredBodyBytes(maxStoredBodyBytes)
                .runAgainWhenNotStored(runAgainWhenNotStored)
                .replayedHeaders(replayedHeaders).canonicalizer(canonicalizer).replayPolicy(replayPolicy)
                .tenantResolver(tenantResolver).callerResolver(callerResolver)
                .shareRecordsAcrossCallers(shareRecordsAcrossCallers).clock(clock).listener(listener).problemTypeBase(problemTypeBase);
    }

    public String headerName() {
        return headerName;
    }

    public Set<String> methods() {
        return methods;
    }

    public boolean keyRequired() {
        return keyRequired;
    }

    public Mode mode() {
        return mode;
    }

    public Duration ttl() {
        return ttl;
    }

    public Duration lease() {
        return lease;
    }

    public boolean renewLease() {
        return renewLease;
    }

    public Duration inFlightWait() {
        return inFlightWait;
    }

    public Duration inFlightPollInterval() {
        return inFlightPollInterval;
    }

    public Duration retryAfter() {
        return retryAfter;
    }

    public int maxRequestBodyBytes() {
        return maxRequestBodyBytes;
    }

    public int maxStoredBodyBytes() {
        return maxStoredBodyBytes;
    }

    public boolean runAgainWhenNotStored() {
        return runAgainWhenNotStored;
    }

    /** The allow-list of replayed response headers; a case-insensitive set. */
    public Set<String> replayedHeaders() {
        return replayedHeaders;
    }

    public BodyCanonicalizer canonicalizer() {
        return canonicalizer;
    }

    public ReplayPolicy replayPolicy() {
        return replayPolicy;
    }

    public TenantResolver tenantResolver() {
        return tenantResolver;
    }

    public CallerResolver callerResolver() {
        return callerResolver;
    }

    public boolean shareRecordsAcrossCallers() {
        return shareRecordsAcrossCallers;
    }

    public Clock clock() {
        return clock;
    }

    public IdempotencyListener listener() {
        return listener;
    }

    public String problemTypeBase() {
        return problemTypeBase;
    }

    /** Whether requests with this method are in scope. */
    public boolean covers(String method) {
        return methods.contains(HttpNames.method(method));
    }

    /** Collects settings; {@link #build()} checks them. Not thread-safe. */
    public static final class Builder {
        private String headerName = "Idempotency-Key";
        private Set<String> methods = Set.of("POST");
        private boolean keyRequired;
        private Mode mode = Mode.RESERVE;
        private Duration ttl = Duration.ofHours(24);
        private Duration lease = Duration.ofSeconds(30);
        private boolean renewLease = true;
        private Duration inFlightWait = Duration.ZERO;
        private Duration inFlightPollInterval = Duration.ofMillis(50);
        private Duration retryAfter = Duration.ofSeconds(1);
        private int maxRequestBodyBytes = 1 << 20;
        private int maxStoredBodyBytes = 4 << 20;
        private boolean runAgainWhenNotStored;
        private Set<String> replayedHeaders = Set.of("Location", "Content-Location", "ETag", "Last-Modified", "Link");
        private BodyCanonicalizer canonicalizer = BodyCanonicalizer.sortedJson();
        private ReplayPolicy replayPolicy = ReplayPolicy.defaults();
        private TenantResolver tenantResolver = TenantResolver.fixed("default");
        private CallerResolver callerResolver = CallerResolver.principal();
        private boolean shareRecordsAcrossCallers;
        private Clock clock = Clock.systemUTC();
        private IdempotencyListener listener = IdempotencyListener.none();
        private String problemTypeBase = "urn:idempotency:problem:";

        private Builder() {
        }

        public Builder headerName(String headerName) {
            this.headerName = headerName;
            return this;
        }

        public Builder methods(Set<String> methods) {
            this.methods = Set.copyOf(methods);
            return this;
        }

        public Builder methods(String... methods) {
            return methods(Set.of(methods));
        }

        public Builder keyRequired(boolean keyRequired) {
            this.keyRequired = keyRequired;
            return this;
        }

        public Builder mode(Mode mode) {
            this.mode = mode;
            return this;
        }

        /**
         * How long a record lives, counted from its reservation (the first request), not from its
         * completion: a response is replayed for {@code ttl} less the handler's run time. A
         * take-over of a lapsed lease is a new reservation and counts again. Not shorter than
         * the lease, and meant to be far longer than any handler runs. A handler that outlives
         * the ttl keeps its key while its lease is renewed (the record's expiry follows the
         * lease; a retry gets 409), and the response it then stores is replayed only until
         * that last lease would have ended.
         */
        public Builder ttl(Duration ttl) {
            this.ttl = ttl;
            return this;
        }

        public Builder lease(Duration lease) {
            this.lease = lease;
            return this;
        }

        public Builder renewLease(boolean renewLease) {
            this.renewLease = renewLease;
            return this;
        }

        public Builder inFlightWait(Duration inFlightWait) {
            this.inFlightWait = inFlightWait;
            return this;
        }

        public Builder inFlightPollInterval(Duration inFlightPollInterval) {
            this.inFlightPollInterval = inFlightPollInterval;
            return this;
        }

        public Builder retryAfter(Duration retryAfter) {
            this.retryAfter = retryAfter;
            return this;
        }

        public Builder maxRequestBodyBytes(int maxRequestBodyBytes) {
            this.maxRequestBodyBytes = maxRequestBodyBytes;
            return this;
        }

        public Builder maxStoredBodyBytes(int maxStoredBodyBytes) {
            this.maxStoredBodyBytes = maxStoredBodyBytes;
            return this;
        }

        /**
         * Opt-in, with a risk: a success whose response cannot be stored whole (streamed, larger
         * than {@code maxStoredBodyBytes}) releases its key instead of being kept without its
         * body, so a retry — or a duplicate sent while it still runs — runs the handler again.
         * Only for handlers that are safe to repeat.
         */
        public Builder runAgainWhenNotStored(boolean runAgainWhenNotStored) {
            this.runAgainWhenNotStored = runAgainWhenNotStored;
            return this;
        }

        public Builder replayedHeaders(Set<String> replayedHeaders) {
            this.replayedHeaders = Set.copyOf(replayedHeaders);
            return this;
        }

        public Builder canonicalizer(BodyCanonicalizer canonicalizer) {
            this.canonicalizer = canonicalizer;
            return this;
        }

        public Builder replayPolicy(ReplayPolicy replayPolicy) {
            this.replayPolicy = replayPolicy;
            return this;
        }

        public Builder tenantResolver(TenantResolver tenantResolver) {
            this.tenantResolver = tenantResolver;
            return this;
        }

        public Builder callerResolver(CallerResolver callerResolver) {
            this.callerResolver = callerResolver;
            return this;
        }

        /**
         * Opt-in, with a risk: every caller of a tenant shares one namespace of keys, so a caller
         * who sends another caller's key and body gets that caller's response replayed, and a
         * different body tells it the key exists. For a service whose replicas authenticate as
         * different principals; the engine logs one warning when it starts.
         */
        public Builder shareRecordsAcrossCallers(boolean shareRecordsAcrossCallers) {
            this.shareRecordsAcrossCallers = shareRecordsAcrossCallers;
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        /** The only listener: replaces any set before. */
        public Builder listener(IdempotencyListener listener) {
            this.listener = listener;
            return this;
        }

        /**
         * One more listener: each hears every event, in the order added, and one that throws does
         * not keep the event from the others.
         */
        public Builder addListener(IdempotencyListener listener) {
            this.listener = IdempotencyListener.all(this.listener, Objects.requireNonNull(listener, "listener"));
            return this;
        }

        public Builder problemTypeBase(String problemTypeBase) {
            this.problemTypeBase = problemTypeBase;
            return this;
        }

        public IdempotencyConfig build() {
            return new IdempotencyConfig(this);
        }
    }
}
