package dev.idempotency.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idempotency.testkit.PathSpelling.Endpoint;
import dev.idempotency.testkit.PathSpelling.Kind;
import dev.idempotency.testkit.PathSpelling.Route;
import dev.idempotency.testkit.PathSpelling.Routing;
import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.UUID;

/**
 * A path-spelling matrix ({@link PathSpelling#matrix()}, {@link PathSpelling#itemMatrix()})
 * against a running service: a key must never make one handler's answer stand in for another's,
 * nor let a handler run twice, however the path is spelled. Judged from the outside only: which
 * handler ran (the service counts), what came back, and whether it was a replay.
 *
 * <h2>Where a spelling goes</h2>
 *
 * Each target is first sent <em>without</em> a key: the engine lets such a request through, so
 * the handler that runs (and, for the template {@code /orders/{id}}, the id it echoes) is where
 * the router itself sends the spelling — its <em>route</em>; {@link Route#NOWHERE} when no
 * handler runs (404, the server's own 400). No answer, with or without a key, may be a 5xx. When
 * the service declares its {@link Service#routing() kind of router}, the route must be the one
 * the spelling expects for it ({@link PathSpelling#expected}).
 *
 * <h2>The requests</h2>
 *
 * Per spelling, {@link #check} uses two fresh keys:
 * <ol>
 *   <li>the spelling first; if it reached a handler with a 2xx, the retry with the canonical
 *       spelling of that handler (for the template route: the same spelling again); then every
 *       literal endpoint's canonical path the service serves ({@code /orders},
 *       {@code /payments}, {@code /orders/bulk}) — also when the spelling reached no handler,
 *       so a record the spelling left behind (a reservation, or an answer filed under another
 *       route's path) shows;</li>
 *   <li>every canonical path first, then the spelling.</li>
 * </ol>
 * {@link #checkOneKey} sends every spelling of a matrix, then every canonical path, with one key.
 *
 * <h2>The rules, for every request with a key, against the earlier ones with that key</h2>
 * <ul>
 *   <li>A target with a raw {@code #} is refused and runs no handler: 400 {@code application/problem+json}
 *       {@code idempotency_path_invalid} from the engine, or the server's own status when it
 *       refuses the request before the adapter sees it ({@link Service#serverRefusesFragmentsWith}).
 *       A malformed escape ({@code %zz}) is answered 400 (the engine's or the server's own) and
 *       runs no handler.</li>
 *   <li>A handler that runs runs where the spelling's route says, and each route — a literal
 *       endpoint, or the template with one id — runs at most once per key: one record per
 *       route and key. (The template with two ids is two resources and may run once for each.)</li>
 *   <li>A replay carries the answer (body and {@code Location}) of an earlier request of the key
 *       that ran the spelling's own route. A spelling "resolves to the same route" as another
 *       exactly when the router sends both to the same handler (and id): so a replay for a
 *       spelling the router sends elsewhere is a false replay (a {@code /orders/bulk} answer for
 *       {@code /orders/b%75lk} on a router that hands that to {@code /orders/{id}}), and a
 *       spelling the router answers without any handler (404) is never answered with a replay —
 *       the router would not have run the handler whose answer it would carry.</li>
 *   <li>A request whose route ran earlier with this key and a 2xx is a replay of that answer
 *       (a spelling that reaches the same handler shares its record), unless the engine refuses
 *       the spelling (400 {@code idempotency_path_invalid}).</li>
 *   <li>A request whose route has not run with this key runs it — after a spelling the router
 *       answered 404, or one the engine refused, the canonical request is neither a replay nor a
 *       409 — unless the engine refuses this spelling itself; a canonical path is never refused.</li>
 *   <li>A 2xx that is no replay ran a handler.</li>
 * </ul>
 * So a spelling whose route differs from the route of the path it names is either refused or a
 * record of its own; one whose route is the same shares that path's record, or is refused.
 */
public final class PathSpellingChecks {

