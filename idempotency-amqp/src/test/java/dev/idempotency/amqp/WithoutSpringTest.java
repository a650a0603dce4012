package dev.idempotency.amqp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotency.amqp.internal.MessageCalls;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * spring-rabbit is optional: nothing of the Java client's face (its package and the shared internals)
 * refers to a Spring class, so it loads and runs without Spring's jars.
 */
class WithoutSpringTest {

    @Test
    void theJavaClientsFaceNamesNoSpringClass() throws IOException, URISyntaxException {
        List<Path> classes;
        Path face = Path.of(IdempotentDeliveries.class.getResource("IdempotentDeliveries.class").toURI()).getParent();
        Path internals = Path.of(MessageCalls.class.getResource("MessageCalls.class").toURI()).getParent();
        try (Stream<Path> a = Files.list(face); Stream<Path> b = Files.list(internals)) {
            classes = Stream.concat(a, b).filter(p -> p.toString().endsWith(".class")).toList();
        }
        assertThat(classes).hasSizeGreaterThanOrEqualTo(5);
        for (Path file : classes) {
            try (InputStream in = Files.newInputStream(file)) {
                String constants = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
                assertThat(constants).as(file.getFileName().toString()).doesNotContain("org/springframework");
            }
        }
    }
}
