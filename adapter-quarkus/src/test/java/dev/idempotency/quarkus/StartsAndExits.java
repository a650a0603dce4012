package dev.idempotency.quarkus;

import io.quarkus.runtime.QuarkusApplication;
import io.quarkus.runtime.annotations.QuarkusMain;

/** The main of {@link QuarkusStartFailureTest}'s starts: one that starts exits at once, status 0. */
@QuarkusMain
public class StartsAndExits implements QuarkusApplication {

    @Override
    public int run(String... args) {
        return 0;
    }
}
