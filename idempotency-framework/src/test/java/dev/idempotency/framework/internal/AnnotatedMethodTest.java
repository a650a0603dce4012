package dev.idempotency.framework.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import org.junit.jupiter.api.Test;

class AnnotatedMethodTest {

    record Charge(String id, Account account) {}

    public static final class Account {
        public final String number;

        Account(String number) {
            this.number = number;
        }

        public String getBank() {
            return "b-" + number;
        }
    }

    abstract static class Base<T> {
        abstract List<T> all(Charge charge, String note);

        abstract T one(Charge charge);
    }

    static final class Receipts extends Base<Charge> {
        @Override
        List<Charge> all(Charge charge, String note) {
            return List.of(charge);
        }

        @Override
        Charge one(Charge charge) {
            return charge;
        }

        void nothing(Charge charge) {
        }

        CompletableFuture<String> later() {
            return null;
        }

        Flow.Publisher<String> stream() {
            return null;
        }
    }

    private static final String[] NAMES = {"charge", "note"};

    @Test
    void theReturnTypeResolvesAgainstTheBeansClass() throws Exception {
        Method all = Base.class.getDeclaredMethod("all", Charge.class, String.class);
        Method one = Base.class.getDeclaredMethod("one", Charge.class);

        ParameterizedType list = (ParameterizedType) AnnotatedMethod.of(all, Receipts.class, "@A", "s", new String[0],
                NAMES).resultType();

        assertThat(list.getRawType()).isEqualTo(List.class);
        assertThat(list.getActualTypeArguments()).containsExactly(Charge.class);
        assertThat(AnnotatedMethod.of(one, Receipts.class, "@A", "s", new String[0], NAMES).resultType())
                .isEqualTo(Charge.class);
        assertThat(AnnotatedMethod.of(Receipts.class.getDeclaredMethod("nothing", Charge.class), Receipts.class, "@A",
                "s", new String[0], NAMES).resultType()).isEqualTo(Object.class);
    }

    @Test
    void theInputIsTheNamedArgumentsInTheirOrder() throws Exception {
        Method all = Receipts.class.getDeclaredMethod("all", Charge.class, String.class);
        Charge charge = new Charge("c-1", new Account("7"));

        assertThat(AnnotatedMethod.of(all, Receipts.class, "@A", "s", new String[0], NAMES)
                .call("k", new Object[] {charge, "n"}).input()).isEqualTo(List.of(charge, "n"));
        assertThat(AnnotatedMethod.of(all, Receipts.class, "@A", "s", new String[] {"note", "charge"}, NAMES)
                .call("k", new Object[] {charge, "n"}).input()).isEqualTo(List.of("n", charge));
        assertThatThrownBy(() -> AnnotatedMethod.of(all, Receipts.class, "@A", "s", new String[] {"notes"}, NAMES))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("names notes, which is not a parameter");
        assertThatThrownBy(() -> AnnotatedMethod.of(all, Receipts.class, "@A", "s p", new String[0], NAMES))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aResultThatCompletesLaterIsRefused() throws Exception {
        for (String name : List.of("later", "stream")) {
            Method method = Receipts.class.getDeclaredMethod(name);
            assertThatThrownBy(() -> AnnotatedMethod.of(method, Receipts.class, "@A", "s", new String[0], new String[0]))
                    .as(name).isInstanceOf(IllegalStateException.class).hasMessageContaining("@A runs methods");
        }
    }

    @Test
    void aKeyPathReadsComponentsGettersFieldsAndMapEntries() throws Exception {
        Method one = Receipts.class.getDeclaredMethod("all", Charge.class, String.class);
        Object[] arguments = {new Charge("c-1", new Account("7")), "n"};

        assertThat(KeyPath.parse("charge.id", one, "@A", NAMES).key(arguments)).isEqualTo("c-1");
        assertThat(KeyPath.parse("charge.account.number", one, "@A", NAMES).key(arguments)).isEqualTo("7");
        assertThat(KeyPath.parse("charge.account.bank", one, "@A", NAMES).key(arguments)).isEqualTo("b-7");
        assertThat(KeyPath.parse("note", one, "@A", NAMES).key(arguments)).isEqualTo("n");
        assertThat(KeyPath.parse("charge.id", one, "@A", NAMES).key(new Object[] {Map.of("id", "m-1"), "n"}))
                .isEqualTo("m-1");
    }

    @Test
    void aKeyPathRefusesWhatItCannotRead() throws Exception {
        Method one = Receipts.class.getDeclaredMethod("all", Charge.class, String.class);

        assertThatThrownBy(() -> KeyPath.parse("#charge.id", one, "@A", NAMES)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> KeyPath.parse("charges.id", one, "@A", NAMES))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("names charges");
        assertThatThrownBy(() -> KeyPath.parse("charge.id", one, "@A", null))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("-parameters");
        assertThatThrownBy(() -> KeyPath.parse("charge.id", one, "@A", NAMES).key(new Object[] {null, "n"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("The key charge.id is null");
        assertThatThrownBy(() -> KeyPath.parse("charge.amount", one, "@A", NAMES)
                .key(new Object[] {new Charge("c-1", null), "n"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("has no property amount");
    }
}
