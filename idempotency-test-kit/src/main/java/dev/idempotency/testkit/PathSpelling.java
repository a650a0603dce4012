package dev.idempotency.testkit;

import java.util.List;
import java.util.Objects;

/**
 * One way to spell a request target, and which endpoint it names — or that it names none — once
 * normalized the RFC 3986 way: §6.2.2 (dot segments removed, percent-encoded unreserved
 * characters decoded, hex digits upper-cased; {@code %2F} is not {@code /}), runs of slashes
 * collapsed and a trailing slash dropped. A raw {@code #} cannot be part of a request target
 * (RFC 9112 §3.2): such a request must be refused. Letter case is significant (RFC 3986
 * §6.2.2.1 folds only the scheme, the host and the hex digits).
 *
 * <p>What a spelling names and where a router sends it can differ: a router that routes on the
 * path as sent ({@link Routing#AS_SENT}) hands {@code /orders/b%75lk} to the template route
 * {@code /orders/{id}} with the id {@code "bulk"}, though it names the literal route
 * {@code /orders/bulk}. Each spelling therefore also says where each kind of router sends it
 * ({@link #expected(Routing)}), given {@link ConformanceApp}'s routes; {@link PathSpellingChecks}
 * asserts that where the service declares its kind, and judges every answer against where the
 * router actually sent the spelling.
 *
 * <p>{@link #matrix()} spells {@code POST /orders} and {@code POST /payments} (every service
 * serves them); {@link #itemMatrix()} spells the literal {@code POST /orders/bulk} and the
 * template {@code POST /orders/{id}} next to it (only services with those routes).
 *
 * @param target   the request target, sent verbatim on the request line
 * @param kind     what it is
 * @param endpoint the endpoint it names when {@code kind} is {@link Kind#SAME}, else null
 * @param what     what about the spelling is tested, for test names
 * @param asSent   where a router of {@link Routing#AS_SENT} sends it; null when not asserted
 * @param resolved where a router of {@link Routing#RESOLVED} sends it; null when not asserted
 */
public record PathSpelling(String target, Kind kind, Endpoint endpoint, String what, Route asSent, Route resolved) {

    /** The routes whose spellings are tested; each answers 2xx to {@link PathSpellingChecks#BODY}. */
    public enum Endpoint {
        ORDERS("/orders"),
        PAYMENTS("/payments"),
        /** A literal route next to the template {@link #ORDER_ITEM}. */
        BULK("/orders/bulk"),
        /** A template route: {@code /orders/{id}} (Vert.x Web: {@code /orders/:id}). */
        ORDER_ITEM("/orders/{id}");

        private final String path;

        Endpoint(String path) {
            this.path = path;
        }

        /** The canonical spelling; for {@link #ORDER_ITEM}, the route's template. */
        public String path() {
            return path;
        }

        /** Whether the route has a path parameter, so that no single spelling is its canonical one. */
        public boolean template() {
            return this == ORDER_ITEM;
        }

        @Override
        public String toString() {
            return path;
        }
    }

    /** What a spelling is, normalized. */
    public enum Kind {
        /** Another spelling of {@link PathSpelling#endpoint()}, a literal route. */
        SAME,
        /** A path of its own, none of the literal endpoints. */
        ELSEWHERE,
        /** Carries a raw {@code #}: refused under a key, no handler runs. */
        FRAGMENT,
        /** Carries a malformed percent-escape ({@code %zz}): 400 under a key, no handler runs. */
        MALFORMED
    }

    /**
     * How a kind of router picks the route for a path. The expectations of the matrices hold for
     * {@link ConformanceApp}'s routes: a literal {@code POST /orders}, {@code /payments} and
     * {@code /orders/bulk}, a template {@code POST /orders/{id}}.
     */
    public enum Routing {
        /**
         * Routes on the path as sent, segment by segment (Javalin on Jetty, Micronaut on Netty):
         * {@code .} and {@code ..} segments, escapes of unreserved characters and {@code //} are
         * not resolved, so such a path matches no literal route — but a template route takes such
         * a segment as its parameter, decoded ({@code /orders/.}, {@code /orders/%2E}: id
         * {@code "."}; {@code /orders/b%75lk}: id {@code "bulk"}). A trailing slash is ignored.
         */
        AS_SENT,
        /**
         * Routes on the resolved path (Vert.x Web's {@code RoutingContext.normalizedPath()}): dot
         * segments removed, escapes of unreserved characters decoded, runs of slashes collapsed;
         * a trailing slash is ignored. {@code %2F} stays a character of its segment.
         */
        RESOLVED
    }

