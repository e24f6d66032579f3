package io.camelkubeflow.trainer.routes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.camelkubeflow.trainer.KubeflowTrainerConstants;
import io.camelkubeflow.trainer.support.InvalidOptionException;
import io.camelkubeflow.trainer.workspace.Workspace;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;

/**
 * A workspace's manifest is read as strictly as a request message: a byte that is not UTF-8, a key given twice or half
 * of a surrogate pair is refused naming where it is, never read into a request.
 */
class WorkspaceUploadTest {
    @Test
    void aManifestIsReadIntoTheHeadersOfItsFields() throws IOException {
        Exchange exchange = upload(archive("pythonFile: train.py\nnumNodes: 2\nlabels:\n  team: vision\n"));
        assertEquals("train.py", exchange.getMessage().getHeader(KubeflowTrainerConstants.PYTHON_FILE));
        assertEquals(2, exchange.getMessage().getHeader(KubeflowTrainerConstants.NUM_NODES));
        assertTrue(exchange.getMessage().getBody() instanceof Workspace);
    }

    @Test
    void aManifestThatIsNotUtf8IsRefusedWhereTheByteIs() throws IOException {
        ByteArrayOutputStream manifest = new ByteArrayOutputStream();
        manifest.writeBytes("pythonFile: train.py\nlabels:\n  team: vi".getBytes(StandardCharsets.UTF_8));
        manifest.write(0xff);
        manifest.writeBytes("sion\n".getBytes(StandardCharsets.UTF_8));
        InvalidOptionException refused =
                assertThrows(InvalidOptionException.class, () -> upload(archive(manifest.toByteArray())));
        assertEquals(WorkspaceUpload.MANIFEST, refused.getField());
        assertTrue(refused.getMessage().contains("is not UTF-8: the byte 0xff at offset 39"), refused.getMessage());
    }

    @Test
    void aManifestKeyGivenTwiceIsRefused() throws IOException {
        InvalidOptionException refused = assertThrows(
                InvalidOptionException.class, () -> upload(archive("pythonFile: train.py\npythonFile: other.py\n")));
        assertEquals(WorkspaceUpload.MANIFEST, refused.getField());
        assertTrue(refused.getMessage().contains("duplicate key pythonFile"), refused.getMessage());
    }

    @Test
    void halfOfASurrogatePairInAManifestIsRefusedNamingItsField() throws IOException {
        InvalidOptionException refused = assertThrows(
                InvalidOptionException.class,
                () -> upload(archive("pythonFile: train.py\nannotations:\n  note: \"\\ud800\"\n")));
        assertEquals("annotations.note", refused.getField(), refused.getMessage());
    }

    private static Exchange upload(byte[] archive) {
        WorkspaceUpload upload = new WorkspaceUpload();
        upload.requestMessage = new TrainRequestMessage();
        Exchange exchange = new DefaultExchange(new DefaultCamelContext());
        exchange.getMessage().setBody(archive);
        upload.apply(exchange);
        return exchange;
    }

    private static byte[] archive(String manifest) throws IOException {
        return archive(manifest.getBytes(StandardCharsets.UTF_8));
    }

    /** A zip of train.py and the manifest. */
    private static byte[] archive(byte[] manifest) throws IOException {
        ByteArrayOutputStream zip = new ByteArrayOutputStream();
        try (ZipOutputStream out = new ZipOutputStream(zip)) {
            out.putNextEntry(new ZipEntry("train.py"));
            out.write("print(1)\n".getBytes(StandardCharsets.UTF_8));
            out.putNextEntry(new ZipEntry(WorkspaceUpload.MANIFEST));
            out.write(manifest);
        }
        return zip.toByteArray();
    }
}
