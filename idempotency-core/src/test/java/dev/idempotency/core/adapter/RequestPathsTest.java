package dev.idempotency.core.adapter;

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
        "/orders?next=/x/../y#z, /orders",
        "/orders/, /orders",
        "/orders/7, /orders/7",
        "'', /",
        "/, /",
        "//, /",
        "/?x, /",
        "orders, /orders",
        // escapes: hex digits upper-cased; an encoded slash or space is not a separator or a space
        "/a%2Fb, /a%2Fb",
        "/a%2fb, /a%2Fb",
        "/caf%c3%a9, /caf%C3%A9",
        "/a%20b, /a%20b",
        // kept: case, path parameters, dots that are not dot segments
        "/ORDERS, /ORDERS",
        "/orders;x, /orders;x",
        "/.well-known/x, /.well-known/x",
        "/a/..., /a/...",
        "/a/.b/c.., /a/.b/c..",
        "/caf\u00e9, /caf\u00e9",
    })
    void normalize(String raw, String expected) {
        assertThat(RequestPaths.normalize(raw)).hasValue(expected);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        // a fragment and malformed escapes
        "/orders#frag", "/orders#/../payments", "#", "/%", "/%4", "/%zz", "/a%g1", "/a%1", "/a%1/b",
        // what RFC 3986 would resolve but Javalin and Micronaut route as it is: dot segments,
        "/x/../orders", "/./orders", "/orders/.", "/orders/..", "/../orders", "/a/./b",
        // escapes of unreserved characters (%2E included), and empty segments
        "/%6frders", "/%6Frders", "/items/b%75lk", "/%41", "/a%7Eb", "/%2E/orders", "/orders/%2e", "/x/%2E%2E",
        "//orders", "/orders//7", "/orders//",
    })
    void aPathRoutersDisagreeOnNamesNoRecord(String raw) {
        assertThat(RequestPaths.normalize(raw)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"/orders", "/a/b/c", "/a%2Fb", "/caf%C3%A9", "/ORDERS", "/"})
    void aNormalizedPathIsItsOwnNormalForm(String path) {
        assertThat(RequestPaths.normalize(path)).hasValue(path);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "//orders, empty segment",
        "/orders//7, empty segment",
        "/orders#frag, fragment",
        "/orders%zz, malformed percent-escape",
        "/orders%, malformed percent-escape",
        "/./orders, dot segment",
        "/orders/.., dot segment",
        "/%6frders, needs no escape",
        "/orders/%2E, needs no escape",
    })
    void eachRefusalNamesItsOwnReason(String raw, String reason) {
        assertThat(RequestPaths.refusal(raw)).contains(reason);
        assertThat(RequestPaths.refusal("/orders/7")).isNull();
    }
}
