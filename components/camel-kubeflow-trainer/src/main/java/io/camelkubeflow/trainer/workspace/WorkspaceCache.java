package io.camelkubeflow.trainer.workspace;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The workspaces read lately from local folders and archive files, so a project retrained again and again is read,
 * checked and hashed once while it does not change: a hit costs a walk of the folder's file attributes (or one file's)
 * instead of reading every byte. Kept by location with the stamp of what was read ({@link WorkspaceArchives#stamp});
 * the least recently used go first beyond {@code maxEntries} or {@code maxBytes} of archives.
 */
public final class WorkspaceCache {
    private record Entry(String stamp, Workspace workspace) {}

    private final int maxEntries;
    private final long maxBytes;
    private final LinkedHashMap<Path, Entry> entries = new LinkedHashMap<>(16, 0.75f, true);
    private long bytes;

    public WorkspaceCache(int maxEntries, long maxBytes) {
        this.maxEntries = maxEntries;
        this.maxBytes = maxBytes;
    }

    /** The workspace at a local path, from the cache while the path's stamp is unchanged, else read and kept. */
    Workspace local(Path path, Supplier<Workspace> read) {
        String stamp;
        try {
            stamp = stampOf(path);
        } catch (IOException e) {
            // unreadable attributes: the read says what is wrong
            return read.get();
        }
        synchronized (this) {
            Entry cached = entries.get(path);
            if (cached != null && cached.stamp().equals(stamp)) {
                return cached.workspace();
            }
        }
        Workspace workspace = read.get();
        synchronized (this) {
            Entry replaced = entries.put(path, new Entry(stamp, workspace));
            bytes += workspace.archive().length
                    - (replaced == null ? 0 : replaced.workspace().archive().length);
            for (Iterator<Map.Entry<Path, Entry>> eldest = entries.entrySet().iterator();
                    (entries.size() > maxEntries || bytes > maxBytes) && eldest.hasNext(); ) {
                bytes -= eldest.next().getValue().workspace().archive().length;
                eldest.remove();
            }
        }
        return workspace;
    }

    private static String stampOf(Path path) throws IOException {
        if (Files.isDirectory(path)) {
            return WorkspaceArchives.stamp(path);
        }
        BasicFileAttributes attrs = Files.readAttributes(path, BasicFileAttributes.class);
        return attrs.size() + ":" + attrs.lastModifiedTime().toMillis();
    }
}
