package io.camelkubeflow.trainer.api;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.deser.std.StringDeserializer;
import java.io.IOException;

/**
 * The strings every TrainJob of a namespace and runtime repeats (its namespace, runtime reference, managedBy, the
 * launcher's command words), read as one shared instance each. An informer keeps a copy of every TrainJob it watches,
 * so with thousands of waits each job's copies of these strings were a tenth of the heap a wait takes. They are
 * interned ({@link String#intern()}), whose table keeps no string that nothing else holds.
 */
public final class SharedStrings {
    private SharedStrings() {}

    /** The shared instance of the value, or null. */
    public static String of(String value) {
        return value == null ? null : value.intern();
    }

    /** Reads a string as Jackson's own deserializer does, then shares it. */
    public static final class Deserializer extends StringDeserializer {
        @Override
        public String deserialize(JsonParser parser, DeserializationContext context) throws IOException {
            return of(super.deserialize(parser, context));
        }
    }
}
