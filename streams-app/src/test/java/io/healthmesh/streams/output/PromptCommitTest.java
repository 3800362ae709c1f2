package io.healthmesh.streams.output;


import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.junit.jupiter.api.Test;

/** A change is committed soon after it is forwarded; probes that change nothing leave commits alone. */
class PromptCommitTest {

  private long wallClock = 1_000_000;

  @Test
  void requestsACommitOnTheNextTick_onlyAfterAChange() {
    MockProcessorContext<String, Out> context = new MockProcessorContext<>();
    PromptCommit prompt = new PromptCommit(context, Duration.ofMillis(10), Duration.ofMillis(200), () -> wallClock);
    MockProcessorContext.CapturedPunctuator tick = context.scheduledPunctuators().get(0);
    assertThat(tick.getType()).isEqualTo(PunctuationType.WALL_CLOCK_TIME);
    assertThat(tick.getInterval()).isEqualTo(Duration.ofMillis(10));
    prompt.processed(wallClock - 5);

    tick.getPunctuator().punctuate(0);
    assertThat(context.committed()).as("nothing changed").isFalse();

    prompt.changed();
    prompt.changed();
    assertThat(context.committed()).as("changes wait for the tick, so a storm commits once per tick").isFalse();
    tick.getPunctuator().punctuate(10);
    assertThat(context.committed()).isTrue();

    context.resetCommit();
    tick.getPunctuator().punctuate(20);
    assertThat(context.committed()).as("already committed").isFalse();
  }

  @Test
  void leavesChangesToTheRegularCommit_whileTheTaskIsBehindItsInput() {
    MockProcessorContext<String, Out> context = new MockProcessorContext<>();
    PromptCommit prompt = new PromptCommit(context, Duration.ofMillis(10), Duration.ofMillis(200), () -> wallClock);
    MockProcessorContext.CapturedPunctuator tick = context.scheduledPunctuators().get(0);
    prompt.processed(wallClock - 5_000); // a backlog: this record reached the broker 5 s ago
    prompt.changed();
    tick.getPunctuator().punctuate(10);
    assertThat(context.committed()).isFalse();
    prompt.processed(wallClock - 150); // caught up
    tick.getPunctuator().punctuate(20);
    assertThat(context.committed()).as("the change still pending is committed").isTrue();
  }

  @Test
  void commitsAtOnce_whenTheDelayIsZero() {
    MockProcessorContext<String, Out> context = new MockProcessorContext<>();
    PromptCommit prompt = new PromptCommit(context, new PromptCommit.Timing(Duration.ZERO, Duration.ofMillis(200)));
    assertThat(context.scheduledPunctuators()).isEmpty();
    prompt.changed();
    assertThat(context.committed()).isTrue();
  }
}
