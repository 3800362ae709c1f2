package io.healthmesh.schemas;

/**
 * A schema registry answered with an error, or could not be reached. Carries Confluent's error
 * code (40401, 40403, 409, 42201, ...) so that callers can tell "not found" from "incompatible".
 */
public class RegistryException extends RuntimeException {
  public static final int SUBJECT_NOT_FOUND = 40401;
  public static final int VERSION_NOT_FOUND = 40402;
  public static final int SCHEMA_NOT_FOUND = 40403;
  public static final int INCOMPATIBLE = 409;
  public static final int INVALID_SCHEMA = 42201;
  /** Not a registry code: the registry could not be reached or answered something unreadable. */
  public static final int UNREACHABLE = -1;

  private final int httpStatus;
  private final int errorCode;

  public RegistryException(int httpStatus, int errorCode, String message) {
    super(message + " (error_code " + errorCode + ", HTTP " + httpStatus + ")");
    this.httpStatus = httpStatus;
    this.errorCode = errorCode;
  }

  public RegistryException(String message, Throwable cause) {
    super(message, cause);
    this.httpStatus = -1;
    this.errorCode = UNREACHABLE;
  }

  public int httpStatus() {
    return httpStatus;
  }

  public int errorCode() {
    return errorCode;
  }

  /**
   * The registry could not answer now (unreachable, a 5xx store error, overloaded): asking again
   * later may succeed, so the data it was asked about is not at fault.
   */
  public boolean isTransient() {
    return errorCode == UNREACHABLE || httpStatus >= 500 || httpStatus == 408 || httpStatus == 429;
  }
}