    /** The one body every request carries; every endpoint accepts it. */
    public static final String BODY = "{\"item\":\"book\",\"quantity\":2,\"amount\":5}";

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The service under test. */
    public interface Service {
        /**
         * Sends {@code POST target} (verbatim on the request line) with {@link #BODY} and the key;
         * without one when {@code key} is null, which the engine must let through (the default:
         * a key is not required), so that the router alone decides where the request goes.
         */
        RawResponse post(String target, String key) throws Exception;

        /** How often the endpoint's handler has had its effect so far (ran, or created a resource). */
        int runs(Endpoint endpoint) throws Exception;

        /**
         * The endpoints the service serves and {@link #runs counts}; {@link PathSpelling#itemMatrix()}
         * needs all four. A template endpoint's handler must answer JSON with the id it received
         * as {@code orderId}, as {@link ConformanceApp#updateOrder} does.
         */
        default Set<Endpoint> endpoints() {
            return EnumSet.of(Endpoint.ORDERS, Endpoint.PAYMENTS);
        }

        /**
         * How the service's router picks a route, when declared: each spelling's route must then be
         * the one {@link PathSpelling#expected} says. Empty (the default): not asserted, only that
         * a spelling of a literal endpoint that reaches a literal endpoint reaches the one it names.
         */
        default Optional<Routing> routing() {
            return Optional.empty();
        }

        /**
         * The status the server itself answers a request target carrying a raw {@code #} with,
         * before the adapter sees the request; empty when the request reaches the adapter, so the
         * engine must refuse it.
         */
        OptionalInt serverRefusesFragmentsWith();
    }

    private final Service service;
    private final Set<Endpoint> endpoints;
    private final List<String> canonicalPaths = new ArrayList<>();
    /** Each target's route, found without a key; the same for every check of this instance. */
    private final Map<String, Step> routes = new HashMap<>();

    public PathSpellingChecks(Service service) {
        this.service = Objects.requireNonNull(service, "service");
        this.endpoints = EnumSet.copyOf(service.endpoints());
        for (Endpoint endpoint : endpoints) {
            if (!endpoint.template()) {
                canonicalPaths.add(endpoint.path());
            }
        }
    }

    /** Checks one spelling with two fresh keys (see the class comment); fails naming every violation. */
    public void check(PathSpelling spelling) throws Exception {
        requireServed(List.of(spelling));
        Transcript t = new Transcript(spelling.toString());
        Route route = t.route(spelling.target());
        for (String path : canonicalPaths) {
            t.route(path);
        }

        String key = newKey();
        Step first = t.send(spelling.target(), "key A", key, spelling);
        Set<String> sent = new LinkedHashSet<>();
        if (first.response().successful() && first.ran().size() == 1) {
            Route ran = first.ran().get(0);
            String retry = ran.endpoint().template() ? spelling.target() : ran.endpoint().path();
            t.send(retry, "key A", key, retry.equals(spelling.target()) ? spelling : null);
            sent.add(retry);
        }
        for (String path : canonicalPaths) {
            if (sent.add(path)) {
                t.send(path, "key A", key, null);
            }
        }

        key = newKey();
        for (String path : canonicalPaths) {
            t.send(path, "key B", key, null);
        }
        t.send(spelling.target(), "key B", key, spelling);

        t.judge();
        t.throwIfViolated(route);
    }

    /** Sends every spelling of {@link PathSpelling#matrix()}, then every canonical path, with one key. */
    public void checkOneKey() throws Exception {
        checkOneKey(PathSpelling.matrix());
    }

    /** Sends every spelling of {@code matrix}, then every canonical path, with one key. */
    public void checkOneKey(List<PathSpelling> matrix) throws Exception {
        requireServed(matrix);
        Transcript t = new Transcript("every spelling of the matrix, then " + String.join(" and ", canonicalPaths)
                + ", all with one key");
        for (PathSpelling spelling : matrix) {
            t.route(spelling.target());
        }
        for (String path : canonicalPaths) {
            t.route(path);
        }
        String key = newKey();
        for (PathSpelling spelling : matrix) {
            t.send(spelling.target(), "one key", key, spelling);
        }
        for (String path : canonicalPaths) {
            t.send(path, "one key", key, null);
        }
        t.judge();
        t.throwIfViolated(null);
    }

