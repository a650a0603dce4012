package dev.idempotency.core;

import dev.idempotency.core.engine.IdempotencyKeys;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/** The HTTP names in {@link IdempotencyConfig}: tokens, methods and the replayed-headers allow-list, checked. */
final class HttpNames {

    static final Set<String> CREDENTIAL_HEADERS = caseInsensitive(Set.of("Set-Cookie", "Set-Cookie2", "Cookie",
            "Authorization", "Proxy-Authorization", "WWW-Authenticate", "Proxy-Authenticate"));

    static final Set<String> FRAMING_HEADERS = caseInsensitive(Set.of("Connection", "Keep-Alive",
            "Proxy-Connection", "Transfer-Encoding", "TE", "Trailer", "Upgrade", "Content-Length", "Content-Type"));

    private HttpNames() {
    }

    /** The allow-list as a case-insensitive set; refuses credential, hop-by-hop and framing headers. */
    static Set<String> replayable(Collection<String> headers) {
        Set<String> allowed = caseInsensitive(headers);
        for (String header : allowed) {
            if (CREDENTIAL_HEADERS.contains(header)) {
                throw new IllegalArgumentException(header + " carries credentials and is never replayed");
            }
            if (FRAMING_HEADERS.contains(header)) {
                throw new IllegalArgumentException(header + " belongs to the message it is sent with (hop-by-hop or "
                        + "framing) and cannot be replayed from a stored copy");
            }
        }
        return allowed;
    }

    /** The methods in upper case; at least one, each a token. */
    static Set<String> methods(Set<String> methods) {
        if (methods.isEmpty()) {
            throw new IllegalArgumentException("methods must not be empty");
        }
        Set<String> upper = new LinkedHashSet<>();
        methods.forEach(m -> upper.add(method(token(m))));
        return Set.copyOf(upper);
    }

    /** Methods are compared in upper case. */
    static String method(String method) {
        return method.toUpperCase(Locale.ROOT);
    }

    static String token(String value) {
        Objects.requireNonNull(value, "header or method name");
        if (!IdempotencyKeys.isVisibleAscii(value, 255)) {
            throw new IllegalArgumentException("not a valid HTTP token: '" + value + "'");
        }
        return value;
    }

    private static Set<String> caseInsensitive(Collection<String> names) {
        TreeSet<String> set = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
        set.addAll(names);
        return Collections.unmodifiableSet(set);
    }
}
