package dev.idempotency.core.internal;

import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A reservation's owner token: 122 random bits in the form of a version-4 UUID. Drawn from
 * {@link ThreadLocalRandom}, not {@code SecureRandom}: the token is never shown to a client, it only
 * has to be unique, and drawing it takes no lock and no file read on an event loop.
 */
public final class OwnerTokens {

    private OwnerTokens() {
    }

    public static String next() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long high = (random.nextLong() & ~0xF000L) | 0x4000L; // version 4
        long low = (random.nextLong() & ~(0xC000L << 48)) | (0x8000L << 48); // IETF variant
        return new UUID(high, low).toString();
    }
}
