package dev.idempotency.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ExampleRequestsTest {

    private static byte[] bytes(String json) {
        return json.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void validBodies() {
        assertThat(ExampleRequests.order(bytes("{\"quantity\":3,\"item\":\"pen\",\"note\":1}")))
                .isEqualTo(new NewOrder("pen", 3));
        assertThat(ExampleRequests.payment(bytes("{\"amount\":5,\"outcome\":\"partial\"}")))
                .isEqualTo(new NewPayment(5, "partial"));
        assertThat(ExampleRequests.payment(bytes("{\"amount\":5}"))).isEqualTo(new NewPayment(5, "succeeded"));
        assertThat(ExampleRequests.delayMillis(null)).isZero();
        assertThat(ExampleRequests.delayMillis("5000")).isEqualTo(5000);
    }

    @Test
    void invalidBodiesAreValidationProblems() {
        for (String order : List.of("", "[]", "{", "{} {}", "{\"item\":\"\",\"quantity\":1}", "{\"item\":1,\"quantity\":1}",
                "{\"item\":\"pen\"}", "{\"item\":\"pen\",\"quantity\":0}", "{\"item\":\"pen\",\"quantity\":1.5}",
                "{\"item\":\"pen\",\"quantity\":\"2\"}", "{\"item\":\"pen\",\"quantity\":3000000000}")) {
            ProblemException e = catchThrowableOfType(ProblemException.class, () -> ExampleRequests.order(bytes(order)));
            assertThat(e).as(order).isNotNull();
            assertThat(e.problem().code()).isEqualTo("validation_failed");
            assertThat(e.reply().status()).isEqualTo(400);
            assertThat(e.reply().header("Content-Type")).isEqualTo("application/problem+json");
        }
        assertThat(catchThrowableOfType(ProblemException.class,
                () -> ExampleRequests.payment(bytes("{\"amount\":5,\"outcome\":\"maybe\"}")))).isNotNull();
        for (String delay : List.of("-1", "5001", "soon")) {
            assertThat(catchThrowableOfType(ProblemException.class, () -> ExampleRequests.delayMillis(delay))).isNotNull();
        }
    }

    @Test
    void aBodyThatIsNotJsonIsRefusedInTheServicesOwnWords() {
        ProblemException e = catchThrowableOfType(ProblemException.class,
                () -> ExampleRequests.order(bytes("{\"item\": secretvalue123456}")));

        assertThat(e.problem().detail()).isEqualTo("The body is not valid JSON");
    }

    @Test
    void tenants() {
        assertThat(Tenants.of(List.of())).isEqualTo("public");
        assertThat(Tenants.of(List.of("acme"))).isEqualTo("acme");
        assertThat(catchThrowableOfType(ProblemException.class, () -> Tenants.of(List.of("a", "b")))).isNotNull();
    }
}
