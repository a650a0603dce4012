package dev.idempotency.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PathsTest {

    @ParameterizedTest
    @CsvSource({
        "/orders, /orders",
        "/orders?debug=true, /orders",
        "/orders/?a=1&b=2, /orders",
        "/orders#frag, /orders",
        "//orders///7, /orders/7",
        "'', /",
        "/, /",
        "/?x, /",
        "orders, /orders",
        "/a%2Fb, /a%2Fb",
    })
    void normalize(String raw, String expected) {
        assertThat(Paths.normalize(raw)).isEqualTo(expected);
    }
}
