package io.camelkubeflow.trainer.workspace;

import io.camelkubeflow.trainer.support.InvalidOptionException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.commons.io.FileUtils;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.TreeWalk;

/**
 * A workspace from a git repository at a ref (a branch, a tag or a commit), fetched by the component itself (JGit),
 * so the pods need no git and no credentials. The commit's tree is read straight from the fetched objects: files with
 * their executable bit, links as links; a submodule is refused (its content is not in the tree).
 */
public final class GitWorkspaces {
    /** How a caller names one: {@code git+<repository URL>[@<ref>]}, as pip writes it. */
    public static final String PREFIX = "git+";

    private GitWorkspaces() {}

    /** A location {@code git+https://host/org/repo.git@v1.2}: the URL and the ref (null for the default branch). */
    record Location(String url, String ref) {
        static Location parse(String location) {
            String rest = location.substring(PREFIX.length());
            int at = rest.lastIndexOf('@');
            return at > rest.lastIndexOf('/')
                    ? new Location(rest.substring(0, at), rest.substring(at + 1))
                    : new Location(rest, null);
        }
    }

    public static Workspace fromGit(String location, String field, WorkspaceLimits limits) {
        Location git = Location.parse(location);
        if (git.url().isBlank() || git.ref() != null && git.ref().isBlank()) {
            throw new InvalidOptionException(
                    field,
                    "'" + location + "' is not git+<repository URL>[@<ref>], e.g."
                            + " git+https://github.com/org/project.git@v1.2");
        }
        Path clone = null;
        try {
            clone = Files.createTempDirectory("workspace-git-");
            try (Git repository = Git.cloneRepository()
                    .setURI(git.url())
                    .setBare(true)
                    .setCloneAllBranches(true)
                    .setDirectory(clone.toFile())
                    .call()) {
                return read(repository.getRepository(), git, location, field, limits);
            }
        } catch (GitAPIException e) {
            throw new InvalidOptionException(field, "cannot fetch '" + git.url() + "': " + e.getMessage(), e);
        } catch (IOException e) {
            throw new InvalidOptionException(field, "cannot read '" + location + "': " + e.getMessage(), e);
        } finally {
            if (clone != null) {
                FileUtils.deleteQuietly(clone.toFile());
            }
        }
    }

    private static Workspace read(
            Repository repository, Location git, String location, String field, WorkspaceLimits limits)
            throws IOException {
        String ref = git.ref() == null ? "HEAD" : git.ref();
        ObjectId commitId = repository.resolve(ref + "^{commit}");
        if (commitId == null) {
            throw new InvalidOptionException(
                    field, "'" + location + "': the repository has no branch, tag or commit '" + ref + "'");
        }
        WorkspaceArchives.Collector collector = new WorkspaceArchives.Collector(field, limits, 0);
        try (RevWalk commits = new RevWalk(repository);
                TreeWalk tree = new TreeWalk(repository)) {
            RevCommit commit = commits.parseCommit(commitId);
            tree.addTree(commit.getTree());
            tree.setRecursive(true);
            while (tree.next()) {
                FileMode mode = tree.getFileMode(0);
                String path = tree.getPathString();
                if (FileMode.SYMLINK.equals(mode)) {
                    collector.link(
                            path,
                            new String(repository.open(tree.getObjectId(0)).getBytes(), StandardCharsets.UTF_8));
                } else if (FileMode.REGULAR_FILE.equals(mode) || FileMode.EXECUTABLE_FILE.equals(mode)) {
                    try (InputStream content =
                            repository.open(tree.getObjectId(0)).openStream()) {
                        collector.file(path, content, FileMode.EXECUTABLE_FILE.equals(mode));
                    }
                } else {
                    throw collector.refused("'" + path + "' is a submodule, whose files are not in this repository;"
                            + " vendor them or install them from requirements.txt");
                }
            }
        }
        return collector.finish();
    }
}
