package dev.idempotency.testkit;

import java.util.List;

/**
 * One way to spell the request target of {@code POST /orders} or {@code POST /payments}, and
 * which of the two it names — or that it names neither — once normalized the way the engine
 * files records: RFC 3986 §6.2.2 (dot segments removed, percent-encoded unreserved characters
 * decoded, hex digits upper-cased; {@code %2F} is not {@code /}), runs of slashes collapsed and a
 * trailing slash dropped. A raw {@code #} cannot be part of a request target (RFC 9112 §3.2):
 * such a request must be refused. Letter case is significant (RFC 3986 §6.2.2.1 folds only the
 * scheme, the host and the hex digits).
 *
 * <p>{@link PathSpellingChecks} runs each of the {@link #matrix()} against a service.
 *
 * @param target   the request target, sent verbatim on the request line
 * @param kind     what it is
 * @param endpoint the endpoint it names when {@code kind} is {@link Kind#SAME}, else null
 * @param what     what about the spelling is tested, for test names
 */
public record PathSpelling(String target, Kind kind, Endpoint endpoint, String what) {

    /** The two routes whose spellings are tested; both answer 2xx to {@link PathSpellingChecks#BODY}. */
    public enum Endpoint {
        ORDERS("/orders"),
        PAYMENTS("/payments");

        private final String path;

        Endpoint(String path) {
            this.path = path;
        }

        /** The canonical spelling. */
        public String path() {
            return path;
        }

        public Endpoint other() {
            return this == ORDERS ? PAYMENTS : ORDERS;
        }

        @Override
        public String toString() {
            return path;
        }
    }

    /** What a spelling is, normalized. */
    public enum Kind {
        /** Another spelling of {@link PathSpelling#endpoint()}: one record with it per key. */
        SAME,
        /** A path of its own, neither endpoint: never answered with either endpoint's record. */
        ELSEWHERE,
        /** Carries a raw {@code #}: refused, no handler runs. */
        FRAGMENT
    }

    /** The spellings every adapter and every example service is checked with. */
    public static List<PathSpelling> matrix() {
        return List.of(
                same("/orders/", Endpoint.ORDERS, "trailing slash"),
                same("/payments/", Endpoint.PAYMENTS, "trailing slash"),
                same("//orders", Endpoint.ORDERS, "leading //"),
                same("/orders//", Endpoint.ORDERS, "trailing //"),
                same("///payments", Endpoint.PAYMENTS, "leading ///"),
                same("/./orders", Endpoint.ORDERS, "'.' segment"),
                same("/orders/.", Endpoint.ORDERS, "trailing '.' segment"),
                same("/x/../orders", Endpoint.ORDERS, "'..' segment"),
                same("/orders/../payments", Endpoint.PAYMENTS, "'..' out of /orders"),
                same("/payments/../orders", Endpoint.ORDERS, "'..' out of /payments"),
                same("/%6frders", Endpoint.ORDERS, "%6f for 'o'"),
                same("/%6Frders", Endpoint.ORDERS, "%6F for 'o'"),
                same("/paym%65nts", Endpoint.PAYMENTS, "%65 for 'e'"),
                same("/%2E/orders", Endpoint.ORDERS, "%2E segment"),
                same("/x/%2e%2E/orders", Endpoint.ORDERS, "%2e%2E segment"),
                same("/orders/%2E%2E/payments", Endpoint.PAYMENTS, "%2E%2E out of /orders"),
                elsewhere("/orders%2F", "%2F is not a trailing slash"),
                elsewhere("/orders%2Fx", "%2F is not /: not /orders/x"),
                elsewhere("/x%2F..%2Forders", "%2F..%2F is no '..' segment"),
                elsewhere("/orders;x", ";param"),
                elsewhere("/ORDERS", "upper case"),
                elsewhere("/Orders", "capitalized"),
                fragment("/orders#x", "raw #"),
                fragment("/orders#/../payments", "raw # then '..' to /payments"),
                fragment("/payments#/../orders", "raw # then '..' to /orders"));
    }

    static PathSpelling same(String target, Endpoint endpoint, String what) {
        return new PathSpelling(target, Kind.SAME, endpoint, what);
    }

    static PathSpelling elsewhere(String target, String what) {
        return new PathSpelling(target, Kind.ELSEWHERE, null, what);
    }

    static PathSpelling fragment(String target, String what) {
        return new PathSpelling(target, Kind.FRAGMENT, null, what);
    }

    @Override
    public String toString() {
        String means = switch (kind) {
            case SAME -> "is " + endpoint;
            case ELSEWHERE -> "is neither endpoint";
            case FRAGMENT -> "refused";
        };
        return "POST " + target + " (" + what + "; " + means + ")";
    }
}
