package io.camelkubeflow.trainer.testing;

/** Counts where secrets show up in captured text (logs, exceptions, headers, specs, request bodies). */
public final class SecretScan {
    private SecretScan() {}

    /** How many times any of the secrets occurs in the text. */
    public static int occurrences(String text, String... secrets) {
        int hits = 0;
        for (String secret : secrets) {
            for (int at = text.indexOf(secret); at >= 0; at = text.indexOf(secret, at + 1)) {
                hits++;
            }
        }
        return hits;
    }
}
