package io.camelkubeflow.trainer.workspace;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;
import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipArchiveOutputStream;

/** Archives written entry by entry as a hostile sender would, and the catalogue of those a workspace must refuse. */
public final class HostileArchives {
    private HostileArchives() {}

    /** A tar entry to write: a file with content, or a link or special file of a type. */
    public record Item(String name, byte type, String content, String link) {
        public static Item file(String name, String content) {
            return new Item(name, TarConstants.LF_NORMAL, content, null);
        }

        public static Item link(String name, String target) {
            return new Item(name, TarConstants.LF_SYMLINK, "", target);
        }
    }

    /** A hostile archive and the words its refusal must hold. */
    public record Case(byte[] archive, String refusal) {}

    public static byte[] tarGz(Item... items) {
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
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    public static byte[] zip(String... namesAndContents) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipArchiveOutputStream zip = new ZipArchiveOutputStream(bytes)) {
            for (int i = 0; i < namesAndContents.length; i += 2) {
                zip.putArchiveEntry(new ZipArchiveEntry(namesAndContents[i]));
                zip.write(namesAndContents[i + 1].getBytes(StandardCharsets.UTF_8));
                zip.closeArchiveEntry();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** A tar.gz of 64 MiB of zeros: about 64 KiB, a ratio near 1000. */
    public static byte[] bomb() {
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
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** Every kind of hostile archive, each beside a train.py so only its hostile entry can be the reason. */
    public static Map<String, Case> catalogue() {
        Map<String, Case> cases = new LinkedHashMap<>();
        Item train = Item.file("train.py", "print(1)\n");
        cases.put("zip slip", new Case(zip("train.py", "", "../evil.py", "x"), "escapes the workspace root"));
        cases.put(
                "escape inside a path",
                new Case(tarGz(train, Item.file("a/../../evil.py", "x")), "escapes the workspace root"));
        cases.put("drive letter", new Case(zip("train.py", "", "C:/evil.py", "x"), "is an absolute path"));
        cases.put("absolute path", new Case(tarGz(train, Item.file("/etc/cron.d/evil", "x")), "is an absolute path"));
        cases.put(
                "link out of the root",
                new Case(tarGz(train, Item.link("data", "../../etc")), "outside the workspace"));
        cases.put(
                "absolute link", new Case(tarGz(train, Item.link("passwd", "/etc/passwd")), "absolute or empty path"));
        cases.put(
                "link through a link",
                new Case(tarGz(train, Item.link("here", "."), Item.link("out", "here/..")), "outside the workspace"));
        cases.put(
                "entry beneath a link",
                new Case(
                        tarGz(train, Item.link("sub", "."), Item.file("sub/x.py", "")),
                        "lies beneath the symbolic link"));
        cases.put(
                "hard link out",
                new Case(
                        tarGz(train, new Item("shadow", TarConstants.LF_LINK, "", "/etc/shadow")),
                        "is a hard link to '/etc/shadow'"));
        cases.put(
                "character device",
                new Case(tarGz(train, new Item("tty", TarConstants.LF_CHR, "", null)), "is a device"));
        cases.put(
                "block device", new Case(tarGz(train, new Item("disk", TarConstants.LF_BLK, "", null)), "is a device"));
        cases.put("fifo", new Case(tarGz(train, new Item("pipe", TarConstants.LF_FIFO, "", null)), "is a device"));
        cases.put("NUL in a name", new Case(zip("train.py", "", "bad\0name.py", ""), "control character"));
        cases.put("new line in a name", new Case(zip("train.py", "", "line\nbreak.py", ""), "control character"));
        // a zip made on Windows may use '\\' as its separator (read as '/'); in a tar it is part of the name
        cases.put("backslash in a tar name", new Case(tarGz(train, Item.file("dir\\train.py", "")), "backslash"));
        cases.put(
                "name over 255 bytes",
                new Case(zip("train.py", "", "x".repeat(256) + ".py", ""), "longer than 255 bytes"));
        cases.put("same path twice", new Case(zip("train.py", "1", "train.py", "2"), "appears twice"));
        cases.put("decompression bomb", new Case(bomb(), "decompression bomb"));
        cases.put(
                "not an archive",
                new Case("print(1)".getBytes(StandardCharsets.UTF_8), "not a zip, a tar or a tar.gz"));
        return cases;
    }
}
