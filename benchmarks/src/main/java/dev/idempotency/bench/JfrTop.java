package dev.idempotency.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * Summarizes the CPU samples of a Java Flight Recorder file (a service recorded with
 * {@code ./benchmarks/run --jfr}): the share of samples with each layer of the stack anywhere on
 * it (inclusive), and the methods most often on top (self).
 *
 * <pre>java -cp ... dev.idempotency.bench.JfrTop benchmarks/target/bench-run/javalin-reserve.jfr [top] [entry-prefix depth]</pre>
 *
 * With an entry prefix (e.g. {@code org.jooq.}) it also shows, for samples inside that code, the
 * caller and the first {@code depth} frames after the entry: which call into a library costs.
 */
public final class JfrTop {

    /** Layers of a request, by package prefix; a sample counts toward every layer on its stack. */
    private static final Map<String, List<String>> LAYERS = new LinkedHashMap<>();

    static {
        LAYERS.put("engine (idempotency-core)", List.of("dev.idempotency.core."));
        LAYERS.put("  of which canonicalize + hash", List.of("dev.idempotency.core.canonical.",
                "dev.idempotency.core.engine.Fingerprints."));
        LAYERS.put("store (idempotency-jdbc)", List.of("dev.idempotency.jdbc."));
        LAYERS.put("jOOQ", List.of("org.jooq."));
        LAYERS.put("  of which rendering SQL", List.of("org.jooq.impl.DefaultRenderContext.",
                "org.jooq.impl.AbstractContext.visit", "org.jooq.impl.AbstractQuery.getSQL0"));
        LAYERS.put("  of which binding values", List.of("org.jooq.impl.DefaultBindContext.",
                "org.jooq.impl.DefaultBinding", "org.jooq.impl.AbstractBindContext."));
        LAYERS.put("  of which reading results", List.of("org.jooq.impl.CursorImpl", "org.jooq.impl.RecordDelegate"));
        LAYERS.put("pgJDBC", List.of("org.postgresql."));
        LAYERS.put("HikariCP", List.of("com.zaxxer.hikari."));
        LAYERS.put("adapters", List.of("dev.idempotency.javalin.", "dev.idempotency.micronaut.",
                "dev.idempotency.vertx.", "dev.idempotency.spring."));
        LAYERS.put("example handlers", List.of("dev.idempotency.examples."));
        LAYERS.put("Jackson", List.of("com.fasterxml.jackson."));
        LAYERS.put("logging", List.of("ch.qos.logback.", "org.slf4j."));
    }

    /** Owners of CPU: each sample goes to the first frame from the top that is not the JDK's. */
    private static final Map<String, List<String>> OWNERS = new LinkedHashMap<>();

    static {
        OWNERS.put("engine (idempotency-core)", List.of("dev.idempotency.core."));
        OWNERS.put("store (idempotency-jdbc)", List.of("dev.idempotency.jdbc."));
        OWNERS.put("jOOQ", List.of("org.jooq."));
        OWNERS.put("pgJDBC", List.of("org.postgresql."));
        OWNERS.put("HikariCP", List.of("com.zaxxer.hikari."));
        OWNERS.put("the benchmark's JDBC counting wrapper", List.of("dev.idempotency.bench.jdbc.", "jdk.proxy"));
        OWNERS.put("adapters", List.of("dev.idempotency.javalin.", "dev.idempotency.micronaut.",
                "dev.idempotency.vertx.", "dev.idempotency.spring."));
        OWNERS.put("example handlers", List.of("dev.idempotency.examples."));
        OWNERS.put("Jackson", List.of("com.fasterxml.jackson."));
        OWNERS.put("logging", List.of("ch.qos.logback.", "org.slf4j."));
        OWNERS.put("HTTP framework (Javalin/Jetty, Micronaut, Vert.x/Netty, Spring/Tomcat)", List.of("io.javalin.",
                "org.eclipse.jetty.", "io.micronaut.", "io.vertx.", "io.netty.", "reactor.", "org.springframework.",
                "org.apache.catalina.", "org.apache.coyote.", "org.apache.tomcat."));
    }

    private JfrTop() {
    }

