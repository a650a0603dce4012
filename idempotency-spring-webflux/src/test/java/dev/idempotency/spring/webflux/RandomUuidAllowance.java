package dev.idempotency.spring.webflux;

import java.util.UUID;
import reactor.blockhound.BlockHound;
import reactor.blockhound.integration.BlockHoundIntegration;

/**
 * The one blocking call BlockHound is told to allow in this module's tests: {@link UUID#randomUUID()},
 * which the engine calls for a reservation's owner token where it decides — over an asynchronous
 * store, on the event loop. Its {@code SecureRandom} reads {@code /dev/urandom}, which BlockHound sees
 * as file I/O but which never waits. Loaded by BlockHound's installation ({@code META-INF/services}).
 */
public final class RandomUuidAllowance implements BlockHoundIntegration {

    @Override
    public void applyTo(BlockHound.Builder builder) {
        builder.allowBlockingCallsInside(UUID.class.getName(), "randomUUID");
    }
}
