package io.camelkubeflow.trainer.job;

/** How a value of a train field that is not plain lands in a request ({@link TrainFieldSetters}). */
@FunctionalInterface
interface TrainFieldSetter {
    /**
     * @param field the name the caller wrote the value under (an option, a header or a message field), for refusals
     */
    void apply(TrainRequest request, Object value, String field);
}
