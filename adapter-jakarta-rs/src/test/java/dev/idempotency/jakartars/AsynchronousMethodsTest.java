package dev.idempotency.jakartars;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.Suspended;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import org.junit.jupiter.api.Test;

/**
 * Which resource methods answer on another thread, so that a transaction bound to the request's
 * thread cannot follow them (the filters refuse them under a key in that case).
 */
class AsynchronousMethodsTest {

    @SuppressWarnings("unused")
    static class Resource {
        public String plain() {
            return "";
        }

        public void suspended(@Suspended AsyncResponse response) {
        }

        public CompletionStage<String> stage() {
            return null;
        }

        public CompletableFuture<String> future() {
            return null;
        }

        public Flow.Publisher<String> publisher() {
            return null;
        }

        public Object anything() {
            return null;
        }
    }

    @Test
    void stagesPublishersAndSuspendedResponsesAnswerLaterAndPlainTypesDoNot() throws Exception {
        assertThat(asynchronous("plain")).isFalse();
        assertThat(asynchronous("anything")).isFalse();
        assertThat(asynchronous("stage")).isTrue();
        assertThat(asynchronous("future")).isTrue();
        assertThat(asynchronous("publisher")).isTrue();
        assertThat(IdempotencyFilter.asynchronous(Resource.class.getMethod("suspended", AsyncResponse.class))).isTrue();
    }

    private static boolean asynchronous(String name) throws NoSuchMethodException {
        return IdempotencyFilter.asynchronous(Resource.class.getMethod(name));
    }
}
