package io.healthmesh.schemas;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;

/**
 * Instants as ISO-8601 text, exactly as {@link Instant#toString} and {@link Instant#parse} word
 * and read them, without the general formatter: a status of 200,000 entities writes and reads a
 * time per row, and {@code java.time}'s formatter was a quarter of reading the answer. Anything
 * outside the years 0000-9999, or not in the plain form, goes to {@code java.time} itself.
 */
public final class IsoInstants {
  private static final long FIRST = -62_167_219_200L; // 0000-01-01T00:00:00Z
  private static final long LAST = 253_402_300_799L; // 9999-12-31T23:59:59Z
  private static final int SECONDS_PER_DAY = 86_400;

  private IsoInstants() {}

  /** The same text as {@link Instant#toString}. */
  public static String format(Instant instant) {
    long seconds = instant.getEpochSecond();
    if (seconds < FIRST || seconds > LAST) {
      return instant.toString();
    }
    LocalDate day = LocalDate.ofEpochDay(Math.floorDiv(seconds, SECONDS_PER_DAY));
    int time = (int) Math.floorMod(seconds, SECONDS_PER_DAY);
    int nanos = instant.getNano();
    StringBuilder text = new StringBuilder(30);
    digits(text, day.getYear(), 4).append('-');
    digits(text, day.getMonthValue(), 2).append('-');
    digits(text, day.getDayOfMonth(), 2).append('T');
    digits(text, time / 3600, 2).append(':');
    digits(text, time / 60 % 60, 2).append(':');
    digits(text, time % 60, 2);
    // as ISO_INSTANT: the fraction in groups of three digits, as many as it needs
    if (nanos != 0) {
      text.append('.');
      if (nanos % 1_000_000 == 0) {
        digits(text, nanos / 1_000_000, 3);
      } else if (nanos % 1000 == 0) {
        digits(text, nanos / 1000, 6);
      } else {
        digits(text, nanos, 9);
      }
    }
    return text.append('Z').toString();
  }

  /** The same instant as {@link Instant#parse}, which also words every error. */
  public static Instant parse(CharSequence text) {
    Instant plain = plain(text);
    return plain != null ? plain : Instant.parse(text);
  }

  /** {@code yyyy-MM-ddTHH:mm:ss[.f{1,9}]Z}, or null for anything else (java.time then decides). */
  private static Instant plain(CharSequence text) {
    int n = text.length();
    if (n < 20 || n > 30 || text.charAt(4) != '-' || text.charAt(7) != '-' || text.charAt(10) != 'T'
        || text.charAt(13) != ':' || text.charAt(16) != ':' || text.charAt(n - 1) != 'Z') {
      return null;
    }
    int year = number(text, 0, 4);
    int month = number(text, 5, 7);
    int dayOfMonth = number(text, 8, 10);
    int hour = number(text, 11, 13);
    int minute = number(text, 14, 16);
    int second = number(text, 17, 19);
    if (year < 0 || month < 0 || dayOfMonth < 0 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0
        || second > 59) {
      return null;
    }
    int nanos = 0;
    if (n > 20) {
      int digits = n - 21;
      if (text.charAt(19) != '.' || digits < 1 || digits > 9) {
        return null;
      }
      nanos = number(text, 20, n - 1);
      if (nanos < 0) {
        return null;
      }
      for (int i = digits; i < 9; i++) {
        nanos *= 10;
      }
    } else if (text.charAt(19) != 'Z') {
      return null;
    }
    try {
      long day = LocalDate.of(year, month, dayOfMonth).toEpochDay();
      return Instant.ofEpochSecond(day * SECONDS_PER_DAY + hour * 3600L + minute * 60L + second, nanos);
    } catch (DateTimeException e) {
      return null;
    }
  }

  /** The decimal digits from {@code start} to {@code end}, or -1 if any is not one. */
  private static int number(CharSequence text, int start, int end) {
    int value = 0;
    for (int i = start; i < end; i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value;
  }

  private static StringBuilder digits(StringBuilder text, int value, int width) {
    int start = text.length();
    text.append(value);
    for (int pad = width - (text.length() - start); pad > 0; pad--) {
      text.insert(start, '0');
    }
    return text;
  }
}
