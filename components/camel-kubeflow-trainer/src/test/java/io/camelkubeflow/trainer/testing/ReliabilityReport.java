package io.camelkubeflow.trainer.testing;

import java.util.List;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestPlan;

/** Prints the reliability figures as one table when a module's test run ends (registered as a JUnit listener). */
public class ReliabilityReport implements TestExecutionListener {
    @Override
    public void testPlanExecutionFinished(TestPlan testPlan) {
        List<ReliabilityFigures.Row> rows = ReliabilityFigures.rows();
        if (rows.isEmpty()) {
            return;
        }
        int checkWidth = Math.max(
                "check".length(),
                rows.stream().mapToInt(r -> r.check().length()).max().orElse(0));
        StringBuilder table = new StringBuilder("\nReliability figures (latest run of each check)\n");
        String format = "%-" + checkWidth + "s | %-6s | %-20s | %s%n";
        table.append(String.format(format, "check", "result", "recorded", "figures"));
        table.append("-".repeat(checkWidth + 40)).append('\n');
        for (ReliabilityFigures.Row row : rows) {
            table.append(
                    String.format(format, row.check(), row.held() ? "held" : "FAILED", row.recorded(), row.figures()));
        }
        System.out.print(table);
    }
}
