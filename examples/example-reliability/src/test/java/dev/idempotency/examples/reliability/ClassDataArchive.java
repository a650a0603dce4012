package dev.idempotency.examples.reliability;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

/**
 * A class-data archive (the JDK's dynamic CDS) of one example service's classes, under
 * {@code target/cds/}, so that its later processes start sooner. The first process of a service in
 * this test JVM is its maker: it records what it loads ({@code -XX:+RecordDynamicDumpInfo}), and
 * when it is closed, before it is killed as always, {@code jcmd} has it write the archive, which is
 * moved into place whole; the processes that start after that map it. One maker at a time; a maker
 * killed or failing to start leaves the next process to make it. Made afresh in every test JVM; a
 * service whose class path the JDK cannot archive, or whose dump failed, runs without one.
 */
final class ClassDataArchive {

    private static final Path DIRECTORY = Path.of("target", "cds");
    private static final Path JCMD = Paths.get(System.getProperty("java.home"), "bin", "jcmd");
    private static final Map<ExampleService, ClassDataArchive> ARCHIVES = new ConcurrentHashMap<>();

    static {
        try {
            if (Files.isDirectory(DIRECTORY)) {
                try (Stream<Path> old = Files.list(DIRECTORY)) {
                    for (Path file : old.toList()) {
                        Files.delete(file);
                    }
                }
            }
            Files.createDirectories(DIRECTORY);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private final Path archive;
    private final Path partial;
    private final AtomicBoolean makerRunning = new AtomicBoolean();
    private volatile boolean unusable;

    private ClassDataArchive(ExampleService service, List<String> launchArguments) {
        this.archive = DIRECTORY.resolve(service.name().toLowerCase(java.util.Locale.ROOT) + ".jsa");
        this.partial = DIRECTORY.resolve(archive.getFileName() + ".part");
        this.unusable = !Files.isExecutable(JCMD) || !archivable(launchArguments);
    }

    /** The archive of {@code service}, whose processes all run with {@code launchArguments}. */
    static ClassDataArchive of(ExampleService service, List<String> launchArguments) {
        return ARCHIVES.computeIfAbsent(service, s -> new ClassDataArchive(s, launchArguments));
    }

    /**
     * The JVM options of a process about to start: the archive's when it exists; the maker's when
     * none exists and no maker runs (then the caller must {@link #dump} or {@link #abandon}); else none.
     */
    Use use() {
        if (unusable) {
            return new Use(List.of(), false);
        }
        if (Files.isRegularFile(archive)) {
            return new Use(List.of("-XX:SharedArchiveFile=" + archive), false);
        }
        if (makerRunning.compareAndSet(false, true)) {
            return new Use(List.of("-XX:+RecordDynamicDumpInfo"), true);
        }
        return new Use(List.of(), false);
    }

    /** What {@link #use()} gave: the options, and whether the process is the maker. */
    record Use(List<String> options, boolean maker) {
    }

    /**
     * Has the maker {@code process}, still running, write the archive, and moves it into place;
     * a failed dump leaves the service without one for the rest of the run.
     */
    void dump(Process process) {
        long started = System.nanoTime();
        try {
            Files.deleteIfExists(partial);
            Process jcmd = new ProcessBuilder(JCMD.toString(), Long.toString(process.pid()), "VM.cds", "dynamic_dump",
                    partial.toAbsolutePath().toString()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            boolean done = jcmd.waitFor(60, TimeUnit.SECONDS);
            if (!done) {
                jcmd.destroyForcibly();
            }
            if (done && jcmd.exitValue() == 0 && Files.size(partial) > 0) {
                Files.move(partial, archive, StandardCopyOption.ATOMIC_MOVE);
            } else {
                unusable = true;
            }
            System.out.println("[reliability] class-data archive " + (unusable ? "not written: " + archive
                    : archive + " written") + " in " + (System.nanoTime() - started) / 1_000_000 + " ms");
        } catch (IOException e) {
            unusable = true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            abandon();
        }
    }

    /** The maker goes without writing the archive: the next process to start makes it. */
    void abandon() {
        try {
            Files.deleteIfExists(partial);
        } catch (IOException e) {
            unusable = true;
        }
        makerRunning.set(false);
    }

    /**
     * Whether the JDK can archive classes from these arguments' class path: it refuses when a
     * non-empty directory comes before a jar ({@code -jar} names one jar).
     */
    private static boolean archivable(List<String> launchArguments) {
        int cp = launchArguments.indexOf("-cp");
        if (cp < 0) {
            return true;
        }
        boolean directorySeen = false;
        for (String entry : launchArguments.get(cp + 1).split(File.pathSeparator)) {
            Path path = Path.of(entry);
            if (Files.isDirectory(path)) {
                directorySeen |= !isEmpty(path);
            } else if (directorySeen && Files.exists(path)) {
                return false;
            }
        }
        return true;
    }

    private static boolean isEmpty(Path directory) {
        try (Stream<Path> entries = Files.list(directory)) {
            return entries.findAny().isEmpty();
        } catch (IOException e) {
            return false;
        }
    }
}
