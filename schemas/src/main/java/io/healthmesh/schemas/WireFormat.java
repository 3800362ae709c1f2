package io.healthmesh.schemas;

/** The Confluent wire format: magic byte 0, a 4-byte big-endian schema id, then the Avro body. */
public final class WireFormat {
  public static final byte MAGIC_BYTE = 0;
  public static final int HEADER_SIZE = 5;

  private WireFormat() {}

  /** Writes the header into the first {@link #HEADER_SIZE} bytes of {@code target}. */
  public static void writeHeader(byte[] target, int schemaId) {
    target[0] = MAGIC_BYTE;
    target[1] = (byte) (schemaId >>> 24);
    target[2] = (byte) (schemaId >>> 16);
    target[3] = (byte) (schemaId >>> 8);
    target[4] = (byte) schemaId;
  }

  /**
   * Returns the schema id of a framed message.
   *
   * @throws AvroDeserializationException with reason BAD_MAGIC_BYTE when the frame is not ours
   */
  public static int schemaId(String topic, byte[] data) {
    if (data.length < HEADER_SIZE) {
      throw new AvroDeserializationException(AvroDeserializationException.Reason.BAD_MAGIC_BYTE, topic,
          "record has " + data.length + " bytes, fewer than the 5-byte Confluent header", null);
    }
    if (data[0] != MAGIC_BYTE) {
      throw new AvroDeserializationException(AvroDeserializationException.Reason.BAD_MAGIC_BYTE, topic,
          String.format("first byte is 0x%02x, expected magic byte 0x00", data[0]), null);
    }
    return (data[1] & 0xFF) << 24 | (data[2] & 0xFF) << 16 | (data[3] & 0xFF) << 8 | data[4] & 0xFF;
  }
}
