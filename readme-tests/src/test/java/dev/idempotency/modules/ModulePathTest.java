package dev.idempotency.modules;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.module.FindException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The module descriptors, as an application on the module path meets them: a consumer module
 * compiles against the exported API of the core, the jOOQ store, the test kit and the NATS
 * consumer (jnats an automatic module), and one that imports their internals does not (nor the jOOQ store's, exported to the Vert.x SQL store only). Compiled with javac, the module path made of the jars on this
 * test's class path.
 */
class ModulePathTest {

    @TempDir
    Path dir;

    @Test
    void theExportedApiCompilesOnTheModulePath() throws IOException {
        List<Diagnostic<? extends JavaFileObject>> errors = compile(Map.of(
                "module-info.java", """
                        module consumer {
                            requires dev.idempotency.jdbc;
                            requires dev.idempotency.testkit;
                            requires dev.idempotency.nats;
                        }
                        """,
                "consumer/Uses.java", """
                        package consumer;

                        import dev.idempotency.core.BodyCanonicalizer;
                        import dev.idempotency.core.IdempotencyConfig;
                        import dev.idempotency.core.call.IdempotentCalls;
                        import dev.idempotency.core.store.InMemoryStore;
                        import dev.idempotency.core.store.Store;
                        import dev.idempotency.jdbc.JdbcStore;
                        import dev.idempotency.nats.IdempotentConsumer;
                        import dev.idempotency.testkit.MutableClock;
                        import dev.idempotency.testkit.StoreContractTest;

                        public abstract class Uses extends StoreContractTest {
                            static final Class<?> STORE = JdbcStore.class;
                            static final Class<?> CALLS = IdempotentCalls.class;
                            static IdempotentConsumer consumer(IdempotentCalls calls) {
                                return IdempotentConsumer.builder(calls).build();
                            }
                            static io.nats.client.MessageHandler handler(IdempotentConsumer consumer) {
                                return consumer.handler((message, context) -> message.getData());
                            }
                            static byte[] canonical(byte[] body) {
                                return BodyCanonicalizer.jcs().canonicalize(body, "application/json");
                            }
                            static Store memory() {
                                IdempotencyConfig.builder().clock(new MutableClock(java.time.Instant.EPOCH));
                                return new InMemoryStore();
                            }
                        }
                        """));

        assertThat(errors).as("errors").isEmpty();
    }

    /**
     * jackson-databind is an optional dependency of the core: the idempotent calls run without it,
     * given a codec of the application's, and only the default codec asks for it, with a clear error.
     */
    @Test
    void theCallsRunWithoutJacksonDatabind() throws Exception {
        List<Diagnostic<? extends JavaFileObject>> errors = compile(Map.of(
                "module-info.java", """
                        module calls {
                            requires dev.idempotency.core;
                            exports calls;
                        }
                        """,
                "calls/Run.java", """
                        package calls;

                        import dev.idempotency.core.IdempotencyConfig;
                        import dev.idempotency.core.call.IdempotentCall;
                        import dev.idempotency.core.call.IdempotentCalls;
                        import dev.idempotency.core.call.ResultCodec;
                        import dev.idempotency.core.store.InMemoryStore;
                        import java.lang.reflect.Type;
                        import java.nio.charset.StandardCharsets;

                        public class Run {
                            /** A codec of JSON strings only. */
                            static final ResultCodec STRINGS = new ResultCodec() {
                                public byte[] encode(Object value) {
                                    return ('"' + String.valueOf(value) + '"').getBytes(StandardCharsets.UTF_8);
                                }
                                @SuppressWarnings("unchecked")
                                public <T> T decode(byte[] bytes, Type type) {
                                    String json = new String(bytes, StandardCharsets.UTF_8);
                                    return (T) json.substring(1, json.length() - 1);
                                }
                            };

                            public static String twice() {
                                try (IdempotentCalls calls = new IdempotentCalls(new InMemoryStore(),
                                        IdempotencyConfig.defaults(), STRINGS)) {
                                    IdempotentCall call = IdempotentCall.of("jobs", "k-1", "in");
                                    return calls.run(call, String.class, context -> "first") + " "
                                            + calls.run(call, String.class, context -> "second");
                                }
                            }

                            public static String jsonCodec() {
                                try {
                                    return ResultCodec.json().getClass().getSimpleName();
                                } catch (IllegalStateException refused) {
                                    return refused.getMessage();
                                }
                            }
                        }
                        """));
        assertThat(errors).as("errors").isEmpty();

        List<Path> withoutDatabind = Stream.concat(Stream.of(dir.resolve("out")),
                Stream.of(modulePath().split(File.pathSeparator)).map(Path::of)
                        .filter(entry -> !entry.getFileName().toString().startsWith("jackson-databind"))).toList();
        ModuleFinder finder = ModuleFinder.of(withoutDatabind.toArray(Path[]::new));
        assertThat(finder.find("com.fasterxml.jackson.databind")).isEmpty();
        ModuleLayer layer = ModuleLayer.boot().defineModulesWithOneLoader(
                ModuleLayer.boot().configuration().resolve(finder, ModuleFinder.of(), List.of("calls")),
                ClassLoader.getPlatformClassLoader());
        Class<?> run = layer.findLoader("calls").loadClass("calls.Run");

        assertThat(run.getMethod("twice").invoke(null)).isEqualTo("Executed[value=first] Replayed[value=first]");
        assertThat(run.getMethod("jsonCodec").invoke(null))
                .isEqualTo("The default result codec needs com.fasterxml.jackson.core:jackson-databind; add it, "
                        + "or give IdempotentCalls a ResultCodec of your own");
    }

    @Test
    void theInternalsAreNotVisible() throws IOException {
        List<Diagnostic<? extends JavaFileObject>> errors = compile(Map.of(
                "module-info.java", """
                        module intruder {
                            requires dev.idempotency.jdbc;
                            requires dev.idempotency.testkit;
                        }
                        """,
                "intruder/Reaches.java", """
                        package intruder;

                        import dev.idempotency.core.canonical.JsonCanonicalizer;
                        import dev.idempotency.core.internal.WithheldMessage;
                        import dev.idempotency.jdbc.internal.Schema;
                        import dev.idempotency.testkit.internal.TcpProxy;

                        public class Reaches {
                        }
                        """));

        List<String> messages = errors.stream().map(d -> d.getMessage(Locale.ROOT)).toList();
        assertThat(messages).as("one error per internal package").hasSize(4);
        assertThat(messages).anySatisfy(m -> assertThat(m).contains("package dev.idempotency.core.canonical is not visible")
                .contains("does not export it"));
        assertThat(messages).anySatisfy(m -> assertThat(m).contains("package dev.idempotency.core.internal is not visible")
                .contains("does not export it"));
        assertThat(messages).anySatisfy(m -> assertThat(m).contains("package dev.idempotency.testkit.internal is not visible")
                .contains("does not export it"));
        assertThat(messages).as("exported to no other module")
                .anySatisfy(m -> assertThat(m).contains("package dev.idempotency.jdbc.internal is not visible")
                        .contains("does not export it"));
    }

    /** Compiles the sources as one module; returns its errors. */
    private List<Diagnostic<? extends JavaFileObject>> compile(Map<String, String> sources) throws IOException {
        List<File> files = new ArrayList<>();
        for (Map.Entry<String, String> source : sources.entrySet()) {
            Path file = dir.resolve("src").resolve(source.getKey());
            Files.createDirectories(file.getParent());
            Files.writeString(file, source.getValue());
            files.add(file.toFile());
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager fileManager = javac.getStandardFileManager(diagnostics, Locale.ROOT, null)) {
            // an empty class path: javac would otherwise take this JVM's, where everything is visible
            Path emptyClassPath = Files.createDirectories(dir.resolve("empty"));
            List<String> options = List.of("--release", "17", "-proc:none", "-d", dir.resolve("out").toString(),
                    "--module-path", modulePath(), "--class-path", emptyClassPath.toString());
            boolean compiled = javac.getTask(null, fileManager, diagnostics, options, null,
                    fileManager.getJavaFileObjectsFromFiles(files)).call();
            List<Diagnostic<? extends JavaFileObject>> errors = diagnostics.getDiagnostics().stream()
                    .filter(d -> d.getKind() == Diagnostic.Kind.ERROR).collect(Collectors.toList());
            assertThat(compiled).as("compiled, given the errors %s", errors).isEqualTo(errors.isEmpty());
            return errors;
        }
    }

    /**
     * This test's class path entries that are modules by a descriptor or a declared
     * Automatic-Module-Name; jars whose module name would only be derived from the file name are
     * left out, as no descriptor here may depend on them.
     */
    private static String modulePath() {
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        return Stream.of(classPath.split(File.pathSeparator))
                .filter(entry -> !entry.isBlank() && Files.exists(Path.of(entry)))
                .filter(ModulePathTest::isNamedModule)
                .collect(Collectors.joining(File.pathSeparator));
    }

    private static boolean isNamedModule(String entry) {
        Path path = Path.of(entry);
        try {
            List<ModuleDescriptor> found = ModuleFinder.of(path).findAll().stream().map(ModuleReference::descriptor)
                    .toList();
            if (found.size() != 1) {
                return false;
            }
            if (!found.get(0).isAutomatic()) {
                return true;
            }
            try (JarFile jar = new JarFile(path.toFile())) {
                return jar.getManifest() != null
                        && jar.getManifest().getMainAttributes().getValue("Automatic-Module-Name") != null;
            }
        } catch (FindException notAModule) {
            return false;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
