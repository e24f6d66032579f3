package io.camelkubeflow.trainer.workspace;

import io.camelkubeflow.trainer.support.InvalidOptionException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.Enumeration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.zip.GZIPOutputStream;
import java.util.zip.ZipEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;
import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipFile;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;
import org.apache.commons.compress.utils.SeekableInMemoryByteChannel;

/**
 * Reads a workspace (a directory, a zip, a tar or tar.gz) into its canonical {@link Workspace}, refusing, before
 * anything is written anywhere, what would not unpack safely and exactly on every node: entries that escape the root
 * ({@code ..}, absolute paths, links that resolve outside it, entries beneath a link), device files and pipes,
 * names a file system cannot hold, the same path twice, and more files, bytes or inflation than the limits allow.
 * Refusals name the field the caller wrote ({@code field}) and the entry at fault.
 */
public final class WorkspaceArchives {
    /** Directories a project folder holds that are not the project (version control, caches). */
    private static final Set<String> SKIPPED_DIRECTORIES =
            Set.of(".git", "__pycache__", ".venv", ".mypy_cache", ".pytest_cache", ".ipynb_checkpoints");

    private static final int MAX_NAME_BYTES = 255;
    private static final int MAX_PATH_BYTES = 4096;
    /** The links one path resolution may follow in all: the kernel's limit (MAXSYMLINKS) before ELOOP. */
    private static final int MAX_LINKS_FOLLOWED = 40;
    /** Unix file type bits (st_mode), as zip entries carry them. */
    private static final int TYPE_MASK = 0170000;

    private static final int REGULAR = 0100000;
    private static final int DIRECTORY = 0040000;
    private static final int SYMLINK = 0120000;
    /** Tar type flags of a regular file: '0', the old NUL, and contiguous '7'. */
    private static final String REGULAR_TAR_TYPES = "0\u00007";

    private WorkspaceArchives() {}

    /** A file, or a symbolic link (then {@code linkTarget} is set and {@code content} empty). */
    private record Entry(byte[] content, boolean executable, String linkTarget) {
        boolean isLink() {
            return linkTarget != null;
        }
    }

    /** The entries read so far, checked as they come. */
    static final class Collector {
        private final String field;
        private final WorkspaceLimits limits;
        private final long compressedBytes;
        private final Map<String, Entry> entries = new TreeMap<>();
        private long bytes;
        /** Links followed so far while resolving one link of the archive. */
        private int linksFollowed;

        Collector(String field, WorkspaceLimits limits, long compressedBytes) {
            this.field = field;
            this.limits = limits;
            this.compressedBytes = compressedBytes;
        }

        void file(String rawPath, InputStream content, boolean executable) throws IOException {
            String path = add(rawPath);
            entries.put(path, new Entry(read(path, content), executable, null));
        }

        void link(String rawPath, String target) {
            String path = add(rawPath);
            if (target == null || target.isEmpty() || target.startsWith("/") || target.indexOf('\0') >= 0) {
                throw refused("'" + path + "' is a symbolic link to '" + target + "', an absolute or empty path;"
                        + " links must point inside the workspace by a relative path");
            }
            entries.put(path, new Entry(new byte[0], false, target));
        }

        /** A hard link: a second name for a file read before it (a tar's way of storing one file twice). */
        void hardLink(String rawPath, String rawTarget) {
            Entry original = rawTarget == null ? null : entries.get(rawTarget.replaceFirst("^(\\./)+", ""));
            if (original == null || original.isLink()) {
                throw refused("'" + rawPath + "' is a hard link to '" + rawTarget + "', which is not a file earlier"
                        + " in the archive; hard links must name a file inside the workspace");
            }
            String path = add(rawPath);
            count(path, original.content().length);
            entries.put(path, original);
        }

        private String add(String rawPath) {
            String path = normalize(rawPath);
            if (entries.containsKey(path)) {
                throw refused("'" + path + "' appears twice; an archive must hold each path once");
            }
            if (entries.size() + 1 > limits.maxEntries()) {
                throw refused("more than " + limits.maxEntries() + " files; leave data sets and checkpoints out of"
                        + " the workspace and fetch them with datasetUri/modelUri");
            }
            return path;
        }

        private byte[] read(String path, InputStream in) throws IOException {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            for (int n; (n = in.read(buffer)) > 0; ) {
                count(path, n);
                out.write(buffer, 0, n);
            }
            return out.toByteArray();
        }

        private void count(String path, long n) {
            bytes += n;
            if (bytes > limits.maxBytes()) {
                throw refused("it unpacks to more than " + limits.maxBytes() + " bytes (at '" + path + "'); leave"
                        + " data sets and checkpoints out of the workspace and fetch them with datasetUri/modelUri");
            }
            if (compressedBytes > 0 && bytes > compressedBytes * limits.maxRatio()) {
                throw refused("it inflates to more than " + limits.maxRatio() + " times its " + compressedBytes
                        + " bytes (at '" + path + "'), as a decompression bomb does; send the files uncompressed"
                        + " or as a plain zip");
            }
        }

