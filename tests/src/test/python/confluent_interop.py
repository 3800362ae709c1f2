#!/usr/bin/python3
"""An independent Confluent client (librdkafka + Confluent's Python serdes) talking to healthmesh.

  produce BOOTSTRAP REGISTRY TOPIC KEY_SCHEMA_FILE VALUE_SCHEMA_FILE NAME
      registers the schemas through the registry and produces one health-state record keyed NAME
  consume BOOTSTRAP REGISTRY TOPIC NAME
      reads the topic until the record keyed NAME and prints key and value as one JSON line
  consume-string-keys BOOTSTRAP REGISTRY TOPIC NAME
      the same for a topic whose keys are plain UTF-8 (every topic but health-state and
      health-transitions): a plain Consumer, values decoded by Confluent's MessageSerializer
  probes BOOTSTRAP REGISTRY VALUE_SCHEMA_FILE KEYS SERVICE ENDPOINT COUNT
      produces COUNT successful probe results with the client's default partitioner; KEYS is
      "plain" (the service name as UTF-8, value framed by Confluent's MessageSerializer) or
      "avro" (AvroProducer, which frames the key too, with the schema "string")

Run with Debian's /usr/bin/python3 (python3-confluent-kafka, python3-avro).
"""
import datetime
import json
import sys
import time

from confluent_kafka import Consumer, Producer
from confluent_kafka.avro import AvroConsumer, AvroProducer, CachedSchemaRegistryClient, loads
from confluent_kafka.avro.serializer.message_serializer import MessageSerializer


def produce(bootstrap, registry, topic, key_schema_file, value_schema_file, name):
    with open(key_schema_file) as f:
        key_schema = loads(f.read())
    with open(value_schema_file) as f:
        value_schema = loads(f.read())
    producer = AvroProducer(
        {"bootstrap.servers": bootstrap, "schema.registry.url": registry},
        default_key_schema=key_schema,
        default_value_schema=value_schema,
    )
    since = datetime.datetime(2026, 11, 30, 12, 0, 0, 123000, tzinfo=datetime.timezone.utc)
    producer.produce(
        topic=topic,
        key={"kind": "COMPOSITE_HEALTH_CHECK", "name": name},
        value={
            "status": "UNHEALTHY",
            "since": since,
            "region": "europe-west1",
            "healthyCount": 1,
            "unhealthyCount": 9,
            "unknownCount": 0,
            "version": 42,
            "sourceOffset": 1234,
            # Python's avro writer fills no default in: every field the schema has is given
            "lastKnownStatus": None,
            "probers": [],
        },
    )
    left = producer.flush(30)
    if left:
        sys.exit("could not deliver %d record(s)" % left)
    print("produced", name)


def consume_string_keys(bootstrap, registry, topic, name):
    serializer = MessageSerializer(CachedSchemaRegistryClient({"url": registry}))
    consumer = Consumer({
        "bootstrap.servers": bootstrap,
        "group.id": "python-interop-%d" % time.time_ns(),
        "auto.offset.reset": "earliest",
    })
    read_until(consumer, topic, name, lambda msg: msg.key().decode("utf-8") if msg.key() is not None else None,
               lambda msg: serializer.decode_message(msg.value()))


def probes(bootstrap, registry, value_schema_file, keys, service, endpoint, count):
    with open(value_schema_file) as f:
        value_schema = loads(f.read())
    config = {"bootstrap.servers": bootstrap}
    topic = "probe-results"

    def result(i):
        return {"type": "RESULT", "backendService": service, "endpointId": endpoint, "success": True,
                "eventTime": datetime.datetime.now(datetime.timezone.utc), "prober": "python-" + keys,
                "latencyMicros": 1000 + i, "detail": ""}

    if keys == "avro":
        config["schema.registry.url"] = registry
        producer = AvroProducer(config, default_key_schema=loads('{"type": "string"}'),
                                default_value_schema=value_schema)
        for i in range(int(count)):
            producer.produce(topic=topic, key=service, value=result(i))
    else:
        serializer = MessageSerializer(CachedSchemaRegistryClient({"url": registry}))
        producer = Producer(config)
        for i in range(int(count)):
            producer.produce(topic, key=service.encode("utf-8"),
                             value=serializer.encode_record_with_schema(topic, value_schema, result(i)))
    left = producer.flush(30)
    if left:
        sys.exit("could not deliver %d record(s)" % left)
    print("produced", count)


def plain(value):
    if isinstance(value, datetime.datetime):
        return int(value.timestamp() * 1000)
    raise TypeError(repr(value))


def consume(bootstrap, registry, topic, name):
    consumer = AvroConsumer({
        "bootstrap.servers": bootstrap,
        "schema.registry.url": registry,
        "group.id": "python-interop-%d" % time.time_ns(),
        "auto.offset.reset": "earliest",
    })
    read_until(consumer, topic, name, lambda msg: msg.key(), lambda msg: msg.value())


def read_until(consumer, topic, name, key_of, value_of):
    """Reads topic until the record whose key names `name`; prints key and value as one JSON line."""
    consumer.subscribe([topic])
    deadline = time.time() + 60
    try:
        while time.time() < deadline:
            msg = consumer.poll(1.0)
            if msg is None:
                continue
            if msg.error():
                sys.exit("consumer error: %s" % msg.error())
            key = key_of(msg)
            if key == name or isinstance(key, dict) and key.get("name") == name:
                print(json.dumps({"key": key, "value": value_of(msg)}, default=plain))
                return
        sys.exit("no record keyed %s in %s" % (name, topic))
    finally:
        consumer.close()


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    {"produce": produce, "consume": consume, "consume-string-keys": consume_string_keys,
     "probes": probes}[command](*args)