    /** A service that declares its routing must serve the routes the spellings expect for it. */
    private void requireServed(List<PathSpelling> matrix) {
        Optional<Routing> routing = service.routing();
        if (routing.isEmpty()) {
            return;
        }
        for (PathSpelling spelling : matrix) {
            Route expected = spelling.expected(routing.get());
            if (expected != null && !expected.nowhere() && !endpoints.contains(expected.endpoint())) {
                throw new IllegalArgumentException(spelling + " expects " + expected + " on a " + routing.get()
                        + " router, which the service does not serve");
            }
        }
    }

    private static boolean refusedByEngine(RawResponse r) {
        return r.status() == 400 && "idempotency_path_invalid".equals(problemCode(r));
    }

    private static String problemCode(RawResponse r) {
        if (r.header("Content-Type").filter(ct -> ct.startsWith("application/problem+json")).isEmpty()) {
            return null;
        }
        try {
            JsonNode problem = JSON.readTree(r.body());
            return problem.path("code").asText(null);
        } catch (IOException e) {
            return null;
        }
    }

    private static String newKey() {
        return "spelling-" + UUID.randomUUID();
    }

    /**
     * One request: what was sent (with which key; none for a route probe), what came back, which
     * routes it ran, and the spelling of the matrix it is (null for a canonical path).
     */
    private record Step(String label, String key, String target, RawResponse response, List<Route> ran,
                        PathSpelling spelling) {

        boolean canonical() {
            return spelling == null;
        }

        Route route() {
            return ran.isEmpty() ? Route.NOWHERE : ran.get(0);
        }

        boolean sameAnswer(Step other) {
            return response.bodyText().equals(other.response.bodyText())
                    && response.header("Location").equals(other.response.header("Location"));
        }
    }

    /** The requests of one check, the violations found, and a failure message showing both. */
    private final class Transcript {
        private final String subject;
        private final List<Step> steps = new ArrayList<>();
        private final List<String> violations = new ArrayList<>();
        private Map<Endpoint, Integer> lastRuns;

        Transcript(String subject) {
            this.subject = subject;
        }

        /** The route of {@code target}: where the router sends it without a key (probed once per instance). */
        Route route(String target) throws Exception {
            Step probe = routes.get(target);
            if (probe == null) {
                probe = send(target, "no key", null, null);
                if (probe.ran().size() > 1) {
                    throw new AssertionError("POST " + target + " without a key ran " + probe.ran());
                }
                routes.put(target, probe);
            } else if (!steps.contains(probe)) {
                steps.add(probe); // judged (and shown) with every check that sends the target
            }
            return probe.route();
        }

        Step send(String target, String label, String key, PathSpelling spelling) throws Exception {
            // Requests are sent one at a time: the counts after one are the counts before the next.
            Map<Endpoint, Integer> before = lastRuns != null ? lastRuns : runs();
            RawResponse response = service.post(target, key);
            Map<Endpoint, Integer> after = runs();
            lastRuns = after;
            List<Route> ran = new ArrayList<>();
            for (Endpoint endpoint : endpoints) {
                for (int i = before.get(endpoint); i < after.get(endpoint); i++) {
                    ran.add(endpoint.template() ? Route.item(echoedId(response)) : Route.to(endpoint));
                }
            }
            Step step = new Step(label, key, target, response, List.copyOf(ran), spelling);
            steps.add(step);
            return step;
        }

        private String echoedId(RawResponse response) {
            try {
                return JSON.readTree(response.body()).path("orderId").asText("?");
            } catch (IOException e) {
                return "?";
            }
        }

