package io.healthmesh.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class IsoInstantsTest {
  private static final long YEAR_0 = -62_167_219_200L;
  private static final long YEAR_10000 = 253_402_300_800L;

  @Test
  void formatsAsInstantToString_atEveryPrecisionAndAtTheEdges() {
    for (Instant instant : instants()) {
      assertThat(IsoInstants.format(instant)).as(instant.toString()).isEqualTo(instant.toString());
    }
  }

  @Test
  void parsesWhatItFormats_toTheSameInstant() {
    for (Instant instant : instants()) {
      assertThat(IsoInstants.parse(IsoInstants.format(instant))).isEqualTo(instant);
    }
  }

  @Test
  void parsesAsInstantParse_whenTheTextIsNotThePlainForm() {
    for (String text : List.of("2026-12-03T17:40:00.5Z", "2026-12-03T17:40:00.123456789Z", "2026-12-03T23:59:60Z",
        "+12026-12-03T17:40:00Z", "2026-12-03T17:40:00+01:00", "2024-02-29T00:00:00Z",
        "2026-12-03T24:00:00Z", "2026-12-03T17:40:00.Z")) {
      assertThat(IsoInstants.parse(text)).as(text).isEqualTo(Instant.parse(text));
    }
  }

  @Test
  void refusesWhatInstantParseRefuses_withItsError() {
    for (String text : List.of("2026-02-30T00:00:00Z", "2026-13-01T00:00:00Z",
        "2026-12-03T17:40:00.1234567890Z", "2026-12-03 17:40:00Z", "yesterday", "",
        "2026-12-03T17:4a:00Z", "-026-12-03T17:40:00Z")) {
      assertThatThrownBy(() -> Instant.parse(text)).as(text).isInstanceOf(DateTimeParseException.class);
      assertThatThrownBy(() -> IsoInstants.parse(text)).as(text).isInstanceOf(DateTimeParseException.class);
    }
  }

  private static List<Instant> instants() {
    List<Instant> instants = new ArrayList<>(List.of(Instant.EPOCH, Instant.ofEpochSecond(YEAR_0),
        Instant.ofEpochSecond(YEAR_0 - 1), Instant.ofEpochSecond(YEAR_10000 - 1, 999_999_999),
        Instant.ofEpochSecond(YEAR_10000), Instant.ofEpochSecond(-1, 1), Instant.MIN, Instant.MAX,
        Instant.parse("2024-02-29T23:59:59.001Z")));
    SplittableRandom random = new SplittableRandom(7);
    for (int i = 0; i < 20_000; i++) {
      long seconds = random.nextLong(YEAR_0 - 1000, YEAR_10000 + 1000);
      int nanos = switch (i % 4) {
        case 0 -> 0;
        case 1 -> random.nextInt(1000) * 1_000_000;
        case 2 -> random.nextInt(1_000_000) * 1000;
        default -> random.nextInt(1_000_000_000);
      };
      instants.add(Instant.ofEpochSecond(seconds, nanos));
    }
    return instants;
  }
}