        /**
         * A path as it will be unpacked: relative, '/'-separated, each name one a file system holds; a leading
         * {@code ./} (as tar writes) is dropped.
         */
        private String normalize(String raw) {
            String path = raw;
            while (path.startsWith("./")) {
                path = path.substring(2);
            }
            if (path.endsWith("/")) {
                path = path.substring(0, path.length() - 1);
            }
            if (path.isEmpty()) {
                throw refused("an entry has an empty name");
            }
            // the drive letter looked for after "./" is dropped too: "./c:x" is the canonical "c:x" (Jazzer's find)
            if (raw.startsWith("/") || path.matches("^[A-Za-z]:.*")) {
                throw refused("'" + raw + "' is an absolute path; entries must be relative to the workspace root");
            }
            if (path.indexOf('\\') >= 0) {
                throw refused("'" + raw + "' holds a backslash, which a Linux file name keeps as a character;"
                        + " make the archive with '/' as the separator");
            }
            if (path.getBytes(StandardCharsets.UTF_8).length > MAX_PATH_BYTES) {
                throw refused("'" + raw.substring(0, 60) + "...' is longer than " + MAX_PATH_BYTES + " bytes");
            }
            for (String name : path.split("/", -1)) {
                if (name.equals("..")) {
                    throw refused("'" + raw + "' escapes the workspace root ('..')");
                }
                if (name.isEmpty() || name.equals(".")) {
                    throw refused("'" + raw + "' has an empty or '.' name in its path");
                }
                if (name.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
                    throw refused("'" + raw + "' holds a control character (NUL, new line, ...), which a file"
                            + " name cannot hold or a log cannot show; rename the file");
                }
                if (name.getBytes(StandardCharsets.UTF_8).length > MAX_NAME_BYTES) {
                    throw refused("'" + raw + "' has a name longer than " + MAX_NAME_BYTES + " bytes");
                }
            }
            return path;
        }

        InvalidOptionException refused(String why) {
            return new InvalidOptionException(field, "the workspace was refused: " + why);
        }

        /** Checks the links, then writes the canonical tar. */
        Workspace finish() {
            if (entries.isEmpty()) {
                throw refused("it holds no files");
            }
            for (String path : entries.keySet()) {
                checkNotBeneathLink(path);
                if (entries.get(path).isLink()) {
                    linksFollowed = 0;
                    resolve(path);
                }
            }
            try {
                return canonical(entries);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        private void checkNotBeneathLink(String path) {
            for (int slash = path.indexOf('/'); slash > 0; slash = path.indexOf('/', slash + 1)) {
                Entry parent = entries.get(path.substring(0, slash));
                if (parent != null && parent.isLink()) {
                    throw refused("'" + path + "' lies beneath the symbolic link '" + path.substring(0, slash)
                            + "'; unpacking it would write wherever the link points");
                }
                if (parent != null) {
                    throw refused("'" + path + "' lies beneath '" + path.substring(0, slash) + "', which is a file");
                }
            }
        }

        /**
         * Resolves a link as the kernel would, through the links it meets, failing when a step leaves the root or
         * when it has followed more links in all than the kernel would: counting only the nesting would let links
         * that each name the one before twice ({@code l2 -> l1/../l1}) take 2^n steps.
         */
        private String resolve(String linkPath) {
            if (++linksFollowed > MAX_LINKS_FOLLOWED) {
                throw refused("the symbolic link '" + linkPath + "' is part of a loop");
            }
            Deque<String> resolved = new ArrayDeque<>(List.of(linkPath.split("/")));
            resolved.removeLast();
            for (String name : entries.get(linkPath).linkTarget().split("/")) {
                if (name.isEmpty() || name.equals(".")) {
                    continue;
                }
                if (name.equals("..")) {
                    if (resolved.isEmpty()) {
                        throw refused("the symbolic link '" + linkPath + "' points to '"
                                + entries.get(linkPath).linkTarget() + "', outside the workspace");
                    }
                    resolved.removeLast();
                    continue;
                }
                resolved.addLast(name);
                String sofar = String.join("/", resolved);
                Entry entry = entries.get(sofar);
                if (entry != null && entry.isLink()) {
                    resolved = new ArrayDeque<>(List.of(resolve(sofar).split("/", -1)));
                    resolved.removeIf(String::isEmpty);
                }
            }
            return String.join("/", resolved);
        }
    }

    /**
     * A project folder: every file and link beneath it, links not followed (a link that resolves outside the folder is
     * refused), version-control and cache folders ({@code .git}, {@code __pycache__}, {@code .venv}, ...) left out.
     */
    public static Workspace fromDirectory(Path root, String field, WorkspaceLimits limits) {
        if (!Files.isDirectory(root)) {
            throw new InvalidOptionException(field, "'" + root + "' is not a directory");
        }
        Collector collector = new Collector(field, limits, 0);
        try {
            walk(root, (path, file, attrs) -> {
                if (attrs.isSymbolicLink()) {
                    collector.link(path, Files.readSymbolicLink(file).toString());
                } else if (attrs.isRegularFile()) {
                    try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
                        collector.file(path, in, Files.isExecutable(file));
                    }
                } else {
                    throw collector.refused("'" + path + "' is a device, pipe or socket, not a file");
                }
            });
        } catch (IOException e) {
            throw new InvalidOptionException(field, "cannot read the workspace '" + root + "': " + e.getMessage(), e);
        }
        return collector.finish();
    }