        private Map<Endpoint, Integer> runs() throws Exception {
            Map<Endpoint, Integer> runs = new EnumMap<>(Endpoint.class);
            for (Endpoint endpoint : endpoints) {
                runs.put(endpoint, service.runs(endpoint));
            }
            return runs;
        }

        void violation(String message) {
            if (!violations.contains(message)) {
                violations.add(message);
            }
        }

        /** Applies the rules of the class comment to every step, in order. */
        void judge() {
            Map<String, List<Step>> byKey = new HashMap<>();
            for (Step step : steps) {
                if (step.response().status() >= 500) {
                    violation(step.label() + ": POST " + step.target() + " was answered " + step.response()
                            + ": a spelling must never cost a 5xx");
                }
                if (step.key() == null) {
                    judgeRoute(step);
                } else {
                    List<Step> earlier = byKey.computeIfAbsent(step.key(), k -> new ArrayList<>());
                    judge(step, earlier);
                    earlier.add(step);
                }
            }
        }

        /** A probe without a key: where the router sends the spelling, against what the spelling expects. */
        private void judgeRoute(Step probe) {
            String code = problemCode(probe.response());
            if (code != null && code.startsWith("idempotency_")) {
                violation("no key: POST " + probe.target() + " was answered by the engine (" + code + "): a"
                        + " spelling's route is found with a request without a key, which the engine must let through");
            }
            if (probe.response().successful() && probe.ran().isEmpty()) {
                violation("no key: POST " + probe.target() + " was answered " + probe.response().status()
                        + " without a replay, yet no handler ran");
            }
            PathSpelling spelling = spellingOf(probe.target());
            if (spelling == null) {
                return;
            }
            Optional<Routing> routing = service.routing();
            Route expected = routing.map(spelling::expected).orElse(null);
            if (expected != null && !expected.equals(probe.route())) {
                violation("no key: a " + routing.get() + " router should send POST " + probe.target() + " to "
                        + expected + ", but it went to " + probe.route() + " (" + probe.response() + ")");
            }
            if (routing.isEmpty() && spelling.kind() == Kind.SAME && !probe.route().nowhere()
                    && !probe.route().endpoint().template() && probe.route().endpoint() != spelling.endpoint()) {
                violation("no key: POST " + probe.target() + " names " + spelling.endpoint() + " but ran the "
                        + probe.route() + " handler");
            }
        }

        private PathSpelling spellingOf(String target) {
            for (Step step : steps) {
                if (step.target().equals(target) && step.spelling() != null) {
                    return step.spelling();
                }
            }
            return null;
        }

        private void judge(Step step, List<Step> earlier) {
            String at = step.label() + ": POST " + step.target();
            RawResponse r = step.response();
            Route route = routes.get(step.target()).route();
            Kind kind = step.spelling() == null ? null : step.spelling().kind();
            if (kind == Kind.FRAGMENT || kind == Kind.MALFORMED) {
                refused(step);
            }
            if (step.ran().size() > 1) {
                violation(at + " ran " + step.ran().size() + " handlers: " + step.ran());
            }
            for (Route ran : step.ran()) {
                if (!ran.equals(route)) {
                    violation(at + " reached " + ran + " with a key, but " + route + " without one");
                }
                earlier.stream().filter(e -> e.ran().contains(ran)).findFirst().ifPresent(e -> violation(at
                        + " ran the " + ran + " handler a second time for one key (it ran for POST " + e.target()
                        + " before)"));
            }
            Optional<Step> original = earlier.stream()
                    .filter(e -> !route.nowhere() && e.ran().contains(route) && e.response().successful())
                    .findFirst();
            if (r.replayed()) {
                if (route.nowhere()) {
                    violation(at + " was replayed (" + answerOf(step, earlier) + "), but the router answers it "
                            + routes.get(step.target()).response().status()
                            + " without a key and runs no handler: a false replay");
                } else if (original.isEmpty()) {
                    violation(at + " was replayed (" + answerOf(step, earlier) + "), but the router sends it to "
                            + route + ", which no request of this key ran: another route's record answered it");
                } else if (!step.sameAnswer(original.get())) {
                    violation(at + " was replayed with " + answerOf(step, earlier) + ", not the " + route
                            + " answer given to POST " + original.get().target() + " (" + original.get().response() + ")");
                }
                return;
            }
            if (!step.ran().isEmpty()) {
                return;
            }
            if (r.successful()) {
                violation(at + " was answered " + r.status() + " without a replay, yet no handler ran");
                return;
            }
            if (route.nowhere() || kind == Kind.FRAGMENT || kind == Kind.MALFORMED) {
                return;
            }
            boolean refused = refusedByEngine(r);
            if (refused && step.canonical()) {
                violation(at + ": the engine refused a canonical path (" + r + ")");
            } else if (refused) {
                return;
            }
            if (original.isPresent()) {
                violation(at + ": the router sends it to " + route + ", which answered POST " + original.get().target()
                        + " with this key, so it should be a replay of that answer, but it was answered " + r);
            } else {
                violation(at + ": the router sends it to " + route + ", which no request of this key ran"
                        + afterWhat(earlier) + ", yet it was answered " + r + " without running it");
            }
        }

