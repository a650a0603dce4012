package dev.idempotency.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idempotency.testkit.PathSpelling.Endpoint;
import dev.idempotency.testkit.PathSpelling.Kind;
import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.UUID;

/**
 * The path-spelling matrix ({@link PathSpelling#matrix()}) against a running service: a key
 * must name one record per endpoint however the path is spelled, and a record must never answer
 * for another endpoint. Judged from the outside only: which handler ran (the service counts),
 * what came back, and whether it was a replay.
 *
 * <p>Per spelling, {@link #check} uses two fresh keys:
 * <ol>
 *   <li>the spelling first: if it reaches a handler, the canonical retry with the same key is a
 *       replay of that answer, and the other endpoint with the same key runs its own handler;</li>
 *   <li>both canonical paths first, then the spelling: no handler runs again, and a replay is the
 *       answer of the endpoint the spelling names.</li>
 * </ol>
 * {@link #checkOneKey} sends every spelling, then both canonical paths, with one key. Across all
 * of these, each endpoint's handler runs at most once per key, and a target with a raw {@code #}
 * is refused with no handler run: with 400 {@code idempotency_path_invalid} (problem+json) by the
 * engine, or with the server's own status when the server refuses it before the adapter sees it.
 */
public final class PathSpellingChecks {

    /** The one body every request carries; both endpoints accept it. */
    public static final String BODY = "{\"item\":\"book\",\"quantity\":2,\"amount\":5}";

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The service under test. */
    public interface Service {
        /** Sends {@code POST target} (verbatim on the request line) with {@link #BODY} and the key. */
        RawHttp.Response post(String target, String key) throws Exception;

        /** How often the endpoint's handler has had its effect so far (ran, or created a resource). */
        int runs(Endpoint endpoint) throws Exception;

        /**
         * The status the server itself answers a request target carrying a raw {@code #} with,
         * before the adapter sees the request; empty when the request reaches the adapter, so the
         * engine must refuse it.
         */
        OptionalInt serverRefusesFragmentsWith();
    }

    private final Service service;

    public PathSpellingChecks(Service service) {
        this.service = Objects.requireNonNull(service, "service");
    }

    /** Checks one spelling with two fresh keys (see the class comment); fails naming every violation. */
    public void check(PathSpelling spelling) throws Exception {
        Transcript t = new Transcript(spelling.toString());
        Endpoint reached = spellingFirst(t, spelling, "key A");
        canonicalFirst(t, spelling, "key B", reached);
        t.throwIfViolated();
    }

    /** Sends every spelling, then {@code /orders} and {@code /payments}, with one key. */
    public void checkOneKey() throws Exception {
        Transcript t = new Transcript("every spelling of the matrix, then /orders and /payments, all with one key");
        String key = newKey();
        List<PathSpelling> matrix = PathSpelling.matrix();
        List<Step> steps = new ArrayList<>();
        for (PathSpelling spelling : matrix) {
            Step step = t.send(spelling.target(), "one key", key);
            steps.add(step);
            if (spelling.kind() == Kind.FRAGMENT) {
                refused(t, step);
            } else {
                reachedItsOwnHandler(t, spelling, step);
            }
        }
        for (Endpoint endpoint : Endpoint.values()) {
            steps.add(t.send(endpoint.path(), "one key", key));
        }
        Map<Endpoint, Step> originals = new EnumMap<>(Endpoint.class);
        for (Step step : steps) {
            step.ran().forEach(e -> originals.putIfAbsent(e, step));
        }
        for (int i = 0; i < steps.size(); i++) {
            Step step = steps.get(i);
            // An ELSEWHERE spelling names no endpoint here; check() judges its replays.
            Endpoint names = i < matrix.size() ? matrix.get(i).endpoint() : Endpoint.values()[i - matrix.size()];
            if (step.response().replayed() && names != null) {
                replayedTheAnswerOf(t, step, names, originals.get(names));
            }
        }
        t.atMostOncePerEndpoint();
        t.throwIfViolated();
    }

