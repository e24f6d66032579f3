package io.camelkubeflow.trainer.support;

/**
 * A TrainJob request that cannot be turned into a valid TrainJob. Always thrown before anything is written to the
 * cluster; the message names the offending field (the endpoint option of that name, or its header) and the fix.
 */
public class InvalidOptionException extends IllegalArgumentException {
    private final String field;

    public InvalidOptionException(String field, String message) {
        super("Invalid '" + field + "': " + message);
        this.field = field;
    }

    public InvalidOptionException(String field, String message, Throwable cause) {
        super("Invalid '" + field + "': " + message, cause);
        this.field = field;
    }

    /** The endpoint option (or body field) at fault. */
    public String getField() {
        return field;
    }
}
