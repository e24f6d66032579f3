package io.camelkubeflow.trainer.workspace;

import io.camelkubeflow.trainer.support.InvalidOptionException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;

/** Where a workspace comes from, as a caller names it. */
public final class WorkspaceSources {
    private WorkspaceSources() {}

    /**
     * A git repository at a ref ({@code git+https://host/org/repo.git@v1}, see {@link GitWorkspaces}), or a local
     * directory or archive file ({@code file:} prefix optional): a project folder, a zip, a tar or a tar.gz. Only a
     * route's own options and headers name one: a request message never reads the app's disk or network.
     */
    public static Workspace of(String location, String field, WorkspaceLimits limits) {
        return of(location, field, limits, null, null);
    }

    /**
     * As {@link #of(String, String, WorkspaceLimits)}, local paths through a cache, and the locations a fetcher
     * takes (an S3 object) fetched by it (each null: none).
     */
    public static Workspace of(
            String location, String field, WorkspaceLimits limits, WorkspaceCache cache, WorkspaceFetcher fetcher) {
        if (location.startsWith(GitWorkspaces.PREFIX)) {
            // not cached: a branch moves
            return GitWorkspaces.fromGit(location, field, limits);
        }
        if (fetcher != null && fetcher.fetches(location)) {
            return WorkspaceArchives.fromArchive(fetcher.fetch(location, limits.maxBytes(), field), field, limits);
        }
        Path path;
        try {
            path = Path.of(location.startsWith("file:") ? location.substring("file:".length()) : location);
        } catch (InvalidPathException e) {
            throw new InvalidOptionException(field, "'" + location + "' is not a path: " + e.getReason());
        }
        return cache == null || !Files.exists(path)
                ? local(location, path, field, limits)
                : cache.local(path.toAbsolutePath(), () -> local(location, path, field, limits));
    }

    private static Workspace local(String location, Path path, String field, WorkspaceLimits limits) {
        if (Files.isDirectory(path)) {
            return WorkspaceArchives.fromDirectory(path, field, limits);
        }
        if (!Files.isRegularFile(path)) {
            // "git+https://..." written into an endpoint URI arrives as "git https://...": '+' is a space there
            String plusAsSpace = location.startsWith("git ")
                    ? "; in an endpoint URI a '+' is read as a space: write" + " RAW(" + GitWorkspaces.PREFIX
                            + location.substring(4) + ") or git%2B..."
                    : "";
            throw new InvalidOptionException(
                    field,
                    "'" + location + "' is neither a directory nor an archive file;"
                            + " give a project folder, a .zip or a .tar.gz" + plusAsSpace);
        }
        try {
            if (Files.size(path) > limits.maxBytes()) {
                throw new InvalidOptionException(
                        field, "'" + location + "' is larger than " + limits.maxBytes() + " bytes");
            }
            return WorkspaceArchives.fromArchive(Files.readAllBytes(path), field, limits);
        } catch (IOException e) {
            throw new InvalidOptionException(field, "cannot read '" + location + "': " + e.getMessage(), e);
        }
    }
}
