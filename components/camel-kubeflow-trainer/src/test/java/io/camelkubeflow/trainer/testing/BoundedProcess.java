package io.camelkubeflow.trainer.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A program a test runs and waits for, never without end: its output and error are read on threads of their own (a
 * process that fills one pipe while the test reads the other would otherwise block both), the wait is bounded, and a
 * process still running at the bound is killed with its children and fails the test with what it printed so far.
 */
public final class BoundedProcess {
    private BoundedProcess() {}

    /** What a program printed and how it exited. */
    public record Result(int exitCode, String output, String error) {
        /** Output and error, for an assertion's message. */
        public String printed() {
            return output + (error.isEmpty() ? "" : "\n" + error);
        }
    }

    /** Runs {@code command} with no input and waits at most {@code bound}. */
    public static Result run(Duration bound, List<String> command) {
        return run(bound, command, null, Map.of(), null);
    }

    /**
     * Runs {@code command}, writes {@code input} (null: none) and closes its input, and waits at most {@code bound}.
     *
     * @param environment added to the test's environment
     * @param directory   the working directory (null: the test's)
     */
    public static Result run(
            Duration bound, List<String> command, String input, Map<String, String> environment, Path directory) {
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().putAll(environment);
        if (directory != null) {
            builder.directory(directory.toFile());
        }
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Drained output = new Drained(process.getInputStream());
        Drained error = new Drained(process.getErrorStream());
        try {
            try (var stdin = process.getOutputStream()) {
                if (input != null) {
                    stdin.write(input.getBytes(StandardCharsets.UTF_8));
                }
            } catch (IOException e) {
                // the program exited without reading its input: what it printed says why
            }
            if (!process.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly().waitFor();
                throw new AssertionError(command + " did not end within " + bound + "; it printed:\n" + output.soFar()
                        + "\n" + error.soFar());
            }
            return new Result(process.exitValue(), output.whole(), error.whole());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            throw new IllegalStateException("interrupted while " + command + " ran", e);
        } catch (ExecutionException | TimeoutException e) {
            // the program ended, but a child it left behind still holds its output open
            throw new AssertionError(command + " ended, but its output was not closed", e);
        }
    }

    /** A stream read to its end on a daemon thread of its own, what came so far readable at any time. */
    private static final class Drained {
        /** Synchronized: written by the reader, read by {@link #soFar} on the test's thread. */
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        private final CompletableFuture<String> ended = new CompletableFuture<>();

        Drained(InputStream stream) {
            Thread reader = new Thread(
                    () -> {
                        try (stream) {
                            byte[] buffer = new byte[8192];
                            for (int read; (read = stream.read(buffer)) >= 0; ) {
                                bytes.write(buffer, 0, read);
                            }
                            ended.complete(bytes.toString(StandardCharsets.UTF_8));
                        } catch (IOException e) {
                            ended.completeExceptionally(e);
                        }
                    },
                    "process-output");
            reader.setDaemon(true);
            reader.start();
        }

        String soFar() {
            return bytes.toString(StandardCharsets.UTF_8);
        }

        /** The whole text, once the stream closed (at most 10 s after the program ended). */
        String whole() throws InterruptedException, ExecutionException, TimeoutException {
            return ended.get(10, TimeUnit.SECONDS);
        }
    }
}
