package dev.idempotency.core.call;

import java.util.Objects;
import java.util.Optional;

/**
 * One idempotent call: its scope (what kind of operation, such as {@code payments} or
 * {@code orders.create}), its key, and its input, whose encoding is the call's fingerprint — the
 * same key with another input is refused. Optionally the tenant and the caller it is filed under.
 * Immutable.
 */
public final class IdempotentCall {

    /** The longest scope accepted. */
    public static final int MAX_SCOPE_LENGTH = 100;

    private static final String UNRESERVED_MARKS = "-._~";

    private final String scope;
    private final String key;
    private final Object input;
    private final String tenant;
    private final String caller;

    private IdempotentCall(String scope, String key, Object input, String tenant, String caller) {
        this.scope = scope;
        this.key = key;
        this.input = input;
        this.tenant = tenant;
        this.caller = caller;
    }

    /**
     * A call of the default tenant, by no caller in particular.
     *
     * @param scope 1 to {@value #MAX_SCOPE_LENGTH} letters, digits and {@code - . _ ~} (one path segment,
     *              neither {@code .} nor {@code ..})
     * @param key   the key: 1 to 255 printable ASCII characters, not all spaces
     * @param input what the call is given, encoded by the codec; may be {@code null}
     * @throws IllegalArgumentException when the scope is not such a name
     */
    public static IdempotentCall of(String scope, String key, Object input) {
        return new IdempotentCall(checkedScope(scope), Objects.requireNonNull(key, "key"), input, null, null);
    }

    /**
     * This call filed under {@code tenant}, in place of what the configured
     * {@link dev.idempotency.core.TenantResolver} would name.
     */
    public IdempotentCall tenant(String tenant) {
        return new IdempotentCall(scope, key, input, Objects.requireNonNull(tenant, "tenant"), caller);
    }

    /**
     * This call made by {@code caller}: the configured {@link dev.idempotency.core.CallerResolver}
     * sees it as the authenticated principal's name, so by default each caller's keys are its own.
     */
    public IdempotentCall caller(String caller) {
        return new IdempotentCall(scope, key, input, tenant, Objects.requireNonNull(caller, "caller"));
    }

    public String scope() {
        return scope;
    }

    public String key() {
        return key;
    }

    public Object input() {
        return input;
    }

    public Optional<String> tenant() {
        return Optional.ofNullable(tenant);
    }

    public Optional<String> caller() {
        return Optional.ofNullable(caller);
    }

    private static String checkedScope(String scope) {
        Objects.requireNonNull(scope, "scope");
        boolean named = !scope.isEmpty() && scope.length() <= MAX_SCOPE_LENGTH && !scope.equals(".")
                && !scope.equals("..") && scope.chars().allMatch(IdempotentCall::isUnreserved);
        if (!named) {
            throw new IllegalArgumentException("A call's scope must be 1 to " + MAX_SCOPE_LENGTH
                    + " letters, digits and '-', '.', '_', '~' (a path segment other than '.' and '..'), such as "
                    + "'payments' or 'orders.create'");
        }
        return scope;
    }

    private static boolean isUnreserved(int c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || UNRESERVED_MARKS.indexOf(c) >= 0;
    }

    @Override
    public String toString() {
        return "IdempotentCall[scope=" + scope + ", key=" + dev.idempotency.core.store.RecordKey.preview(key) + "]";
    }
}
