package dev.idempotency.bench;

import java.time.LocalTime;
import java.time.temporal.ChronoUnit;

/** Progress lines on stderr, so stdout carries only the table. */
final class Progress {

    private Progress() {
    }

    static void say(String format, Object... args) {
        System.err.println(LocalTime.now().truncatedTo(ChronoUnit.SECONDS) + " " + String.format(format, args));
    }
}
