package io.camelkubeflow.trainer.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.Test;

class RuntimePackagesTest {
    @Test
    void everyRankPrintedThemButEachPackageAndTheGpusComeOnce() {
        String rank = String.join(
                "\n",
                RuntimePackages.PYTHON_MARK + " 3.11.7 (main) [GCC 12]",
                RuntimePackages.PACKAGES_MARK,
                "torch==2.7.0",
                "numpy==2.2.1",
                "",
                RuntimePackages.ACCELERATORS_MARK,
                "| NVIDIA H100 | 80GB |",
                "");
        RuntimePackages read = RuntimePackages.parse("deepspeed-distributed", rank + rank);
        assertEquals("3.11.7 (main) [GCC 12]", read.python());
        assertEquals(
                List.of(new RuntimePackages.Package("torch", "2.7.0"), new RuntimePackages.Package("numpy", "2.2.1")),
                read.packages());
        assertEquals("| NVIDIA H100 | 80GB |", read.accelerators());
    }

    @Test
    void withoutNvidiaSmiThereIsNoGpuText() {
        assertNull(RuntimePackages.parse("torch-distributed", RuntimePackages.PACKAGES_MARK + "\npip==24.0\n")
                .accelerators());
    }
}
