package io.camelkubeflow.trainer.workspace;

import static io.camelkubeflow.trainer.workspace.HostileArchives.tarGz;
import static io.camelkubeflow.trainer.workspace.HostileArchives.zip;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.camelkubeflow.trainer.workspace.HostileArchives.Item;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.zip.GZIPInputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The canonical form of a workspace, and each kind of hostile archive refused naming its problem. */
class WorkspaceArchivesTest {
    private static final WorkspaceLimits LIMITS = WorkspaceLimits.DEFAULT;

    @Test
    void everyHostileArchiveOfTheCatalogueIsRefusedNamingItsProblem() {
        HostileArchives.catalogue()
                .forEach((name, hostile) -> assertTrue(
                        refusal(hostile.archive()).contains(hostile.refusal()),
                        name + ": " + refusal(hostile.archive())));
    }

    @Test
    void aRefusedEntryNameIsQuotedWithItsControlCharactersEscaped() {
        String forged = "x\r\n2026-01-01 12:00:00,000 INFO  TrainJob admin/approved created\u001b[2K.py";
        for (byte[] archive : List.of(zip("train.py", "", forged, ""), tarGz(Item.file(forged, "")))) {
            String refusal = refusal(archive);
            assertTrue(
                    refusal.contains("'x\\r\\n2026-01-01 12:00:00,000 INFO  TrainJob admin/approved"
                            + " created\\u001b[2K.py' holds a control character"),
                    refusal);
            assertTrue(refusal.chars().noneMatch(Character::isISOControl), refusal);
        }
    }

    private static String refusal(byte[] archive) {
        return refusal(archive, LIMITS);
    }

    private static String refusal(byte[] archive, WorkspaceLimits limits) {
        InvalidOptionException refused = assertThrows(
                InvalidOptionException.class, () -> WorkspaceArchives.fromArchive(archive, "workspace", limits));
        assertEquals("workspace", refused.getField());
        return refused.getMessage();
    }

    @Test
    void theSameProjectGivesTheSameDigestFromAFolderAZipOrATarGzWhateverItsTimestamps(@TempDir Path dir)
            throws IOException {
        Files.createDirectories(dir.resolve("pkg"));
        Files.writeString(dir.resolve("train.py"), "import pkg\n");
        Files.writeString(dir.resolve("pkg/__init__.py"), "");
        Workspace folder = WorkspaceArchives.fromDirectory(dir, "workspace", LIMITS);
        Workspace zipped = WorkspaceArchives.fromArchive(
                zip("pkg/__init__.py", "", "train.py", "import pkg\n"), "workspace", LIMITS);
        Workspace tarred = WorkspaceArchives.fromArchive(
                tarGz(Item.file("./train.py", "import pkg\n"), Item.file("./pkg/__init__.py", "")),
                "workspace",
                LIMITS);
        assertEquals(folder.digest(), zipped.digest());
        assertEquals(folder.digest(), tarred.digest());
        assertEquals(Set.of("train.py", "pkg/__init__.py"), folder.paths());

        Files.setLastModifiedTime(dir.resolve("train.py"), FileTime.fromMillis(0));
        assertEquals(
                folder.digest(),
                WorkspaceArchives.fromDirectory(dir, "workspace", LIMITS).digest());
        Files.writeString(dir.resolve("train.py"), "import pkg  # changed\n");
        assertNotEquals(
                folder.digest(),
                WorkspaceArchives.fromDirectory(dir, "workspace", LIMITS).digest());
    }

    @Test
    void theStagedArchiveUnpacksToTheSameFilesAndHashesToTheDigest() throws Exception {
        Workspace workspace = WorkspaceArchives.fromArchive(
                tarGz(Item.file("train.py", "print(1)\n"), Item.link("run.py", "train.py")), "workspace", LIMITS);
        byte[] tar = new GZIPInputStream(new ByteArrayInputStream(workspace.archive())).readAllBytes();
        assertEquals(
                workspace.digest(),
                HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(tar)));
        Workspace again = WorkspaceArchives.fromArchive(workspace.archive(), "workspace", LIMITS);
        assertEquals(workspace.digest(), again.digest(), "the canonical form is a fixed point");
    }

    @Test
    void versionControlAndCachesAreLeftOutOfAFolder(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("train.py"), "");
        for (String skipped : List.of(".git", "__pycache__", ".venv")) {
            Files.createDirectories(dir.resolve(skipped));
            Files.writeString(dir.resolve(skipped).resolve("x"), "");
        }
        assertEquals(
                Set.of("train.py"),
                WorkspaceArchives.fromDirectory(dir, "workspace", LIMITS).paths());
    }

    @Test
    void linksAndHardLinksInsideTheRootAreKept() {
        Workspace kept = WorkspaceArchives.fromArchive(
                tarGz(
                        Item.file("pkg/model.py", ""),
                        Item.link("model.py", "pkg/model.py"),
                        new Item("copy.py", TarConstants.LF_LINK, "", "pkg/model.py")),
                "workspace",
                LIMITS);
        assertEquals(Set.of("pkg/model.py", "model.py", "copy.py"), kept.paths());
    }

    @Test
    void theSizeAndCountLimitsHold() {
        assertTrue(refusal(zip("a.py", "x".repeat(2000)), new WorkspaceLimits(10, 1000, 1_000_000))
                .contains("unpacks to more than 1000 bytes"));
        assertTrue(refusal(zip("a.py", "", "b.py", "", "c.py", ""), new WorkspaceLimits(2, 1000, 100))
                .contains("more than 2 files"));
    }

    /** Each link names the one before twice: resolving the last once followed 2^30 links (found by fuzzing). */
    @Test
    void linksThatEachNameTheOneBeforeTwiceAreRefusedAsTheKernelWould() {
        List<Item> items = new ArrayList<>(List.of(Item.file("train.py", ""), Item.link("l0", "data")));
        for (int i = 1; i <= 30; i++) {
            items.add(Item.link("l" + i, "l" + (i - 1) + "/../l" + (i - 1)));
        }
        assertTrue(refusal(tarGz(items.toArray(Item[]::new))).contains("is part of a loop"));
        assertEquals(
                Set.of("train.py", "l0", "l1", "l2"),
                WorkspaceArchives.fromArchive(tarGz(items.subList(0, 4).toArray(Item[]::new)), "workspace", LIMITS)
                        .paths());
    }
}