    /** Step 1: the spelling with a fresh key; returns the endpoint whose handler it reached, if any. */
    private Endpoint spellingFirst(Transcript t, PathSpelling spelling, String label) throws Exception {
        String key = newKey();
        Step first = t.send(spelling.target(), label, key);
        if (spelling.kind() == Kind.FRAGMENT) {
            refused(t, first);
            for (Endpoint endpoint : Endpoint.values()) {
                Step after = t.send(endpoint.path(), label, key);
                if (after.response().replayed()) {
                    t.violation(label + ": " + endpoint + " after the '#' request was replayed, from a record the '#'"
                            + " request left under " + endpoint + " (" + answerOf(after, first) + ")");
                }
            }
            t.atMostOncePerEndpoint();
            return null;
        }
        Endpoint reached = reachedItsOwnHandler(t, spelling, first);
        if (reached == null) {
            if (first.response().successful()) {
                t.violation(label + ": answered " + first.response().status() + " to a fresh key, yet no handler ran");
            }
            return null;
        }
        if (!first.response().successful()) {
            return reached; // not stored, so nothing to replay
        }
        Step retry = t.send(reached.path(), label, key);
        if (!retry.response().replayed()) {
            t.violation(label + ": the retry as " + reached + " with the same key was not a replay"
                    + (retry.ran().contains(reached) ? ": it ran the handler again" : ""));
        } else {
            replayedTheAnswerOf(t, retry, reached, first);
        }
        Endpoint other = reached.other();
        Step elsewhere = t.send(other.path(), label, key);
        if (elsewhere.response().replayed()) {
            t.violation(label + ": " + other + " with the same key was replayed (" + answerOf(elsewhere, first)
                    + ") instead of running its own handler");
        }
        t.atMostOncePerEndpoint();
        return reached;
    }

    /** Step 2: both canonical paths with a fresh key, then the spelling. */
    private void canonicalFirst(Transcript t, PathSpelling spelling, String label, Endpoint reachedBefore)
            throws Exception {
        String key = newKey();
        Map<Endpoint, Step> originals = new EnumMap<>(Endpoint.class);
        for (Endpoint endpoint : Endpoint.values()) {
            Step step = t.send(endpoint.path(), label, key);
            if (!step.response().successful() || !step.ran().equals(List.of(endpoint))) {
                t.violation(label + ": the canonical " + endpoint + " did not run its handler and answer 2xx");
            }
            originals.put(endpoint, step);
        }
        Step step = t.send(spelling.target(), label, key);
        if (spelling.kind() == Kind.FRAGMENT) {
            refused(t, step);
        } else if (step.response().replayed()) {
            Endpoint names = spelling.kind() == Kind.SAME ? spelling.endpoint() : reachedBefore;
            if (names == null) {
                t.violation(label + ": it names neither endpoint, yet was answered with a stored response ("
                        + answerOf(step, originals.values()) + ")");
            } else {
                replayedTheAnswerOf(t, step, names, originals.get(names));
            }
        } else if (step.response().successful() && step.ran().isEmpty()) {
            t.violation(label + ": answered " + step.response().status() + " without a replay, yet no handler ran");
        }
        t.atMostOncePerEndpoint();
    }

    /** The endpoint whose handler {@code step} ran, checked against the one the spelling names. */
    private static Endpoint reachedItsOwnHandler(Transcript t, PathSpelling spelling, Step step) {
        if (step.ran().isEmpty()) {
            return null;
        }
        Endpoint reached = step.ran().get(0);
        if (spelling.kind() == Kind.SAME && reached != spelling.endpoint()) {
            t.violation(step.label() + ": it names " + spelling.endpoint() + " but ran the " + reached + " handler");
        }
        return reached;
    }

    /** A replay must carry the body and Location {@code original} (of {@code endpoint}) was answered with. */
    private static void replayedTheAnswerOf(Transcript t, Step replay, Endpoint endpoint, Step original) {
        if (original == null) {
            t.violation(replay.label() + ": " + replay.target() + " was replayed, but no request of this key ran the "
                    + endpoint + " handler: its record came from another endpoint");
            return;
        }
        boolean sameBody = replay.response().bodyText().equals(original.response().bodyText());
        boolean sameLocation = replay.response().header("Location").equals(original.response().header("Location"));
        if (!sameBody || !sameLocation) {
            t.violation(replay.label() + ": " + replay.target() + " was replayed with an answer that is not the "
                    + endpoint + " one of " + original.target() + " (" + original.response() + "), but "
                    + replay.response() + " Location=" + replay.response().header("Location").orElse("-"));
        }
    }

