#!/usr/bin/python3
"""An independent Confluent client (librdkafka + Confluent's Python serdes) talking to healthmesh.

  produce BOOTSTRAP REGISTRY TOPIC KEY_SCHEMA_FILE VALUE_SCHEMA_FILE NAME
      registers the schemas through the registry and produces one health-state record keyed NAME
  consume BOOTSTRAP REGISTRY TOPIC NAME
      reads the topic until the record keyed NAME and prints key and value as one JSON line

Run with Debian's /usr/bin/python3 (python3-confluent-kafka, python3-avro).
"""
import datetime
import json
import sys
import time

from confluent_kafka.avro import AvroConsumer, AvroProducer, loads


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
        },
    )
    left = producer.flush(30)
    if left:
        sys.exit("could not deliver %d record(s)" % left)
    print("produced", name)


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
    consumer.subscribe([topic])
    deadline = time.time() + 60
    try:
        while time.time() < deadline:
            msg = consumer.poll(1.0)
            if msg is None:
                continue
            if msg.error():
                sys.exit("consumer error: %s" % msg.error())
            if msg.key() and msg.key().get("name") == name:
                print(json.dumps({"key": msg.key(), "value": msg.value()}, default=plain))
                return
        sys.exit("no record keyed %s in %s" % (name, topic))
    finally:
        consumer.close()


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    {"produce": produce, "consume": consume}[command](*args)
