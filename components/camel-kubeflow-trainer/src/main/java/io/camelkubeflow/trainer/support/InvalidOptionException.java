package io.camelkubeflow.trainer.support;

/**
 * A TrainJob request that cannot be turned into a valid TrainJob. Always thrown before anything is written to the
 * cluster; the message names the offending field (the endpoint option of that name, or its header) and the fix. The
 * field and the message quote input, so both are held as {@link Printable#escape} shows them.
 */
public class InvalidOptionException extends IllegalArgumentException {
    private final String field;
    private final String detail;

    public InvalidOptionException(String field, String message) {
        this(field, message, null);
    }

    public InvalidOptionException(String field, String message, Throwable cause) {
        super("Invalid '" + Printable.escape(field) + "': " + Printable.escape(message), cause);
        this.field = Printable.escape(field);
        this.detail = Printable.escape(message);
    }

    /**
     * The same refusal for a caller who wrote the field under another name (an HTTP query parameter that became
     * this header): the message names {@code callerField}.
     */
    public InvalidOptionException as(String callerField) {
        return new InvalidOptionException(callerField, detail, getCause());
    }

    /** The endpoint option (or body field) at fault. */
    public String getField() {
        return field;
    }
}