    /** A target with a raw '#': refused, by the server itself or by the engine, and no handler ran. */
    private void refused(Transcript t, Step step) {
        RawHttp.Response r = step.response();
        if (!step.ran().isEmpty()) {
            t.violation(step.label() + ": a target with a raw '#' ran the " + step.ran().get(0) + " handler");
        }
        String code = r.header("Content-Type").filter(ct -> ct.startsWith("application/problem+json")).isPresent()
                ? problemCode(r) : null;
        boolean refusedByEngine = r.status() == 400 && "idempotency_path_invalid".equals(code);
        OptionalInt serverStatus = service.serverRefusesFragmentsWith();
        if (serverStatus.isPresent()) {
            // The server answers what no protected route matches; the engine what one does.
            if (r.status() != serverStatus.getAsInt() && !refusedByEngine) {
                t.violation(step.label() + ": expected the server's own " + serverStatus.getAsInt()
                        + " or the engine's 400 idempotency_path_invalid for a target with a raw '#', got " + r);
            }
            return;
        }
        if (!refusedByEngine) {
            t.violation(step.label() + ": expected 400 application/problem+json idempotency_path_invalid for a"
                    + " target with a raw '#', got " + r);
        }
    }

    private static String problemCode(RawHttp.Response r) {
        try {
            JsonNode problem = JSON.readTree(r.body());
            return problem.path("code").asText(null);
        } catch (IOException e) {
            return null;
        }
    }

    /** Whose answer {@code replay} carries, among {@code candidates}. */
    private static String answerOf(Step replay, Iterable<Step> candidates) {
        for (Step candidate : candidates) {
            if (!candidate.ran().isEmpty() && candidate.response().bodyText().equals(replay.response().bodyText())) {
                return "the " + candidate.ran().get(0) + " answer given to " + candidate.target();
            }
        }
        return replay.response().toString();
    }

    private static String answerOf(Step replay, Step candidate) {
        return answerOf(replay, List.of(candidate));
    }

    private static String newKey() {
        return "spelling-" + UUID.randomUUID();
    }

    /** One request: what was sent, what came back, which handlers it ran. */
    private record Step(String label, String key, String target, RawHttp.Response response, List<Endpoint> ran) {
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

        Step send(String target, String label, String key) throws Exception {
            // Requests are sent one at a time: the counts after one are the counts before the next.
            Map<Endpoint, Integer> before = lastRuns != null ? lastRuns : runs();
            RawHttp.Response response = service.post(target, key);
            Map<Endpoint, Integer> after = runs();
            lastRuns = after;
            List<Endpoint> ran = new ArrayList<>();
            for (Endpoint endpoint : Endpoint.values()) {
                for (int i = before.get(endpoint); i < after.get(endpoint); i++) {
                    ran.add(endpoint);
                }
            }
            Step step = new Step(label, key, target, response, List.copyOf(ran));
            steps.add(step);
            return step;
        }

        private Map<Endpoint, Integer> runs() throws Exception {
            Map<Endpoint, Integer> runs = new EnumMap<>(Endpoint.class);
            for (Endpoint endpoint : Endpoint.values()) {
                runs.put(endpoint, service.runs(endpoint));
            }
            return runs;
        }

        void violation(String message) {
            if (!violations.contains(message)) {
                violations.add(message);
            }
        }

        /** Each endpoint's handler ran at most once per key, over every step so far. */
        void atMostOncePerEndpoint() {
            Map<String, Map<Endpoint, List<String>>> byKey = new LinkedHashMap<>();
            for (Step step : steps) {
                for (Endpoint endpoint : step.ran()) {
                    byKey.computeIfAbsent(step.key(), k -> new EnumMap<>(Endpoint.class))
                            .computeIfAbsent(endpoint, e -> new ArrayList<>()).add(step.target());
                }
            }
            byKey.forEach((key, runs) -> runs.forEach((endpoint, targets) -> {
                if (targets.size() > 1) {
                    String label = steps.stream().filter(s -> s.key().equals(key)).findFirst().orElseThrow().label();
                    violation(label + ": the " + endpoint + " handler ran " + targets.size() + " times for one key, for "
                            + String.join(", ", targets));
                }
            }));
        }

        void throwIfViolated() {
            if (!violations.isEmpty()) {
                throw new AssertionError(report());
            }
        }

        /** The subject, the violations and every request with its answer. */
        String report() {
            StringBuilder message = new StringBuilder(subject).append(":");
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
