package io.camelkubeflow.trainer.quarkus.it;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** TrainOnceTest on the packaged app: the jar, or the native executable with -Dnative. */
@QuarkusIntegrationTest
class TrainOnceIT extends TrainOnceTest {}
