package io.camelkubeflow.trainer.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.support.InvalidOptionException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.eclipse.jgit.api.Git;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A workspace read from a git repository at a ref is the tree of that commit, as a folder of it would be. */
class GitWorkspacesTest {
    private static final WorkspaceLimits LIMITS = WorkspaceLimits.DEFAULT;

    @Test
    void aTagABranchAndTheDefaultBranchEachGiveTheirCommitsTree(@TempDir Path repository, @TempDir Path copy)
            throws Exception {
        try (Git git = Git.init()
                .setDirectory(repository.toFile())
                .setInitialBranch("main")
                .call()) {
            Files.writeString(repository.resolve("train.py"), "print('v1')\n");
            Files.createDirectories(repository.resolve("pkg"));
            Files.writeString(repository.resolve("pkg/__init__.py"), "");
            git.add().addFilepattern(".").call();
            git.commit().setMessage("v1").setSign(false).call();
            git.tag().setName("v1").setSigned(false).setAnnotated(false).call();
            Files.writeString(repository.resolve("train.py"), "print('v2')\n");
            git.commit().setAll(true).setMessage("v2").setSign(false).call();
        }
        Files.createDirectories(copy.resolve("pkg"));
        Files.writeString(copy.resolve("train.py"), "print('v1')\n");
        Files.writeString(copy.resolve("pkg/__init__.py"), "");

        String url = "git+" + repository.toUri();
        Workspace tagged = WorkspaceSources.of(url + "@v1", "workspace", LIMITS);
        assertEquals(
                WorkspaceArchives.fromDirectory(copy, "workspace", LIMITS).digest(),
                tagged.digest(),
                "the tag's tree, exactly as a folder of it");
        assertEquals(Set.of("train.py", "pkg/__init__.py"), tagged.paths());
        assertEquals(
                "print('v2')\n",
                new String(WorkspaceArchives.read(WorkspaceSources.of(url, "workspace", LIMITS), "train.py")),
                "no ref: the default branch");
        assertEquals(
                "print('v2')\n",
                new String(
                        WorkspaceArchives.read(WorkspaceSources.of(url + "@main", "workspace", LIMITS), "train.py")));

        InvalidOptionException missing =
                assertThrows(InvalidOptionException.class, () -> WorkspaceSources.of(url + "@v9", "workspace", LIMITS));
        assertTrue(missing.getMessage().contains("has no branch, tag or commit 'v9'"), missing.getMessage());
        InvalidOptionException unreachable = assertThrows(
                InvalidOptionException.class,
                () -> WorkspaceSources.of(
                        "git+" + repository.resolve("nothing-here").toUri(), "workspace", LIMITS));
        assertTrue(unreachable.getMessage().startsWith("Invalid 'workspace': cannot fetch"), unreachable.getMessage());
    }

    @Test
    void aRefAfterTheLastSlashIsTheRefAndAnAtInTheHostIsNot() {
        assertEquals(
                new GitWorkspaces.Location("ssh://git@github.com/org/repo.git", "v1.2"),
                GitWorkspaces.Location.parse("git+ssh://git@github.com/org/repo.git@v1.2"));
        assertEquals(
                new GitWorkspaces.Location("ssh://git@github.com/org/repo.git", null),
                GitWorkspaces.Location.parse("git+ssh://git@github.com/org/repo.git"));
    }
}
