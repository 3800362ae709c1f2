package io.healthmesh.registry;

/** A request the registry refuses, with Confluent's HTTP status and error code. */
final class RegistryError extends RuntimeException {
  final int httpStatus;
  final int errorCode;

  private RegistryError(int httpStatus, int errorCode, String message) {
    super(message);
    this.httpStatus = httpStatus;
    this.errorCode = errorCode;
  }

  static RegistryError subjectNotFound(String subject) {
    return new RegistryError(404, 40401, "Subject '" + subject + "' not found.");
  }

  static RegistryError versionNotFound(String subject, String version) {
    return new RegistryError(404, 40402, "Version " + version + " not found for subject '" + subject + "'.");
  }

  static RegistryError schemaNotFound(String what) {
    return new RegistryError(404, 40403, "Schema " + what + " not found.");
  }

  static RegistryError subjectConfigNotFound(String subject) {
    return new RegistryError(404, 40408,
        "Subject '" + subject + "' does not have subject-level compatibility configured");
  }

  static RegistryError incompatible(String detail) {
    return new RegistryError(409, 409,
        "Schema being registered is incompatible with an earlier schema for subject: " + detail);
  }

  static RegistryError invalidSchema(String detail) {
    return new RegistryError(422, 42201, "Invalid schema: " + detail);
  }

  static RegistryError invalidVersion(String version) {
    return new RegistryError(422, 42202,
        "The specified version '" + version + "' is not a valid version id. "
            + "Allowed values are between [1, 2^31-1] and the string \"latest\"");
  }

  static RegistryError invalidCompatibility(String level) {
    return new RegistryError(422, 42203, "Invalid compatibility level: " + level);
  }

  static RegistryError badRequest(String detail) {
    return new RegistryError(400, 400, detail);
  }

  static RegistryError notFound(String path) {
    return new RegistryError(404, 404, "HTTP 404 Not Found: " + path);
  }

  static RegistryError methodNotAllowed(String method) {
    return new RegistryError(405, 405, "HTTP 405 Method Not Allowed: " + method);
  }

  static RegistryError unauthorized() {
    return new RegistryError(401, 401, "Unauthorized: this registry needs HTTP basic authentication"
        + " (basic.auth.credentials.source, basic.auth.user.info)");
  }

  static RegistryError forbidden(String user, String method, String path) {
    return new RegistryError(403, 40301, "User " + user + " may read but not write: " + method + " " + path
        + " needs the role write");
  }

  static RegistryError storeError(String detail, Throwable cause) {
    RegistryError error = new RegistryError(500, 50001, "Error in the backend data store: " + detail);
    error.initCause(cause);
    return error;
  }

  static RegistryError storeTimeout(String detail) {
    return new RegistryError(500, 50002, "Operation timed out: " + detail);
  }
}
