package dev.idempotency.core.adapter;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The one encoding of callers every adapter uses: names, and tokens by issuer. */
class CallerIdentityTest {

    /** A token whose framework names it by its subject, as most do by default. */
    private static String token(Map<String, ?> claims) {
        Object subject = claims.get("sub");
        return CallerIdentity.ofToken(claims::get, subject instanceof String name ? name : null);
    }

    @Test
    void aNameIsItselfUnlessBlankOrHoldingTheSeparator() {
        assertThat(CallerIdentity.ofName("alice")).isEqualTo("alice");
        assertThat(List.of(CallerIdentity.ofName(null), CallerIdentity.ofName(" "),
                CallerIdentity.ofName("https://a.example\0alice"))).containsOnly("");
    }

    @Test
    void noTokenIdentityEqualsAnotherOrAName() {
        List<String> identities = List.of(
                token(Map.of("iss", "https://a.example", "sub", "svc")),
                token(Map.of("iss", "https://b.example", "sub", "svc")),
                token(Map.of("iss", "https://a.example", "client_id", "svc")),
                token(Map.of("iss", "https://b.example", "azp", "svc")),
                CallerIdentity.ofName("svc"));

        assertThat(identities).doesNotHaveDuplicates().noneMatch(String::isEmpty);
        assertThat(CallerIdentity.ofToken(Map.of("sub", "svc", "preferred_username", "bob")::get, "bob"))
                .as("a token without an issuer keeps the name it had").isEqualTo("bob");
    }

    @Test
    void subjectBeforeClientIdBeforeAzpAndNonTextIsAbsent() {
        String issuer = "https://a.example";
        assertThat(token(Map.of("iss", issuer, "sub", "alice", "client_id", "billing")))
                .isEqualTo(token(Map.of("iss", issuer, "sub", "alice")));
        assertThat(token(Map.of("iss", issuer, "client_id", "billing", "azp", "x")))
                .isEqualTo(token(Map.of("iss", issuer, "azp", "billing")));
        assertThat(token(Map.of("iss", URI.create(issuer), "sub", "alice")))
                .as("an issuer handed as a URI").isEqualTo(token(Map.of("iss", issuer, "sub", "alice")));
        assertThat(List.of(token(Map.of("iss", issuer, "sub", 123)), token(Map.of("iss", issuer)),
                token(Map.of("iss", issuer, "sub", " ")), token(Map.of("iss", issuer, "sub", "a\0b"))))
                .containsOnly("");
        assertThat(List.of(token(Map.of("iss", 5, "sub", "alice")), token(Map.of("iss", " ", "sub", "alice"))))
                .as("an issuer that is not text tells nothing: not the bare subject").containsOnly("");
    }
}