    /**
     * What {@link #fromDirectory} would read, told from the files' names, sizes, modification times, kinds and
     * executable bits without reading them: equal stamps, equal workspaces (short of a change within one mtime tick
     * that keeps the size).
     */
    public static String stamp(Path root) throws IOException {
        MessageDigest sha256 = sha256();
        walk(
                root,
                (path, file, attrs) -> sha256.update((path
                                + '\0'
                                + attrs.size()
                                + '\0'
                                + attrs.lastModifiedTime().toMillis()
                                + '\0'
                                + attrs.isSymbolicLink()
                                + '\0'
                                + Files.isExecutable(file)
                                + '\n')
                        .getBytes(StandardCharsets.UTF_8)));
        return HexFormat.of().formatHex(sha256.digest());
    }

    /** One entry of a folder walk: its path relative to the root ('/'-separated), the file, its attributes. */
    private interface FolderEntry {
        void visit(String path, Path file, BasicFileAttributes attrs) throws IOException;
    }

    /** Every file and link beneath the root, in the walk's order, the skipped folders left out, links not followed. */
    private static void walk(Path root, FolderEntry entry) throws IOException {
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                return !dir.equals(root)
                                && SKIPPED_DIRECTORIES.contains(
                                        dir.getFileName().toString())
                        ? FileVisitResult.SKIP_SUBTREE
                        : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                entry.visit(
                        root.relativize(file)
                                .toString()
                                .replace(file.getFileSystem().getSeparator(), "/"),
                        file,
                        attrs);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    /** An archive's bytes: a zip, a tar, or a gzip-compressed tar (told apart by their first bytes). */
    public static Workspace fromArchive(byte[] archive, String field, WorkspaceLimits limits) {
        Collector collector = new Collector(field, limits, archive.length);
        try {
            if (archive.length >= 4 && archive[0] == 'P' && archive[1] == 'K') {
                readZip(archive, collector);
            } else if (archive.length >= 2 && (archive[0] & 0xff) == 0x1f && (archive[1] & 0xff) == 0x8b) {
                readTar(new GzipCompressorInputStream(new ByteArrayInputStream(archive), true), limits, collector);
            } else if (isTar(archive)) {
                readTar(new ByteArrayInputStream(archive), limits, collector);
            } else {
                throw collector.refused("it is not a zip, a tar or a tar.gz");
            }
        } catch (IOException e) {
            throw new InvalidOptionException(field, "the workspace archive cannot be read: " + e.getMessage(), e);
        }
        return collector.finish();
    }

    /** One file of a workspace as its archive holds it, or null when it holds none at that path (or a link). */
    public static byte[] read(Workspace workspace, String path) {
        if (!workspace.contains(path)) {
            return null;
        }
        try (TarArchiveInputStream tar = new TarArchiveInputStream(
                new GzipCompressorInputStream(new ByteArrayInputStream(workspace.archive())))) {
            for (TarArchiveEntry entry; (entry = tar.getNextEntry()) != null; ) {
                if (entry.getName().equals(path)) {
                    return entry.isSymbolicLink() ? null : tar.readAllBytes();
                }
            }
            return null;
        } catch (IOException e) {
            throw new UncheckedIOException("the canonical archive of a workspace cannot be read", e);
        }
    }

    private static boolean isTar(byte[] archive) {
        return archive.length >= 512 && new String(archive, 257, 5, StandardCharsets.US_ASCII).equals("ustar");
    }

    private static void readZip(byte[] archive, Collector collector) throws IOException {
        try (ZipFile zip = ZipFile.builder()
                .setSeekableByteChannel(new SeekableInMemoryByteChannel(archive))
                .get()) {
            for (Enumeration<ZipArchiveEntry> e = zip.getEntriesInPhysicalOrder(); e.hasMoreElements(); ) {
                ZipArchiveEntry entry = e.nextElement();
                int type = entry.getUnixMode() & TYPE_MASK;
                if (entry.getMethod() != ZipEntry.STORED && entry.getMethod() != ZipEntry.DEFLATED) {
                    // what zip and every common tool write; other methods would need decoders this app does not
                    // carry (zstd, xz: a missing class, not a refusal) or that have no place in a project archive
                    throw collector.refused("'" + entry.getName() + "' is compressed with zip method "
                            + entry.getMethod() + "; store or deflate it (what zip writes)");
                }
                if (entry.isUnixSymlink()) {
                    try (InputStream in = zip.getInputStream(entry)) {
                        collector.link(
                                entry.getName(), new String(in.readNBytes(MAX_PATH_BYTES + 1), StandardCharsets.UTF_8));
                    }
                } else if (entry.isDirectory() || type == DIRECTORY) {
                    continue;
                } else if (type != 0 && type != REGULAR) {
                    throw collector.refused("'" + entry.getName() + "' is a device, pipe or socket, not a file");
                } else {
                    try (InputStream in = zip.getInputStream(entry)) {
                        collector.file(entry.getName(), in, (entry.getUnixMode() & 0100) != 0);
                    }
                }
            }
        }
    }

    private static void readTar(InputStream in, WorkspaceLimits limits, Collector collector) throws IOException {
        try (TarArchiveInputStream tar = new TarArchiveInputStream(new TarBytes(in, limits.maxTarBytes(), collector))) {
            for (TarArchiveEntry entry; (entry = tar.getNextEntry()) != null; ) {
                if (entry.isDirectory()) {
                    continue;
                }
                if (entry.isSymbolicLink()) {
                    collector.link(entry.getName(), entry.getLinkName());
                } else if (entry.isLink()) {
                    collector.hardLink(entry.getName(), entry.getLinkName());
                } else if (REGULAR_TAR_TYPES.indexOf(entry.getLinkFlag()) >= 0
                        && !entry.isSparse()
                        && !entry.isGNUSparse()) {
                    collector.file(entry.getName(), tar, (entry.getMode() & 0100) != 0);
                } else {
                    throw collector.refused(
                            "'" + entry.getName() + "' is a device, pipe or special entry, not a" + " file");
                }
            }
        }
    }

    /**
     * An uncompressed tar, refused once it is longer than the limits allow: its headers count too, as a PAX header
     * or a GNU long name of any size is read into memory whole (a few hundred bytes of gzip held 135 KB of one).
     */
    private static final class TarBytes extends FilterInputStream {
        private final long max;
        private final Collector collector;
        private long count;

        TarBytes(InputStream in, long max, Collector collector) {
            super(in);
            this.max = max;
            this.collector = collector;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            counted(b < 0 ? 0 : 1);
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = super.read(buffer, offset, length);
            counted(Math.max(n, 0));
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            long skipped = super.skip(n);
            counted(skipped);
            return skipped;
        }

        private void counted(long n) {
            count += n;
            if (count > max) {
                throw collector.refused("its tar is longer than " + max + " bytes, more than its files and their"
                        + " headers may take; leave data sets and checkpoints out of the workspace");
            }
        }
    }

    /**
     * The canonical tar (sorted paths, mode 0644 or 0755, links 0777, owner 0, time 0, PAX names when long), its
     * SHA-256, and its gzip form (no name, no time in the header).
     */
    private static Workspace canonical(Map<String, Entry> entries) throws IOException {
        MessageDigest sha256 = sha256();
        ByteArrayOutputStream gzipped = new ByteArrayOutputStream();
        long bytes = 0;
        try (GZIPOutputStream gzip = new GZIPOutputStream(gzipped);
                TarArchiveOutputStream tar = new TarArchiveOutputStream(
                        new DigestOutputStream(gzip, sha256), StandardCharsets.UTF_8.name())) {
            tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
            tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
            for (Map.Entry<String, Entry> item : entries.entrySet()) {
                Entry entry = item.getValue();
                TarArchiveEntry out = entry.isLink()
                        ? new TarArchiveEntry(item.getKey(), TarConstants.LF_SYMLINK)
                        : new TarArchiveEntry(item.getKey());
                out.setModTime(0);
                out.setIds(0, 0);
                out.setNames("", "");
                if (entry.isLink()) {
                    out.setLinkName(entry.linkTarget());
                    out.setMode(SYMLINK | 0777);
                } else {
                    out.setMode(REGULAR | (entry.executable() ? 0755 : 0644));
                    out.setSize(entry.content().length);
                    bytes += entry.content().length;
                }
                tar.putArchiveEntry(out);
                tar.write(entry.content());
                tar.closeArchiveEntry();
            }
        }
        return new Workspace(
                HexFormat.of().formatHex(sha256.digest()),
                gzipped.toByteArray(),
                Collections.unmodifiableSet(new TreeSet<>(entries.keySet())),
                bytes);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
