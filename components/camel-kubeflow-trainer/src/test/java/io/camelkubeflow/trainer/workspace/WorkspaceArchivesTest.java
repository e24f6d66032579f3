package io.camelkubeflow.trainer.workspace;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.zip.GZIPOutputStream;

import io.camelkubeflow.trainer.support.InvalidOptionException;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;
import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipArchiveOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The canonical form of a workspace, and each kind of hostile archive refused naming its problem. */
class WorkspaceArchivesTest {
    private static final WorkspaceLimits LIMITS = WorkspaceLimits.DEFAULT;

    /** A tar entry to write: a file with content, or a link of a type. */
    private record Item(String name, byte type, String content, String link) {
        static Item file(String name, String content) {
            return new Item(name, TarConstants.LF_NORMAL, content, null);
        }

        static Item link(String name, String target) {
            return new Item(name, TarConstants.LF_SYMLINK, "", target);
        }
    }

    private static byte[] tarGz(Item... items) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (TarArchiveOutputStream tar = new TarArchiveOutputStream(new GZIPOutputStream(bytes))) {
            tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
            for (Item item : items) {
                TarArchiveEntry entry = new TarArchiveEntry(item.name(), item.type(), true);
                byte[] content = item.content().getBytes(StandardCharsets.UTF_8);
                if (item.link() != null) {
                    entry.setLinkName(item.link());
                }
                if (item.type() == TarConstants.LF_NORMAL) {
                    entry.setSize(content.length);
                }
                tar.putArchiveEntry(entry);
                tar.write(content);
                tar.closeArchiveEntry();
            }
        }
        return bytes.toByteArray();
    }

    private static byte[] zip(String... namesAndContents) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipArchiveOutputStream zip = new ZipArchiveOutputStream(bytes)) {
            for (int i = 0; i < namesAndContents.length; i += 2) {
                zip.putArchiveEntry(new ZipArchiveEntry(namesAndContents[i]));
                zip.write(namesAndContents[i + 1].getBytes(StandardCharsets.UTF_8));
                zip.closeArchiveEntry();
            }
        }
        return bytes.toByteArray();
    }

    private static String refusal(byte[] archive) {
        return refusal(archive, LIMITS);
    }

    private static String refusal(byte[] archive, WorkspaceLimits limits) {
        InvalidOptionException refused = assertThrows(InvalidOptionException.class,
                () -> WorkspaceArchives.fromArchive(archive, "workspace", limits));
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
        Workspace zipped = WorkspaceArchives.fromArchive(zip("pkg/__init__.py", "", "train.py", "import pkg\n"),
                "workspace", LIMITS);
        Workspace tarred = WorkspaceArchives.fromArchive(tarGz(Item.file("./train.py", "import pkg\n"),
                Item.file("./pkg/__init__.py", "")), "workspace", LIMITS);
        assertEquals(folder.digest(), zipped.digest());
        assertEquals(folder.digest(), tarred.digest());
        assertEquals(java.util.Set.of("train.py", "pkg/__init__.py"), folder.paths());

        Files.setLastModifiedTime(dir.resolve("train.py"), FileTime.fromMillis(0));
        assertEquals(folder.digest(), WorkspaceArchives.fromDirectory(dir, "workspace", LIMITS).digest());
        Files.writeString(dir.resolve("train.py"), "import pkg  # changed\n");
        assertNotEquals(folder.digest(), WorkspaceArchives.fromDirectory(dir, "workspace", LIMITS).digest());
    }

    @Test
    void theStagedArchiveUnpacksToTheSameFilesAndHashesToTheDigest() throws Exception {
        Workspace workspace = WorkspaceArchives.fromArchive(tarGz(Item.file("train.py", "print(1)\n"),
                Item.link("run.py", "train.py")), "workspace", LIMITS);
        byte[] tar = new java.util.zip.GZIPInputStream(new java.io.ByteArrayInputStream(workspace.archive()))
                .readAllBytes();
        assertEquals(workspace.digest(), java.util.HexFormat.of().formatHex(
                java.security.MessageDigest.getInstance("SHA-256").digest(tar)));
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
        assertEquals(java.util.Set.of("train.py"), WorkspaceArchives.fromDirectory(dir, "workspace", LIMITS).paths());
    }

    @Test
    void entriesEscapingTheRootAreRefused() throws IOException {
        assertTrue(refusal(zip("../evil.py", "x")).contains("'../evil.py' escapes the workspace root"));
        assertTrue(refusal(tarGz(Item.file("a/../../evil.py", "x"))).contains("escapes the workspace root"));
        assertTrue(refusal(tarGz(Item.file("/etc/cron.d/evil", "x"))).contains("'/etc/cron.d/evil' is an absolute"
                + " path"));
        assertTrue(refusal(zip("C:/evil.py", "x")).contains("is an absolute path"));
    }

    @Test
    void linksOutOfTheRootAreRefusedAndLinksInsideKept() throws IOException {
        assertTrue(refusal(tarGz(Item.file("train.py", ""), Item.link("data", "../../etc")))
                .contains("the symbolic link 'data' points to '../../etc', outside the workspace"));
        assertTrue(refusal(tarGz(Item.link("passwd", "/etc/passwd"))).contains("absolute or empty path"));
        // each step inside, the whole outside: 'here' is the root, so 'here/..' is its parent
        assertTrue(refusal(tarGz(Item.link("here", "."), Item.link("out", "here/.."))).contains("'out'"));
        // writing beneath a link writes wherever it points
        assertTrue(refusal(tarGz(Item.link("sub", "."), Item.file("sub/x.py", "")))
                .contains("'sub/x.py' lies beneath the symbolic link 'sub'"));
        assertTrue(refusal(tarGz(new Item("shadow", TarConstants.LF_LINK, "", "/etc/shadow")))
                .contains("'shadow' is a hard link to '/etc/shadow'"));

        Workspace kept = WorkspaceArchives.fromArchive(tarGz(Item.file("pkg/model.py", ""),
                Item.link("model.py", "pkg/model.py"), new Item("copy.py", TarConstants.LF_LINK, "", "pkg/model.py")),
                "workspace", LIMITS);
        assertEquals(java.util.Set.of("pkg/model.py", "model.py", "copy.py"), kept.paths());
    }

    @Test
    void devicesAndPipesAreRefused() throws IOException {
        assertTrue(refusal(tarGz(new Item("tty", TarConstants.LF_CHR, "", null))).contains("'tty' is a device"));
        assertTrue(refusal(tarGz(new Item("disk", TarConstants.LF_BLK, "", null))).contains("'disk' is a device"));
        assertTrue(refusal(tarGz(new Item("pipe", TarConstants.LF_FIFO, "", null))).contains("'pipe' is a device"));
    }

    @Test
    void namesAFileSystemCannotHoldAreRefused() throws IOException {
        assertTrue(refusal(zip("bad\0name.py", "")).contains("control character"));
        assertTrue(refusal(zip("line\nbreak.py", "")).contains("control character"));
        // a zip made on Windows may use '\\' as its separator (read as '/'); in a tar it is part of the name
        assertTrue(refusal(tarGz(Item.file("dir\\train.py", ""))).contains("backslash"));
        assertTrue(refusal(zip("x".repeat(256) + ".py", "")).contains("longer than 255 bytes"));
        assertTrue(refusal(zip("a.py", "1", "a.py", "2")).contains("'a.py' appears twice"));
    }

    @Test
    void decompressionBombsAreRefusedWhileTheyInflate() throws IOException {
        // 64 MiB of zeros compress to about 64 KiB: a ratio of about 1000
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (TarArchiveOutputStream tar = new TarArchiveOutputStream(new GZIPOutputStream(bytes))) {
            TarArchiveEntry entry = new TarArchiveEntry("zeros.bin");
            entry.setSize(64L << 20);
            tar.putArchiveEntry(entry);
            byte[] zeros = new byte[1 << 20];
            for (int i = 0; i < 64; i++) {
                tar.write(zeros);
            }
            tar.closeArchiveEntry();
        }
        assertTrue(refusal(bytes.toByteArray()).contains("decompression bomb"));
        assertTrue(refusal(zip("a.py", "x".repeat(2000)), new WorkspaceLimits(10, 1000, 1_000_000))
                .contains("unpacks to more than 1000 bytes"));
        assertTrue(refusal(zip("a.py", "", "b.py", "", "c.py", ""), new WorkspaceLimits(2, 1000, 100))
                .contains("more than 2 files"));
    }

    @Test
    void somethingThatIsNoArchiveIsRefused() {
        assertTrue(refusal("print(1)".getBytes(StandardCharsets.UTF_8)).contains("not a zip, a tar or a tar.gz"));
    }
}
