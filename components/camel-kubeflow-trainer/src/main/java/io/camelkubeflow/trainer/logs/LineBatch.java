package io.camelkubeflow.trainer.logs;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * Lines of one step gathered to be handed on together: when a line of another step comes, when {@code max} are held,
 * and when flushed. What is handed on is the batch's own list, valid during the call only.
 */
public final class LineBatch {
    private final int max;
    private final BiConsumer<String, List<String>> handOn;
    private final List<String> texts = new ArrayList<>();
    private String step;

    /** @param handOn receives a batch: its step and its lines, in order */
    public LineBatch(int max, BiConsumer<String, List<String>> handOn) {
        this.max = Math.max(1, max);
        this.handOn = handOn;
    }

    public void add(String lineStep, String text) {
        if (!texts.isEmpty() && !lineStep.equals(step)) {
            flush();
        }
        step = lineStep;
        texts.add(text);
        if (texts.size() >= max) {
            flush();
        }
    }

    /** Hands on what is held, if anything. */
    public void flush() {
        if (texts.isEmpty()) {
            return;
        }
        try {
            handOn.accept(step, texts);
        } finally {
            texts.clear();
        }
    }
}