    /**
     * Where a router sent a request: the endpoint whose handler ran and, for a template route,
     * the id the handler received; or {@link #NOWHERE} (no handler ran: a 404, the server's own
     * 400, ...).
     */
    public record Route(Endpoint endpoint, String id) {

        /** No handler ran. */
        public static final Route NOWHERE = new Route(null, null);

        public static Route to(Endpoint endpoint) {
            if (endpoint.template()) {
                throw new IllegalArgumentException(endpoint + " takes an id");
            }
            return new Route(endpoint, null);
        }

        /** {@code /orders/{id}} with {@code id} as its handler received it (decoded). */
        public static Route item(String id) {
            return new Route(Endpoint.ORDER_ITEM, Objects.requireNonNull(id, "id"));
        }

        public boolean nowhere() {
            return endpoint == null;
        }

        @Override
        public String toString() {
            if (endpoint == null) {
                return "no handler";
            }
            return endpoint.template() ? endpoint + " with id \"" + id + "\"" : endpoint.toString();
        }
    }

    public PathSpelling {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(kind, "kind");
        if ((kind == Kind.SAME) != (endpoint != null) || endpoint != null && endpoint.template()) {
            throw new IllegalArgumentException("a SAME spelling names one literal endpoint: " + target);
        }
    }

    /** Where a router of {@code routing} sends it, given {@link ConformanceApp}'s routes; null when not asserted. */
    public Route expected(Routing routing) {
        return routing == Routing.AS_SENT ? asSent : resolved;
    }

    private static final Route NOWHERE = Route.NOWHERE;
    private static final Route ORDERS = Route.to(Endpoint.ORDERS);
    private static final Route PAYMENTS = Route.to(Endpoint.PAYMENTS);
    private static final Route BULK = Route.to(Endpoint.BULK);

    /**
     * The spellings of {@code /orders} and {@code /payments} every adapter and every example
     * service is checked with. Where each kind of router sends them is what the adapters' servers
     * answer with {@link ConformanceApp}'s routes ({@code /orders/.} reaches {@code /orders/{id}}
     * where the path is routed as sent); a target with a raw {@code #} is not asserted there
     * (Jetty routes {@code /orders#x} to {@code /orders}, Micronaut answers 404, Vert.x Web
     * routes {@code /orders#/../payments} to {@code /payments}): under a key it must be refused.
     */
    public static List<PathSpelling> matrix() {
        return List.of(
                same("/orders/", Endpoint.ORDERS, "trailing slash", ORDERS, ORDERS),
                same("/payments/", Endpoint.PAYMENTS, "trailing slash", PAYMENTS, PAYMENTS),
                same("//orders", Endpoint.ORDERS, "leading //", NOWHERE, ORDERS),
                same("/orders//", Endpoint.ORDERS, "trailing //", NOWHERE, ORDERS),
                same("///payments", Endpoint.PAYMENTS, "leading ///", NOWHERE, PAYMENTS),
                same("/./orders", Endpoint.ORDERS, "'.' segment", NOWHERE, ORDERS),
                same("/orders/.", Endpoint.ORDERS, "trailing '.' segment", Route.item("."), ORDERS),
                same("/x/../orders", Endpoint.ORDERS, "'..' segment", NOWHERE, ORDERS),
                same("/orders/../payments", Endpoint.PAYMENTS, "'..' out of /orders", NOWHERE, PAYMENTS),
                same("/payments/../orders", Endpoint.ORDERS, "'..' out of /payments", NOWHERE, ORDERS),
                same("/%6frders", Endpoint.ORDERS, "%6f for 'o'", NOWHERE, ORDERS),
                same("/%6Frders", Endpoint.ORDERS, "%6F for 'o'", NOWHERE, ORDERS),
                same("/paym%65nts", Endpoint.PAYMENTS, "%65 for 'e'", NOWHERE, PAYMENTS),
                same("/%2E/orders", Endpoint.ORDERS, "%2E segment", NOWHERE, ORDERS),
                same("/x/%2e%2E/orders", Endpoint.ORDERS, "%2e%2E segment", NOWHERE, ORDERS),
                same("/orders/%2E%2E/payments", Endpoint.PAYMENTS, "%2E%2E out of /orders", NOWHERE, PAYMENTS),
                elsewhere("/orders%2F", "%2F is not a trailing slash", NOWHERE, NOWHERE),
                elsewhere("/orders%2Fx", "%2F is not /: not /orders/x", NOWHERE, NOWHERE),
                elsewhere("/x%2F..%2Forders", "%2F..%2F is no '..' segment", NOWHERE, NOWHERE),
                elsewhere("/orders;x", ";param", NOWHERE, NOWHERE),
                elsewhere("/ORDERS", "upper case", NOWHERE, NOWHERE),
                elsewhere("/Orders", "capitalized", NOWHERE, NOWHERE),
                fragment("/orders#x", "raw #"),
                fragment("/orders#/../payments", "raw # then '..' to /payments"),
                fragment("/payments#/../orders", "raw # then '..' to /orders"));
    }