        private String afterWhat(List<Step> earlier) {
            return earlier.isEmpty() ? "" : " (after " + earlier.stream()
                    .map(e -> "POST " + e.target() + " -> " + e.response().status()).toList() + ")";
        }

        /** A target with a raw '#' or a malformed escape: refused, by the server itself or by the engine, and no handler ran. */
        private void refused(Step step) {
            RawResponse r = step.response();
            String at = step.label() + ": POST " + step.target();
            boolean malformed = step.spelling().kind() == Kind.MALFORMED;
            if (!step.ran().isEmpty()) {
                violation(at + ": a target with " + (malformed ? "a malformed escape" : "a raw '#'") + " ran the "
                        + step.ran().get(0) + " handler");
            }
            boolean byEngine = refusedByEngine(r);
            if (malformed) {
                if (r.status() != 400) {
                    violation(at + ": expected 400 (the engine's idempotency_path_invalid or the server's own) for"
                            + " a malformed escape, got " + r);
                }
                return;
            }
            OptionalInt serverStatus = service.serverRefusesFragmentsWith();
            if (serverStatus.isPresent()) {
                // The server answers what no protected route matches; the engine what one does.
                if (r.status() != serverStatus.getAsInt() && !byEngine) {
                    violation(at + ": expected the server's own " + serverStatus.getAsInt()
                            + " or the engine's 400 idempotency_path_invalid for a target with a raw '#', got " + r);
                }
                return;
            }
            if (!byEngine) {
                violation(at + ": expected 400 application/problem+json idempotency_path_invalid for a"
                        + " target with a raw '#', got " + r);
            }
        }

        /** Whose answer {@code replay} carries, among the earlier steps of its key. */
        private String answerOf(Step replay, List<Step> candidates) {
            for (Step candidate : candidates) {
                if (!candidate.ran().isEmpty() && candidate.sameAnswer(replay)) {
                    return "the " + candidate.ran().get(0) + " answer given to POST " + candidate.target();
                }
            }
            return replay.response().toString();
        }

        void throwIfViolated(Route route) {
            if (!violations.isEmpty()) {
                throw new AssertionError(report(route));
            }
        }

        /** The subject, the violations and every request with its answer. */
        String report(Route route) {
            StringBuilder message = new StringBuilder(subject);
            if (route != null) {
                message.append(" [routed to ").append(route).append(']');
            }
            message.append(":");
            violations.forEach(v -> message.append("\n  - ").append(v));
            message.append("\n  requests:");
            for (Step step : steps) {
                message.append("\n    ").append(step.label()).append("  POST ").append(step.target()).append(" -> ")
                        .append(step.response())
                        .append(step.ran().isEmpty() ? "" : "  [ran " + step.ran() + "]");
            }
            return message.toString();
        }
    }
}
