package io.camelkubeflow.trainer.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A folder is read again only when what it holds changes; the least recently used go beyond the cache's bounds. */
class WorkspaceCacheTest {
    private final AtomicInteger reads = new AtomicInteger();

    private Workspace read(WorkspaceCache cache, Path folder) {
        return cache.local(folder, () -> {
            reads.incrementAndGet();
            return WorkspaceArchives.fromDirectory(folder, "workspace", WorkspaceLimits.DEFAULT);
        });
    }

    @Test
    void anUnchangedFolderIsReadOnceAndAChangedOneAgain(@TempDir Path folder) throws Exception {
        Files.writeString(folder.resolve("train.py"), "print(1)\n");
        Files.createDirectories(folder.resolve("pkg"));
        Files.writeString(folder.resolve("pkg/model.py"), "x = 1\n");
        WorkspaceCache cache = new WorkspaceCache(4, 1 << 20);
        Workspace first = read(cache, folder);
        assertSame(first, read(cache, folder));
        assertEquals(1, reads.get());

        Files.writeString(folder.resolve("pkg/model.py"), "x = 22\n");
        Workspace changed = read(cache, folder);
        assertNotEquals(first.digest(), changed.digest());
        // the same size, another modification time: read again
        Files.writeString(folder.resolve("pkg/model.py"), "x = 33\n");
        Files.setLastModifiedTime(folder.resolve("pkg/model.py"), FileTime.fromMillis(1_000));
        assertNotEquals(changed.digest(), read(cache, folder).digest());
        // a new file, and one made executable
        Files.writeString(folder.resolve("extra.py"), "");
        read(cache, folder);
        folder.resolve("train.py").toFile().setExecutable(true);
        read(cache, folder);
        // a change inside a left-out folder is no change
        Files.createDirectories(folder.resolve("__pycache__"));
        Files.writeString(folder.resolve("__pycache__/model.pyc"), "bytes");
        read(cache, folder);
        assertEquals(5, reads.get());
    }

    @Test
    void theLeastRecentlyUsedGoBeyondTheBounds(@TempDir Path root) throws Exception {
        WorkspaceCache cache = new WorkspaceCache(2, 1 << 20);
        Path[] folders = new Path[3];
        for (int i = 0; i < 3; i++) {
            folders[i] = Files.createDirectories(root.resolve("p" + i));
            Files.writeString(folders[i].resolve("train.py"), "print(" + i + ")\n");
        }
        read(cache, folders[0]);
        read(cache, folders[1]);
        read(cache, folders[0]);
        read(cache, folders[2]);
        assertEquals(3, reads.get());
        read(cache, folders[0]);
        assertEquals(3, reads.get(), "p0 was used last but one: kept");
        read(cache, folders[1]);
        assertEquals(4, reads.get(), "p1 was the least recently used: dropped");
    }
}
