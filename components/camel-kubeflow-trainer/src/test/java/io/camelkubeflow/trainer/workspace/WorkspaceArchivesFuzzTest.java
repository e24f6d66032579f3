package io.camelkubeflow.trainer.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.sun.management.ThreadMXBean;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.camelkubeflow.trainer.workspace.HostileArchives.Item;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Any bytes given as a workspace archive either become a canonical workspace whose entries are all safe relative
 * paths within the limits, or are refused with {@link InvalidOptionException} naming the field: never another
 * exception, and never more memory than the limits let through.
 */
class WorkspaceArchivesFuzzTest {
    /** Small limits, so that the fuzzer's inputs (a few KiB) can reach every one of them. */
    private static final WorkspaceLimits LIMITS = new WorkspaceLimits(32, 64 << 10, 200);
    /** The same limits but the ratio: the canonical gzip of a workspace may compress better than its source did. */
    private static final WorkspaceLimits REREAD = new WorkspaceLimits(32, 64 << 10, Integer.MAX_VALUE);
    /**
     * What a read may allocate beyond a fixed allowance: a bounded multiple of the input and of the tar the limits
     * allow (every byte is copied a few times: inflated, buffered, parsed as a PAX record, written canonically).
     */
    private static final int ALLOCATION_FACTOR = 32;

    private static final long ALLOCATION_ALLOWANCE = 2L << 20;
    private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** Valid archives of each kind and the catalogue of hostile ones: the fuzzer starts from these. */
    static Stream<byte[]> archives() {
        List<byte[]> archives = new ArrayList<>();
        archives.add(HostileArchives.zip("train.py", "print(1)\n", "pkg/model.py", "x = 1\n"));
        archives.add(HostileArchives.tarGz(
                Item.file("train.py", "print(1)\n"),
                Item.link("main.py", "train.py"),
                new Item("copy.py", TarConstants.LF_LINK, "", "train.py")));
        archives.add(plainTar(Item.file("./train.py", "print(1)\n"), Item.file("data/x.txt", "1,2\n")));
        HostileArchives.catalogue().values().stream()
                .map(HostileArchives.Case::archive)
                .filter(archive -> archive.length < 4096)
                .forEach(archives::add);
        return archives.stream();
    }

    @MethodSource("archives")
    @FuzzTest(maxDuration = "90s")
    void anArchiveIsReadSafelyOrRefused(byte[] archive) throws IOException {
        Workspace workspace;
        try {
            workspace = WorkspaceArchives.fromArchive(archive, "workspace", LIMITS);
        } catch (InvalidOptionException refused) {
            assertEquals("workspace", refused.getField());
            assertAllocationsBounded(archive);
            return;
        }
        assertAllocationsBounded(archive);
        assertTrue(
                workspace.paths().size() <= LIMITS.maxEntries(),
                workspace.paths().toString());
        assertTrue(workspace.bytes() <= LIMITS.maxBytes(), workspace.bytes() + " bytes");
        workspace.paths().forEach(WorkspaceArchivesFuzzTest::assertSafe);
        assertEquals(new ArrayList<>(workspace.paths()), canonicalEntries(workspace.archive()));
        Workspace reread = WorkspaceArchives.fromArchive(workspace.archive(), "workspace", REREAD);
        assertEquals(workspace.digest(), reread.digest(), "the canonical form is not a fixed point");
    }

    /**
     * Reads the archive again and measures what that read allocates: the first read of an input may load (and, when
     * fuzzing, instrument) classes, which allocates whatever the input.
     */
    private static void assertAllocationsBounded(byte[] archive) {
        long before = THREADS.getCurrentThreadAllocatedBytes();
        try {
            WorkspaceArchives.fromArchive(archive, "workspace", LIMITS);
        } catch (InvalidOptionException refusedAgain) {
            // as the first read was
        }
        long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
        long allowed = ALLOCATION_ALLOWANCE + ALLOCATION_FACTOR * (archive.length + LIMITS.maxTarBytes());
        assertTrue(allocated <= allowed, "reading " + archive.length + " bytes allocated " + allocated);
    }

    /** A path that unpacks inside the root on any file system a pod has. */
    private static void assertSafe(String path) {
        assertFalse(path.startsWith("/"), path);
        assertFalse(path.contains("\\"), path);
        assertTrue(path.getBytes(StandardCharsets.UTF_8).length <= 4096, path);
        for (String name : path.split("/", -1)) {
            assertFalse(name.isEmpty() || name.equals(".") || name.equals(".."), path);
            assertTrue(name.chars().noneMatch(c -> c < 0x20 || c == 0x7f), path);
            assertTrue(name.getBytes(StandardCharsets.UTF_8).length <= 255, path);
        }
    }

    /** The paths of the canonical tar, in its order, each a regular file or a symbolic link. */
    private static List<String> canonicalEntries(byte[] gzipped) throws IOException {
        List<String> paths = new ArrayList<>();
        try (TarArchiveInputStream tar =
                new TarArchiveInputStream(new GzipCompressorInputStream(new ByteArrayInputStream(gzipped)))) {
            for (TarArchiveEntry entry; (entry = tar.getNextEntry()) != null; ) {
                assertTrue(entry.isFile() || entry.isSymbolicLink(), entry.getName());
                paths.add(entry.getName());
            }
        }
        return paths;
    }

    /** An uncompressed tar, as HostileArchives writes its tar.gz. */
    private static byte[] plainTar(Item... items) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (TarArchiveOutputStream tar = new TarArchiveOutputStream(bytes)) {
            for (Item item : items) {
                byte[] content = item.content().getBytes(StandardCharsets.UTF_8);
                TarArchiveEntry entry = new TarArchiveEntry(item.name(), item.type(), true);
                entry.setSize(content.length);
                tar.putArchiveEntry(entry);
                tar.write(content);
                tar.closeArchiveEntry();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }
}
