package dev.idempotency.readme;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The code blocks of the project's READMEs that are marked for testing. A marker is an HTML
 * comment on the line right before a fenced block, invisible where the README is rendered:
 *
 * <pre>{@code
 * <!-- readme-test: javalin,vertx pom -->           a pom.xml fragment of these applications
 * <!-- readme-test: javalin file src/main/java/quickstart/OrdersApp.java -->   a file of one
 * <!-- readme-test: javalin gradle -->               the same dependencies in Gradle's Kotlin DSL
 * <!-- readme-test: install -->                      the commands that install the artifacts
 * }</pre>
 *
 * <p>Read from the top README, every module's README and the pages under {@code docs/}.
 */
record Snippets(List<Snippet> all) {

    /** One marked block. */
    record Snippet(List<String> apps, String kind, String path, String content, String source) {
    }

    private static final Pattern PROJECT_ARTIFACT = Pattern.compile(
            "<groupId>dev\\.idempotency</groupId>\\s*<artifactId>([^<]+)</artifactId>");
    private static final Pattern MARKER = Pattern.compile(
            "^<!-- readme-test: (install|([a-z0-9-]+(?:,[a-z0-9-]+)*) (pom|file|gradle)(?: (\\S+))?) -->$");

    /** The marked blocks of README.md, of every module's README.md and of every docs/*.md under {@code root}. */
    static Snippets collect(Path root) {
        List<Snippet> found = new ArrayList<>();
        try {
            List<Path> readmes = new ArrayList<>();
            readmes.add(root.resolve("README.md"));
            try (Stream<Path> modules = Files.list(root)) {
                modules.filter(Files::isDirectory).map(d -> d.resolve("README.md")).filter(Files::isRegularFile)
                        .sorted().forEach(readmes::add);
            }
            try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
                docs.filter(d -> d.toString().endsWith(".md")).filter(Files::isRegularFile).sorted()
                        .forEach(readmes::add);
            }
            for (Path readme : readmes.stream().distinct().toList()) { // docs/README.md is listed twice
                found.addAll(read(root.relativize(readme).toString(), Files.readAllLines(readme)));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new Snippets(List.copyOf(found));
    }

    static List<Snippet> read(String name, List<String> lines) {
        List<Snippet> found = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher m = MARKER.matcher(lines.get(i).strip());
            if (!m.matches()) {
                if (lines.get(i).contains("readme-test:")) {
                    throw new IllegalStateException(name + ":" + (i + 1) + ": not a readme-test marker: " + lines.get(i));
                }
                continue;
            }
            if (i + 1 >= lines.size() || !lines.get(i + 1).startsWith("```")) {
                throw new IllegalStateException(name + ":" + (i + 1) + ": a readme-test marker must precede a code block");
            }
            StringBuilder content = new StringBuilder();
            int j = i + 2;
            for (; j < lines.size() && !lines.get(j).startsWith("```"); j++) {
                content.append(lines.get(j)).append('\n');
            }
            if (j >= lines.size()) {
                throw new IllegalStateException(name + ":" + (i + 2) + ": the code block is not closed");
            }
            String source = name + ":" + (i + 2);
            if (m.group(1).equals("install")) {
                found.add(new Snippet(List.of(), "install", null, content.toString(), source));
            } else {
                if (m.group(3).equals("file") == (m.group(4) == null)) {
                    throw new IllegalStateException(source + ": 'file' takes a path, 'pom' none");
                }
                found.add(new Snippet(List.of(m.group(2).split(",")), m.group(3), m.group(4), content.toString(),
                        source));
            }
            i = j;
        }
        return found;
    }

    /** Every application some block is marked for. */
    List<String> apps() {
        return all.stream().flatMap(s -> s.apps().stream()).distinct().sorted().toList();
    }

    List<Snippet> of(String app, String kind) {
        return all.stream().filter(s -> s.kind().equals(kind) && s.apps().contains(app)).toList();
    }

    /** The artifactIds of this project's group ({@code dev.idempotency}) that the pom blocks name. */
    Set<String> artifactsUsed() {
        Set<String> used = new TreeSet<>();
        for (Snippet pom : all.stream().filter(s -> s.kind().equals("pom")).toList()) {
            Matcher m = PROJECT_ARTIFACT.matcher(pom.content());
            while (m.find()) {
                used.add(m.group(1));
            }
        }
        return used;
    }

    /** The install commands: the {@code mvn} lines of the block marked {@code install}. */
    List<String> installCommands() {
        List<Snippet> install = all.stream().filter(s -> s.kind().equals("install")).toList();
        if (install.size() != 1) {
            throw new IllegalStateException("Exactly one install block expected, found " + install.size());
        }
        return install.get(0).content().lines().map(String::strip).filter(l -> l.startsWith("mvn ")).toList();
    }
}
