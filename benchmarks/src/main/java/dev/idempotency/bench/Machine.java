package dev.idempotency.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.util.concurrent.TimeUnit;

/** What the numbers were measured on. */
record Machine(int cores, String cpu, String jdk, String database, String commit) {

    static Machine describe(Path root, String database) {
        return new Machine(Runtime.getRuntime().availableProcessors(), cpuModel(),
                System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"),
                database, commit(root));
    }

    /** The 1-minute load average, or NaN off Linux. */
    static double loadAverage() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    static ZonedDateTime now() {
        return ZonedDateTime.now(java.time.ZoneOffset.UTC);
    }

    private static String cpuModel() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
                    .filter(l -> l.startsWith("model name"))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim())
                    .findFirst().orElse("unknown CPU");
        } catch (IOException e) {
            return "unknown CPU";
        }
    }

    private static String commit(Path root) {
        String head = git(root, "rev-parse", "--short", "HEAD");
        if (head.isEmpty()) {
            return "unknown";
        }
        return git(root, "status", "--porcelain", "--untracked-files=no").isEmpty() ? head : head + " (with local changes)";
    }

    private static String git(Path root, String... args) {
        String[] command = new String[args.length + 3];
        command[0] = "git";
        command[1] = "-C";
        command[2] = root.toString();
        System.arraycopy(args, 0, command, 3, args.length);
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).trim();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0 ? out : "";
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }
}