    /**
     * Spellings of a segment after {@code /orders/}, for a service that serves the literal
     * {@code POST /orders/bulk} and the template {@code POST /orders/{id}} besides
     * {@code POST /orders}: where the path is routed as sent, a spelling that names one route is
     * handed to another ({@code /orders/b%75lk} names {@code /orders/bulk} and reaches
     * {@code /orders/{id}}; {@code /orders/.} names {@code /orders} and reaches
     * {@code /orders/{id}} with id {@code "."}), so filing it under the record of the route it
     * names would answer one handler's request with another's response.
     */
    public static List<PathSpelling> itemMatrix() {
        return List.of(
                same("/orders/bulk", Endpoint.BULK, "the literal route itself", BULK, BULK),
                same("/orders/b%75lk", Endpoint.BULK, "%75 for 'u': {id} \"bulk\" where not resolved",
                        Route.item("bulk"), BULK),
                elsewhere("/orders/BULK", "upper case: {id} \"BULK\" everywhere", Route.item("BULK"), Route.item("BULK")),
                same("/orders/.", Endpoint.ORDERS, "'.' after /orders/: {id} \".\" where not resolved",
                        Route.item("."), ORDERS),
                same("/orders/%2E", Endpoint.ORDERS, "%2E after /orders/: {id} \".\" where not resolved",
                        Route.item("."), ORDERS),
                elsewhere("/orders/%2e%2e", "%2e%2e after /orders/ is /: {id} \"..\" where not resolved",
                        Route.item(".."), NOWHERE),
                elsewhere("/orders/..", "'..' after /orders/ is /: {id} \"..\" where not resolved",
                        Route.item(".."), NOWHERE),
                same("/orders/x/..", Endpoint.ORDERS, "'..' back to /orders/", NOWHERE, ORDERS),
                elsewhere("/orders/a%2Fb", "%2F inside {id}: id \"a/b\", not /orders/a/b",
                        Route.item("a/b"), Route.item("a/b")),
                elsewhere("/orders/a/b", "two segments: no route", NOWHERE, NOWHERE),
                malformed("/orders/%zz", "malformed escape"),
                same("/orders//bulk", Endpoint.BULK, "empty segment before bulk", NOWHERE, BULK),
                same("/orders/bulk/", Endpoint.BULK, "trailing slash", BULK, BULK));
    }

    static PathSpelling same(String target, Endpoint endpoint, String what, Route asSent, Route resolved) {
        return new PathSpelling(target, Kind.SAME, endpoint, what, asSent, resolved);
    }

    static PathSpelling elsewhere(String target, String what, Route asSent, Route resolved) {
        return new PathSpelling(target, Kind.ELSEWHERE, null, what, asSent, resolved);
    }

    static PathSpelling fragment(String target, String what) {
        return new PathSpelling(target, Kind.FRAGMENT, null, what, null, null);
    }

    static PathSpelling malformed(String target, String what) {
        return new PathSpelling(target, Kind.MALFORMED, null, what, NOWHERE, NOWHERE);
    }

    @Override
    public String toString() {
        String means = switch (kind) {
            case SAME -> "is " + endpoint;
            case ELSEWHERE -> "is no literal endpoint";
            case FRAGMENT -> "refused";
            case MALFORMED -> "400";
        };
        return "POST " + target + " (" + what + "; " + means + ")";
    }
}