    /** The owner of a sample: the first frame from the top outside the JDK (and Kotlin's runtime). */
    private static String owner(List<RecordedFrame> frames) {
        for (RecordedFrame frame : frames) {
            String name = name(frame);
            if (name.startsWith("java.") || name.startsWith("jdk.internal.") || name.startsWith("sun.")
                    || name.startsWith("kotlin.") || name.startsWith("javax.")) {
                continue;
            }
            for (Map.Entry<String, List<String>> e : OWNERS.entrySet()) {
                if (e.getValue().stream().anyMatch(name::startsWith)) {
                    return e.getKey();
                }
            }
            return "other";
        }
        return "JDK only";
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 1) {
            System.err.println("usage: JfrTop <recording.jfr> [top methods, default 25]");
            System.exit(2);
        }
        int top = args.length > 1 ? Integer.parseInt(args[1]) : 25;
        String entry = args.length > 2 ? args[2] : null;
        int depth = args.length > 3 ? Integer.parseInt(args[3]) : 2;
        Map<String, Integer> entries = new HashMap<>();
        Map<String, Integer> self = new HashMap<>();
        Map<String, Integer> owners = new LinkedHashMap<>();
        OWNERS.keySet().forEach(o -> owners.put(o, 0));
        Map<String, Integer> layers = new LinkedHashMap<>();
        LAYERS.keySet().forEach(l -> layers.put(l, 0));
        int total = 0;
        for (RecordedEvent event : RecordingFile.readAllEvents(Path.of(args[0]))) {
            if (!event.getEventType().getName().equals("jdk.ExecutionSample") || event.getStackTrace() == null) {
                continue;
            }
            List<RecordedFrame> frames = event.getStackTrace().getFrames();
            if (frames.isEmpty()) {
                continue;
            }
            total++;
            self.merge(name(frames.get(0)), 1, Integer::sum);
            owners.merge(owner(frames), 1, Integer::sum);
            Set<String> seen = new HashSet<>();
            for (RecordedFrame frame : frames) {
                String name = name(frame);
                LAYERS.forEach((layer, prefixes) -> {
                    if (prefixes.stream().anyMatch(name::startsWith)) {
                        seen.add(layer);
                    }
                });
            }
            seen.forEach(l -> layers.merge(l, 1, Integer::sum));
            if (entry != null) {
                // frames run from the top (index 0) down to the thread's root
                for (int i = frames.size() - 1; i >= 0; i--) {
                    if (name(frames.get(i)).startsWith(entry)) {
                        StringBuilder path = new StringBuilder(i + 1 < frames.size() ? shortName(frames.get(i + 1)) : "?");
                        for (int d = 0; d < depth && i - d >= 0; d++) {
                            path.append(" > ").append(shortName(frames.get(i - d)));
                        }
                        entries.merge(path.toString(), 1, Integer::sum);
                        break;
                    }
                }
            }
        }
        int samples = Math.max(1, total);
        System.out.printf(Locale.ROOT, "%d CPU samples in %s%n%ninclusive (layer anywhere on the stack; layers nest, "
                + "e.g. a JDBC call made through HikariCP's proxy counts for both):%n", total, args[0]);
        layers.forEach((layer, n) -> System.out.printf(Locale.ROOT, "  %5.1f%%  %s%n", 100.0 * n / samples, layer));
        System.out.printf(Locale.ROOT, "%nexclusive (the first frame outside the JDK from the top; sums to 100%%):%n");
        owners.forEach((owner, n) -> System.out.printf(Locale.ROOT, "  %5.1f%%  %s%n", 100.0 * n / samples, owner));
        System.out.printf(Locale.ROOT, "%nself (top frame), first %d:%n", top);
        self.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed()).limit(top)
                .forEach(e -> System.out.printf(Locale.ROOT, "  %5.1f%%  %s%n", 100.0 * e.getValue() / samples, e.getKey()));
        if (entry != null) {
            System.out.printf(Locale.ROOT, "%ncalls into %s (caller > first %d frames inside):%n", entry, depth);
            entries.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed()).limit(top)
                    .forEach(e -> System.out.printf(Locale.ROOT, "  %5.1f%%  %s%n", 100.0 * e.getValue() / samples,
                            e.getKey()));
        }
    }

    private static String shortName(RecordedFrame frame) {
        String type = frame.getMethod().getType().getName();
        return type.substring(type.lastIndexOf('.') + 1) + "." + frame.getMethod().getName();
    }

    private static String name(RecordedFrame frame) {
        return frame.getMethod().getType().getName() + "." + frame.getMethod().getName();
    }
}
