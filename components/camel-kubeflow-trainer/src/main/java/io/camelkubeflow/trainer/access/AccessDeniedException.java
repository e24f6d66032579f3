package io.camelkubeflow.trainer.access;

import io.camelkubeflow.trainer.support.Printable;

/**
 * The caller a request acts for may not do what the request needs. Thrown before anything is written; the message
 * names the caller, the verb, the resource and the namespace denied.
 */
public class AccessDeniedException extends RuntimeException {
    private final transient Caller caller;
    private final transient Access access;

    public AccessDeniedException(Caller caller, Access access, String why) {
        super(Printable.escape(
                caller == null
                        ? "no caller identity given: " + why
                        : "caller " + caller + " may not " + access.describe()
                                + (why == null ? "" : " (" + why + ")")));
        this.caller = caller;
        this.access = access;
    }

    /** The caller, or null when the request named none. */
    public Caller getCaller() {
        return caller;
    }

    /** What was denied, or null when the request named no caller. */
    public Access getAccess() {
        return access;
    }
}
