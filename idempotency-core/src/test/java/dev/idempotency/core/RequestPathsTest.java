package dev.idempotency.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class RequestPathsTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "/orders, /orders",
        "/orders?debug=true, /orders",
        "/orders/?a=1&b=2, /orders",
        "/orders?next=/x/../y, /orders",
        "//orders///7, /orders/7",
        "'', /",
        "/, /",
        "/?x, /",
        "orders, /orders",
        // RFC 3986 §6.2.2.1-2: unreserved escapes decoded, the others' hex digits upper-cased
        "/%6frders, /orders",
        "/%6Frders, /orders",
        "/%41%7a%30%2d%2e%5f%7e, /Az0-._~",
        "/a%2Fb, /a%2Fb",
        "/a%2fb, /a%2Fb",
        "/caf%c3%a9, /caf%C3%A9",
        "/a%20b, /a%20b",
        // §6.2.2.3 / §5.2.4: dot segments
        "/x/../orders, /orders",
        "/./orders, /orders",
        "/orders/., /orders",
        "/orders/.., /",
        "/orders/../payments, /payments",
        "/../../orders, /orders",
        "/a/./b/../c, /a/c",
        "/a//../b, /a/b",
        "/%2E%2E/orders, /orders",
        "/x/%2e%2e/orders, /orders",
        "/.orders/..x, /.orders/..x",
        // kept: case, path parameters, characters the router sees as they are
        "/ORDERS, /ORDERS",
        "/orders;x, /orders;x",
        "/a%2F..%2Fb, /a%2F..%2Fb",
    })
    void normalize(String raw, String expected) {
        assertThat(RequestPaths.normalize(raw)).hasValue(expected);
    }

    @ParameterizedTest
    @ValueSource(strings = {"/orders#frag", "/orders#/../payments", "#", "/%", "/%4", "/%zz", "/a%g1", "/a%1"})
    void aFragmentOrAMalformedEscapeNamesNoRecord(String raw) {
        assertThat(RequestPaths.normalize(raw)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"/orders", "/a/b/c", "/a%2Fb", "/caf%C3%A9", "/ORDERS"})
    void aNormalizedPathIsItsOwnNormalForm(String path) {
        assertThat(RequestPaths.normalize(path)).hasValue(path);
    }
}
