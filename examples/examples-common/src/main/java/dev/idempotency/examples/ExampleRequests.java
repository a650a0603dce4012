package dev.idempotency.examples;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The examples' request rules, checked on the raw body so every framework accepts and refuses
 * exactly the same requests. Each method throws {@link ProblemException} (400
 * {@code validation_failed}) with a detail naming what is wrong, in the service's own words: it
 * never echoes the input.
 */
public final class ExampleRequests {

    /** The longest {@code delayMs} a request may ask for. */
    public static final long MAX_DELAY_MS = 5000;

    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private static final Set<String> OUTCOMES = Set.of("succeeded", "partial", "failed");
    private static final int MAX_ITEM_LENGTH = 200;

    private ExampleRequests() {
    }

    /** {@code {"item": non-blank string, "quantity": positive int}}; other members are ignored. */
    public static NewOrder order(byte[] body) {
        JsonNode json = object(body);
        JsonNode item = json.get("item");
        if (item == null || !item.isTextual() || item.asText().isBlank()) {
            throw ProblemException.validation("\"item\" must be a non-empty string");
        }
        if (item.asText().length() > MAX_ITEM_LENGTH) {
            throw ProblemException.validation("\"item\" must be at most " + MAX_ITEM_LENGTH + " characters");
        }
        return new NewOrder(item.asText(), positiveInt(json, "quantity"));
    }

    /**
     * {@code {"amount": positive int, "outcome": "succeeded" | "partial" | "failed"}}; the outcome
     * defaults to {@code succeeded}.
     */
    public static NewPayment payment(byte[] body) {
        JsonNode json = object(body);
        int amount = positiveInt(json, "amount");
        JsonNode outcome = json.get("outcome");
        if (outcome == null || outcome.isNull()) {
            return new NewPayment(amount, "succeeded");
        }
        if (!outcome.isTextual() || !OUTCOMES.contains(outcome.asText())) {
            throw ProblemException.validation("\"outcome\" must be \"succeeded\", \"partial\" or \"failed\"");
        }
        return new NewPayment(amount, outcome.asText());
    }

    /** The {@code delayMs} query parameter: absent is 0, otherwise a whole number 0..5000. */
    public static long delayMillis(String delayMs) {
        if (delayMs == null || delayMs.isEmpty()) {
            return 0;
        }
        try {
            long millis = Long.parseLong(delayMs);
            if (millis >= 0 && millis <= MAX_DELAY_MS) {
                return millis;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw ProblemException.validation("delayMs must be a whole number from 0 to " + MAX_DELAY_MS);
    }

    /** Waits {@link #delayMillis(String) delayMs}, so a person can send a retry meanwhile. */
    public static void pause(String delayMs) {
        long millis = delayMillis(delayMs);
        if (millis > 0) {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The {@code {id}} path parameter; empty when it cannot name a record (the route answers 404). */
    public static OptionalLong id(String id) {
        try {
            long value = Long.parseLong(id);
            return value > 0 ? OptionalLong.of(value) : OptionalLong.empty();
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    private static JsonNode object(byte[] body) {
        JsonNode json;
        try {
            json = body == null || body.length == 0 ? null : JSON.readTree(body);
        } catch (JsonProcessingException e) {
            // Not Jackson's message: it quotes the body ("Unrecognized token 'secret…'").
            throw ProblemException.validation("The body is not valid JSON");
        } catch (IOException e) {
            throw ProblemException.validation("The body could not be read");
        }
        if (json == null || !json.isObject()) {
            throw ProblemException.validation("The body must be a JSON object");
        }
        return json;
    }

    private static int positiveInt(JsonNode json, String name) {
        JsonNode value = json.get(name);
        if (value == null || !value.isIntegralNumber() || !value.canConvertToInt() || value.intValue() <= 0) {
            throw ProblemException.validation("\"" + name + "\" must be a positive whole number");
        }
        return value.intValue();
    }
}
